"""The measuring side of benchmarks/hot_paths.py, shared with
benchmarks/studies/cython_vs_mypyc.py: each (checkout, build) measured in a fresh
worker process (hot_paths.py ``--worker``), the medians over repeats and their table.
Nothing here imports games or bots, so a worker can import it before it puts the
measured checkout first on ``sys.path``."""

from __future__ import annotations

import json
import os
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Selfplay games per game type, as multiples of --games: a Cité game is ~10x shorter.
GAMES = {"catan": 1, "cite": 10, "endeavor": 4}
PLAYERS = 4


def rates(run: dict, game_type: str) -> dict[str, float]:
    play, tree = run[game_type]["selfplay"], run[game_type]["search"]
    return {
        "games/s": play["games"] / play["seconds"],
        "actions/s": play["actions"] / play["seconds"],
        "iterations/s": tree["iterations"] / tree["seconds"],
    }


FIGURES = ("games/s", "actions/s", "iterations/s")
# (column label, checkout, build): one column of the table.
Job = tuple[str, pathlib.Path, str]


def run_worker(tree: pathlib.Path, build: str, games: int, positions: int) -> dict:
    """One fresh process measuring ``tree``'s ``build`` (compiled or pure)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GAMEHOST_PURE_PYTHON", "PYTHONPATH")}
    if build == "pure":
        env["GAMEHOST_PURE_PYTHON"] = "1"
    cmd = [sys.executable, str(ROOT / "benchmarks" / "hot_paths.py"), "--worker", str(tree)]
    cmd += ["--games", str(games), "--positions", str(positions)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=tree, env=env)
    run = json.loads(out.stdout.strip().splitlines()[-1])
    if run["build"] != build:
        sys.exit(f"{tree} ran the {run['build']} build, not {build}")
    return run


def measure(jobs: list[Job], games: int, positions: int, repeats: int) -> dict:
    """Medians over ``repeats`` rounds, each running every job once (every other round in
    reverse order): ``{label: {game: {figure: rate}}}``."""
    runs: dict[str, list[dict]] = {label: [] for label, _, _ in jobs}
    for repeat in range(repeats):
        for label, tree, build in jobs if repeat % 2 == 0 else list(reversed(jobs)):
            runs[label].append(run_worker(tree, build, games, positions))
        print(f"# repeat {repeat + 1} of {repeats} done", file=sys.stderr, flush=True)
    return {
        label: {
            game_type: {
                figure: statistics.median(rates(run, game_type)[figure] for run in done)
                for figure in FIGURES
            }
            for game_type in GAMES
        }
        for label, done in runs.items()
    }


def report(medians: dict, ratios: list[tuple[str, str, str]]) -> str:
    """The table: a column per job, then each ratio (title, numerator, denominator)."""
    # Here, not at the top: bots_common imports games, which a worker takes from its tree.
    from loadtest.bots_common import table

    labels = list(medians)
    rows = []
    for game_type in GAMES:
        for figure in FIGURES:
            row = [game_type, figure]
            row += [f"{medians[label][game_type][figure]:,.0f}" for label in labels]
            row += [
                f"{medians[top][game_type][figure] / medians[bottom][game_type][figure]:.2f}x"
                for _, top, bottom in ratios
            ]
            rows.append(row)
    return table(rows, ("game", "figure", *labels, *(title for title, _, _ in ratios)))


def conditions(games: int, positions: int, repeats: int) -> str:
    return (
        f"{PLAYERS} players; {games} selfplay games (Catan; Cité {GAMES['cite']}x, Endeavor "
        f"{GAMES['endeavor']}x) and {positions} mcts-fast trees per game; rates per CPU second "
        f"of each worker process, medians of {repeats} repeats; {os.cpu_count()} CPUs, Python "
        f"{sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f} at the end"
    )
