"""Rate limits counted in the shared store (issue 57): two ``gamehost serve`` replicas on
one Redis throttle a client as one replica would (wrong tokens, requests); export
without an API key is bounded per client address over gRPC and HTTP, a keyed caller is
not; the in-memory store still counts in its process.

Every window is hours long (at most one more call an hour), so nothing frees up while a
test runs: each count is exact on any machine."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator

import grpc
import pytest
import redis

from gamehost import Client, GameError
from services.server import ServerConfig, ServerThread
from tests.fixtures.gateway import Served
from tests.fixtures.http_client import Http
from tests.procs import Replica

KEY = "e" * 20 + "-exporter"
OK = grpc.StatusCode.OK
UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED
EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED


def status_of(call: Callable[[], object], messages: set[str] | None = None) -> grpc.StatusCode:
    """The status a call ended with (a refusal's text into ``messages``)."""
    try:
        call()
    except GameError as exc:
        if messages is not None:
            messages.add(exc.details)
        return exc.code
    return OK


@pytest.fixture
def two_replicas(tmp_path, redis_url, redis_prefix) -> Iterator[Callable[..., list[Client]]]:
    """``start(*flags)``: two ``gamehost serve`` processes on one Redis and key prefix,
    a client (no retries) of each; all killed afterwards."""
    started: list[Replica] = []
    clients: list[Client] = []

    def start(*flags: str) -> list[Client]:
        on_redis = ["--redis", redis_url, "--redis-prefix", redis_prefix, "--bot-workers", "1"]
        for i in range(2):
            started.append(Replica(tmp_path / f"replica-{i}.log", [*on_redis, *flags]).start())
        for replica in started:
            clients.append(Client(replica.wait_serving().target, retries=0))
        return clients

    yield start
    for client in clients:
        client.close()
    for replica in started:
        replica.kill_group()


def limit_keys(redis_url: str, prefix: str) -> dict[bytes, int]:
    """The rate limits' keys in Redis under ``prefix``, with their TTLs in seconds."""
    client = redis.Redis.from_url(redis_url)
    try:
        return {key: client.ttl(key) for key in client.scan_iter(match=f"{prefix}:limits:*")}
    finally:
        client.close()


def test_wrong_tokens_over_two_replicas_get_one_replicas_budget(
    two_replicas, redis_url, redis_prefix
):
    # 20 wrong tokens in any 20,000 s per client, whichever replica hears them.
    flags = ("--rate-limit", "0", "--failed-auth-rate", "0.001", "--failed-auth-burst", "20")
    clients = two_replicas(*flags)
    game_id = clients[0].create_game("cite", ["human", "human"]).game_id
    messages: set[str] = set()
    counts = Counter(
        status_of(lambda i=i: clients[i % 2].state(game_id, "wrong-token"), messages)
        for i in range(300)
    )
    assert counts == {UNAUTHENTICATED: 20, EXHAUSTED: 280}, counts
    refusal = next(m for m in messages if "failed authentications" in m)
    assert "20 wrong tokens in any 20000 s" in refusal and "retry in" in refusal
    # Past it, each replica refuses this client even a right call.
    for client in clients:
        assert status_of(lambda c=client: c.state(game_id)) == EXHAUSTED
    # Counted under the server's key prefix, and every key expires.
    keys = limit_keys(redis_url, redis_prefix)
    assert keys and all(0 < ttl <= 20_000 for ttl in keys.values()), keys


def test_the_request_rate_over_two_replicas_is_one_replicas(two_replicas):
    clients = two_replicas("--rate-limit", "0.001", "--rate-burst", "10")  # 10 in any 10,000 s
    messages: set[str] = set()
    counts = Counter(status_of(clients[i % 2].list_games, messages) for i in range(40))
    assert counts == {OK: 10, EXHAUSTED: 30}, counts
    assert all("rate limit: at most 10 requests in any 10000 s" in m for m in messages)


@pytest.fixture(params=["memory", "redis"])
def store_settings(request) -> dict:
    """ServerConfig fields for each store: in memory, and on the test Redis."""
    if request.param == "memory":
        return {}
    return {
        "redis_url": request.getfixturevalue("redis_url"),
        "redis_prefix": request.getfixturevalue("redis_prefix"),
    }


def test_wrong_tokens_are_counted_on_either_store(store_settings):
    config = ServerConfig(
        port=0,
        bot_workers=1,
        rate_limit=0,
        failed_auth_rate=1 / 3600,
        failed_auth_burst=3,
        **store_settings,
    )
    with ServerThread(config) as server, Client(server.target, retries=0) as client:
        game_id = client.create_game("cite", ["human", "human"]).game_id
        counts = Counter(status_of(lambda: client.state(game_id, "wrong")) for _ in range(12))
    assert counts == {UNAUTHENTICATED: 3, EXHAUSTED: 9}, counts


def test_anonymous_export_is_bounded_per_address_and_a_key_is_not(store_settings, tmp_path):
    keys = tmp_path / "api-keys"
    keys.write_text(f"{KEY} exporter\n")
    config = ServerConfig(
        port=0,
        http_port=0,
        bot_workers=1,
        archive_url=f"sqlite:///{tmp_path / 'archive.sqlite3'}",
        archive_create=True,
        api_keys_file=str(keys),
        anonymous_exports=2,
        **store_settings,
    )
    with Served(config) as served, Client(served.thread.target, retries=0) as anonymous:
        # gRPC: two exports a minute from this address, then RESOURCE_EXHAUSTED.
        export = lambda: list(anonymous.export_games())  # noqa: E731
        messages: set[str] = set()
        assert [status_of(export, messages) for _ in range(4)] == [OK, OK, EXHAUSTED, EXHAUSTED]
        (refusal,) = messages
        assert "at most 2 exports in any 60 s per client address without an API key" in refusal
        assert "retry in" in refusal
        # HTTP from the same address: the same count, answered 429 with the error body.
        refused = served.http.get("/v1/export")
        assert refused.status == 429, refused.body
        error = refused.json()["error"]
        assert error["code"] == "RESOURCE_EXHAUSTED" and "without an API key" in error["message"]
        # Another address has an allowance of its own, over HTTP as well.
        with Http(served.url, local_host="127.0.0.2") as other:
            assert [other.get("/v1/export").status for _ in range(3)] == [200, 200, 429]
        # A caller with a key this server lists is not bounded by it.
        with Client(served.thread.target, retries=0, api_key=KEY) as keyed:
            assert [status_of(lambda: list(keyed.export_games())) for _ in range(5)] == [OK] * 5
        assert served.http.get("/v1/export", headers={"X-Api-Key": KEY}).status == 200
