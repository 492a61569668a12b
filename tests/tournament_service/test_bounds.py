"""A server's bounds on one tournament (``serve --max-tournament-tables``, ``-games``,
``-entrants``): a definition over one is INVALID_ARGUMENT whose message names the
bound and its flag, over gRPC and over HTTP, and nothing is created."""

from __future__ import annotations

import time

import grpc
import pytest

from gamehost import Client, GameError
from services.server import ServerConfig, ServerThread
from services.tournament.wire import definition_from
from tests.fixtures.gateway import Served, gateway_config
from tests.tournament_service.test_api import definition


def _refused(client, message) -> str:
    with pytest.raises(GameError) as refused:
        client.create_tournament(message)
    assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT, message
    return refused.value.details


def test_definitions_over_the_default_bounds_are_invalid_argument_naming_them(memory_served):
    _, client = memory_served
    # What a probe sent: 2^32 - 1 tables at once.
    details = _refused(client, definition("huge", parallel=2**32 - 1))
    assert "16" in details and "--max-tournament-tables" in details, details
    assert "--max-tournament-tables" in _refused(client, definition("p17", parallel=17))
    details = _refused(client, definition("many", games=1002))
    assert "1000" in details and "--max-tournament-games" in details, details
    crowd = [(f"e{i}", "random") for i in range(65)]
    details = _refused(client, definition("crowd", entrants=crowd))
    assert "64" in details and "--max-tournament-entrants" in details, details
    assert client.list_tournaments() == []  # a refusal creates nothing
    # At the bound is fine.
    assert client.create_tournament(definition("at-bound", parallel=16)).definition.parallel == 16


def test_the_bounds_are_the_servers_settings():
    config = ServerConfig(
        port=0,
        bot_workers=1,
        max_tournament_tables=2,
        max_tournament_games=4,
        max_tournament_entrants=2,
    )
    with ServerThread(config) as server, Client(server.target) as client:
        details = _refused(client, definition("t", parallel=3))
        assert "bound of 2 tables" in details and "--max-tournament-tables" in details
        assert "bound of 4 games" in _refused(client, definition("g", games=6))
        three = [("a", "random"), ("b", "random"), ("c", "random")]
        assert "bound of 2 entrants" in _refused(client, definition("e", entrants=three))
        client.create_tournament(definition("fits", parallel=2, games=4))
        assert [t.name for t in client.list_tournaments()] == ["fits"]


def test_the_http_api_maps_a_bound_to_400_with_its_message():
    definition_json = {
        "name": "wide",
        "gameType": "cite",
        "players": 2,
        "entrants": [{"name": "a", "level": "random"}, {"name": "b", "level": "random"}],
        "format": "round-robin",
        "games": 4,
        "seed": "5",
        "parallel": 4294967295,
    }
    body = {"definition": definition_json}
    with Served(gateway_config(None, "gamehost")) as served:
        refused = served.http.post("/v1/tournaments", body)
        assert refused.status == 400, refused.body
        text = refused.body.decode()
        assert "INVALID_ARGUMENT" in text and "--max-tournament-tables" in text, text
        assert served.http.get("/v1/tournaments").json().get("tournaments", []) == []


def test_a_sweep_never_plays_more_tables_at_once_than_the_bound():
    """A tournament stored with a larger ``parallel`` (before the bound was set) is
    played within the bound. Its tables wait on an external entrant, so none ends."""
    config = ServerConfig(port=0, bot_workers=1, max_tournament_tables=2)
    waiting = [("ext", ""), ("bot", "random")]  # every table seats "ext"
    defn = definition_from(definition("wide", entrants=waiting, games=6, parallel=6))
    with ServerThread(config) as server, Client(server.target) as client:
        record = {"definition": defn.to_dict(), "created": time.time()}
        store, runner = server.running.store, server.running.tournaments
        assert server.call(store.create_tournament("wide", record, "running", []))
        for _ in range(3):  # sweeps (the server's own sweeper runs meanwhile too)
            server.call(runner.advance("wide"))
        assert len(client.tournament("wide").tables) == 2
        assert client.tournament("wide").progress.running_tables == 2
