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
helper process of that build (benchmarks/other_build.py), B in this one; a row keeps A's
build as ``a_build``, and a rerun resumes the rows of the same A build. Suites:
  vs-random     greedy, mcts-fast, mcts-strong each against random, every game
  head-to-head  mcts-strong vs mcts-fast and greedy vs random, every game
"""

from __future__ import annotations

import argparse
import contextlib
import json
import pathlib
import subprocess
import time
from multiprocessing import get_context

from bots_common import a_build_of, table
from other_build import OtherBuild, routed

from bots.arena import play_game
from bots.decide import decide
from games import engine_build, game_names, get_game
from services.tournament.intervals import over_deals, wilson

SUITES = {
    "vs-random": [("greedy", "random"), ("mcts-fast", "random"), ("mcts-strong", "random")],
    "head-to-head": [("mcts-strong", "mcts-fast"), ("greedy", "random")],
}


_helpers: dict[str, OtherBuild] = {}  # per process: A's build where it is not this one


def _decider(a: str, a_build: str):
    if a_build == engine_build():
        return decide
    if a_build not in _helpers:
        _helpers[a_build] = OtherBuild(a_build)
    return routed(_helpers[a_build], a)


def _one(job: tuple) -> tuple:
    game, a, b, players, seed, options, deal, a_build = job
    start = time.perf_counter()
    seat = seed % players
    levels = [b] * players
    levels[seat] = a
    r = play_game(game, levels, seed, options, deal=deal, decider=_decider(a, a_build))
    others = [s for s in range(players) if s != seat]
    return (
        r.returns[seat],
        r.choices[seat],
        r.choice_think[seat],
        sum(r.choices[s] for s in others),
        sum(r.choice_think[s] for s in others),
        r.plies,
        seed,
        time.perf_counter() - start,
        r.choice_iterations[seat],
    )


FIELDS = (
    "return",
    "a_choices",
    "a_think",
    "b_choices",
    "b_think",
    "plies",
    "seed",
    "wall",
    "a_iterations",  # A's search iterations on its choices (absent from older rows)
)


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _match_key(
    game: str, a: str, b: str, players: int, options: dict | None, duplicate: bool
) -> dict:
    key = {"game": game, "a": a, "b": b, "players": players, "options": options or {}}
    if duplicate:  # only then: rows written before the option existed keep matching
        key["duplicate"] = True
    return key


def _deal(seed: int, first: int, players: int, duplicate: bool) -> int | None:
    """The deal of game ``seed`` in a duplicate match: one per group of ``players`` games."""
    return first + (seed - first) // players if duplicate else None


def paired_interval(results: dict[int, tuple], first: int, players: int) -> tuple[float, float]:
    """95% normal interval of A's mean result over duplicate groups (one value per deal)."""
    groups: dict[int | None, list[float]] = {}
    for seed, r in results.items():
        groups.setdefault(_deal(seed, first, players, True), []).append(r[0])
    return over_deals([sum(v) / len(v) for v in groups.values()])


def _load(path: pathlib.Path, key: dict, a_build: str) -> dict[int, tuple]:
    """Finished games of this match already in ``path`` with A in ``a_build``, by seed."""
    done: dict[int, tuple] = {}
    if not path.exists():
        return done
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        # A row names the build that played A (older rows: the build that played it; the
        # oldest, neither): a match at a time budget plays differently compiled and pure,
        # so a rerun resumes the rows of its own A build.
        row_build = a_build_of(row, a_build)
        if all(row.get(k) == v for k, v in key.items()) and row_build == a_build:
            done[row["seed"]] = tuple(row.get(f) for f in FIELDS)
    return done


def match(
    game: str,
    a: str,
    b: str,
    games: int,
    players: int,
    processes: int,
    seed: int,
    options: dict | None,
    results_file: pathlib.Path | None = None,
    duplicate: bool = False,
    a_build: str | None = None,
) -> dict:
    if duplicate and games % players:
        raise SystemExit(f"--duplicate needs --games to be a multiple of {players} players")
    a_build = a_build or engine_build()
    if a_build != engine_build() and a == b:
        raise SystemExit("--a-build needs A and B to be different levels")
    key = _match_key(game, a, b, players, options, duplicate)
    done = _load(results_file, key, a_build) if results_file else {}
    seeds = [seed + g for g in range(games)]
    jobs = [
        (game, a, b, players, s, options, _deal(s, seed, players, duplicate), a_build)
        for s in seeds
        if s not in done
    ]
    if done:
        print(f"# {len(seeds) - len(jobs)} of {games} games already in {results_file}", flush=True)
    commit = _commit()
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(results_file.open("a")) if results_file else None
        if processes > 1 and len(jobs) > 1:
            pool = stack.enter_context(get_context("fork").Pool(processes))
            finished = pool.imap_unordered(_one, jobs, chunksize=1)
        else:
            finished = map(_one, jobs)
        for r in finished:
            done[r[6]] = r
            if out:
                row = {**key, **dict(zip(FIELDS, r, strict=True)), "commit": commit}
                row["build"] = engine_build()
                row["a_build"] = a_build
                if duplicate:
                    row["deal"] = _deal(r[6], seed, players, duplicate)
                out.write(json.dumps(row) + "\n")
                out.flush()
    results = [done[s] for s in seeds]
    wins = sum(r[0] for r in results)
    if duplicate:
        low, high = paired_interval({s: done[s] for s in seeds}, seed, players)
    else:
        low, high = wilson(wins, games)
    return {
        "game": game,
        "a": a,
        "b": b,
        "players": players,
        "games": games,
        "duplicate": duplicate,
        "wins": wins,
        "rate": wins / games,
        "ci": (low, high),
        "fair": 1 / players,
        "a_ms": 1000 * sum(r[2] for r in results) / max(1, sum(r[1] for r in results)),
        "b_ms": 1000 * sum(r[4] for r in results) / max(1, sum(r[3] for r in results)),
        "a_choices": sum(r[1] for r in results) / games,
        # None when some rows predate the field
        "a_iterations": None
        if any(r[8] is None for r in results)
        else sum(r[8] for r in results) / max(1, sum(r[1] for r in results)),
        "build": engine_build() if a_build == engine_build() else f"{engine_build()}, A {a_build}",
        "plies": sum(r[5] for r in results) / games,
        "game_s": sum(r[7] for r in results) / games,  # per game, in its own process
    }


def report(results: list[dict]) -> str:
    rows = [
        (
            r["game"],
            f"{r['a']} vs {r['players'] - 1}x {r['b']}",
            r["games"],
            f"{r['wins']:g}",
            f"{100 * r['rate']:.1f}%",
            f"[{100 * r['ci'][0]:.1f}, {100 * r['ci'][1]:.1f}]"
            + (" dup" if r["duplicate"] else ""),
            f"{100 * r['fair']:.0f}%",
            f"{r['a_ms']:.1f}",
            f"{r['b_ms']:.1f}",
            f"{r['a_choices']:.0f}",
            "-" if r["a_iterations"] is None else f"{r['a_iterations']:,.0f}",
            f"{r['game_s']:.1f}",
            r["build"],
        )
        for r in results
    ]
    header = (
        "game",
        "A vs B",
        "games",
        "A wins",
        "A rate",
        "95% CI",
        "fair",
        "A ms/choice",
        "B ms/choice",
        "A choices/game",
        "A iterations/choice",
        "s/game",
        "build",
    )
    return table(rows, header)


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
