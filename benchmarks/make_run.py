"""How long ``make run`` takes to serve once installed: from the command to the line
with the web client's address, then SIGTERM.

    .venv/bin/python benchmarks/make_run.py [--runs N]

It runs ``make run`` itself, on the fixed ports the README gives (50051 and 8080), so
nothing else may be serving there. The first run installs when .venv/.installed is
missing or older than a pyproject.toml; the figure is the median of the runs after it.
Target: under 3 s.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import signal
import socket
import statistics
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def port_in_use(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def one_run() -> tuple[float, bool]:
    """Seconds to the printed address, and whether the install (uv) ran."""
    started = time.perf_counter()
    process = subprocess.Popen(
        ["make", "--no-print-directory", "run"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # make and the server it starts: one group to stop
    )
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if "HTTP API on" in line:
            break
    seconds = time.perf_counter() - started
    os.killpg(process.pid, signal.SIGTERM)
    process.wait()
    if "HTTP API on" not in "".join(lines):
        raise SystemExit("make run did not serve:\n" + "".join(lines))
    return seconds, any("uv pip install" in line for line in lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4)
    args = parser.parse_args()
    busy = [port for port in (50051, 8080) if port_in_use(port)]
    if busy:
        raise SystemExit(f"something already listens on {busy}: make run needs those ports")
    first, installed = one_run()
    print(f"first run: {first:.2f} s ({'installed' if installed else 'already installed'})")
    figures = []
    for _ in range(args.runs - 1):
        seconds, installed = one_run()
        if installed:
            raise SystemExit("the install ran again: the stamp does not hold")
        figures.append(seconds)
    if figures:
        print(
            f"make run to its address, installed: {statistics.median(figures):.2f} s median, "
            f"{min(figures):.2f}-{max(figures):.2f} s over {len(figures)} runs (no install)"
        )


if __name__ == "__main__":
    main()
