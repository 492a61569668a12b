"""Sentinel failover with real processes (issue 33): a primary, two replicas and three
sentinels (``loadtest.topology``), ``gamehost serve --redis-sentinel ...
--redis-min-replicas 1``, human tables and an all-bot game playing while a fault hits
(``loadtest.failover`` plays and counts). benchmarks/failover_table.py prints the same
runs as the table of docs/reliability.md, with min-replicas 0 beside them.

Asserted: no acknowledged move is lost or doubled, every table's record is exactly what
its player was told, and play, the bots and a WatchGame stream resume with nobody
calling (the run waits for them, failing after its deadline). How long they took is
printed, not asserted."""

from __future__ import annotations

import pytest

from loadtest import failover
from loadtest.topology import redis_binary

pytestmark = [
    pytest.mark.procs,
    pytest.mark.skipif(redis_binary() is None, reason="needs redis-server on PATH"),
]


def run(tmp_path, scenario: str, celery: bool = False) -> failover.Row:
    row = failover.run(scenario, 1, tmp_path, tables=2, moves_after=5, celery=celery)
    print(f"\n{row}")
    assert row.acknowledged > 0
    assert (row.lost, row.doubled, row.mismatches) == (0, 0, [])
    assert row.voided == 0  # no move was refused as no longer legal: nothing went back
    return row


def test_primary_killed_mid_play_loses_nothing_and_bots_resume(tmp_path):
    row = run(tmp_path, "primary killed (kill -9)")
    assert row.unavailable > 0  # the switch was seen, and answered UNAVAILABLE
    # WatchGame delivered again after the promotion (the run waits for it): the watch
    # reader's connection asked Sentinel anew.
    assert row.watch is not None


def test_replicas_cut_off_then_primary_killed_refuses_rather_than_loses(tmp_path):
    row = run(tmp_path, "replicas cut off 3 s, primary killed")
    assert row.refused > 0  # moves only the primary held were refused, not acknowledged


def test_a_sentinel_down_changes_nothing(tmp_path):
    row = run(tmp_path, "one sentinel killed")
    assert row.refused == 0


def test_split_from_the_replicas_refuses_until_they_are_back(tmp_path):
    row = run(tmp_path, "split: both replicas killed 3 s")
    assert row.refused > 0


def test_bots_resume_after_a_promotion_through_celery(tmp_path):
    """The Celery broker follows the same Sentinel set (``gamehost worker
    --redis-sentinel``); the all-bot game's turns run on the worker."""
    run(tmp_path, "primary killed (kill -9)", celery=True)
