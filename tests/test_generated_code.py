"""The committed protobuf code matches proto/ (regenerate: python scripts/gen_proto.py)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _generated(root: pathlib.Path) -> list[pathlib.Path]:
    """The generated sources under ``root``/gamehost (not the bytecode Python caches)."""
    found = (root / "gamehost").rglob("*_pb2*.py*")
    return sorted(p.relative_to(root) for p in found if p.suffix in (".py", ".pyi"))


def test_generated_code_is_up_to_date(tmp_path):
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_proto.py"), "--out", str(tmp_path)],
        check=True,
    )
    fresh = _generated(tmp_path)
    committed = _generated(ROOT)
    assert fresh == committed, "run: python scripts/gen_proto.py"
    for path in fresh:
        assert (tmp_path / path).read_bytes() == (ROOT / path).read_bytes(), (
            f"{path} is stale: run python scripts/gen_proto.py"
        )
