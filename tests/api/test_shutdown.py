"""``gamehost serve`` stops on SIGTERM: it drains, says so, exits 0 and leaves no
process behind, idle or in the middle of bot searches. How long it takes is a
figure of benchmarks/shutdown.py, not an assertion here (docs/operations.md,
"Stopping")."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from tests.procs import Replica, alive_pids, descendants, free_port, wait_until

pytestmark = pytest.mark.procs

# A search far longer than any wait here: it must be stopped, not waited for.
LONG_SEARCH = "bot:mcts:trees=2,iterations=20000,depth=200"
HANG_GUARD = 90  # seconds: only a hung process meets it


@pytest.fixture
def serve(tmp_path):
    started: list[Replica] = []

    def start() -> Replica:
        replica = Replica(
            tmp_path / "serve.log", ["--http-port", str(free_port()), "--bot-workers", "2"]
        )
        started.append(replica.start())
        return replica.wait_serving()

    yield start
    for replica in started:
        replica.kill_group()


def _sigterm(replica: Replica) -> int:
    """SIGTERM, then the exit code (a hang fails at HANG_GUARD)."""
    assert replica.process is not None
    replica.process.send_signal(signal.SIGTERM)
    return replica.process.wait(timeout=HANG_GUARD)


def test_an_idle_server_drains_and_exits_on_sigterm(serve):
    replica = serve()
    assert _sigterm(replica) == 0, replica.output()
    assert "shutdown: drained and stopped" in replica.output()
    assert "did not stop in time" not in replica.output()


def test_a_sigterm_as_soon_as_the_address_is_printed_drains_too():
    # What a supervisor (or benchmarks/shutdown.py) does: SIGTERM the moment the address
    # shows. The signal handlers must already be in place (they once came after it).
    command = [sys.executable, "-m", "gamehost.cli", "serve", "--port", "0"]
    command += ["--http-port", "0"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    ) as process:
        try:
            assert process.stdout is not None
            lines = []
            while not lines or "HTTP API on" not in lines[-1]:
                line = process.stdout.readline()
                assert line, "".join(lines)
                lines.append(line)
            process.send_signal(signal.SIGTERM)
            rest = process.stdout.read()
            assert process.wait(timeout=HANG_GUARD) == 0, "".join(lines) + rest
            assert "shutdown: drained and stopped" in rest
        finally:
            process.kill()


def test_a_busy_server_stops_its_bot_searches_and_exits_on_sigterm(serve):
    replica = serve()
    with Client(replica.target) as client:
        game = client.create_game("cite", [LONG_SEARCH] * 4, seed=5)

        def thinking() -> bool:
            return client.state(game.game_id).bot_status == pb.BOT_THINKING

        wait_until(thinking, 60, "the first bot to search")
        watch = client.watch(game.game_id)  # an open stream must not hold the stop up
        next(watch)  # GAME_CREATED: the stream is open
        children = descendants(replica.pid)
        assert children, "the search runs in pool processes"
        assert _sigterm(replica) == 0, replica.output()
    output = replica.output()
    assert "bot search tree(s) in progress" in output, output
    assert "shutdown: drained and stopped" in output, output
    assert "did not stop in time" not in output, output
    wait_until(lambda: not alive_pids(children), 30, "the search processes to end")
