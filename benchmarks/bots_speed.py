"""Bot speed: UCT iterations/s on one core per game, decision time per level, and for
Catan, catanatron's random-game rate measured in the same run.

Usage: .venv/bin/python benchmarks/bots_speed.py [--positions 8] [--iterations 1000]
                                                 [--catanatron-seconds 10] [--no-catanatron]

Positions are decision points with a real choice sampled from random 4-player
games (Catan: main-phase turns after set-up). Iterations/s is one tree of
``--iterations`` iterations at the levels' playout depth, single process.
Decision time is ``choose_action`` at each level (its trees run one after
another in this process, as ``choose_action`` does; the service can run them in
parallel). Catanatron's MCTS plays one whole random game per simulation, so its
simulations/s is bounded by its random-game rate printed beside ours; the
catanatron virtualenv and driver are those of ``benchmarks/catan_speed.py``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

from bots import LEVELS, choose_action, level_names
from bots.heuristics import knowledge
from bots.mcts import uct_search
from games import game_names
from loadtest.bots_common import positions, table


def iteration_rate(game: str, states: list, iterations: int, depth: int) -> tuple[float, int]:
    k = knowledge(game)
    done = 0
    start = time.perf_counter()
    for i, state in enumerate(states):
        result = uct_search(
            state,
            k.evaluate,
            k.actions,
            random.Random(i),
            iterations=iterations,
            seconds=None,
            depth=depth,
            c=LEVELS["mcts-fast"].c,
            playout_epsilon=k.playout_epsilon,
        )
        done += result.iterations
    return done / (time.perf_counter() - start), done


def decision_times(states: list, level: str) -> list[float]:
    times = []
    for i, state in enumerate(states):
        start = time.perf_counter()
        choose_action(state, state.current_player(), level, i)
        times.append(time.perf_counter() - start)
    return times


def catanatron_rate(seconds: float) -> dict:
    from catan_speed import CATANATRON_DRIVER, ensure_catanatron, ours, run_worker

    python = ensure_catanatron()
    theirs = run_worker([str(python), "-c", CATANATRON_DRIVER, str(seconds)])
    mine = ours(seconds)
    return {
        "catanatron_games_s": theirs["games"] / theirs["seconds"],
        "our_games_s": mine["games"] / mine["seconds"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--catanatron-seconds", type=float, default=10.0)
    parser.add_argument("--no-catanatron", action="store_true")
    args = parser.parse_args()
    depth = LEVELS["mcts-fast"].depth
    print(
        f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}, load average "
        f"{os.getloadavg()[0]:.2f} at start; {args.positions} positions per game, 4 players"
    )
    speed_rows = []
    time_rows = []
    catan_rate = None
    for game in game_names():
        states = positions(game, 4, args.positions)
        rate, done = iteration_rate(game, states, args.iterations, depth)
        speed_rows.append((game, depth, done, f"{rate:,.0f}"))
        for level in level_names():
            times = decision_times(states, level)
            spec = LEVELS[level]
            budget = f"{spec.trees}x{spec.iterations}" if spec.trees else "-"
            time_rows.append(
                (
                    game,
                    level,
                    budget,
                    f"{1000 * statistics.mean(times):.1f}",
                    f"{1000 * statistics.median(times):.1f}",
                    f"{1000 * max(times):.1f}",
                )
            )
        if game == "catan":
            catan_rate = rate
    print()
    print("UCT iterations per second, one core (one tree, playout depth as the levels)")
    print(table(speed_rows, ("game", "depth", "iterations", "iterations/s")))
    print()
    print("Decision time per level (choose_action, trees one after another, one core)")
    print(table(time_rows, ("game", "level", "trees x iter", "mean ms", "median ms", "max ms")))
    if not args.no_catanatron and catan_rate is not None:
        rates = catanatron_rate(args.catanatron_seconds)
        print()
        print("Catan, same run: our UCT iterations/s vs random whole games/s (4 players)")
        rows = [
            ("gamehost UCT iterations/s (depth-limited playouts)", f"{catan_rate:,.0f}"),
            ("gamehost random games/s (no domestic offers)", f"{rates['our_games_s']:,.1f}"),
            ("catanatron 3.2.1 random games/s", f"{rates['catanatron_games_s']:,.1f}"),
            (
                "  = bound on catanatron MCTS simulations/s (one game each)",
                f"{rates['catanatron_games_s']:,.1f}",
            ),
            (
                "gamehost iterations/s over catanatron's bound",
                f"{catan_rate / rates['catanatron_games_s']:,.0f}x",
            ),
        ]
        print(table(rows, ("", "per second")))


if __name__ == "__main__":
    main()
