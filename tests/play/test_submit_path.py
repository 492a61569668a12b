"""scripts/submit_path.py, the command docs/architecture.md ("One SubmitAction,
followed") gives for the path: it follows a SubmitAction from the servicer to the store."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_path_goes_from_the_servicer_through_the_one_write_to_the_store():
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "submit_path.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout.splitlines()
    stops = [line.strip().removesuffix("  ->") for line in out]
    order = [
        "api.grpc_api.GameHostServicer.SubmitAction",
        "play.submitting.Submitting.submit_action",
        "stores.base.Snapshot.info",
        "turns.steps.play_on",
        "turns.steps.commit_step",
        "stores.memory.MemoryStore.write",
    ]
    assert [stops.index(name) for name in order] == sorted(stops.index(name) for name in order)
    calls, functions = out[-2].split(), out[-1].split()
    assert calls[0] == "calls:" and functions[0] == "functions:"
    assert int(functions[1]) == len(
        {s for s in stops if not s.startswith(("calls:", "functions:"))}
    )
