"""promtool accepts the scrape config and the alert rules (scripts/test.sh installs
Debian's prometheus package, which ships promtool, when it is missing)."""

from __future__ import annotations

import shutil
import subprocess

from tests.deploy.conftest import DEPLOY


def promtool() -> str:
    path = shutil.which("promtool")
    assert path, "promtool is missing: scripts/test.sh installs it (apt-get install prometheus)"
    return path


def test_promtool_checks_the_config():
    done = subprocess.run(
        [promtool(), "check", "config", str(DEPLOY / "prometheus/prometheus.yml")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_promtool_checks_the_rules():
    done = subprocess.run(
        [promtool(), "check", "rules", str(DEPLOY / "prometheus/alerts.yml")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout
