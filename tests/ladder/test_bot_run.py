"""``gamehost bot run``'s runner (gamehost/runner.py) against a stand-in ladder: a
grpc.aio server whose ConnectBot streams the directives a test gives it and whose
BotReply answers every reply as played (or refuses it as the test says). What a real
ladder does with the answers is tests/ladder/test_runners.py's; here, what the runner
sends: answers in order, the late ones reported late and not taken for the next act's,
a hung copy started again, overlong lines cut, games held apart by copies, a broken
connection made again, and a reply the server could not take (UNAVAILABLE) sent
again."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import grpc

from gamehost import Client
from gamehost import runner as bot_run
from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from tests.polling import eventually

D = pb.BotDirective
BOT = Path(__file__).with_name("bots") / "scripted_bot.py"
WAIT = 60  # seconds: only a broken runner takes this long


class StandIn(pb_grpc.GameHostServicer):
    """The ladder as a runner sees it, one connection at a time: the directives put in
    ``out`` (None ends the stream), each reply recorded in ``replies`` and answered as
    played, or refused with the next status code in ``refusals`` (or for its version)."""

    def __init__(self) -> None:
        self.out: asyncio.Queue[pb.BotDirective | None] = asyncio.Queue()
        self.replies: asyncio.Queue[pb.BotReplyRequest] = asyncio.Queue()
        # Each connection's request, and its authorization metadata (the key's place).
        self.connects: asyncio.Queue[tuple[pb.ConnectBotRequest, str]] = asyncio.Queue()
        self.reply_auth: list[str] = []  # each reply's authorization metadata
        self.refusals: list[grpc.StatusCode] = []
        self.refused_versions: set[int] = set()  # replies to these: RESOURCE_EXHAUSTED

    async def ConnectBot(self, request, context) -> AsyncIterator[pb.BotDirective]:
        self.connects.put_nowait((request, _authorization(context)))
        yield D(kind=D.WELCOME, message="stand-in")
        while (item := await self.out.get()) is not None:
            yield item

    async def BotReply(self, request, context) -> pb.BotReplyResponse:
        self.replies.put_nowait(request)
        self.reply_auth.append(_authorization(context))
        if self.refusals:
            code = self.refusals.pop(0)
            await context.abort(code, f"refused with {code.name}")
        if request.version in self.refused_versions:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "refused: over a limit")
        return pb.BotReplyResponse(outcome=pb.BotReplyResponse.PLAYED)

    def send(self, kind: int, game_id: str, line: dict, version: int = 0, ms_left: int = 0):
        directive = D(
            kind=kind, game_id=game_id, line=json.dumps(line), version=version, ms_left=ms_left
        )
        self.out.put_nowait(directive)

    def start(self, game_id: str) -> None:
        line = {"type": "start", "game_id": game_id, "game_type": "cite", "players": 2, "seat": 0}
        self.send(D.START, game_id, {**line, "options": {}})

    def act(self, game_id: str, version: int, legal_id: int, ms_left: int = 10_000) -> None:
        legal = [{"id": legal_id, "notation": f"move {legal_id}"}]
        line = {"type": "act", "game_id": game_id, "seat": 0, "state": {}, "legal": legal}
        self.send(D.ACT, game_id, {**line, "ms_left": ms_left}, version, ms_left)

    async def reply(self) -> pb.BotReplyRequest:
        async with asyncio.timeout(WAIT):
            return await self.replies.get()


@contextlib.asynccontextmanager
async def running(*bot_args: str, concurrency: int = 1, retries: int = 0) -> AsyncIterator[StandIn]:
    """The stand-in, and a runner on it (its client retrying ``retries`` times)."""
    stand_in = StandIn()
    server = grpc.aio.server()
    pb_grpc.add_GameHostServicer_to_server(stand_in, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    cmd = " ".join([sys.executable, str(BOT), *bot_args])
    args = argparse.Namespace(key="ghb_test", cmd=cmd, concurrency=concurrency, stats=None)
    client = Client(f"127.0.0.1:{port}", retries=retries, backoff=0.01)
    with client:
        task = asyncio.create_task(bot_run.Runner(client, args).run())
        try:
            yield stand_in
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await server.stop(None)


def _authorization(context: grpc.aio.ServicerContext) -> str:
    return dict(context.invocation_metadata() or ()).get("authorization", "")


def _answer(reply: pb.BotReplyRequest) -> dict:
    assert not reply.error, reply
    return json.loads(reply.line)


async def test_answers_go_back_in_order_as_botreply_calls_with_the_key():
    async with running("ok") as ladder:
        connect, authorization = await asyncio.wait_for(ladder.connects.get(), WAIT)
        assert (connect.concurrency, connect.protocol) == (1, 1)
        # The key is a bearer token in the metadata, as over HTTP, and in no request.
        assert authorization == "Bearer ghb_test" and not connect.key
        ladder.start("g1")
        ladder.act("g1", 1, legal_id=11)
        first = await ladder.reply()
        assert (first.game_id, first.version, _answer(first)["id"]) == ("g1", 1, 11)
        assert ladder.reply_auth == ["Bearer ghb_test"] and not first.key
        ladder.act("g1", 3, legal_id=33)
        second = await ladder.reply()
        assert (second.version, _answer(second)["id"]) == (3, 33)


async def test_a_late_answer_is_reported_late_and_not_taken_for_the_next_acts():
    async with running("slow") as ladder:
        ladder.start("g1")
        # ms_left 300: due at the least wait (0.1 s); the bot takes a second.
        ladder.act("g1", 1, legal_id=11, ms_left=300)
        late = await ladder.reply()
        assert late.version == 1 and late.error.startswith("late:") and not late.line
        ladder.act("g1", 3, legal_id=33)
        answer = await ladder.reply()
        assert (answer.version, _answer(answer)["id"]) == (3, 33)  # not the late 11


async def test_a_copy_silent_past_its_deadline_is_started_again(monkeypatch, capfd):
    monkeypatch.setattr(bot_run, "HANG_SECONDS", 0.2)
    async with running("silent") as ladder:
        ladder.start("g1")
        ladder.act("g1", 1, legal_id=11, ms_left=300)
        late = await ladder.reply()
        assert late.error.startswith("late:")
        ladder.act("g1", 3, legal_id=33, ms_left=300)  # the copy started again: late too
        again = await ladder.reply()
        assert (again.version, again.error[:5]) == (3, "late:")
    assert (
        "copy 0 hung (no answer 0.2 s past a deadline); starting it again" in capfd.readouterr().err
    )


async def test_an_overlong_line_is_cut_to_what_the_server_reads():
    async with running("long") as ladder:
        ladder.start("g1")
        ladder.act("g1", 1, legal_id=11)
        reply = await ladder.reply()
        assert not reply.error and len(reply.line) == bot_run.MAX_LINE + 1
        assert reply.line.startswith('{"id": 11')


async def test_each_game_stays_with_its_copy():
    async with running("ok", concurrency=2) as ladder:
        connect, _ = await asyncio.wait_for(ladder.connects.get(), WAIT)
        assert connect.concurrency == 2
        ladder.start("g1")
        ladder.start("g2")
        pids = {}
        for version in (1, 3):
            for game in ("g1", "g2"):
                ladder.act(game, version, legal_id=version)
                reply = await ladder.reply()
                assert (reply.game_id, reply.version) == (game, version)
                pids.setdefault(game, set()).add(_answer(reply)["pid"])
        assert len(pids["g1"]) == len(pids["g2"]) == 1  # each game with one copy
        assert pids["g1"] != pids["g2"]  # a game to each copy


async def test_a_broken_connection_is_made_again_and_its_game_goes_on(capfd):
    async with running("ok") as ladder:
        await asyncio.wait_for(ladder.connects.get(), WAIT)
        ladder.start("g1")
        ladder.act("g1", 1, legal_id=11)
        before = _answer(await ladder.reply())
        ladder.out.put_nowait(None)  # the server ends the stream
        _, again = await asyncio.wait_for(ladder.connects.get(), WAIT)
        assert again == "Bearer ghb_test"
        ladder.start("g1")  # sent again on a new connection: the game is known
        ladder.act("g1", 3, legal_id=33)
        after = _answer(await ladder.reply())
        assert after["id"] == 33 and after["pid"] == before["pid"]  # the same copy
    out = capfd.readouterr().out
    assert out.count("gamehost bot run: stand-in") == 2, out


async def test_a_reply_the_server_could_not_take_is_sent_again_and_a_refusal_is_not(capfd):
    # UNAVAILABLE (the server's store did not answer) is sent again with the client's
    # retries: the server plays an answer once however often it comes.
    async with running("ok", retries=3) as ladder:
        ladder.refusals = [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNAVAILABLE]
        ladder.start("g1")
        ladder.act("g1", 1, legal_id=11)
        sent = [await ladder.reply() for _ in range(3)]
        assert [(r.version, _answer(r)["id"]) for r in sent] == [(1, 11)] * 3
        ladder.refusals = [grpc.StatusCode.PERMISSION_DENIED]
        ladder.act("g1", 3, legal_id=33)
        refused = await ladder.reply()
        ladder.act("g1", 5, legal_id=55)
        after = await ladder.reply()  # the next answer, not the refused one again
        assert (refused.version, after.version, _answer(after)["id"]) == (3, 5, 55)
        # The stand-in has the reply when it is sent; the runner logs the refusal once it
        # hears it, which may be after it sent the next one.
        logged = ""

        def refusal_logged() -> bool:
            nonlocal logged
            logged += capfd.readouterr().err
            return "answer to g1 not taken: " in logged

        await eventually(refusal_logged, WAIT, "the runner to log the refusal")


async def test_a_refusal_that_is_not_the_bots_fault_is_sent_again_within_the_clock(capfd):
    # With no retries of its own, the client still sends the answer again while the
    # act's clock runs: the server was busy (UNAVAILABLE), over a rate limit
    # (RESOURCE_EXHAUSTED) or met another write (ABORTED).
    async with running("ok", retries=0) as ladder:
        ladder.refusals = [
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            grpc.StatusCode.ABORTED,
            grpc.StatusCode.UNAVAILABLE,
        ]
        ladder.start("g1")
        ladder.act("g1", 1, legal_id=11, ms_left=10_000)
        sent = [await ladder.reply() for _ in range(4)]
        assert [(r.version, _answer(r)["id"]) for r in sent] == [(1, 11)] * 4
        # Past the act's clock it is not sent again (the clock has played the move):
        # the runner goes on to the next act.
        ladder.refused_versions = {3}
        ladder.act("g1", 3, legal_id=33, ms_left=0)
        ladder.act("g1", 5, legal_id=55)
        versions = [(await ladder.reply()).version]
        while versions[-1] != 5:
            versions.append((await ladder.reply()).version)
        assert versions[0] == 3 and set(versions[:-1]) == {3}, versions
    assert "answer to g1 not taken: RESOURCE_EXHAUSTED" in capfd.readouterr().err
