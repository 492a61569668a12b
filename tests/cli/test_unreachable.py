"""A target nobody answers at: one clear line, after the client's 3 s wait."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.procs  # the CLI in a process, waiting out its 3 s deadline


@pytest.mark.parametrize(
    "command", [["play", "cite", "--players", "3"], ["games"]], ids=["play", "games"]
)
def test_unreachable_target_gives_one_line(command):
    done = subprocess.run(
        [sys.executable, "-m", "gamehost.cli", *command, "--target", "127.0.0.1:1"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode == 1
    assert lines == [
        "gamehost: UNAVAILABLE: no gamehost server answers at 127.0.0.1:1 (waited 3 s)"
    ]
