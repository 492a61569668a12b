"""benchmarks/studies/commit_watch.py runs end to end on a real Redis: it plays games in its
four ways, prints the figures docs/ladder.md quotes, and leaves no key behind. The
figures themselves are the benchmark's to print."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import redis

ROOT = Path(__file__).resolve().parents[2]

WAYS = ("unwatched", "watched", "watched, not held", "watched, inline")


def test_the_commit_benchmark_plays_its_four_ways_prints_its_figures_and_cleans_up(redis_url):
    command = [sys.executable, str(ROOT / "benchmarks" / "studies" / "commit_watch.py")]
    command += ["--games", "1", "--rounds", "1", "--redis", redis_url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    for way in WAYS:
        line = re.search(
            rf"^{re.escape(way)} +([\d.]+) / +([\d.]+) +([\d.]+) / +([\d.]+) +(\d+)$",
            done.stdout,
            re.MULTILINE,
        )
        assert line, done.stdout
        commit_p50, commit_p99, move_p50, move_p99, moves = line.groups()
        assert int(moves) > 0
        assert float(commit_p50) <= float(commit_p99) and float(move_p50) <= float(move_p99)
        assert float(commit_p50) <= float(move_p50)  # the commit is part of the move
        assert re.search(rf"^  {re.escape(way)}: [\d.]+$", done.stdout, re.MULTILINE)
    store = redis.Redis.from_url(redis_url)
    try:
        assert list(store.scan_iter(match="commit-watch-*", count=1000)) == []
    finally:
        store.close()
