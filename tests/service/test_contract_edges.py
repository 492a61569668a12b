"""The contract's rough edges (issue 27): one version number for a created game, and
records read page by page (GetRecord's page_size / page_token), by the client library
and the CLI on their own."""

from __future__ import annotations

import pytest

from gamehost.v1 import gamehost_pb2 as pb
from tests.service.http_fixtures import Served, gateway_config


@pytest.fixture(scope="module")
def served():
    with Served(gateway_config(None, "gamehost", rate_limit=0, failed_auth_rate=0)) as served:
        yield served


@pytest.mark.parametrize("game_type, players", [("cite", 2), ("catan", 3), ("endeavor", 3)])
def test_game_created_has_the_version_create_game_answers(served, game_type, players):
    """Cité rolls at set-up (a chance outcome): its created game is at version 1, and so
    is its GAME_CREATED event, which follows the set-up's outcomes (the record's first
    entries, as the stream's first ACTION events)."""
    created = served.client.create_game(game_type, ["human"] * players, seed=5)
    me = served.client.join(created.game_id, seat=0)
    watch = served.client.watch(created.game_id, me.token)
    before = []
    while (made := next(watch)).kind != pb.GAME_CREATED:
        before.append(made)
    watch.close()
    assert made.version == created.state.version
    assert made.to_move == created.state.to_move
    assert [e.version for e in before] == list(range(1, created.state.version + 1))
    assert all(e.kind == pb.ACTION and e.actor.kind == pb.Actor.CHANCE for e in before)
    record = served.client.record(created.game_id)
    assert [e.ply for e in record.entries] == [e.version for e in before]
    assert record.initial_to_move.kind == (pb.Actor.CHANCE if before else pb.Actor.SEAT)
    if game_type == "cite":
        assert created.state.version >= 1  # what made the two numbers differ
    # Over HTTP, the stream says the same.
    stream = served.http.stream(f"/v1/games/{created.game_id}/events?token={me.token}")
    events = [e.json() for e in stream.events("game-event", len(before) + 1)]
    stream.close()
    assert events[-1]["kind"] == "GAME_CREATED"
    assert events[-1]["version"] == str(created.state.version)


def test_a_replay_and_its_record_keep_every_set_up_outcome(served):
    """The folded set-up outcomes still replay: views from the record match GetState."""
    created = served.client.create_game("cite", ["human", "human"], seed=9)
    record = served.client.record(created.game_id, include_views=True)
    assert len(record.entries) == created.state.version
    assert record.entries[-1].view.cite == served.client.state(created.game_id).cite
