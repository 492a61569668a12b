"""A match between two bot levels, game by game in a process pool, and its report: what
benchmarks/bots_strength.py plays and prints, and benchmarks/studies/bots_scaling.py
plays too. ``--results`` files (one JSON line per finished game) make a match
resumable and are what the figures are computed from."""

from __future__ import annotations

import contextlib
import json
import pathlib
import subprocess
import time
from multiprocessing import get_context

from bots.arena import play_game
from bots.decide import decide
from games import engine_build
from loadtest.bots_common import a_build_of, table
from loadtest.other_build import OtherBuild, routed
from services.tournament.intervals import over_deals, wilson

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
