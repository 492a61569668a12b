"""The compiled build (mypyc's C extensions, setup.py) and the pure build
(GAMEHOST_PURE_PYTHON=1, games/build.py) play identical games, and each says which it is.

Each build runs in its own subprocess, since the switch is read at first import.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from games import game_names
from games.build import PURE_ENV

ROOT = Path(__file__).resolve().parents[2]


def compiled_on_disk() -> bool:
    """Whether the install compiled the engines (no C compiler: it did not)."""
    return any((ROOT / "games").glob("base.*.so"))


def run(argv: list[str], pure: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != PURE_ENV}
    if pure:
        env[PURE_ENV] = "1"
    return subprocess.run(
        argv,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )


def test_the_switch_picks_the_build():
    expected = "compiled" if compiled_on_disk() else "pure"
    code = "import games, bots.mcts; print(games.engine_build(), bots.mcts.__file__)"
    compiled = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != PURE_ENV},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    pure = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, PURE_ENV: "1"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert compiled[0] == expected
    assert compiled[1].endswith(".so") == (expected == "compiled")
    assert pure == ["pure", str(ROOT / "bots" / "mcts.py")]


@pytest.mark.parametrize("seed", [1, 2])
def test_both_builds_play_identical_games(seed):
    """The same seeded selfplay (search, greedy and random seats) in every game: the
    records (action logs, final states' bytes, returns) match byte for byte."""
    selfplay = [sys.executable, "-m", "tests.games.selfplay_record", str(seed)]
    compiled = run(selfplay, pure=False)
    pure = run(selfplay, pure=True)
    assert compiled.stderr.strip() == f"build: {'compiled' if compiled_on_disk() else 'pure'}"
    assert pure.stderr.strip() == "build: pure"
    records = [json.loads(line) for line in pure.stdout.splitlines()]
    assert [r["game"] for r in records] == game_names()
    assert all(r["actions"] and sum(r["returns"]) == pytest.approx(1.0) for r in records)
    assert compiled.stdout == pure.stdout


@pytest.mark.parametrize("pure", [False, True], ids=["default", "pure"])
def test_gamehost_games_names_the_build(pure):
    """``gamehost games`` (an embedded server) says which build the server runs."""
    expected = "pure" if pure or not compiled_on_disk() else "compiled"
    shown = run([str(Path(sys.executable).parent / "gamehost"), "games"], pure=pure).stdout
    assert f"engines: {expected}\n" in shown
