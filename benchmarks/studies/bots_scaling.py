"""Root-parallel scaling, local version: the same decision searched by 1, 2, 4 ... process
workers, and the strength of K x N root-parallel trees against 1 x N and 1 x (K*N).

Usage: .venv/bin/python benchmarks/studies/bots_scaling.py [--workers 1,2,4] [--iterations 1000]
          [--k 4] [--n 100] [--games 100] [--catan-games 20]
          [--skip-strength] [--skip-throughput] [--processes 2]

Part 1 (throughput): one decision point per game (a 4-player position with a real
choice); W workers each run ``bots.search_tree`` for one tree of N iterations
(tree t gets its own determinization, as in the service); reports total iterations
per wall-clock second and the speed-up over one worker. The service does the same
across Celery workers; here it is a local process pool, so it cannot scale past the
machine's cores (printed).

Part 2 (strength): head-to-head matches, A = K trees x N iterations against
B = 1 x N and B = 1 x (K*N), on Cité (2 players) and Catan (3 players: A against two B).
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace
from multiprocessing import get_context

from bots import best_action, get_level, merge_root_stats, search_tree
from games import get_game
from loadtest.bots_common import positions, table
from loadtest.matches import match, report


def _tree(job: tuple) -> dict:
    game, data, seat, iterations, tree = job
    level = replace(get_level("mcts-fast"), iterations=iterations, seconds=None)
    return search_tree(get_game(game).state_class.from_bytes(data), seat, level, 1, tree)


def throughput(game: str, workers: list[int], iterations: int) -> list[tuple]:
    state = positions(game, 4, 1, seed=5)[0]
    data, seat = state.to_bytes(), state.current_player()
    rows = []
    base = None
    ctx = get_context("fork")
    for w in workers:
        with ctx.Pool(w) as pool:
            pool.map(_tree, [(game, data, seat, 10, t) for t in range(w)])  # warm up
            start = time.perf_counter()
            stats = pool.map(_tree, [(game, data, seat, iterations, t) for t in range(w)])
            wall = time.perf_counter() - start
        merged = merge_root_stats(stats)
        rate = merged["iterations"] / wall
        base = base or rate
        rows.append(
            (
                game,
                w,
                merged["iterations"],
                f"{wall:.2f}",
                f"{rate:,.0f}",
                f"{rate / base:.2f}x",
                best_action(merged),
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--iterations", type=int, default=1000, help="per tree, part 1")
    parser.add_argument("--k", type=int, default=4, help="trees, part 2")
    parser.add_argument("--n", type=int, default=100, help="iterations per tree, part 2")
    parser.add_argument("--games", type=int, default=100, help="Cité games per match")
    parser.add_argument("--catan-games", type=int, default=20, help="Catan games per match")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--skip-strength", action="store_true")
    parser.add_argument("--skip-throughput", action="store_true")
    args = parser.parse_args()
    workers = [int(w) for w in args.workers.split(",")]
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start")
    if not args.skip_throughput:
        rows = []
        for game in ("cite", "catan", "endeavor"):
            rows.extend(throughput(game, workers, args.iterations))
        print()
        print(f"Throughput: W workers x one tree of {args.iterations} iterations each")
        header = ("game", "workers", "iterations", "wall s", "iterations/s", "speed-up", "pick")
        print(table(rows, header))
    if args.skip_strength:
        return
    k, n = args.k, args.n
    parallel = f"mcts:trees={k},iterations={n}"
    results = []
    for game, players, games in (("cite", 2, args.games), ("catan", 3, args.catan_games)):
        for rival in (f"mcts:trees=1,iterations={n}", f"mcts:trees=1,iterations={k * n}"):
            result = match(game, parallel, rival, games, players, args.processes, 20_000, None)
            results.append(result)
            print(report([result]).splitlines()[-1], flush=True)
    print()
    print(f"Strength: {k}x{n} root-parallel against 1x{n} and 1x{k * n}")
    print(report(results))


if __name__ == "__main__":
    main()
