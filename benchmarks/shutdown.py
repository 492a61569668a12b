"""How long ``gamehost serve`` takes to exit after SIGTERM, idle and busy.

    .venv/bin/python benchmarks/shutdown.py [--runs N]

idle: a server that has served nothing. busy: four bots in the middle of a long search
(a custom level no turn finishes in time), a WatchGame stream and an SSE stream open.
Targets (docs/operations.md, "Stopping"): idle under 2 s; busy within the drain bound
(1 s for calls in flight, then 5 s at most for the rest).
"""

from __future__ import annotations

import argparse
import pathlib
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb

ROOT = pathlib.Path(__file__).resolve().parent.parent

LONG_SEARCH = "bot:mcts:trees=2,iterations=20000,depth=200"


def _start() -> tuple[subprocess.Popen, str, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "gamehost.cli", "serve", "--port", "0", "--http-port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    target = http = None
    assert process.stdout is not None
    while http is None:
        line = process.stdout.readline()
        if not line:
            raise SystemExit(f"gamehost serve exited with {process.wait()}")
        if found := re.search(r"serving on ([\d.]+:\d+)", line):
            target = found.group(1)
        if found := re.search(r"HTTP API on (http://[\d.]+:\d+)", line):
            http = found.group(1)
    assert target is not None
    return process, target, http


def _busy(client: Client, http: str) -> None:
    game = client.create_game("cite", [LONG_SEARCH] * 4, seed=5)
    while client.state(game.game_id).bot_status != pb.BOT_THINKING:
        time.sleep(0.05)
    watch = client.watch(game.game_id)
    next(watch)
    threading.Thread(target=lambda: sum(1 for _ in watch), daemon=True).start()
    sse = urllib.request.urlopen(f"{http}/v1/games/{game.game_id}/events")
    threading.Thread(target=sse.read, daemon=True).start()


def time_to_exit(busy: bool) -> tuple[float, int, str]:
    process, target, http = _start()
    with Client(target) as client:
        if busy:
            _busy(client, http)
        started = time.perf_counter()
        process.send_signal(signal.SIGTERM)
        code = process.wait()
        seconds = time.perf_counter() - started
    assert process.stdout is not None
    return seconds, code, process.stdout.read()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    threading.excepthook = lambda hook_args: None  # cut streams in reader threads
    for case in ("idle", "busy"):
        figures = []
        for _ in range(args.runs):
            seconds, code, output = time_to_exit(case == "busy")
            drained = "drained and stopped" in output
            if code != 0 or not drained:
                raise SystemExit(f"{case}: exit {code}, drained logged: {drained}\n{output}")
            figures.append(seconds)
        print(
            f"{case}: SIGTERM to exit {statistics.median(figures):.2f} s median, "
            f"{max(figures):.2f} s max over {args.runs} runs (exit 0, drained logged)",
            flush=True,
        )


if __name__ == "__main__":
    main()
