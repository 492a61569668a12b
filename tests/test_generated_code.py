"""The committed protobuf code matches proto/ (regenerate: python scripts/gen_proto.py)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_generated_code_is_up_to_date(tmp_path):
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_proto.py"), "--out", str(tmp_path)],
        check=True,
    )
    fresh = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*_pb2*.py*"))
    committed = sorted(p.relative_to(ROOT) for p in (ROOT / "gamehost").rglob("*_pb2*.py*"))
    assert fresh == committed, "run: python scripts/gen_proto.py"
    for path in fresh:
        assert (tmp_path / path).read_bytes() == (ROOT / path).read_bytes(), (
            f"{path} is stale: run python scripts/gen_proto.py"
        )
