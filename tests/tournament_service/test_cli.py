"""``gamehost tournament`` run as users run it: the last line is the report JSON with
exactly the issue's fields, the same every run, in memory and on Redis, and a run
killed with -9 resumes to the same JSON."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import pytest

from gamehost.tournament import Progress, parse_entrants
from gamehost.v1 import gamehost_pb2 as pb
from tests.procs import ServiceProcess, wait_until

ARGS = [
    "tournament",
    "cite",
    "--players",
    "2",
    "--entrants",
    "greedy,random,r2=random",
    "--games",
    "6",
    "--seed",
    "11",
    "--parallel",
    "2",
]
TOP_FIELDS = {
    "tournament",
    "game",
    "players",
    "format",
    "seed",
    "games",
    "standings",
    "seat_win_share",
    "timeouts",
    "errors",
}
STANDING_FIELDS = {
    "entrant",
    "level",
    "games",
    "points",
    "win_share",
    "ci_low",
    "ci_high",
    "mu",
    "sigma",
    "ordinal",
}


def run(extra: list[str], args: list[str] = ARGS) -> tuple[dict, subprocess.CompletedProcess]:
    done = subprocess.run(
        [sys.executable, "-m", "gamehost.cli", *args, *extra],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done


def check_report(report: dict) -> None:
    assert set(report) == TOP_FIELDS
    assert report["game"] == "cite" and report["players"] == 2 and report["seed"] == 11
    assert report["format"] == "round-robin" and report["games"] == 6
    assert [set(row) for row in report["standings"]] == [STANDING_FIELDS] * 3
    assert sorted(row["entrant"] for row in report["standings"]) == ["greedy", "r2", "random"]
    assert sum(row["games"] for row in report["standings"]) == 6 * 2
    assert len(report["seat_win_share"]) == 2
    assert report["timeouts"] == 0 and report["errors"] == 0


def test_same_command_twice_in_memory_prints_the_same_json(tmp_path):
    first, done = run(["--out", str(tmp_path)])
    check_report(first)
    assert "6/6 games finished" in done.stderr  # progress lines: stderr is not a terminal
    # Before the end, each line says the time left at the pace so far.
    assert re.search(r": [1-5]/6 games finished, about (\d+ min )?\d+ s left\n", done.stderr), (
        done.stderr
    )
    assert "timeouts 0  errors 0" in done.stdout  # under the standings table
    second, _ = run([])
    assert first == second
    lines = (tmp_path / "games.jsonl").read_text().splitlines()
    assert len(lines) == 6 and (tmp_path / "standings.csv").exists()
    assert (tmp_path / "crosstable.csv").exists()


def test_redis_gives_the_memory_standings(redis_url, redis_prefix):
    in_memory, _ = run([])
    on_redis, _ = run(["--redis", redis_url, "--redis-prefix", redis_prefix])
    assert on_redis == in_memory
    again, _ = run(["--redis", redis_url, "--redis-prefix", redis_prefix])  # resumes: done
    assert again == in_memory


def test_kill_9_mid_run_then_rerun_resumes_to_the_same_json(tmp_path, redis_url, redis_prefix):
    name = ["--name", "resumed"]
    where = ["--redis", redis_url, "--redis-prefix", redis_prefix]
    slow = [*ARGS[:-2], "--parallel", "1"]  # one table at a time: killed between tables
    cli = ServiceProcess([*slow, *name, *where], tmp_path / "cli.log").start()
    try:
        wait_until(lambda: "1/6 games finished" in cli.output(), 60, "a first table")
        cli.kill_group()  # kill -9: the CLI and its embedded server (and its pool)
    finally:
        cli.kill_group()
    assert "6/6 games finished" not in cli.output()
    resumed, rerun = run([*name, *where], slow)
    first_line = rerun.stderr.splitlines()[0]
    assert not first_line.startswith("resumed: 0/6"), first_line  # it went on, not anew
    uninterrupted, _ = run(name, slow)  # in memory, never killed
    assert resumed == uninterrupted


@pytest.mark.parametrize(
    ("text", "entrants"),
    [
        ("a=greedy,b=greedy,random", [("a", "greedy"), ("b", "greedy"), ("random", "random")]),
        (
            "mcts:trees=4,iterations=100,greedy",
            [("mcts:trees:4 iterations:100", "mcts:trees=4,iterations=100"), ("greedy", "greedy")],
        ),
        (
            "s=mcts:trees=2,c=0.5,playout=random,x=random",
            [("s", "mcts:trees=2,c=0.5,playout=random"), ("x", "random")],
        ),
    ],
)
def test_entrant_specs_keep_custom_levels_whole(text, entrants):
    assert parse_entrants(text) == entrants


def test_a_level_entered_twice_without_names_is_refused():
    with pytest.raises(ValueError, match="entered twice"):
        parse_entrants("greedy,greedy")
    done = subprocess.run(
        [sys.executable, "-m", "gamehost.cli", *ARGS[:5], "random,random", *ARGS[6:]],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "name them" in done.stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_a_bar_on_a_terminal_with_the_time_left(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    bar = Progress("t")
    for done, left in ((1, 65.0), (1, 60.0), (3, 7200.0), (4, 0.0)):
        bar.show(
            pb.TournamentProgress(finished_games=done, total_games=4, estimated_seconds_left=left)
        )
    frames = terminal.getvalue().split("\r")[1:]
    assert len(frames) == 3  # one per change of the count, none for the same count again
    assert frames[0].startswith(
        "t [#######.......................] 1/4 games, about 1 min 5 s left"
    )
    assert "3/4 games, about 2 h 00 min left" in frames[1]
    assert frames[2].startswith("t [##############################] 4/4 games ")
    assert frames[2].endswith("\n") and "left" not in frames[2]


def test_progress_lines_off_a_terminal_show_failed_tables(monkeypatch):
    lines = io.StringIO()
    monkeypatch.setattr(sys, "stderr", lines)
    Progress("t").show(
        pb.TournamentProgress(
            finished_games=2, failed_games=1, total_games=6, estimated_seconds_left=30
        )
    )
    assert lines.getvalue() == "t: 2/6 games finished, 1 failed, about 30 s left\n"
