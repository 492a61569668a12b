"""The load generator of the push-path studies (benchmarks/studies/peer_server.py, which
push_profile.py drives) playing real games, closed loop, on gamehost and on the bare
floor (push_floor.py). The figures themselves are the studies' to print."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from loadtest.counter_game import counter_env
from loadtest.parts import free_port, stop_process, wait_for_line

ROOT = Path(__file__).resolve().parents[2]
STUDIES = ROOT / "benchmarks" / "studies"

SERVE = [sys.executable, "-m", "gamehost.cli", "serve", "--host", "127.0.0.1", "--archive",
         "none", "--bot-workers", "1", "--rate-limit", "0"]  # fmt: skip


@pytest.mark.procs
@pytest.mark.parametrize(
    ("server", "game", "ready"),
    [
        ("gamehost", "cite", "gamehost serving on"),
        ("gamehost", "counter", "gamehost serving on"),
        ("floor", "counter", "floor serving on"),
        ("floor", "cite", "floor serving on"),
        ("floor-redis", "counter", "floor serving on"),
        ("floor-redis", "cite", "floor serving on"),
    ],
)
def test_the_load_plays_closed_loop(server, game, ready, request):
    """peer_server.py's load generator against gamehost (the counter registered as the
    benchmark registers it), against the bare floor and against the floor with every
    event through Redis, with Cité and the counter."""
    port = free_port()
    if server == "gamehost":
        command = [*SERVE, "--port", str(port)]
    else:
        command = [sys.executable, str(STUDIES / "push_floor.py"), str(port)]
        if server == "floor-redis":
            prefix = request.getfixturevalue("redis_prefix")
            command += [request.getfixturevalue("redis_url"), prefix]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, text=True, cwd=ROOT, env=counter_env()
    )
    try:
        wait_for_line(process, ready)
        load = subprocess.run(
            [sys.executable, str(STUDIES / "peer_server.py"), "--load",
             f"127.0.0.1:{port}", "2", "0.2", "1.5", game, "40"],
            capture_output=True, text=True, timeout=120, cwd=ROOT,
        )  # fmt: skip
    finally:
        stop_process(process)
    lines = load.stdout.splitlines()
    assert load.returncode == 0, load.stderr
    assert lines[0] == "measuring"
    result = json.loads(lines[-1])
    assert result["errors"] == 0, result["failures"]
    assert result["moves"] > 0
    # Both seats' streams deliver every move (and Cité's chance outcomes besides).
    assert result["events"] >= 2 * result["moves"]
    if game == "counter":  # 40-move games: some ended and new ones began
        assert result["games"] >= 1
    assert 0 < result["p50_ms"] <= result["p99_ms"]
