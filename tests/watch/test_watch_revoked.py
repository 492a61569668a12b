"""A seat token's live feed ends when the token stops holding its seat (issue 27): a
WatchGame stream (gRPC) or an event stream (HTTP/SSE) opened with a seat's token
delivers the seat change that revokes the token, then ends with PERMISSION_DENIED
(HTTP: an ``rpc-error`` message, then the stream closes), never another view. For
each way a token loses its seat: HandOverSeat for good, a move timer that hands the
seat to its fallback bot for good, and a rejoin (a new token for the seat). Memory
and Redis stores, both transports."""

from __future__ import annotations

from typing import Any

import pytest

from gamehost import GameError, turn_timer
from gamehost.v1 import gamehost_pb2 as pb
from services.bots import bot_turns
from services.stores import CommitOutcome
from tests.fixtures.gateway import Served, as_json, gateway_config
from tests.procs import wait_until


@pytest.fixture(scope="module", params=["memory", "redis"])
def served(request):
    redis_url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    prefix = request.getfixturevalue("module_prefix") if redis_url else "gamehost"
    with Served(gateway_config(redis_url, prefix)) as served:
        yield served


@pytest.fixture(params=["grpc", "http"])
def transport(request) -> str:
    return request.param


class Watch:
    """One seat's feed over either transport: ``next()`` is the next event (as the
    gateway's JSON), or how the stream ended: ("ended", "") or (status, message)."""

    def __init__(self, served: Served, transport: str, game_id: str, token: str) -> None:
        self.transport = transport
        if transport == "grpc":
            self._events = served.client.watch(game_id, token)
        else:
            self._stream = served.http.stream(f"/v1/games/{game_id}/events?token={token}")
            assert self._stream.status == 200, self._stream.status
        # The first event: the stream is open, its viewer resolved (a gRPC call starts
        # when it is first read). Cité logs its set-up roll before GAME_CREATED.
        first = self.next()
        assert isinstance(first, dict) and first["kind"] in ("ACTION", "GAME_CREATED"), first

    def next(self) -> dict[str, Any] | tuple[str, str]:
        if self.transport == "grpc":
            try:
                return as_json(next(self._events))
            except StopIteration:
                return "ended", ""
            except GameError as exc:
                return exc.code.name, exc.details
        while True:
            event = self._stream.next()
            if event is None or event.name == "end":
                return "ended", ""
            if event.name == "game-event":
                return event.json()
            if event.name == "rpc-error":
                error = event.json()["error"]
                assert self._stream.next() is None, "the stream goes on after its error"
                return error["code"], error["message"]

    def close(self) -> None:
        if self.transport == "grpc":
            self._events.close()
        else:
            self._stream.close()


def until_seat_change(watch: Watch, seat: int, reason: str) -> list[dict[str, Any]]:
    """Events up to and including the change of ``seat`` for ``reason``."""
    seen = []
    while True:
        item = watch.next()
        assert isinstance(item, dict), f"the stream ended {item} before seat {seat} changed"
        seen.append(item)
        change = item.get("seatChange")
        if item["kind"] == "SEAT_CHANGED" and change["seat"] == seat and change["reason"] == reason:
            return seen


def assert_ends_denied(watch: Watch, seat: int) -> None:
    """The item after the revoking seat change is the stream's end: PERMISSION_DENIED,
    never a further event (today's leak: the seat's private view went on)."""
    after = watch.next()
    assert isinstance(after, tuple), f"an event after the token lost its seat: {after}"
    code, message = after
    assert code == "PERMISSION_DENIED", after
    assert f"no longer holds seat {seat}" in message


def seat_to_move(served: Served, game_id: str, seat: int) -> pb.GameState:
    return wait_until(
        lambda: (
            (s := served.client.state(game_id)).to_move.kind == pb.Actor.SEAT
            and s.to_move.seat == seat
            and s
        ),
        60,
        f"seat {seat} to move",
    )


def with_a_bot(served: Served, seed: int, **settings: Any) -> tuple[str, str]:
    """A Cite game of a joined human seat 0, a random bot and a human seat 2 nobody has
    joined yet (so the game waits there, and joining it later is an event that
    follows any seat change): (game id, seat 0's token)."""
    seats = ["human", "bot:random", "human"]
    created = served.client.create_game("cite", seats, seed=seed, **settings)
    return created.game_id, served.client.join(created.game_id, 0).token


def test_a_seat_handed_over_for_good_ends_its_tokens_feed(served, transport):
    game_id, token = with_a_bot(served, seed=31)
    watch = Watch(served, transport, game_id, token)
    served.client.hand_over(game_id, token, "random", for_good=True)
    served.client.join(game_id, 2)  # an event after the hand-over
    until_seat_change(watch, 0, "HANDED_OVER")
    assert_ends_denied(watch, 0)
    watch.close()


def test_a_seat_out_of_time_for_good_ends_its_tokens_feed(served, transport):
    # An hour to move, so nothing times out by itself; the timeout is then played as
    # the sweeper plays it, with the deadline passed (no waiting on the clock).
    timer = turn_timer(3600, max_timeouts=1)
    game_id, token = with_a_bot(served, seed=32, timer=timer)
    seat_to_move(served, game_id, 0)
    watch = Watch(served, transport, game_id, token)
    time_out(served, game_id)
    served.client.join(game_id, 2)
    seen = until_seat_change(watch, 0, "TIMED_OUT")
    assert any(e["kind"] == "ACTION" and e["timeout"] for e in seen)  # the fallback move
    assert_ends_denied(watch, 0)
    watch.close()


def test_a_rejoined_seat_ends_the_old_tokens_feed_and_not_the_new_ones(served, transport):
    game_id, token = with_a_bot(served, seed=33, rejoin_handed_seats=True)
    old = Watch(served, transport, game_id, token)
    served.client.hand_over(game_id, token, "random", for_good=True)
    carol = served.client.join(game_id, 0, name="carol")  # a new token for seat 0
    until_seat_change(old, 0, "HANDED_OVER")
    assert_ends_denied(old, 0)  # not carol's view of seat 0
    old.close()

    # Carol's feed replays the hand-over and her own join (before her token held the
    # seat) and goes on; it ends when she too hands the seat over.
    new = Watch(served, transport, game_id, carol.token)
    until_seat_change(new, 0, "HANDED_OVER")
    until_seat_change(new, 0, "JOINED")
    served.client.hand_over(game_id, carol.token, "random", for_good=True)
    served.client.join(game_id, 2)
    until_seat_change(new, 0, "HANDED_OVER")
    assert_ends_denied(new, 0)
    new.close()


def test_a_seat_away_and_taken_back_keeps_its_tokens_feed(served, transport):
    game_id, token = with_a_bot(served, seed=34)
    watch = Watch(served, transport, game_id, token)
    served.client.hand_over(game_id, token, "random")  # away: the token holds
    served.client.take_back(game_id, token)
    served.client.join(game_id, 2)
    until_seat_change(watch, 0, "AWAY")
    until_seat_change(watch, 0, "TAKEN_BACK")
    while (event := watch.next()) and isinstance(event, dict):
        if event["kind"] == "SEAT_JOINED":
            break
    assert isinstance(event, dict) and event["actor"]["seat"] == 2, f"the feed ended: {event}"
    watch.close()


def time_out(served: Served, game_id: str) -> None:
    """The seat to move runs out of time: the sweeper's own fallback move and commit
    (services.bots.bot_turns), prepared as at a moment past the seat's deadline."""
    running = served.thread.running
    assert running is not None

    async def play_the_timeout():
        snapshot = await running.store.load(game_id)
        turn = bot_turns.prepare(snapshot, now=snapshot.meta["clock"]["deadline"] + 1)
        assert turn is not None and turn.timeout
        return await bot_turns.commit_turn(running.store, turn, turn.state.legal_actions()[0])

    assert served.thread.call(play_the_timeout()).outcome is CommitOutcome.APPLIED
