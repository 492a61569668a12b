"""The fault table of docs/reliability.md: acknowledged moves lost or doubled across
Redis faults, with and without ``--redis-min-replicas``.

    .venv/bin/python benchmarks/failover_table.py [--min-replicas 0,1] [--tables 3]
                                                   [--scenario NAME ...] [--logs DIR]

Each run starts its own Sentinel set (a primary, 2 replicas, 3 sentinels; redis-server
on free ports in a temporary directory) or, for the cluster row, a 3-primary Redis
Cluster, one ``gamehost serve`` on it (with ``--celery`` and one ``gamehost worker``
for the Celery row), three human tables and an all-bot game, injects the fault
mid-play and compares every table's record with what its player was told
(``loadtest.failover`` says how each column is counted). Everything it started is
killed at the end of each run.
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import sys
import time

from loadtest import failover

ROOT = pathlib.Path(__file__).resolve().parent.parent

CELERY = "celery"  # the primary killed, bots on a Celery worker (the broker on Sentinel too)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--min-replicas", default="0,1", help="values to run (default 0,1)")
    parser.add_argument("--tables", type=int, default=3, help="human tables per run (3)")
    parser.add_argument(
        "--scenario",
        action="append",
        choices=sorted([*failover.FAULTS, *failover.CLUSTER_FAULTS, CELERY]),
        help="run only these (repeatable; default: all)",
    )
    parser.add_argument("--logs", help="keep each run's server and worker logs under this folder")
    args = parser.parse_args()
    runs = []  # (scenario, min-replicas, celery)
    for scenario in args.scenario or [*failover.FAULTS, CELERY, *failover.CLUSTER_FAULTS]:
        if scenario in failover.CLUSTER_FAULTS:
            runs.append((scenario, 0, False))  # its cluster has no replicas to wait for
        elif scenario == CELERY:
            runs.append(("primary killed (kill -9)", 1, True))
        else:
            runs += [(scenario, int(n), False) for n in args.min_replicas.split(",")]
    rows = []
    started = time.monotonic()
    for scenario, n, celery in runs:
        with failover.workdir() as workdir:
            try:
                row = failover.run(scenario, n, workdir, tables=args.tables, celery=celery)
            finally:
                if args.logs:
                    kept = pathlib.Path(args.logs) / f"{len(rows)}-min-replicas-{n}"
                    shutil.copytree(workdir / "logs", kept, dirs_exist_ok=True)
        if celery:
            row.scenario += ", bots on a Celery worker"
        rows.append(row)
        print(f"# {row.scenario}, min-replicas {n}: done", file=sys.stderr, flush=True)
    print(
        "| fault | --redis-min-replicas | acknowledged | lost | doubled | refused "
        "(too few replicas) | unavailable (switch) | longest stall, tables | "
        "longest stall, bots | longest stall, WatchGame |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row.scenario} | {row.min_replicas} | {row.acknowledged} | {row.lost} | "
            f"{row.doubled} | {row.refused} | {row.unavailable} | {row.resume:.1f} s | "
            f"{row.bots:.1f} s | {row.watch:.1f} s |"
        )
    print(f"\n({time.monotonic() - started:.0f} s in all)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
