"""benchmarks/ladder_load.py runs end to end on a real Redis, PostgreSQL and Celery
worker: its bots validate, play ladder moves through `gamehost bot run`, it prints its
figures as JSON with no errors, and it leaves no key and no database behind. The
figures themselves are the benchmark's to print."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
import redis

from tests.fixtures.databases import POSTGRES_URL

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.procs  # a server, a Celery worker and two `bot run`s


def _databases() -> set[str]:
    with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
        rows = admin.execute("SELECT datname FROM pg_database").fetchall()
    return {name for (name,) in rows if name.startswith("gamehost_ladder_load_")}


def test_the_ladder_load_plays_moves_prints_its_figures_and_cleans_up(redis_url, tmp_path):
    before = _databases()
    out = tmp_path / "figures.json"
    command = [sys.executable, str(ROOT / "benchmarks" / "ladder_load.py")]
    command += ["--bots", "2", "--warmup", "0", "--seconds", "10"]
    command += ["--redis", redis_url, "--postgres", POSTGRES_URL, "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(out.read_text())
    assert figures["bots_active"] == 2, figures
    assert figures["moves"] > 0, figures
    assert figures["errors"] == 0, (figures, done.stderr)
    assert figures["move_round_trip_p50_ms"] <= figures["move_round_trip_p99_ms"], figures
    assert figures["commits"] == "awaited"
    assert set(figures["cpu_percent_of_a_core"]) >= {"server", "runners_and_bots", "machine"}
    assert _databases() == before
    store = redis.Redis.from_url(redis_url)
    try:
        assert list(store.scan_iter(match="ladder-load-*", count=1000)) == []
    finally:
        store.close()
