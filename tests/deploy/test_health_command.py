"""``gamehost health``: the check docker-compose and the Dockerfile run."""

from __future__ import annotations

import subprocess
import sys

from tests.procs import free_port


def health(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gamehost.cli", "health", *args],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_serving_replica_exits_zero(stack):
    done = health("--target", stack.replica.target, "--timeout", "5")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("SERVING")
    assert len(done.stdout.strip().splitlines()) == 1


def test_named_service_is_checked(stack):
    done = health("--target", stack.replica.target, "--service", "gamehost.v1.GameHost")
    assert done.returncode == 0, done.stdout
    unknown = health("--target", stack.replica.target, "--service", "no.Such")
    assert unknown.returncode != 0
    assert "NOT_FOUND" in unknown.stdout


def test_nothing_listening_exits_non_zero():
    done = health("--target", f"127.0.0.1:{free_port()}", "--timeout", "1")
    assert done.returncode != 0
    assert "UNAVAILABLE" in done.stdout or "DEADLINE_EXCEEDED" in done.stdout
