"""The fault table of docs/reliability.md: acknowledged moves lost or doubled across
Redis faults, with and without ``--redis-min-replicas``.

    .venv/bin/python benchmarks/failover_table.py [--min-replicas 0,1] [--tables 3]
                                                   [--scenario NAME ...]

Each run starts its own Sentinel set (a primary, 2 replicas, 3 sentinels; redis-server
on free ports in a temporary directory), one ``gamehost serve --redis-sentinel ...``,
three human tables and an all-bot game, injects the fault mid-play and compares every
table's record with what its player was told (``loadtest.failover`` says how each
column is counted). Everything it started is killed at the end of each run.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from loadtest import failover  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--min-replicas", default="0,1", help="values to run (default 0,1)")
    parser.add_argument("--tables", type=int, default=3, help="human tables per run (3)")
    parser.add_argument(
        "--scenario",
        action="append",
        choices=sorted(failover.FAULTS),
        help="run only these (repeatable; default: all)",
    )
    args = parser.parse_args()
    rows = []
    started = time.monotonic()
    for scenario in args.scenario or list(failover.FAULTS):
        for n in (int(v) for v in args.min_replicas.split(",")):
            with failover.workdir() as workdir:
                row = failover.run(scenario, n, workdir, tables=args.tables)
            rows.append(row)
            print(f"# {scenario}, min-replicas {n}: done", file=sys.stderr, flush=True)
    print(
        "| fault | --redis-min-replicas | acknowledged | lost | doubled | refused "
        "(too few replicas) | unavailable (switch) | longest stall, tables | "
        "longest stall, bots |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row.scenario} | {row.min_replicas} | {row.acknowledged} | {row.lost} | "
            f"{row.doubled} | {row.refused} | {row.unavailable} | {row.resume:.1f} s | "
            f"{row.bots:.1f} s |"
        )
    print(f"\n({time.monotonic() - started:.0f} s in all)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
