"""The Makefile installs once: ``make run`` and ``make install`` run the installer (uv)
only when .venv has no install stamp or a pyproject.toml is newer than it. Run on a copy
of the Makefile whose .venv holds stand-ins for python, uv and gamehost that log their
calls."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

LOGGER = """#!/bin/sh
echo "$(basename "$0") $*" >> "{log}"
"""


@pytest.fixture
def checkout(tmp_path):
    """A directory with the real Makefile, both pyproject.toml files and a .venv whose
    python, uv and gamehost only log their arguments."""
    if shutil.which("make") is None:
        pytest.fail("these tests need make on PATH (the README's two commands do)")
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "clients" / "python").mkdir(parents=True)
    for name in ("pyproject.toml", "clients/python/pyproject.toml"):
        (tmp_path / name).write_text("[project]\n")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for program in ("python", "uv", "gamehost"):
        path = bin_dir / program
        path.write_text(LOGGER.format(log=tmp_path / "calls.log"))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return tmp_path


def make(directory: Path, target: str) -> None:
    done = subprocess.run(
        ["make", "--no-print-directory", target],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def calls(directory: Path) -> list[str]:
    log = directory / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


def installs(directory: Path) -> int:
    return sum(1 for line in calls(directory) if line.startswith("uv pip install"))


def test_make_run_installs_once_then_only_serves(checkout):
    make(checkout, "run")
    make(checkout, "run")
    assert installs(checkout) == 1
    serves = [line for line in calls(checkout) if line.startswith("gamehost serve")]
    assert serves == ["gamehost serve --port 50051 --http-port 8080"] * 2


def test_a_changed_pyproject_installs_again(checkout):
    make(checkout, "install")
    make(checkout, "install")
    assert installs(checkout) == 1
    stamp = checkout / ".venv" / ".installed"
    installed = stamp.stat().st_mtime - 100
    os.utime(stamp, (installed, installed))  # installed a while ago, then edited:
    edited = installed + 50
    os.utime(checkout / "clients" / "python" / "pyproject.toml", (edited, edited))
    make(checkout, "install")
    assert installs(checkout) == 2
    make(checkout, "install")
    assert installs(checkout) == 2


def test_without_the_stamp_it_installs(checkout):
    make(checkout, "install")
    (checkout / ".venv" / ".installed").unlink()
    make(checkout, "run")
    assert installs(checkout) == 2
