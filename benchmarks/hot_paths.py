"""Engine and search rates of every game, under both builds, and against another checkout.

Usage: .venv/bin/python benchmarks/hot_paths.py [--repeats 5] [--games 50] [--positions 8]
                                               [--builds compiled,pure] [--baseline DIR]
       .venv/bin/python benchmarks/hot_paths.py --profile catan:search [--pure]

Per game (4 players), each figure a fixed amount of work, so every run does the same:
- selfplay games/s and actions/s: seeded games of uniformly random bot actions (the bots'
  action set, as playouts use it; chance outcomes sampled), through ``bot_actions`` /
  ``legal_actions`` and ``apply_unchecked``: ``--games`` Catan games, 10x as many Cité
  and 4x as many Endeavor games (shorter games);
- search iterations/s: one ``mcts-fast`` tree (400 iterations, its playout depth and the
  game's playout policy) on each of ``--positions`` sampled positions, through
  ``bots.mcts.uct_search``: selection, expansion, playouts, evaluation and backup.

Rates are per CPU second of the measuring process (``time.process_time``), so time the
process spends waiting for a core on a busy machine does not count. Each (checkout,
build) runs in a fresh process; a repeat runs every one of them once, in alternating
order, and the table shows medians over the repeats. ``--baseline DIR``: a second
checkout of the project (``git archive <ref> | tar -x -C DIR``, then
``python setup.py build_ext --inplace`` there), measured beside this one in the same run.
``--profile GAME:WHAT`` (WHAT: selfplay or search) prints cProfile's top functions for
one workload instead, under the build the environment selects (``--pure``: the sources).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import sys
import time

# Bound to this checkout's loadtest before a measured tree comes first on sys.path.
from loadtest.hot_paths import GAMES, PLAYERS, ROOT, Job, conditions, measure, report


def _import_tree(tree: pathlib.Path) -> None:
    """Import games and bots from ``tree`` (before anything else puts ROOT first)."""
    sys.path.insert(0, str(tree))
    import bots  # noqa: F401
    import games

    loaded = pathlib.Path(games.__file__ or "").resolve().parent.parent
    if loaded != tree.resolve():
        sys.exit(f"games was imported from {loaded}, not {tree}")


def selfplay(game_type: str, games: int) -> dict:
    """Seconds and actions for ``games`` seeded games of uniformly random bot actions."""
    from bots.heuristics import knowledge
    from games import CHANCE, TERMINAL, get_game

    game = get_game(game_type)
    actions_of = knowledge(game_type).actions
    actions = 0
    start = time.process_time()
    for seed in range(games):
        rng = random.Random(seed)
        rnd = rng.random
        state = game.new_game(PLAYERS, seed)
        while (player := state.current_player()) != TERMINAL:
            if player == CHANCE:
                state.apply_unchecked(state.sample_chance(rng))
            else:
                legal = actions_of(state)
                state.apply_unchecked(legal[int(rnd() * len(legal))])
            actions += 1
    return {"games": games, "actions": actions, "seconds": time.process_time() - start}


def search(game_type: str, count: int) -> dict:
    """Seconds for one ``mcts-fast`` tree on each of ``count`` sampled positions."""
    from loadtest.bots_common import mcts_fast_iterations

    return mcts_fast_iterations(game_type, PLAYERS, count)


def worker(tree: pathlib.Path, games: int, count: int) -> dict:
    _import_tree(tree)
    from games import engine_build

    out: dict = {"build": engine_build()}
    for game_type, scale in GAMES.items():
        out[game_type] = {
            "selfplay": selfplay(game_type, games * scale),
            "search": search(game_type, count),
        }
    return out


def profile(spec: str, games: int, count: int) -> None:
    import cProfile
    import pstats

    game_type, _, what = spec.partition(":")
    _import_tree(ROOT)
    from games import engine_build

    fn = (
        (lambda: selfplay(game_type, games))
        if what == "selfplay"
        else lambda: search(game_type, count)
    )
    fn()  # warm-up: imports, board tables, sampled positions' games
    prof = cProfile.Profile()
    prof.enable()
    result = fn()
    prof.disable()
    print(f"{game_type} {what}, {engine_build()} build: {json.dumps(result)}")
    pstats.Stats(prof).sort_stats("tottime").print_stats(20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--games", type=int, default=50, help="selfplay games (Catan; Cité 10x, Endeavor 4x)"
    )
    parser.add_argument("--positions", type=int, default=8, help="searched positions per game")
    parser.add_argument("--builds", default="compiled,pure")
    parser.add_argument("--baseline", type=pathlib.Path, help="another checkout, built in place")
    parser.add_argument("--profile", metavar="GAME:WHAT", help="cProfile one workload instead")
    parser.add_argument("--pure", action="store_true", help="with --profile: the pure build")
    parser.add_argument("--worker", type=pathlib.Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.games, args.positions)))
        return
    if args.profile:
        if args.pure and os.environ.get("GAMEHOST_PURE_PYTHON") != "1":
            os.environ["GAMEHOST_PURE_PYTHON"] = "1"
            os.execv(sys.executable, [sys.executable, *sys.argv])
        profile(args.profile, args.games, args.positions)
        return

    builds = [b.strip() for b in args.builds.split(",") if b.strip()]
    jobs: list[Job] = []
    ratios = []
    for build in builds:
        if args.baseline:
            jobs.append((f"baseline {build}", args.baseline, build))
            ratios.append((f"this/baseline {build}", f"this {build}", f"baseline {build}"))
        jobs.append((f"this {build}", ROOT, build))
    if "compiled" in builds and "pure" in builds:
        ratios.append(("compiled/pure (this)", "this compiled", "this pure"))
    medians = measure(jobs, args.games, args.positions, args.repeats)
    print(conditions(args.games, args.positions, args.repeats))
    print(report(medians, ratios))


if __name__ == "__main__":
    main()
