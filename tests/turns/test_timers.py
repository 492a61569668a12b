"""Turn timers on a real server with each store and the local bot pool: a seat out of
time gets one move from the fallback level, marked as a timeout in the feed and the
record; GetState and the events show the deadline; after max_timeouts in a row the
seat is the fallback bot's for good and its token is revoked."""

from __future__ import annotations

import time

import grpc
import pytest

from gamehost import GameError, turn_timer
from gamehost.v1 import gamehost_pb2 as pb
from tests.fixtures import store_servers
from tests.fixtures.store_servers import by
from tests.procs import wait_until

client = store_servers.client  # each store in turn (a module fixture)


def timeouts(record: pb.GameRecord) -> list[pb.RecordEntry]:
    return [e for e in record.entries if e.timeout]


def test_a_seat_out_of_time_gets_one_fallback_move_and_the_deadline_is_shown(client):
    timer = turn_timer(0.6, fallback_level="greedy", max_timeouts=0)
    before = time.time()
    created = client.create_game("cite", ["human", "human"], seed=11, timer=timer)
    game_id = created.game_id
    a = client.join(game_id, 0)
    state = client.state(game_id, a.token)
    assert state.timer.move_seconds == 0.6 and state.timer.fallback_level == "greedy"
    assert state.timer.max_timeouts == 0
    # The deal started the clock: its deadline is 0.6 s after a moment of this test
    # (however slow the machine, no bound on how long the calls took).
    assert state.clock.seat == 0
    assert before + 0.6 - 0.01 <= state.clock.deadline <= time.time() + 0.6 + 0.01
    # The write that left seat 0 to move (the deal) carries its clock.
    dealt = next(e for e in client.watch(game_id, a.token) if e.HasField("clock"))
    assert dealt.version == state.version and dealt.clock == state.clock

    record = wait_until(lambda: timeouts(r := client.record(game_id)) and r, 30, "a timeout")
    first = timeouts(record)[0]
    assert by(first, 0) and first.ply == state.version + 1
    plies = [e.ply for e in record.entries]
    assert plies == sorted(set(plies))  # one move per version: none played twice
    event = next(e for e in client.watch(game_id, a.token) if e.version == first.ply)
    assert event.kind == pb.ACTION and event.timeout and by(event, 0)
    # The seat is still its player's (max_timeouts 0: never handed over).
    after = client.state(game_id, a.token)
    assert after.viewer_seat == 0 and after.seats[0].kind == pb.HUMAN
    assert after.seats[0].timeouts >= 1


def test_max_timeouts_in_a_row_hand_the_seat_to_the_fallback_bot_for_good(client):
    timer = turn_timer(0.3, max_timeouts=2)
    created = client.create_game("cite", ["human", "human"], seed=12, timer=timer)
    game_id = created.game_id
    a = client.join(game_id, 0)

    def handed() -> pb.GameRecord | None:
        record = client.record(game_id)
        return record if any(c.seat == 0 for c in record.seat_changes) else None

    record = wait_until(handed, 60, "seat 0 handed over")
    change = next(c for c in record.seat_changes if c.seat == 0)
    assert change.reason == pb.SeatChange.TIMED_OUT
    assert change.now.kind == pb.BOT and change.now.bot_level == "random"
    assert change.now.control == pb.Seat.HANDED_OVER
    mine = [e for e in record.entries if by(e, 0) and e.ply <= change.version]
    assert [e.timeout for e in mine[-2:]] == [True, True]
    with pytest.raises(GameError) as caught:
        client.state(game_id, a.token)
    assert caught.value.code == grpc.StatusCode.UNAUTHENTICATED
    # From now on the bot plays the seat: moves of its own, not timeouts.
    wait_until(
        lambda: any(
            by(e, 0) and e.ply > change.version and not e.timeout
            for e in client.record(game_id).entries
        ),
        60,
        "the fallback bot's own move",
    )
    assert client.state(game_id).seats[0].control == pb.Seat.HANDED_OVER


def test_games_without_a_timer_have_no_clock(client):
    created = client.create_game("cite", ["human", "human"], seed=13)
    state = client.state(created.game_id)
    assert not state.HasField("timer") and not state.HasField("clock")
