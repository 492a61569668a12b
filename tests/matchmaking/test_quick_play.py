"""Quick play (docs/accounts.md, "Quick play"): Matchmake matches accounts of close
rating with each other, fills what is still empty after the wait with house levels,
and the game is rated; LeaveQueue and a dropped call leave the queue; bad calls get
INVALID_ARGUMENT, UNAUTHENTICATED, NOT_FOUND, FAILED_PRECONDITION or
RESOURCE_EXHAUSTED. On the in-memory store with SQLite and on Redis with PostgreSQL,
over gRPC and HTTP."""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest

from gamehost import Client, GameError
from gamehost.v1 import gamehost_pb2 as pb
from services.matchmaking.config import QuickPlayConfig
from services.server import ServerThread
from tests.accounts.test_events import Watcher
from tests.fixtures.http_client import Http
from tests.matchmaking.conftest import config
from tests.polling import wait_until

QUICK = QuickPlayConfig(wait=60.0, house=("random", "greedy"))


def _server(backing: dict, **quick) -> ServerThread:
    return ServerThread(config(backing, quick_play=dataclasses.replace(QUICK, **quick)))


def _refused(call) -> grpc.StatusCode:
    with pytest.raises(GameError) as refused:
        call()
    return refused.value.code


def _queued(server: ServerThread) -> list[str]:
    """The accounts in the server's queues, as the store holds them."""
    store = server.running.store
    names = server.call(store.queue_names())
    return [t.account for q in names for t in server.call(store.queue_tickets(q))]


def test_two_accounts_are_matched_with_each_other(backing):
    with _server(backing) as server, Client(server.target) as anyone:
        keys = {n: anyone.create_account(n).key for n in ("alice", "bob")}
        players = {n: Client(server.target, key=k) for n, k in keys.items()}
        try:
            with ThreadPoolExecutor(2) as pool:
                calls = {n: pool.submit(c.matchmake, "cite", 2) for n, c in players.items()}
                answers = {n: call.result(timeout=120) for n, call in calls.items()}
            alice, bob = answers["alice"], answers["bob"]
            assert alice.game_id == bob.game_id and {alice.seat, bob.seat} == {0, 1}
            assert (alice.bots, alice.rated) == (0, True)
            assert players["alice"].my_seat(alice.game_id).token == alice.token
            state = anyone.state(alice.game_id, alice.token)
            assert state.viewer_seat == alice.seat
            assert {s.account for s in state.seats} == {"alice", "bob"}
            assert _queued(server) == []
        finally:
            for client in players.values():
                client.close()


def test_seats_still_empty_after_the_wait_get_house_levels_and_the_game_is_rated(backing):
    with _server(backing, wait=0.5) as server, Client(server.target) as anyone:
        key = anyone.create_account("carol").key
        with Client(server.target, key=key) as carol:
            matched = carol.matchmake("cite", 2)
            assert (matched.bots, matched.rated) == (1, True)
            state = anyone.state(matched.game_id)
            assert state.timer.move_seconds == QUICK.move_seconds  # an absent player stalls nobody
            (bot,) = [s for i, s in enumerate(state.seats) if i != matched.seat]
            assert bot.kind == pb.BOT and bot.bot_level in QUICK.house
            carol.hand_over(matched.game_id, matched.token, "random")  # plays to its end
            rating = wait_until(lambda: carol.account("carol").ratings, 120, "carol's rating")
            assert [(r.game_type, r.players, r.games) for r in rating] == [("cite", 2, 1)]
            # Its event stream, first opened now the game is over, tells its start and
            # its end with the rating change (quick play recorded the start, as JoinGame).
            events = Watcher(carol)
            try:
                finished, before = events.until(pb.PLAYER_GAME_FINISHED, matched.game_id)
            finally:
                events.close()
            told = [*before, finished]
            assert [(e.kind, e.game_id, e.seat) for e in told] == [
                (pb.PLAYER_GAME_STARTED, matched.game_id, matched.seat),
                (pb.PLAYER_GAME_FINISHED, matched.game_id, matched.seat),
            ]
            # A newcomer's ordinal was 0: the change is the ordinal now.
            assert told[-1].rating_change == pytest.approx(rating[0].ordinal, abs=1e-6)
            assert told[-1].rating_change != 0


def test_leave_queue_ends_the_waiting_call_and_a_dropped_call_leaves(backing):
    with _server(backing) as server, Client(server.target) as anyone:
        key = anyone.create_account("dave").key
        with Client(server.target, key=key) as dave, ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(dave.matchmake, "catan", 4)
            wait_until(lambda: _queued(server) == ["dave"], 30, "dave queued")
            left = dave.leave_queue()
            assert (left.game_type, left.players) == ("catan", 4)
            with pytest.raises(GameError) as ended:
                waiting.result(timeout=30)
            assert ended.value.code == grpc.StatusCode.ABORTED
            assert _refused(dave.leave_queue) == grpc.StatusCode.NOT_FOUND
            # A call whose client goes away (here: its deadline) leaves the queue.
            assert _refused(lambda: dave.matchmake("catan", 4, wait_timeout=1.0)) == (
                grpc.StatusCode.DEADLINE_EXCEEDED
            )
            wait_until(lambda: _queued(server) == [], 30, "the dropped call's ticket gone")


def test_bad_calls_are_refused_and_change_nothing(backing):
    quick = {"per_queue": 1, "calls_per_minute": 5}
    server = _server(backing, **quick)
    with server, Client(server.target) as anyone, ThreadPoolExecutor(1) as pool:
        keys = {n: anyone.create_account(n).key for n in ("erin", "finn")}
        erin = Client(server.target, key=keys["erin"])
        finn = Client(server.target, key=keys["finn"])
        try:
            assert _refused(lambda: anyone.matchmake("cite", 2)) == (
                grpc.StatusCode.UNAUTHENTICATED
            )
            assert _refused(lambda: erin.matchmake("chess", 2)) == (
                grpc.StatusCode.INVALID_ARGUMENT
            )
            assert _refused(lambda: erin.matchmake("cite", 9)) == (grpc.StatusCode.INVALID_ARGUMENT)
            assert _refused(erin.leave_queue) == grpc.StatusCode.NOT_FOUND
            waiting = pool.submit(erin.matchmake, "catan", 3)
            wait_until(lambda: _queued(server) == ["erin"], 30, "erin queued")
            assert _refused(lambda: erin.matchmake("cite", 2)) == (
                grpc.StatusCode.FAILED_PRECONDITION  # one queue at a time
            )
            assert _refused(lambda: finn.matchmake("catan", 3)) == (
                grpc.StatusCode.RESOURCE_EXHAUSTED  # that queue holds its most (1)
            )
            assert _queued(server) == ["erin"]
            erin.leave_queue()
            with pytest.raises(GameError):
                waiting.result(timeout=30)
            # 5 queue calls a minute per client (an address: all of these) were made.
            assert _refused(erin.leave_queue) == grpc.StatusCode.RESOURCE_EXHAUSTED
        finally:
            erin.close()
            finn.close()


def test_http_queue_routes(backing):
    with _server(backing, wait=0.2) as server, Client(server.target) as anyone:
        key = anyone.create_account("gina").key
        http = Http(server.running.http_url)
        try:
            auth = {"Authorization": f"Bearer {key}"}
            answer = http.post("/v1/me/queue", {"gameType": "cite", "players": 2}, headers=auth)
            assert answer.status == 200, answer.body
            body = answer.json()
            assert set(body) >= {"gameId", "seat", "token"} and body["bots"] == 1
            assert http.request("DELETE", "/v1/me/queue", headers=auth).status == 404
            refused = http.post("/v1/me/queue", {"gameType": "no", "players": 2}, headers=auth)
            assert (refused.status, refused.json()["error"]["field"]) == (400, "gameType")
            assert http.post("/v1/me/queue", {"gameType": "cite", "players": 2}).status == 401
        finally:
            http.close()
