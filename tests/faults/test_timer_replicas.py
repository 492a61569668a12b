"""Turn timers survive replicas (issue 16): deadlines are in the store and every
replica sweeps them, so with two replicas racing over one timed game each timeout
is played exactly once (the move commits under ``timeout:<version>`` with a
compare-and-set), and after one replica is killed with kill -9 the other goes on
playing the timeouts by itself."""

from __future__ import annotations

from gamehost import Client, turn_timer
from gamehost.v1 import gamehost_pb2 as pb
from tests.procs import wait_until


def timeout_moves(target: str, game_id: str) -> list[int]:
    """The versions of the game's timed-out moves, from its record."""
    with Client(target, timeout=5, retries=0) as client:
        return [e.ply for e in client.record(game_id).entries if e.timeout]


def test_each_timeout_is_played_once_by_racing_replicas_and_after_a_kill(replicas):
    first, second = replicas(2)
    with Client(first.target, timeout=10) as client:
        timer = turn_timer(0.4, max_timeouts=0)  # never handed over: timeouts go on
        game_id = client.create_game("cite", ["human", "human"], seed=5, timer=timer).game_id
        client.join(game_id, 0)
        client.join(game_id, 1)

    def timeouts_past(count: int):
        return lambda: len(timeout_moves(second.target, game_id)) >= count

    wait_until(timeouts_past(4), 60, "timeouts with both replicas sweeping")
    before = len(timeout_moves(second.target, game_id))
    first.kill9()
    wait_until(timeouts_past(before + 4), 60, "timeouts after the kill, by the survivor")

    with Client(second.target, timeout=5) as client:
        record = client.record(game_id)
    # Every logged action has a version of its own, one after the other: no timeout
    # was played twice (a second play would be a second entry, or a skipped version).
    plies = [e.ply for e in record.entries]
    assert plies == list(range(1, len(plies) + 1))
    played = [e.ply for e in record.entries if e.actor.kind == pb.Actor.SEAT]
    assert played == [e.ply for e in record.entries if e.timeout]  # nobody else moved
    assert len(played) >= before + 4
