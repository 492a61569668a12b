"""Progress: games finished and failed of the total, and the time left at the pace
of the recent table ends (a long stop soon stops counting)."""

from __future__ import annotations

import pytest

from services.stores import TournamentSnapshot
from services.tournament.model import Definition, Entrant
from services.tournament.runner import PACE_WINDOW, progress, seconds_left


def test_the_time_left_follows_the_pace_of_recent_ends():
    ends = [100.0 + 10 * k for k in range(5)]  # a table ends every 10 s
    assert seconds_left(90.0, ends, total=10, parallel=1, now=140.0) == pytest.approx(50.0)
    # Between ends it counts down, and never below zero.
    assert seconds_left(90.0, ends, total=10, parallel=1, now=146.0) == pytest.approx(44.0)
    assert seconds_left(90.0, ends, total=10, parallel=1, now=1000.0) == 0.0


def test_a_long_stop_leaves_the_pace_once_it_is_out_of_the_window():
    stopped = [0.0, 3600.0] + [3600.0 + 2 * k for k in range(1, PACE_WINDOW + 1)]
    now = stopped[-1]
    assert seconds_left(-2.0, stopped, total=100, parallel=1, now=now) == pytest.approx(
        2 * (100 - len(stopped))
    )


def test_the_first_end_counts_the_tables_run_at_once():
    assert seconds_left(0.0, [12.0], total=7, parallel=3, now=12.0) == pytest.approx(24.0)
    assert seconds_left(0.0, [], total=7, parallel=3, now=5.0) == 0.0  # not known yet
    assert seconds_left(0.0, [1.0, 2.0], total=2, parallel=1, now=2.0) == 0.0  # all done


def test_progress_counts_failed_tables_apart():
    defn = Definition(
        name="p",
        game="cite",
        players=2,
        entrants=(Entrant("a", "random"), Entrant("b", "random")),
        format="round-robin",
        games=4,
        seed=1,
    )
    results = {
        0: {"returns": [1, 0], "finished_at": 20.0},
        1: {"returns": [], "error": "lost", "finished_at": 30.0},
    }
    tables = {i: {"game_id": f"g{i}"} for i in range(3)}
    snapshot = TournamentSnapshot("p", {"created": 10.0}, "running", tables, results, {}, {})
    shown = progress(snapshot, defn, now=30.0)
    assert shown == {
        "finished_games": 1,
        "failed_games": 1,
        "total_games": 4,
        "running_tables": 1,
        "elapsed_seconds": 20.0,
        "estimated_seconds_left": 20.0,
    }
    finished = TournamentSnapshot("p", {"created": 10.0}, "finished", tables, results, {}, {})
    assert progress(finished, defn, now=99.0)["estimated_seconds_left"] == 0.0
    assert progress(finished, defn, now=99.0)["elapsed_seconds"] == 20.0
