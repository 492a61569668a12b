"""Bounded resources on a real gRPC server: rate limits, throttled failed
authentications, the live-games cap across two replicas on one Redis, and expiry."""

from __future__ import annotations

import time

import grpc
import pytest

from gamehost import Client, GameError
from services.server import ServerConfig, ServerThread
from tests.procs import wait_until


def outcomes(call, times: int, messages: set[str] | None = None) -> dict[grpc.StatusCode, int]:
    """How many of ``times`` calls ended with each status (refusal texts into messages)."""
    counts: dict[grpc.StatusCode, int] = {}
    for _ in range(times):
        try:
            call()
            code = grpc.StatusCode.OK
        except GameError as exc:
            code = exc.code
            if messages is not None:
                messages.add(exc.details)
        counts[code] = counts.get(code, 0) + 1
    return counts


def test_requests_over_the_rate_are_resource_exhausted():
    config = ServerConfig(port=0, bot_workers=1, rate_limit=5, rate_burst=10)
    with ServerThread(config) as server, Client(server.target) as client:
        started = time.monotonic()
        messages: set[str] = set()
        counts = outcomes(client.list_games, 60, messages)
        elapsed = time.monotonic() - started
        assert counts.get(grpc.StatusCode.OK, 0) <= 10 + 5 * elapsed + 1, counts
        assert counts[grpc.StatusCode.RESOURCE_EXHAUSTED] >= 60 - (10 + 5 * elapsed + 1)
        assert all("rate limit" in m for m in messages) and messages
        # Health checks are never limited: a load balancer must still see the server.
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        with grpc.insecure_channel(server.target) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            for _ in range(30):
                reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=5)
                assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_wrong_tokens_are_throttled():
    """1,000 wrong tokens as fast as one client can send them: only the first few
    (bursts of 4x the rate) are answered UNAUTHENTICATED, the rest RESOURCE_EXHAUSTED."""
    config = ServerConfig(port=0, bot_workers=1, failed_auth_rate=5)
    with ServerThread(config) as server, Client(server.target) as client:
        game_id = client.create_game("cite", ["human", "bot"]).game_id
        started = time.monotonic()
        messages: set[str] = set()
        counts = outcomes(lambda: client.state(game_id, "wrong-token"), 1000, messages)
        elapsed = time.monotonic() - started
        wrong = counts.get(grpc.StatusCode.UNAUTHENTICATED, 0)
        assert 20 <= wrong <= 20 + 5 * elapsed + 1, (counts, elapsed)
        assert counts[grpc.StatusCode.RESOURCE_EXHAUSTED] == 1000 - wrong
        assert any("failed authentications" in m for m in messages)
        print(f"1000 wrong tokens in {elapsed:.2f} s: {wrong} UNAUTHENTICATED")


def test_live_games_cap_holds_across_two_replicas(redis_url, redis_prefix):
    config = ServerConfig(
        port=0,
        redis_url=redis_url,
        redis_prefix=redis_prefix,
        bot_workers=1,
        live_games_per_client=3,
    )
    with (
        ServerThread(config) as one,
        ServerThread(config) as two,
        Client(one.target) as a,
        Client(two.target) as b,
    ):
        a.create_game("cite", ["human", "human"])
        b.create_game("cite", ["human", "human"])
        a.create_game("cite", ["human", "human"])
        for client in (a, b):
            with pytest.raises(GameError) as caught:
                client.create_game("cite", ["human", "human"])
            assert caught.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "unfinished games" in caught.value.details
        assert len(a.list_games()) == 3  # nothing stored by the refused calls


@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_finished_games_expire_and_live_ones_stay(backend, request):
    redis = {}
    if backend == "redis":
        redis = {
            "redis_url": request.getfixturevalue("redis_url"),
            "redis_prefix": request.getfixturevalue("redis_prefix"),
        }
    config = ServerConfig(port=0, bot_workers=1, finished_retention=0.5, **redis)
    with ServerThread(config) as server, Client(server.target) as client:
        waiting = client.create_game("cite", ["human", "bot"]).game_id
        done = client.create_game("cite", ["bot", "bot"], seed=3).game_id
        for _ in client.watch(done):
            pass  # ends when the game is over

        def expired() -> bool:
            try:
                client.state(done)
            except GameError as exc:
                assert exc.code == grpc.StatusCode.NOT_FOUND
                return True
            return False

        wait_until(expired, timeout=30, what="the finished game to expire")
        assert [g.game_id for g in client.list_games()] == [waiting]
        assert client.state(waiting).game_id == waiting


@pytest.mark.slow  # the watcher learns of the expiry at its 20 s existence check
def test_abandoned_games_expire():
    config = ServerConfig(port=0, bot_workers=1, idle_expiry=0.5)
    with ServerThread(config) as server, Client(server.target) as client:
        game_id = client.create_game("cite", ["human", "human"]).game_id
        with pytest.raises(GameError) as watching:
            for _ in client.watch(game_id):
                pass  # a watcher of a game that expires is told so, not left hanging
        assert watching.value.code == grpc.StatusCode.NOT_FOUND

        def gone() -> bool:
            return game_id not in {g.game_id for g in client.list_games()}

        wait_until(gone, timeout=30, what="the abandoned game to expire")
        with pytest.raises(GameError) as caught:
            client.join(game_id)
        assert caught.value.code == grpc.StatusCode.NOT_FOUND
