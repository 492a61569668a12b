"""Servers with the HTTP gateway on free ports, and helpers shared by the gateway's tests."""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import json_format

from gamehost import Client
from services.server import ServerConfig, ServerThread
from tests.service.http_client import Http

ZERO_GAME = "0" * 32  # well-formed, never issued


def gateway_config(redis_url: str | None, prefix: str, **settings: Any) -> ServerConfig:
    return ServerConfig(
        port=0,
        http_port=0,
        redis_url=redis_url,
        redis_prefix=prefix,
        bot_workers=1,
        **{"http_heartbeat": 0.3, **settings},
    )


class Served:
    """A running server with a gRPC client and an HTTP client."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config

    def __enter__(self) -> Served:
        self.thread = ServerThread(self.config).__enter__()
        self.client = Client(self.thread.target)
        self.channel = grpc.insecure_channel(self.thread.target)
        self.http = Http(self.url)
        return self

    @property
    def url(self) -> str:
        url = self.thread.running.http_url
        assert url is not None
        return url

    def __exit__(self, *exc: object) -> None:
        self.http.close()
        self.channel.close()
        self.client.close()
        self.thread.__exit__()

    def fingerprint(self, game_id: str) -> tuple:
        """What a refused call must leave as it was: the game's stored version, events,
        seats taken and status, and the set of games."""
        store = self.thread.running.store

        async def read() -> tuple:
            snapshot = await store.load(game_id)
            games = sorted(s.game_id for s in await store.list_games(1000))
            if snapshot is None:
                return None, games
            seen = (snapshot.version, snapshot.last_event_id, dict(snapshot.tokens), snapshot.status)
            return seen, games

        return self.thread.call(read())


def as_json(message) -> dict:
    """A gRPC answer as the gateway writes it."""
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


def two_humans(http: Http, game_type: str = "cite", seed: int = 3) -> tuple[str, str, str]:
    """A game of two joined human seats: (game id, seat 0's token, seat 1's token)."""
    created = http.post(
        "/v1/games",
        {"gameType": game_type, "seats": [{"kind": "HUMAN"}, {"kind": "HUMAN"}], "seed": str(seed)},
    )
    assert created.status == 200, created.body
    game_id = created.json()["gameId"]
    tokens = [http.post(f"/v1/games/{game_id}:join", {"seat": s}).json()["token"] for s in (0, 1)]
    return game_id, tokens[0], tokens[1]
