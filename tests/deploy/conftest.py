"""A small real deployment for the metric tests: its own Redis, one replica handing bot
turns to one Celery worker, both exporting metrics, after some traffic."""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from celery import Celery

from gamehost import Client, GameError
from tests.fixtures.metrics import scrape
from tests.procs import RedisServer, Replica, Worker, free_port, wait_until

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


@dataclass
class Stack:
    replica: Replica
    replica_metrics_port: int
    worker_metrics_port: int


def _traffic(client: Client) -> None:
    """Every kind of call the dashboard shows: creates, submits, errors, a stream, bots."""
    # Bots on the worker: a tiny search level (search trees) and random (no search).
    client.create_game(
        "cite", ["bot:mcts:trees=2,iterations=8", "bot:random", "bot:random"], seed=3
    )
    # A people's game that stays live, with one submitted action.
    game = client.create_game("cite", ["human"] * 3, seed=4).game_id
    seats = [client.join(game, seat) for seat in range(3)]
    for seat in seats:
        legal = client.legal_actions(game, seat.token)
        if legal:
            client.submit(game, seat.token, legal[0].id)
            break
    else:
        raise AssertionError("no seat had a legal action")
    with pytest.raises(GameError):
        client.state("no-such-game")
    stream = client.watch(game)
    next(stream)  # one event, then hang up
    stream.close()


# One stack for the whole package (tests/deploy): started once, torn down after it.
@pytest.fixture(scope="package")
def stack(tmp_path_factory):
    base = tmp_path_factory.mktemp("deploy-stack")
    redis = RedisServer(base / "redis").start()
    queue = f"gamehost-test-{uuid.uuid4().hex[:8]}"
    worker_port, replica_port = free_port(), free_port()
    worker = Worker(base / "worker.log", redis.url, queue, concurrency=2)
    worker.args += ["--metrics-port", str(worker_port), "--metrics-host", "127.0.0.1"]
    worker.env["PROMETHEUS_MULTIPROC_DIR"] = str(base / "worker-metrics")  # removed with tmp
    replica = Replica(
        base / "replica.log",
        ["--redis", redis.url, "--celery", "--metrics-port", str(replica_port)],
        env={
            "GAMEHOST_CELERY_BROKER": redis.url,
            "GAMEHOST_CELERY_BACKEND": redis.url,
            "GAMEHOST_CELERY_QUEUE": queue,
            "GAMEHOST_STORE_PROBE_SECONDS": "0.5",
        },
    )
    ping_app = Celery(broker=redis.url)
    try:
        worker.start()
        replica.start()
        worker.wait_ready(ping_app)
        replica.wait_serving()
        with Client(replica.target) as client:
            _traffic(client)
        yield Stack(replica, replica_port, worker_port)
    finally:
        replica.kill_group()
        worker.kill_group()
        redis.stop()
        ping_app.close()


def wait_for_names(port: int, names: set[str], timeout: float = 30) -> set[str]:
    """Scrape until every name in ``names`` is exposed; the names exposed last."""
    from tests.deploy.promql import exposed_names

    seen: set[str] = set()

    def present() -> bool:
        seen.clear()
        seen.update(exposed_names(scrape(port)))
        return names <= seen

    with contextlib.suppress(AssertionError):  # the caller's assertion names what is missing
        wait_until(present, timeout, f"metrics on :{port}")
    return seen
