"""Bot strength: one seat of level A against (players - 1) seats of level B.

Usage:
  .venv/bin/python benchmarks/bots_strength.py --game cite --a mcts-fast --b random
  .venv/bin/python benchmarks/bots_strength.py --suite head-to-head --games 100
  .venv/bin/python benchmarks/bots_strength.py --game catan --a mcts-strong --b mcts-fast \
      --players 3 --results benchmarks/results/catan-strong-vs-fast.jsonl
  options: --games N (200) --players P (4, or the game's minimum when smaller)
           --processes K (2) --seed S --option key=value (game options)
           --results FILE (one JSON line per finished game; a rerun with the same
           match skips the seeds already there, so a long match can be stopped and
           resumed, and the figures are computed from the file)
           --duplicate (duplicate play: games come in groups of P that share one
           deal -- board, dice and cards -- with A in each seat once; the interval
           is then taken over the groups' mean results, which luck moves less)

A's seat rotates over the games (game g seats A at g mod players). Bots see only
``determinize(seat, rng)`` of the true state, as in the service. Prints A's wins
(a shared win counts fractionally), the win rate with a 95% Wilson interval
(with --duplicate: a normal interval over the deals, marked "dup"), the fair
share 1/players, A's and B's mean time per decision with a real choice
(forced moves are answered without search), A's search iterations per such decision
(at a time budget, ``mcts:...,seconds=S``, what the build's speed buys), and the build
that played (``GAMEHOST_PURE_PYTHON=1``: pure; a results file keeps each row's build
and a rerun resumes only its own build's rows). --a-build pure|compiled: seat A decides in a
helper process of that build (loadtest/other_build.py), B in this one; a row keeps A's
build as ``a_build``, and a rerun resumes the rows of the same A build. Suites:
  vs-random     greedy, mcts-fast, mcts-strong each against random, every game
  head-to-head  mcts-strong vs mcts-fast and greedy vs random, every game
"""

from __future__ import annotations

import argparse
import pathlib

from games import game_names, get_game
from loadtest.matches import match, report

SUITES = {
    "vs-random": [("greedy", "random"), ("mcts-fast", "random"), ("mcts-strong", "random")],
    "head-to-head": [("mcts-strong", "mcts-fast"), ("greedy", "random")],
}


def default_players(game: str, wanted: int | None) -> int:
    info = get_game(game).info
    if wanted is not None:
        return wanted
    return min(max(4, info.min_players), info.max_players)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=game_names(), help="one game (default: every game)")
    parser.add_argument("--a", default="mcts-fast")
    parser.add_argument("--b", default="random")
    parser.add_argument("--suite", choices=sorted(SUITES))
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=10_000)
    parser.add_argument("--option", action="append", default=[], help="game option key=value")
    parser.add_argument("--results", type=pathlib.Path, help="JSON lines file: record and resume")
    parser.add_argument("--duplicate", action="store_true", help="groups of games share a deal")
    parser.add_argument(
        "--a-build", choices=("compiled", "pure"), help="A decides in a helper of this build"
    )
    args = parser.parse_args()
    options = dict(item.split("=", 1) for item in args.option) or None
    games = [args.game] if args.game else game_names()
    pairs = SUITES[args.suite] if args.suite else [(args.a, args.b)]
    results = []
    for game in games:
        for a, b in pairs:
            players = default_players(game, args.players)
            result = match(
                game,
                a,
                b,
                args.games,
                players,
                args.processes,
                args.seed,
                options,
                args.results,
                args.duplicate,
                args.a_build,
            )
            results.append(result)
            print(report([result]).splitlines()[-1], flush=True)
    print()
    print(report(results))


if __name__ == "__main__":
    main()
