"""Regenerate gamehost/v1/*_pb2*.py from proto/ (run after editing any .proto).

Usage: python scripts/gen_proto.py [--out DIR]
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from grpc_tools import protoc

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "proto"


def generate(out_dir: pathlib.Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    protos = sorted(str(p.relative_to(PROTO_DIR)) for p in PROTO_DIR.rglob("*.proto"))
    include = pathlib.Path(protoc.__file__).parent / "_proto"
    base = ["protoc", f"-I{PROTO_DIR}", f"-I{include}"]
    messages = [*base, f"--python_out={out_dir}", f"--pyi_out={out_dir}", *protos]
    # Only files that declare a service get gRPC stubs.
    services = [p for p in protos if "\nservice " in (PROTO_DIR / p).read_text()]
    stubs = [*base, f"--grpc_python_out={out_dir}", *services]
    for args in (messages, stubs):
        if protoc.main(args) != 0:
            sys.exit("protoc failed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=pathlib.Path, default=ROOT)
    generate(parser.parse_args().out)


if __name__ == "__main__":
    main()
