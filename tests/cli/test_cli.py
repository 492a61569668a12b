"""The command line, run as users run it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.procs

SELFPLAY = [
    sys.executable,
    "-m",
    "gamehost.cli",
    "selfplay",
    "cite",
    "--players",
    "4",
    "--seed",
    "7",
]


def run(args: list[str]) -> dict:
    done = subprocess.run(args, capture_output=True, text=True, timeout=120, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["game"] == "cite" and result["players"] == 4 and result["seed"] == 7
    assert result["terminal"] is True and result["actions"] > 0
    assert len(result["returns"]) == 4 and sum(result["returns"]) == 1.0
    return result


def test_selfplay_is_reproducible_in_memory():
    assert run(SELFPLAY) == run(SELFPLAY)


def test_selfplay_is_reproducible_on_redis_and_matches_memory(redis_url, redis_prefix):
    on_redis_args = [*SELFPLAY, "--redis", redis_url, "--redis-prefix", redis_prefix]
    on_redis = run(on_redis_args)
    assert on_redis == run(on_redis_args)
    assert on_redis == run(SELFPLAY)


def test_selfplay_against_a_running_server(server):
    assert run([*SELFPLAY, "--target", server.target]) == run(SELFPLAY)


def test_play_in_the_terminal_against_bots():
    """A person types Cité's whole notation over and over until the end; each prompt
    plays the first line that is legal (the others are refused and asked again)."""
    cards = ["granary", "good-war", "outpost", "allegiance", "hospital", "fire"]
    cards += ["barbarians", "civil-war", "land-of-welcome"]
    moves = ["levy", "store wheat", "store army", "done", "play", "take gold", "take wheat"]
    moves += [f"attack {s}" for s in (1, 2)] + [f"deal {c} to {s}" for c in cards for s in (1, 2)]
    answers = "\n".join(moves * 400) + "\n"
    done = subprocess.run(
        [sys.executable, "-m", "gamehost.cli", "play", "cite", "--players", "3", "--seed", "4"],
        input=answers,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "you are seat 0" in out
    assert "your move" in out and "levy" in out
    assert out.rstrip().splitlines()[-1] in ("you win!", "you lose", "shared win")


@pytest.mark.parametrize("game", ["catan", "endeavor"])
def test_selfplay_every_game_is_reproducible(game):
    args = [sys.executable, "-m", "gamehost.cli", "selfplay", game, "--players", "4", "--seed", "3"]
    first, second = (
        json.loads(
            subprocess.run(args, capture_output=True, text=True, timeout=300, check=True)
            .stdout.strip()
            .splitlines()[-1]
        )
        for _ in range(2)
    )
    assert first == second
    assert first["terminal"] is True and first["game"] == game
    assert sum(first["returns"]) == pytest.approx(1.0)


def test_board_prints_the_catan_map_with_ids():
    done = subprocess.run(
        [sys.executable, "-m", "gamehost.cli", "board", "catan", "--seed", "5"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "H18" in done.stdout and "[65]" in done.stdout and "harbor 8" in done.stdout
