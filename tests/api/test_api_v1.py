"""The API v1 promises a client written from the proto alone relies on: seats that never
collide with "nobody", numeric event ids, events that say who moves next (enough to
play from WatchGame alone), records that name whom a chance outcome concerns and carry
the caller's views (replayable without an engine, leaking nothing), and Cité winners."""

from __future__ import annotations

import subprocess
import sys

import pytest
from google.protobuf.descriptor import FieldDescriptor

from gamehost import Client, replay_record, seat_of
from gamehost.v1 import cite_pb2
from gamehost.v1 import gamehost_pb2 as pb
from services.server import ServerConfig, ServerThread


@pytest.fixture(scope="module", params=["memory", "redis"])
def client(request):
    """A server on each store in turn (event ids and views come from both)."""
    redis_url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    prefix = request.getfixturevalue("module_prefix") if redis_url else "gamehost"
    config = ServerConfig(port=0, redis_url=redis_url, redis_prefix=prefix, bot_workers=1)
    with ServerThread(config) as server, Client(server.target) as connected:
        yield connected


SEAT_0 = pb.Actor(kind=pb.Actor.SEAT, seat=0)
NOBODY = pb.Actor(kind=pb.Actor.NOBODY)
CHANCE = pb.Actor(kind=pb.Actor.CHANCE)


def seat(n: int) -> pb.Actor:
    return pb.Actor(kind=pb.Actor.SEAT, seat=n)


# ---------------------------------------------------------------------- the proto itself
def test_seat_zero_and_nobody_differ_on_the_wire():
    assert SEAT_0.SerializeToString() != NOBODY.SerializeToString()
    assert pb.Actor.FromString(SEAT_0.SerializeToString()) == SEAT_0
    assert pb.Actor().kind == pb.Actor.KIND_UNSPECIFIED  # an unset Actor names no seat
    assert pb.GameState(viewer_seat=0).HasField("viewer_seat")
    assert not pb.GameState().HasField("viewer_seat")  # a spectator


def test_no_seat_field_is_signed_or_has_sentinels():
    """Every seat number in gamehost.proto is uint32 (or an Actor / optional uint32)."""
    checked = []
    for message in pb.DESCRIPTOR.message_types_by_name.values():
        for field in message.fields:
            names_a_seat = field.name == "seat" or field.name.endswith("_seat")
            if names_a_seat or (message.name == "Seat" and field.name == "index"):
                checked.append(f"{message.name}.{field.name}")
                assert field.type == FieldDescriptor.TYPE_UINT32, checked[-1]
            if field.message_type is not None and field.message_type.name == "Actor":
                checked.append(f"{message.name}.{field.name}")
    assert {"GameState.viewer_seat", "GameState.to_move", "GameEvent.actor"} <= set(checked)
    assert {"RecordEntry.actor", "JoinGameResponse.seat", "SubmitActionRequest.seat"} <= set(
        checked
    )
    event_id = pb.GameEvent.DESCRIPTOR.fields_by_name["event_id"]
    assert event_id.type == FieldDescriptor.TYPE_UINT64
    after = pb.WatchGameRequest.DESCRIPTOR.fields_by_name["after_event_id"]
    assert after.type == FieldDescriptor.TYPE_UINT64


# ---------------------------------------------------------------------- served states
def test_served_states_tell_seat_zero_from_spectators_and_nobody(client):
    created = client.create_game("cite", ["human", "human"], seed=21)
    first = client.join(created.game_id)
    mine = client.state(created.game_id, first.token)
    assert mine.HasField("viewer_seat") and mine.viewer_seat == 0
    assert mine.to_move == SEAT_0 and mine.legal_actions
    spectator = client.state(created.game_id)
    assert not spectator.HasField("viewer_seat") and spectator.to_move == SEAT_0


def _events_up_to_now(client, game_id: str, token: str) -> list[pb.GameEvent]:
    newest = client.state(game_id).last_event_id
    seen: list[pb.GameEvent] = []
    for event in client.watch(game_id, token):
        seen.append(event)
        if event.event_id == newest:
            return seen
    raise AssertionError("the stream ended before the newest event")


def test_only_the_seat_to_move_gets_legal_actions_on_the_newest_event(client):
    created = client.create_game("cite", ["human", "human"], seed=21)
    first, second = client.join(created.game_id), client.join(created.game_id)
    mine = _events_up_to_now(client, created.game_id, first.token)
    state = client.state(created.game_id, first.token)
    assert mine[-1].to_move == SEAT_0
    assert list(mine[-1].legal_actions) == list(state.legal_actions)
    assert not any(e.legal_actions for e in mine[:-1])
    for token in (second.token, ""):  # the other seat and a spectator
        theirs = _events_up_to_now(client, created.game_id, token)
        assert theirs[-1].to_move == SEAT_0 and not any(e.legal_actions for e in theirs)


def play_from_watch_alone(client, game_id: str, token: str, me: int) -> list[pb.GameEvent]:
    """Play seat ``me`` to the end using nothing but the WatchGame stream."""
    seen: list[pb.GameEvent] = []
    for event in client.watch(game_id, token):
        seen.append(event)
        if event.to_move == seat(me) and event.legal_actions:
            choice = event.legal_actions[len(seen) % len(event.legal_actions)]
            client.submit(game_id, token, choice.id, expected_version=event.version)
    return seen


@pytest.fixture(scope="module")
def watched_game(client):
    """A Cité game, seat 0 played from its WatchGame stream alone against a bot."""
    created = client.create_game(
        "cite", ["human", "bot:random"], seed=11, options={"round_limit": 2}
    )
    me = client.join(created.game_id, seat=0)
    return created.game_id, me, play_from_watch_alone(client, created.game_id, me.token, 0)


def test_a_client_plays_a_whole_game_from_watch_game_alone(client, watched_game):
    game_id, me, seen = watched_game
    assert seen[-1].kind == pb.GAME_FINISHED and seen[-1].to_move == NOBODY
    mine = [e for e in seen if e.kind == pb.ACTION and e.actor == seat(0)]
    assert len(mine) > 5, "seat 0 moved, prompted by the stream only"
    final = client.state(game_id, me.token)
    assert final.status == pb.FINISHED and final.version == seen[-1].version


def test_every_event_carries_its_version_and_who_moves_next(client, watched_game):
    game_id, me, seen = watched_game
    assert all(e.to_move.kind != pb.Actor.KIND_UNSPECIFIED for e in seen)
    versions = [e.version for e in seen]
    assert versions == sorted(versions)
    ids = [e.event_id for e in seen]
    assert ids == sorted(set(ids)) and ids[0] == 1
    # Legal actions come only with an event that leaves the watcher to move.
    assert all(e.to_move == seat(0) for e in seen if e.legal_actions)
    # Each action's to_move is who acted next.
    actions = [e for e in seen if e.kind == pb.ACTION]
    for before, after in zip(actions, actions[1:], strict=False):
        assert before.to_move == after.actor
    record = client.record(game_id, me.token)
    assert [e.to_move for e in record.entries] == [e.to_move for e in actions]


# ---------------------------------------------------------------------- records
def test_chance_entries_name_the_seat_they_concern(client, watched_game):
    game_id, me, _ = watched_game
    positions = replay_record(client.record(game_id, me.token, include_views=True))
    draws = rolls = 0
    for before, now in zip(positions, positions[1:], strict=False):
        entry = now.entry
        if entry.actor != CHANCE:
            continue
        if entry.notation.startswith("draw"):
            draws += 1
            assert list(entry.audience) == [before.view.cite.turn_seat]  # the drawer
        elif entry.notation.startswith("roll"):
            rolls += 1
            assert list(entry.audience) == []  # public dice
    assert draws and rolls


def _play_to_the_deal(client, game_id: str, tokens: list[str]) -> dict[str, dict[int, bytes]]:
    """Seat 0 plays up to its deal and deals one card to seat 1; returns each viewer's
    GetState views (serialized CiteView) at every version seen on the way."""
    viewers = {"": "", **{str(i): t for i, t in enumerate(tokens)}}
    seen: dict[str, dict[int, bytes]] = {name: {} for name in viewers}

    def look() -> pb.GameState:
        for name, token in viewers.items():
            state = client.state(game_id, token)
            seen[name][state.version] = state.cite.SerializeToString()
        return client.state(game_id, tokens[0])

    state = look()
    while state.cite.phase != cite_pb2.CITE_DEAL:
        client.submit(game_id, tokens[0], state.legal_actions[-1].id)
        state = look()
    client.submit(game_id, tokens[0], state.legal_actions[0].id)  # deal a card to seat 1
    look()
    return seen


def test_record_views_replay_as_get_state_showed_them_and_leak_nothing(client):
    created = client.create_game("cite", ["human", "human", "human"], seed=99)
    tokens = [client.join(created.game_id).token for _ in range(3)]
    seen = _play_to_the_deal(client, created.game_id, tokens)
    for name, token in [("", ""), ("0", tokens[0]), ("1", tokens[1]), ("2", tokens[2])]:
        record = client.record(created.game_id, token, include_views=True)
        positions = replay_record(record)
        views = {0: positions[0].view.cite}
        views.update({p.entry.ply: p.view.cite for p in positions[1:]})
        compared = [v for v in seen[name] if v in views]
        assert len(compared) >= 3
        for version in compared:
            assert views[version].SerializeToString() == seen[name][version], (name, version)
        if name in ("", "2"):  # neither the turn city nor the one dealt to
            for view in views.values():
                assert not view.drawn
                assert all(city.card == cite_pb2.CITE_CARD_UNSPECIFIED for city in view.cities)
    dealt_to_1 = replay_record(client.record(created.game_id, tokens[1], include_views=True))
    assert dealt_to_1[-1].view.cite.cities[1].card != cite_pb2.CITE_CARD_UNSPECIFIED


def test_a_record_without_views_says_how_to_get_them(client, watched_game):
    game_id, me, _ = watched_game
    record = client.record(game_id, me.token)
    assert not record.HasField("initial_view") and not record.entries[0].HasField("view")
    with pytest.raises(ValueError, match="include_views"):
        replay_record(record)


def test_the_client_library_imports_no_engine():
    code = (
        "import sys, gamehost, gamehost.client\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('games', 'bots', 'services')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------- Cité winners
def test_cite_view_names_the_winners(client, watched_game):
    game_id, me, _ = watched_game
    final = client.state(game_id, me.token)
    winners = [s for s, r in enumerate(final.returns) if r > 0]
    assert winners and list(final.cite.winners) == winners
    positions = replay_record(client.record(game_id, me.token, include_views=True))
    assert all(not p.view.cite.winners for p in positions[:-2])  # none while it runs
    assert seat_of(positions[0].to_move) in (None, 0, 1)
