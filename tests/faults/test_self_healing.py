"""Bot turns heal themselves (issue 12 item 1, item 8): a due turn is durable in
Redis and every replica sweeps for it, so it resumes with no client call after a
replica dies, after Redis restarts, and when a fresh replica starts over the
turns of processes that are all gone. Each test also plays a human game through
the fault and checks that every acknowledged action is kept exactly once."""

from __future__ import annotations

import threading
import time

from gamehost import Client
from gamehost.client import GameError
from gamehost.v1 import gamehost_pb2 as pb
from tests.faults.harness import SEARCHING_BOT, Ledger, time_to_move, version
from tests.procs import alive_pids, descendants, wait_until

# How soon a pending turn resumes (the target: 5 s) is printed, not asserted: a busy
# machine stretches it. What is asserted: it resumes with no client call (time_to_move
# fails only when nothing moved for 30 s).


def create(target: str, seats: list[str], seed: int = 1) -> str:
    with Client(target, timeout=10) as client:
        return client.create_game("cite", seats, seed=seed).game_id


def wait_moves(target: str, game_id: str, moves: int, timeout: float = 30) -> int:
    start = version(target, game_id)
    wait_until(lambda: version(target, game_id) >= start + moves, timeout, "bot moves")
    return version(target, game_id)


def version_if_answering(target: str, game_id: str) -> int | None:
    try:
        return version(target, game_id)
    except GameError:
        return None


def answers(target: str, game_id: str) -> bool:
    return version_if_answering(target, game_id) is not None


def test_replica_killed_mid_search_other_replica_resumes(replicas):
    (first,) = replicas(1)
    game_id = create(first.target, [SEARCHING_BOT] * 2)
    wait_moves(first.target, game_id, 2)  # the first replica owns the game's turns
    (second,) = replicas(1)
    ledger = Ledger([first.target, second.target])
    ledger.play(4)
    children = descendants(first.pid)
    assert children, "the replica should run a search pool"

    at = version(second.target, game_id)
    killed = time.monotonic()
    first.kill9()  # mid-search: a decision takes about half a second
    ledger.play(6)  # the first tries hit the dead replica, then move on
    resumed = time_to_move(second.target, game_id, at, timeout=30, started=killed)
    print(f"\nresume after replica kill -9: {resumed:.2f} s")
    ledger.check(second.target)
    # Item 8: the killed replica's pool, forkserver and resource tracker exit too.
    wait_until(lambda: not alive_pids(children), 10, f"orphans {alive_pids(children)} to exit")


def test_redis_killed_and_restarted_bots_resume(replicas, own_redis):
    first, second = replicas(2)
    game_id = create(first.target, ["bot:greedy"] * 4)
    wait_moves(second.target, game_id, 2)
    ledger = Ledger([first.target, second.target])
    ledger.play(3)

    own_redis.kill9()
    down_at = time.monotonic()
    wait_until(lambda: not answers(first.target, game_id), 10, "the replica to see Redis down")
    wait_until(
        lambda: "cannot reach the store" in first.output() + second.output(),
        10,
        "a sweeper to meet the outage",
    )
    # A human keeps trying through the outage (the same request id until acknowledged).
    during = threading.Thread(target=ledger.play, args=(5,))
    during.start()
    own_redis.start()  # the AOF brings every acknowledged write back
    back = time.monotonic()
    # Right after the restart a replica's call may still meet a pooled connection Redis
    # dropped: UNAVAILABLE, which clients retry. Read the version as a client would.
    at = wait_until(lambda: version_if_answering(first.target, game_id), 10, "an answer")
    resumed = time_to_move(first.target, game_id, at, timeout=30, started=back)
    print(f"\nresume after Redis came back: {resumed:.2f} s (down {back - down_at:.2f} s)")
    during.join(timeout=60)
    assert not during.is_alive()
    assert len(ledger.acked) == 8
    ledger.check(second.target)
    assert first.alive() and second.alive()


def test_all_processes_gone_then_one_replica_plays_the_pending_turns(replicas, own_redis):
    (first,) = replicas(1)
    games = [create(first.target, [SEARCHING_BOT] * 2, seed=s) for s in (1, 2)]
    for game_id in games:
        wait_moves(first.target, game_id, 1)
    ledger = Ledger([first.target])
    ledger.play(3)
    first.kill_group()
    own_redis.kill9()

    own_redis.start()
    started = time.monotonic()
    (fresh,) = replicas(1)
    at = {game_id: version(fresh.target, game_id) for game_id in games}
    for game_id in games:
        resumed = time_to_move(fresh.target, game_id, at[game_id], timeout=30, started=started)
        print(f"\npending turn of {game_id[:8]} played {resumed:.2f} s after the replica start")
    ledger.targets = [fresh.target]
    ledger.play(3)
    ledger.check(fresh.target)


def test_no_client_call_is_needed_for_an_all_bot_game_to_finish(replicas):
    """A spectator-less all-bot game runs to the end on its own (the sweeper)."""
    first, second = replicas(2)
    game_id = create(first.target, ["bot:random"] * 3, seed=9)
    with Client(second.target, timeout=10) as client:
        for _ in client.watch(game_id):
            pass  # the stream ends with the game
        assert client.state(game_id).status == pb.FINISHED
