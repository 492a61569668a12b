"""The load-test harness works end to end: ``python -m loadtest --quick`` starts the real
parts (two serving processes, a Celery worker, the echo server) on the test Redis, runs
every scenario for a few seconds, and writes its report. Nothing here times anything."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import redis

pytestmark = [pytest.mark.procs, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"
# The steps tables' columns (loadtest/report.py). Not imported: importing the harness
# would load Locust, which monkey-patches the test process with gevent.
STEP_COLUMNS = (
    "| users | calls/s | p50 ms | p99 ms | failures | harness CPU | server CPU | Redis CPU |"
)


def test_quick_run_writes_a_report(redis_url, tmp_path):
    out = tmp_path / "report"
    run = subprocess.run(
        [sys.executable, "-m", "loadtest", "--quick", "--redis", redis_url, "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]

    page = (out / "README.md").read_text()
    for heading in ("## Figures", "## Steps", "## Mixed load", "## Parameters"):
        assert heading in page
    assert page.count(STEP_COLUMNS) == 3  # echo, one serving process, two
    assert "| ratio SubmitAction / echo |" in page
    for chart in ("throughput.png", "latency.png"):
        assert (out / chart).read_bytes()[:8] == PNG

    results = json.loads((out / "results.json").read_text())
    assert results["commit"]
    curves = results["curves"]
    assert len(curves) == 3
    for steps in curves.values():
        assert [s["users"] for s in steps] == [1, 2]
        assert all(s["calls"] > 0 and s["failures"] == 0 for s in steps)
        # The loaded servers did the work: their CPU time over the window is measured.
        assert all(s["server_cpu"] > 0 and s["redis_cpu"] >= 0 for s in steps)
    assert results["mixed"]["live_games_held_peak"] >= 1  # the players' games
    assert len(results["mixed"]["open_streams_peak_per_replica"]) == 2
    # The run's keys (games, Celery queue and results) are removed afterwards.
    prefix = results["redis_prefix"]
    assert prefix.startswith("gamehost-loadtest-")
    client = redis.Redis.from_url(redis_url)
    try:
        assert not list(client.scan_iter(match=f"{prefix}:*", count=1000))
    finally:
        client.close()
