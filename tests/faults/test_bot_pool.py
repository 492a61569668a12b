"""Issue 19 and issue 12 item 5 (bot fairness) on a real server process: a pool
child killed with kill -9 costs a pool restart (counted, logged once), not the
bots of every game; one game's huge search budget does not stop another's bots."""

from __future__ import annotations

import os
import signal
import time

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from tests.faults.harness import Ledger, time_to_move, version
from tests.fixtures.metrics import scrape
from tests.procs import cmdline, descendants, free_port, wait_until

BOT = "bot:mcts:trees=2,iterations=300,depth=10"
SHORT = {"round_limit": 4}


def pool_children(replica_pid: int) -> set[int]:
    """The search pool's processes: the children of the replica's forkserver."""
    forkservers = [p for p in descendants(replica_pid) if "forkserver" in cmdline(p)]
    return {p for f in forkservers for p in descendants(f)}


def finish(target: str, game_id: str, timeout: float = 60) -> pb.GameState:
    def finished() -> pb.GameState | None:
        with Client(target, timeout=5) as client:
            state = client.state(game_id)
        return state if state.status == pb.FINISHED else None

    return wait_until(finished, timeout, f"game {game_id} to finish")


def counter(port: int, name: str) -> float:
    lines = [line for line in scrape(port).splitlines() if line.startswith(name + " ")]
    return float(lines[0].split()[1]) if lines else 0.0


def test_a_killed_pool_child_is_replaced_and_games_play_on(replicas):
    metrics_port = free_port()
    (replica,) = replicas(1, "--bot-workers", "2", "--metrics-port", str(metrics_port))
    with Client(replica.target, timeout=10) as client:
        first = client.create_game("cite", [BOT] * 3, SHORT, seed=4).game_id
    ledger = Ledger([replica.target])
    wait_until(lambda: pool_children(replica.pid), 30, "the search pool to start")
    at = version(replica.target, first)
    victim = min(pool_children(replica.pid))
    os.kill(victim, signal.SIGKILL)  # as the OOM killer would, mid-game
    killed = time.monotonic()
    ledger.play(4)
    resumed = time_to_move(replica.target, first, at, timeout=30, started=killed)
    print(f"\nfirst bot move after the pool child's kill: {resumed:.2f} s")
    assert finish(replica.target, first).status == pb.FINISHED

    with Client(replica.target, timeout=10) as client:
        second = client.create_game("cite", [BOT] * 3, SHORT, seed=5).game_id
    assert finish(replica.target, second).status == pb.FINISHED
    assert counter(metrics_port, "gamehost_bot_pool_restarts_total") >= 1
    ledger.check(replica.target)
    log = replica.output()
    about_it = [line for line in log.splitlines() if "pool" in line.lower() or "Broken" in line]
    assert 1 <= len(about_it) <= 5, about_it
    assert "Traceback" not in log, log[-3000:]


def test_a_huge_search_budget_does_not_stop_other_games_bots(replicas):
    # A per-server cap keeps one decision's search bounded, and the pool's slots go
    # round-robin across games, so the small game's bots keep moving.
    # (16 x 20,000 is the largest custom level; the server caps it at 8,000 here: 16
    # trees of 500 iterations, so without round-robin slots the small game would wait
    # for all 16 trees at every move and could not finish in time.)
    (replica,) = replicas(1, "--bot-workers", "1", "--max-search-iterations", "8000")
    with Client(replica.target, timeout=10) as client:
        huge = client.create_game(
            "cite",
            ["bot:mcts:trees=16,iterations=20000"] * 2,
            seed=6,  # the largest level allowed
        ).game_id
        wait_until(lambda: version(replica.target, huge) >= 0, 5, "the huge game")
        # One tree a decision: the small game waits behind at most one huge tree per
        # move with round-robin slots, and behind all 16 (seconds each) without them.
        small_bot = "bot:mcts:trees=1,iterations=300,depth=10"
        small = client.create_game("cite", [small_bot] * 2, SHORT, seed=7).game_id
    state = finish(replica.target, small, timeout=90)
    assert state.status == pb.FINISHED
