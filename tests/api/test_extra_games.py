"""A game registered from outside the shipped catalogue (loadtest/counter_game.py, the
push-path studies' counter, through ``GAMEHOST_EXTRA_GAMES``) is served over gRPC without a view message
of its own: created, watched, played to its end and recorded, never INTERNAL."""

from __future__ import annotations

import pytest

import games
from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from loadtest.counter_game import COUNTER
from services.server import ServerConfig, ServerThread, register_extra_games


@pytest.fixture
def registry(monkeypatch):
    """A copy of the game registry, put back afterwards: other tests see the catalogue."""
    monkeypatch.setattr(games, "_REGISTRY", dict(games._REGISTRY))


@pytest.fixture
def counter_server(registry):
    assert register_extra_games(COUNTER) == ["counter"]
    with ServerThread(ServerConfig(port=0, bot_workers=1)) as running:
        yield running


def test_an_extra_game_plays_to_its_end_over_the_push_path(counter_server):
    with Client(counter_server.target) as client:
        assert "counter" in [g.name for g in client.game_types().game_types]
        created = client.create_game("counter", ["human", "human"], options={"moves": 4})
        tokens = [client.join(created.game_id, seat=i).token for i in range(2)]
        state = client.state(created.game_id, tokens[0])
        assert state.WhichOneof("view") is None  # no view message: none is sent
        assert [a.notation for a in state.legal_actions] == ["inc"]
        moves, played = [], set()
        # Seat 0's stream alone drives both seats: each event says who moves next.
        for event in client.watch(created.game_id, tokens[0]):
            if event.kind == pb.ACTION:
                moves.append((event.actor.seat, event.version))
            if event.kind == pb.GAME_FINISHED:
                assert list(event.returns) == [0.5, 0.5]
                break
            seat = event.to_move.seat
            if event.to_move.kind == pb.Actor.SEAT and event.version not in played:
                played.add(event.version)
                client.submit(created.game_id, tokens[seat], 0, expected_version=event.version)
        assert [seat for seat, _ in moves] == [0, 1, 0, 1]
        record = client.record(created.game_id, tokens[1], include_views=True)
        assert [e.notation for e in record.entries] == ["inc"] * 4
        assert not any(e.HasField("view") for e in record.entries)
        assert not record.HasField("initial_view")


def test_an_extra_game_cannot_take_a_shipped_id(registry):
    with pytest.raises(ValueError, match="taken"):
        register_extra_games("cite=loadtest.counter_game:Counter")
    assert games.get_game("cite").info.name == "cite"


@pytest.mark.parametrize("spec", ["counter", "counter=loadtest.counter_game", "=a:B"])
def test_a_malformed_extra_game_is_refused(registry, spec):
    with pytest.raises(ValueError, match="id=module:Class"):
        register_extra_games(spec)
    assert "counter" not in games.game_names()
