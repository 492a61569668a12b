"""A made-up ``x-api-key`` opens no limiter bucket (issue 27), over gRPC and HTTP (one
limiter serves both): without configured API keys the header is ignored and the
client is its address, so a new random key per call still meets the wrong-token
throttle, the request rate limit and the live-games cap; with keys configured, an
unknown key is refused UNAUTHENTICATED before it reaches any bucket.

The buckets refill slowly (rates well under one a second); each bound allows for the
refill over the calls' own elapsed time, so no bound depends on the machine's speed."""

from __future__ import annotations

import secrets
import time

import grpc
import pytest

from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from tests.fixtures.gateway import Served, gateway_config

KEY = "k" * 20 + "-alice"
_HTTP_CODES = {200: "OK", 401: "UNAUTHENTICATED", 429: "RESOURCE_EXHAUSTED"}


@pytest.fixture(params=["grpc", "http"])
def transport(request) -> str:
    return request.param


def made_up_key() -> str:
    return "made-up-" + secrets.token_hex(12)


def call(served: Served, transport: str, rpc: str, api_key: str, **fields) -> str:
    """One call with ``api_key`` in its ``x-api-key``: the status's name."""
    if transport == "grpc":
        stub = pb_grpc.GameHostStub(served.channel)
        if rpc == "CreateGame":
            fields = {"game_type": "cite", "seats": [pb.SeatSpec(kind=pb.HUMAN)] * 2}
        request = getattr(pb, f"{rpc}Request")(**fields)
        metadata = (("x-api-key", api_key),) if api_key else ()
        try:
            getattr(stub, rpc)(request, metadata=metadata, timeout=30)
        except grpc.RpcError as exc:
            return exc.code().name
        return "OK"
    headers = {"X-Api-Key": api_key} if api_key else {}
    if rpc == "ListGames":
        answer = served.http.get("/v1/games", headers=headers)
    elif rpc == "GetState":
        headers["Authorization"] = f"Bearer {fields['token']}"
        answer = served.http.get(f"/v1/games/{fields['game_id']}", headers=headers)
    else:
        assert rpc == "CreateGame"
        body = {"gameType": "cite", "seats": [{"kind": "HUMAN"}, {"kind": "HUMAN"}]}
        answer = served.http.post("/v1/games", body, headers=headers)
    return _HTTP_CODES.get(answer.status, str(answer.status))


def counted(statuses: list[str]) -> dict[str, int]:
    return {s: statuses.count(s) for s in sorted(set(statuses))}


def test_a_made_up_key_per_call_meets_the_wrong_token_throttle(transport):
    # Wrong tokens: 0.25 a second, bursts of 1.
    with Served(gateway_config(None, "gamehost", failed_auth_rate=0.25)) as served:
        game_id = served.client.create_game("cite", ["human", "bot"]).game_id
        started = time.monotonic()
        statuses = [
            call(served, transport, "GetState", made_up_key(), game_id=game_id, token="wrong")
            for _ in range(40)
        ]
        elapsed = time.monotonic() - started
    reached = statuses.count("UNAUTHENTICATED")  # the calls that reached the token check
    assert 1 <= reached <= 1 + 0.25 * elapsed, (counted(statuses), elapsed)
    assert statuses.count("RESOURCE_EXHAUSTED") == 40 - reached, counted(statuses)


def test_a_made_up_key_per_call_meets_the_request_rate_limit(transport):
    config = gateway_config(None, "gamehost", rate_limit=0.5, rate_burst=5)
    with Served(config) as served:
        started = time.monotonic()
        statuses = [call(served, transport, "ListGames", made_up_key()) for _ in range(30)]
        elapsed = time.monotonic() - started
    served_ok = statuses.count("OK")
    assert 5 <= served_ok <= 5 + 0.5 * elapsed, (counted(statuses), elapsed)
    assert statuses.count("RESOURCE_EXHAUSTED") == 30 - served_ok, counted(statuses)


def test_a_made_up_key_per_call_meets_the_live_games_cap(transport):
    with Served(gateway_config(None, "gamehost", live_games_per_client=2)) as served:
        statuses = [call(served, transport, "CreateGame", made_up_key()) for _ in range(5)]
        assert statuses == ["OK"] * 2 + ["RESOURCE_EXHAUSTED"] * 3, statuses
        assert len(served.client.list_games()) == 2


def test_an_unknown_key_is_refused_before_any_bucket(transport, tmp_path):
    keys = tmp_path / "api-keys"
    keys.write_text(f"{KEY} alice\n")
    config = gateway_config(
        None, "gamehost", api_keys_file=str(keys), rate_limit=0.001, rate_burst=3
    )
    with Served(config) as served:
        # Many more than the burst: none is throttled, each is refused for its key.
        unknown = [call(served, transport, "ListGames", made_up_key()) for _ in range(20)]
        assert unknown == ["UNAUTHENTICATED"] * 20, counted(unknown)
        # They spent nothing: this address still has its whole burst, then no more.
        mine = [call(served, transport, "ListGames", "") for _ in range(4)]
        assert mine == ["OK"] * 3 + ["RESOURCE_EXHAUSTED"], mine
        # A known key is a client of its own, with a bucket of its own.
        assert call(served, transport, "ListGames", KEY) == "OK"
