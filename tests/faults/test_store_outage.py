"""Redis dies under a real server: every RPC answers UNAVAILABLE (never UNKNOWN), health
goes NOT_SERVING; Redis comes back (AOF): SERVING again and calls succeed."""

from __future__ import annotations

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY

from gamehost import Client, GameError
from services.server import ServerConfig, ServerThread
from tests.procs import RedisServer, wait_until

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.fixture
def own_redis(tmp_path):
    server = RedisServer(tmp_path / "redis").start()
    yield server
    server.stop()


def health(target: str) -> int | None:
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            return stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=2).status
        except grpc.RpcError:
            return None


def code_of(call, *args, **kwargs) -> grpc.StatusCode:
    with pytest.raises(GameError) as caught:
        call(*args, **kwargs)
    return caught.value.code


def store_up() -> float | None:
    return REGISTRY.get_sample_value("gamehost_store_up")


def test_redis_outage_answers_unavailable_and_recovers(own_redis):
    config = ServerConfig(port=0, redis_url=own_redis.url, bot_workers=1)
    with ServerThread(config) as server, Client(server.target, retries=0) as client:
        created = client.create_game("cite", ["human", "human"], seed=5)
        game_id = created.game_id
        me = client.join(game_id)
        before = client.state(game_id, me.token)
        assert health(server.target) == SERVING

        own_redis.kill9()
        calls = {
            "GetState": lambda: client.state(game_id, me.token),
            "SubmitAction": lambda: client.submit(
                game_id, me.token, before.legal_actions[0].id, expected_version=before.version
            ),
            "ListGames": lambda: client.list_games(),
            "JoinGame": lambda: client.join(game_id),
            "CreateGame": lambda: client.create_game("cite", ["human", "human"]),
            "GetRecord": lambda: client.record(game_id),
            "WatchGame": lambda: next(client.watch(game_id)),
            "Hint": lambda: client.hint(game_id, me.token),
        }
        codes = {name: code_of(call) for name, call in calls.items()}
        assert codes == dict.fromkeys(calls, grpc.StatusCode.UNAVAILABLE)
        wait_until(lambda: health(server.target) == NOT_SERVING, 5, "health NOT_SERVING")
        assert store_up() == 0  # the same monitor sets the metric the alert rules read

        # A retrying client gives up with UNAVAILABLE too: the fault is labelled retryable.
        with Client(server.target, retries=2, backoff=0.01) as retrying:
            assert code_of(retrying.state, game_id) == grpc.StatusCode.UNAVAILABLE

        own_redis.restart()
        wait_until(lambda: health(server.target) == SERVING, 5, "health SERVING again")
        assert store_up() == 1
        with Client(server.target) as retrying:
            done = retrying.submit(
                game_id, me.token, before.legal_actions[0].id, expected_version=before.version
            )
            assert done.version > before.version and not done.duplicate
            assert retrying.state(game_id).version == done.version


def test_a_connection_closed_under_the_store_answers_unavailable(monkeypatch):
    """uvloop raises RuntimeError, not ConnectionError, when redis-py writes to a
    connection a Redis node closed (met while a Cluster's slots migrate): a fault of
    the store like any other, so UNAVAILABLE, never INTERNAL."""
    closed = "unable to perform operation on <TCPTransport closed=True reading=False>; "
    config = ServerConfig(port=0, bot_workers=1)
    with ServerThread(config) as server, Client(server.target, retries=0) as client:
        game_id = client.create_game("cite", ["human", "human"], seed=5).game_id
        me = client.join(game_id)
        store = server.running.host.store

        async def dropped(*args, **kwargs):
            raise RuntimeError(closed + "the handler is closed")

        monkeypatch.setattr(store, "load", dropped)
        assert code_of(client.state, game_id, me.token) == grpc.StatusCode.UNAVAILABLE
        monkeypatch.undo()
        assert client.state(game_id, me.token).version >= 1
        monkeypatch.setattr(store, "load", lambda *a, **k: _raise(RuntimeError("a bug")))
        assert code_of(client.state, game_id, me.token) == grpc.StatusCode.INTERNAL


async def _raise(exc: Exception):
    raise exc
