"""``gamehost bot run``'s runner (gamehost/runner.py) against a stand-in ladder: a
grpc.aio server whose PlayBot sends the directives a test gives it and answers every
reply as played. What a real ladder does with the answers is tests/ladder/test_runners.py's;
here, what the runner sends: answers in order, the late ones reported late and not
taken for the next act's, a hung copy started again, overlong lines cut, games held
apart by copies, and a broken connection made again. Each on both ways to the server:
PlayBot over gRPC, and the bot socket (services/gateway/bot_socket.py, in front of the
stand-in's PlayBot as a server's is in front of its own)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
import uvloop

from gamehost import Client
from gamehost import runner as bot_run
from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from services.api.grpc_api import method_handlers
from services.gateway.bot_socket import BotSocket
from services.gateway.calls import Dispatcher

D = pb.BotDirective
BOT = Path(__file__).with_name("bots") / "scripted_bot.py"
WAIT = 60  # seconds: only a broken runner takes this long


@pytest.fixture(scope="module", params=["uvloop", "asyncio"])
def event_loop_policy(request):
    """Each test on uvloop (what `bot run` uses where installed) and on asyncio's own."""
    return (
        uvloop.EventLoopPolicy() if request.param == "uvloop" else asyncio.DefaultEventLoopPolicy()
    )


@pytest.fixture(params=["grpc", "socket"])
def transport(request) -> str:
    return request.param


class StandIn(pb_grpc.GameHostServicer):
    """The ladder as a runner sees it, one connection at a time: the directives put in
    ``out`` (None ends the stream), each reply recorded in ``replies`` and answered."""

    def __init__(self) -> None:
        self.out: asyncio.Queue[pb.PlayBotResponse | None] = asyncio.Queue()
        self.replies: asyncio.Queue[pb.BotReplyRequest] = asyncio.Queue()
        self.connects: asyncio.Queue[pb.ConnectBotRequest] = asyncio.Queue()
        self.bot_port = 0  # GetLadder's: the bot socket's, when the test serves one

    async def GetLadder(self, request, context) -> pb.Ladder:
        return pb.Ladder(game_type="cite", players=2, bot_port=self.bot_port)

    async def PlayBot(self, requests, context) -> AsyncIterator[pb.PlayBotResponse]:
        opening = await anext(requests)
        self.connects.put_nowait(opening.connect)
        yield pb.PlayBotResponse(directive=D(kind=D.WELCOME, message="stand-in"))

        async def read() -> None:
            async for request in requests:
                reply = request.reply
                self.replies.put_nowait(reply)
                answer = pb.BotAnswer(game_id=reply.game_id, version=reply.version)
                answer.response.outcome = pb.BotReplyResponse.PLAYED
                self.out.put_nowait(pb.PlayBotResponse(answer=answer))

        reader = asyncio.create_task(read())
        try:
            while (item := await self.out.get()) is not None:
                yield item
        finally:
            reader.cancel()

    def send(self, kind: int, game_id: str, line: dict, version: int = 0, ms_left: int = 0):
        directive = D(
            kind=kind, game_id=game_id, line=json.dumps(line), version=version, ms_left=ms_left
        )
        self.out.put_nowait(pb.PlayBotResponse(directive=directive))

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
async def running(
    transport: str, *bot_args: str, concurrency: int = 1, dead_port: int = 0
) -> AsyncIterator[StandIn]:
    """The stand-in serving ``transport`` (grpc, socket, or auto: the socket if
    ``dead_port`` is not given as the port GetLadder says), and a runner on it."""
    stand_in = StandIn()
    server = grpc.aio.server()
    pb_grpc.add_GameHostServicer_to_server(stand_in, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    bot_socket = None
    if transport == "socket":
        bot_socket = BotSocket(Dispatcher(method_handlers(stand_in), []))
        stand_in.bot_port = await bot_socket.start("127.0.0.1", 0)
    if dead_port:
        stand_in.bot_port = dead_port
    cmd = " ".join([sys.executable, str(BOT), *bot_args])
    args = argparse.Namespace(
        key="ghb_test",
        cmd=cmd,
        concurrency=concurrency,
        stats=None,
        transport="auto" if dead_port else transport,
    )
    with Client(f"127.0.0.1:{port}", retries=0) as client:
        task = asyncio.create_task(bot_run.Runner(client, args).run())
        try:
            yield stand_in
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            if bot_socket is not None:
                await bot_socket.stop()
            await server.stop(None)


def _answer(reply: pb.BotReplyRequest) -> dict:
    assert not reply.error, reply
    return json.loads(reply.line)


async def test_answers_go_back_in_order_with_the_last_round_trip(transport):
    async with running(transport, "ok") as ladder:
        connect = await asyncio.wait_for(ladder.connects.get(), WAIT)
        assert (connect.key, connect.concurrency, connect.protocol) == ("ghb_test", 1, 1)
        ladder.start("g1")
        ladder.act("g1", 1, legal_id=11)
        first = await ladder.reply()
        assert (first.game_id, first.version, _answer(first)["id"]) == ("g1", 1, 11)
        assert first.last_round_trip_ms == 0.0  # none measured before the first
        ladder.act("g1", 3, legal_id=33)
        second = await ladder.reply()
        assert (second.version, _answer(second)["id"]) == (3, 33)
        assert second.last_round_trip_ms > 0.0  # not timed: the first one's, for pacing


async def test_a_late_answer_is_reported_late_and_not_taken_for_the_next_acts(transport):
    async with running(transport, "slow") as ladder:
        ladder.start("g1")
        # ms_left 300: due at the least wait (0.1 s); the bot takes a second.
        ladder.act("g1", 1, legal_id=11, ms_left=300)
        late = await ladder.reply()
        assert late.version == 1 and late.error.startswith("late:") and not late.line
        ladder.act("g1", 3, legal_id=33)
        answer = await ladder.reply()
        assert (answer.version, _answer(answer)["id"]) == (3, 33)  # not the late 11


async def test_a_copy_silent_past_its_deadline_is_started_again(transport, monkeypatch, capfd):
    monkeypatch.setattr(bot_run, "HANG_SECONDS", 0.2)
    async with running(transport, "silent") as ladder:
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


async def test_an_overlong_line_is_cut_to_what_the_server_reads(transport):
    async with running(transport, "long") as ladder:
        ladder.start("g1")
        ladder.act("g1", 1, legal_id=11)
        reply = await ladder.reply()
        assert not reply.error and len(reply.line) == bot_run.MAX_LINE + 1
        assert reply.line.startswith('{"id": 11')


async def test_each_game_stays_with_its_copy(transport):
    async with running(transport, "ok", concurrency=2) as ladder:
        connect = await asyncio.wait_for(ladder.connects.get(), WAIT)
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


async def test_a_broken_connection_is_made_again_and_its_game_goes_on(transport, capfd):
    async with running(transport, "ok") as ladder:
        await asyncio.wait_for(ladder.connects.get(), WAIT)
        ladder.start("g1")
        ladder.act("g1", 1, legal_id=11)
        before = _answer(await ladder.reply())
        ladder.out.put_nowait(None)  # the server ends the stream
        again = await asyncio.wait_for(ladder.connects.get(), WAIT)
        assert again.key == "ghb_test"
        ladder.start("g1")  # sent again on a new connection: the game is known
        ladder.act("g1", 3, legal_id=33)
        after = _answer(await ladder.reply())
        assert after["id"] == 33 and after["pid"] == before["pid"]  # the same copy
    out = capfd.readouterr().out
    way = "the bot socket 127.0.0.1:" if transport == "socket" else "PlayBot over gRPC"
    assert out.count(f"gamehost bot run: stand-in ({way}") == 2, out


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens there once it is closed


async def test_a_bot_socket_out_of_reach_is_left_for_playbot(capfd):
    async with running("grpc", "ok", dead_port=_closed_port()) as ladder:
        await asyncio.wait_for(ladder.connects.get(), WAIT)
        ladder.start("g1")
        ladder.act("g1", 1, legal_id=11)
        assert _answer(await ladder.reply())["id"] == 11
    captured = capfd.readouterr()
    assert "cannot connect to the bot socket 127.0.0.1:" in captured.err
    assert "using PlayBot over gRPC" in captured.err
    assert "gamehost bot run: stand-in (PlayBot over gRPC)" in captured.out


async def test_transport_socket_needs_a_server_with_one(capfd):
    server = grpc.aio.server()
    pb_grpc.add_GameHostServicer_to_server(StandIn(), server)  # GetLadder: bot_port 0
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    cmd = f"{sys.executable} {BOT} ok"
    args = argparse.Namespace(key="k", cmd=cmd, concurrency=1, stats=None, transport="socket")
    try:
        with Client(f"127.0.0.1:{port}", retries=0) as client:
            status = await asyncio.wait_for(bot_run.Runner(client, args).run(), WAIT)
    finally:
        await server.stop(None)
    assert status == 1
    assert "has no bot socket (serve --bot-port)" in capfd.readouterr().err
