"""PlayBot: a runner's directives and answers on one bidirectional call
(``Client.play_bot``, which ``gamehost bot run`` uses). The answers are BotReply's,
refusals included, and a refused reply leaves the stream open."""

from __future__ import annotations

import asyncio
import json
import queue
import threading

import grpc
import pytest
from prometheus_client import REGISTRY

from gamehost import Client, GameError
from gamehost.bot_link import BotLink
from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from tests.ladder.conftest import (
    answer_codes,
    ladder_server,
    next_directive,
    quick,
    wait_for_house_game,
)

D = pb.BotDirective
R = pb.BotReplyResponse
ANSWERS = "gamehost_ladder_answer_seconds_count"
SENT = "grpc_server_msg_sent_total"
PLAY_BOT = {
    "grpc_type": "bidi_stream",
    "grpc_service": "gamehost.v1.GameHost",
    "grpc_method": "PlayBot",
}


class Linked:
    """``Client.play_bot`` with its directives read on a thread of its own."""

    def __init__(self, client: Client, key: str, concurrency: int = 1) -> None:
        self.link = client.play_bot(key, concurrency)
        self.directives: queue.Queue = queue.Queue()
        self.read = 0  # directives the stream brought
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for directive in self.link.directives():
                self.read += 1
                self.directives.put(directive)
        except GameError as exc:
            self.directives.put(exc)
        self.directives.put(None)

    def next(self, kind: int | None = None, timeout: float = 60) -> pb.BotDirective:
        return next_directive(self.directives, kind, timeout)

    def close(self) -> None:
        self.link.close()
        self._thread.join(timeout=10)


def _raw(client: Client, *requests: pb.PlayBotRequest) -> grpc.StatusCode:
    """The status a PlayBot call made of ``requests`` ends with."""
    with grpc.insecure_channel(client.target) as channel:
        call = pb_grpc.GameHostStub(channel).PlayBot(iter(requests), timeout=30)
        try:
            for _ in call:
                pass
        except grpc.RpcError as exc:
            return exc.code()
    return grpc.StatusCode.OK


def test_directives_and_answers_share_one_call_and_a_refusal_leaves_it_open(sqlite_url):
    server = ladder_server(sqlite_url, quick())
    with server, Client(server.target) as client:
        key = client.register_bot("duplex", "cite", 2).key
        answered_before = REGISTRY.get_sample_value(ANSWERS) or 0.0
        sent_before = REGISTRY.get_sample_value(SENT, PLAY_BOT) or 0.0
        linked = Linked(client, key)
        welcome = linked.next()
        assert welcome.kind == D.WELCOME and welcome.bot == "duplex"
        start = json.loads(linked.next(D.START).line)
        game_id = start["game_id"]
        act = linked.next(D.ACT)
        assert act.game_id == game_id

        # Refused as BotReply refuses, the stream going on: another bot's game...
        house_game = wait_for_house_game(client)
        with pytest.raises(GameError) as refused:
            linked.link.reply(house_game, 1, '{"id": 0}')
        assert refused.value.code == grpc.StatusCode.PERMISSION_DENIED
        assert "own seats" in refused.value.details
        # ...and a version long gone: nothing played.
        stale = linked.link.reply(game_id, act.version + 7, '{"id": 0}')
        assert stale.outcome == R.STALE

        # Good answers to the end, each sent twice as a retry would be: played once.
        moves = 0
        while True:
            directive = linked.next()
            if directive.kind == D.END:
                break
            if directive.kind != D.ACT:
                continue
            first = json.loads(directive.line)["legal"][0]["id"]
            answer = linked.link.reply(game_id, directive.version, json.dumps({"id": first}))
            assert answer.outcome == R.PLAYED and answer.version > directive.version
            again = linked.link.reply(game_id, directive.version, json.dumps({"id": first}))
            assert (again.outcome, again.version) == (R.PLAYED, answer.version)
            moves += 1
        assert moves > 0
        # Every answer was timed on the server (the replies on the stream included).
        answered = REGISTRY.get_sample_value(ANSWERS) - answered_before
        assert answered == 2 + 2 * moves  # the refusal, the stale one, the moves twice
        linked.close()
        # The server counted every message it wrote on the call, directives and answers
        # (and maybe a directive written as the runner closed, never read).
        sent = REGISTRY.get_sample_value(SENT, PLAY_BOT) - sent_before
        assert sent >= linked.read + answered
        with pytest.raises(GameError) as closed:  # no reply after the runner closed
            linked.link.reply(game_id, 1, '{"id": 0}')
        assert closed.value.code == grpc.StatusCode.CANCELLED


def test_a_reply_over_the_keys_rate_is_refused_in_its_answer(sqlite_url):
    server = ladder_server(sqlite_url, quick(answers_per_second=1.0))
    with server, Client(server.target) as client:
        key = client.register_bot("eager", "cite", 2).key
        linked = Linked(client, key)
        act = linked.next(D.ACT)
        # a burst of 4, then one a second
        codes = answer_codes(lambda: linked.link.reply(act.game_id, act.version + 100, '{"id": 0}'))
        assert codes[:4] == ["ok"] * 4 and "RESOURCE_EXHAUSTED" in codes[4:]
        # The stream is still open: a revoke reaches it as PAUSED.
        client.revoke_bot("eager", key)
        assert "revoked" in linked.next(D.PAUSED).message
        linked.close()


def test_a_call_that_does_not_open_with_a_good_connect_is_refused(sqlite_url):
    server = ladder_server(sqlite_url, quick())
    with server, Client(server.target) as client:
        key = client.register_bot("opener", "cite", 2).key
        reply = pb.PlayBotRequest(reply=pb.BotReplyRequest(game_id="g", version=1, line="{}"))
        connect = pb.PlayBotRequest(connect=pb.ConnectBotRequest(key=key))
        assert _raw(client, reply) == grpc.StatusCode.INVALID_ARGUMENT
        assert _raw(client) == grpc.StatusCode.INVALID_ARGUMENT  # no request at all
        future = pb.PlayBotRequest(connect=pb.ConnectBotRequest(key=key, protocol=2))
        assert _raw(client, future) == grpc.StatusCode.FAILED_PRECONDITION
        wrong = pb.PlayBotRequest(connect=pb.ConnectBotRequest(key="ghb_not_a_key"))
        assert _raw(client, wrong) == grpc.StatusCode.UNAUTHENTICATED
        assert _raw(client, connect, connect) == grpc.StatusCode.INVALID_ARGUMENT  # twice
        with pytest.raises(GameError) as refused:
            next(iter(client.play_bot("ghb_not_a_key").directives()))
        assert refused.value.code == grpc.StatusCode.UNAUTHENTICATED


def test_a_runner_with_several_copies_has_its_replies_handled_side_by_side(sqlite_url):
    # With --concurrency N the copies answer independently: a reply still being handled
    # holds up none sent after it on the same call. Here the playable reply waits on the
    # server until the stale one sent after it has been handled.
    server = ladder_server(sqlite_url, quick())
    with server, Client(server.target) as client:
        key = client.register_bot("copies", "cite", 2).key
        linked = Linked(client, key, concurrency=2)
        act = linked.next(D.ACT)
        sessions = server.running.sessions
        handle = sessions.reply
        stale_handled = asyncio.Event()

        async def reply(key, game_id, version, line, error, last_round_trip_ms=0.0):
            if version == act.version:
                await asyncio.wait_for(stale_handled.wait(), 60)
            try:
                return await handle(key, game_id, version, line, error, last_round_trip_ms)
            finally:
                stale_handled.set()

        sessions.reply = reply  # before this test's first reply
        first = json.loads(act.line)["legal"][0]["id"]
        played: queue.Queue = queue.Queue()
        playing = threading.Thread(
            target=lambda: played.put(
                linked.link.reply(act.game_id, act.version, json.dumps({"id": first}))
            ),
            daemon=True,
        )
        playing.start()
        stale = linked.link.reply(act.game_id, act.version + 7, '{"id": 0}')
        assert stale.outcome == R.STALE
        answer = played.get(timeout=90)
        assert answer.outcome == R.PLAYED and answer.version > act.version
        linked.close()


class _StandIn:
    """The PlayBot call as ``BotLink`` sees it, answering each reply with the next of
    ``codes`` (0: played)."""

    def __init__(self, requests, codes: list[int]) -> None:
        self.requests = requests
        self.codes = codes
        self.sent: list[pb.BotReplyRequest] = []

    def __iter__(self):
        for request in self.requests:
            if request.HasField("connect"):
                yield pb.PlayBotResponse(directive=D(kind=D.WELCOME, bot="stand-in"))
                continue
            self.sent.append(request.reply)
            answer = pb.BotAnswer(game_id=request.reply.game_id, version=request.reply.version)
            answer.code = self.codes.pop(0)
            if answer.code:
                answer.message = f"refused with {answer.code}"
            else:
                answer.response.outcome = R.PLAYED
            yield pb.PlayBotResponse(answer=answer)

    def cancel(self) -> None:
        pass


def _linked(codes: list[int], retries: int) -> tuple[BotLink, _StandIn, threading.Thread]:
    calls: list[_StandIn] = []

    def method(requests, metadata):
        calls.append(_StandIn(requests, codes))
        return calls[-1]

    link = BotLink(method, "ghb_key", 1, (), timeout=30, retries=retries, delay=lambda n: 0.0)
    reading = threading.Thread(target=lambda: list(link.directives()), daemon=True)
    reading.start()
    return link, calls[0], reading


def test_an_unavailable_answer_is_sent_again_and_other_refusals_are_not():
    # UNAVAILABLE (the server's store did not answer) is retried, as BotReply calls
    # are: the answer is played once however often it is sent.
    link, call, reading = _linked([14, 14, 0, 7], retries=3)
    assert link.reply("g", 4, '{"id": 0}').outcome == R.PLAYED
    assert [r.version for r in call.sent] == [4, 4, 4]
    with pytest.raises(GameError) as refused:
        link.reply("g", 5, '{"id": 0}')
    assert refused.value.code == grpc.StatusCode.PERMISSION_DENIED
    assert len(call.sent) == 4
    link.close()
    reading.join(10)
    # Only so often: then the error is the caller's.
    link, call, reading = _linked([14] * 5, retries=2)
    with pytest.raises(GameError) as unavailable:
        link.reply("g", 6, '{"id": 0}')
    assert unavailable.value.code == grpc.StatusCode.UNAVAILABLE and len(call.sent) == 3
    link.close()
    reading.join(10)
