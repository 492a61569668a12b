"""Whatever plays a tournament of bots, its report is the same: two replicas sweeping
one Redis, a Celery worker instead of the local pool, or one in-memory server."""

from __future__ import annotations

import json

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from services.server import ServerConfig, ServerThread
from tests.procs import wait_until
from tests.tournament_service.test_api import definition


def _report(client: Client, name: str) -> dict:
    client.create_tournament(definition(name, games=6, parallel=3))
    for _ in client.watch_tournament(name):
        pass  # the stream ends with the tournament
    final = client.tournament(name)
    assert final.status == pb.TOURNAMENT_FINISHED
    return json.loads(final.report_json)


def _in_memory(name: str) -> dict:
    with ServerThread(ServerConfig(port=0, bot_workers=1)) as server, Client(server.target) as c:
        return _report(c, name)


def test_two_replicas_on_one_redis_give_the_memory_report(redis_url, redis_prefix):
    config = ServerConfig(port=0, redis_url=redis_url, redis_prefix=redis_prefix, bot_workers=1)
    with ServerThread(config) as first, ServerThread(config) as second:
        with Client(first.target) as client:
            client.create_tournament(definition("shared", games=6, parallel=3))
        with Client(second.target) as client:
            # Both replicas sweep it: tables start and finish on either of them.
            wait_until(
                lambda: client.tournament("shared").status == pb.TOURNAMENT_FINISHED, 60, "end"
            )
            on_two = json.loads(client.tournament("shared").report_json)
    assert on_two == _in_memory("shared")


def test_celery_workers_give_the_local_pool_report(celery_client):
    assert _report(celery_client, "celery") == _in_memory("celery")
