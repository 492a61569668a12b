"""How bot search scales with Celery workers.

    python benchmarks/studies/celery_scaling.py [--game catan] [--workers 1,2,4] [--trees 8]
                                        [--iterations 400] [--redis URL]

For each worker count W it starts W single-process Celery workers (real
``gamehost worker`` processes on the Redis broker), sends the same decision as
``--trees`` root-parallel search tasks of ``--iterations`` each (a Celery group,
as the service's chord does) and reports wall time and iterations per second.
Strength of K x N root-parallel against 1 x N and 1 x (K*N) is measured by
``benchmarks/studies/bots_scaling.py`` (it does not depend on where trees run).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
import uuid


def decision_state(game_type: str, seed: int, plies: int):
    """A position some way into a random game, with a seat to decide."""
    from games import get_game

    state = get_game(game_type).new_game(4, seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    while state.is_chance_node() or len(state.legal_actions()) < 5:
        state.apply_action(
            state.sample_chance(rng) if state.is_chance_node() else state.legal_actions()[0]
        )
    return state


def start_workers(count: int, broker: str, queue: str) -> tuple[list[subprocess.Popen], list[str]]:
    """``count`` single-process workers; returns them and their node names."""
    env = {
        **os.environ,
        "GAMEHOST_CELERY_BROKER": broker,
        "GAMEHOST_CELERY_BACKEND": broker,
        "GAMEHOST_CELERY_QUEUE": queue,
    }
    names = [f"scale{i}-{uuid.uuid4().hex[:6]}@bench" for i in range(count)]
    command = [sys.executable, "-m", "gamehost.cli", "worker", "--concurrency", "1"]
    procs = [
        subprocess.Popen(
            [*command, "--loglevel", "WARNING", "--hostname", name],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name in names
    ]
    return procs, names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="catan")
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--trees", type=int, default=8)
    parser.add_argument("--iterations", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument(
        "--redis", default=os.environ.get("GAMEHOST_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    args = parser.parse_args()

    queue = f"gamehost-scaling-{uuid.uuid4().hex[:8]}"
    os.environ.update(
        GAMEHOST_CELERY_BROKER=args.redis,
        GAMEHOST_CELERY_BACKEND=args.redis,
        GAMEHOST_CELERY_QUEUE=queue,
    )
    from celery import group

    from services.bots.jobs import BotJob
    from workers.app import app
    from workers.tasks import search
    from workers.turn_task import TurnTask

    state = decision_state(args.game, seed=7, plies=300)
    seat = state.current_player()
    level = f"mcts:trees={args.trees},iterations={args.iterations}"
    job = BotJob(
        "scaling",
        args.game,
        0,
        seat,
        level,
        1,
        state.determinize(seat, random.Random(1)).to_bytes(),
    )
    payload = TurnTask(job, args.redis, "unused").to_dict()
    print(
        f"{args.game}: one decision = {args.trees} trees x {args.iterations} iterations "
        f"({len(state.legal_actions())} legal actions), {os.cpu_count()} CPUs"
    )
    print(f"{'workers':>8} {'wall s':>8} {'iterations/s':>13} {'speed-up':>9}")
    rows = []
    for count in (int(w) for w in args.workers.split(",")):
        workers, names = start_workers(count, args.redis, queue)
        try:
            # Wait until each of these workers answers (each ping waits up to a second).
            for _ in range(120):
                if len(app.control.ping(destination=names, timeout=1.0)) >= count:
                    break
            best = None
            for _ in range(args.repeats):
                started = time.perf_counter()
                results = group(search.s(payload, t) for t in range(args.trees))().get(
                    timeout=600, interval=0.005
                )
                wall = time.perf_counter() - started
                iterations = sum(r["iterations"] for r in results)
                if best is None or wall < best[0]:
                    best = (wall, iterations)
        finally:
            for worker in workers:
                worker.terminate()
            for worker in workers:
                worker.wait(30)
        wall, iterations = best
        rows.append({"workers": count, "wall_s": wall, "iterations_per_s": iterations / wall})
        speedup = rows[-1]["iterations_per_s"] / rows[0]["iterations_per_s"]
        print(f"{count:>8} {wall:>8.2f} {iterations / wall:>13,.0f} {speedup:>8.2f}x")
    print(
        json.dumps(
            {"game": args.game, "trees": args.trees, "iterations": args.iterations, "rows": rows}
        )
    )


if __name__ == "__main__":
    main()
