"""A person plays a 4-seat Cité game against three random bots over gRPC on Redis."""

from __future__ import annotations

import random

import pytest

from gamehost import replay_record
from gamehost.v1 import cite_pb2
from gamehost.v1 import gamehost_pb2 as pb


def play_to_the_end(client, me, rng: random.Random) -> pb.GameState:
    """Play our seat with random legal moves, waiting on the event stream between turns."""
    state = client.state(me.game_id, me.token)
    events = client.watch(me.game_id, me.token, after=state.last_event_id)
    while state.status != pb.FINISHED:
        if state.legal_actions:
            choice = rng.choice(state.legal_actions)
            # Alternate between ids and notation: both are part of the API.
            action = choice.id if rng.random() < 0.5 else choice.notation
            reply = client.submit(me.game_id, me.token, action, expected_version=state.version)
            assert reply.action_id == choice.id and not reply.duplicate
        else:
            next(events)  # the bots are moving: the next event is our cue to look again
        state = client.state(me.game_id, me.token)
    return state


@pytest.mark.parametrize(
    ("game", "options"),
    [("cite", {}), ("catan", {"turn_limit": 40}), ("endeavor", {})],
)
def test_person_against_three_bots_and_record_replays(client, game, options):
    created = client.create_game(
        game, ["human:me", "bot:random", "bot:random", "bot:random"], options, seed=1234
    )
    me = client.join(created.game_id)
    assert me.seat == 0
    final = play_to_the_end(client, me, random.Random(5))

    assert final.to_move == pb.Actor(kind=pb.Actor.NOBODY)
    assert sum(final.returns) == pytest.approx(1.0)
    record = client.record(me.game_id, me.token)
    assert record.status == pb.FINISHED and list(record.returns) == list(final.returns)
    assert record.version == final.version == len(record.entries)
    assert not any(e.hidden for e in record.entries)  # a finished game's record is complete
    seats = {e.actor.seat for e in record.entries if e.actor.kind == pb.Actor.SEAT}
    assert seats >= {0, 1, 2, 3}  # the bots moved unattended

    # The record's views replay the game without an engine, for a seat and a spectator.
    for token, final_view in [(me.token, final), ("", client.state(me.game_id))]:
        positions = replay_record(client.record(me.game_id, token, include_views=True))
        assert len(positions) == len(record.entries) + 1
        assert positions[-1].view.WhichOneof("view") == game
        assert getattr(positions[-1].view, game) == getattr(final_view, game)
        assert positions[-1].to_move == pb.Actor(kind=pb.Actor.NOBODY)


def _deal_phase(client, game_id, token) -> pb.GameState:
    """Play seat 0's turn up to the deal, where it holds the cards it drew."""
    state = client.state(game_id, token)
    while state.cite.phase != cite_pb2.CITE_DEAL:
        client.submit(game_id, token, state.legal_actions[-1].id)
        state = client.state(game_id, token)
    return state


def test_hidden_cards_reach_only_those_who_may_see_them(client):
    created = client.create_game("cite", ["human", "human", "human"], seed=99)
    seats = [client.join(created.game_id) for _ in range(3)]
    state = _deal_phase(client, created.game_id, seats[0].token)
    assert len(state.cite.drawn) == 3, "the turn city sees the three cards it drew"
    assert not client.state(created.game_id).cite.drawn  # spectator
    assert not client.state(created.game_id, seats[1].token).cite.drawn

    def draws(token):
        record = client.record(created.game_id, token)
        return [e for e in record.entries if e.notation.startswith("draw")]

    assert [e.hidden for e in draws(seats[0].token)] == [False] * 3
    for token in ("", seats[1].token):
        assert all(e.hidden and e.action_id == -1 and e.notation == "draw ?" for e in draws(token))

    # Deal one card to seat 1: seat 1 and the dealer see it, seat 2 does not.
    deal = state.legal_actions[0]
    client.submit(created.game_id, seats[0].token, deal.id)
    card_of_1 = client.state(created.game_id, seats[1].token).cite.cities[1].card
    assert card_of_1 != cite_pb2.CITE_CARD_UNSPECIFIED
    seen_by_2 = client.state(created.game_id, seats[2].token).cite.cities[1]
    assert seen_by_2.holds_card and seen_by_2.card == cite_pb2.CITE_CARD_UNSPECIFIED


def test_watch_resumes_after_an_event_id(client):
    created = client.create_game("cite", ["human", "human"], seed=3)
    me = client.join(created.game_id)
    start = client.state(created.game_id, me.token)
    client.submit(created.game_id, me.token, start.legal_actions[0].id)
    after = client.state(created.game_id, me.token)
    stream = client.watch(created.game_id, me.token, after=start.last_event_id)
    first = next(stream)
    assert first.kind == pb.ACTION and first.version == start.version + 1
    assert first.actor == pb.Actor(kind=pb.Actor.SEAT, seat=0)
    seen = [first]
    while seen[-1].event_id != after.last_event_id:
        seen.append(next(stream))
    assert [e.version for e in seen] == sorted(e.version for e in seen)
    assert seen[-1].version == after.version
