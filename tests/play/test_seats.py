"""Seats on demand, on a real server with each store and the local bot pool: a bot
added mid-game plays its turns, a seat handed to a bot comes back with TakeBackSeat,
a seat handed over for good revokes its token (and may be joined again when the game
allows), and every change is an event, a record entry and a seat in GetState."""

from __future__ import annotations

import grpc
import pytest

from gamehost import Client, GameError
from gamehost.v1 import gamehost_pb2 as pb
from tests.fixtures import store_servers
from tests.fixtures.store_servers import by
from tests.procs import wait_until

client = store_servers.client  # each store in turn (a module fixture)


def to_move(state: pb.GameState) -> int | None:
    return state.to_move.seat if state.to_move.kind == pb.Actor.SEAT else None


def play_until(client: Client, game_id: str, tokens: dict[int, str], seat: int) -> pb.GameState:
    """Play the first legal action for the people in ``tokens`` until ``seat`` is to move."""
    for _ in range(200):
        state = client.state(game_id)
        mover = to_move(state)
        if mover == seat:
            return client.state(game_id, tokens.get(seat, ""))
        if mover in tokens:
            legal = client.state(game_id, tokens[mover]).legal_actions
            client.submit(game_id, tokens[mover], legal[0].id, expected_version=state.version)
        else:
            wait_until(lambda v=state.version: client.state(game_id).version > v, 30, "a move")
    raise AssertionError(f"seat {seat} never came to move")


def changes(client: Client, game_id: str) -> list[tuple[int, int]]:
    """(seat, reason) of every SEAT_CHANGED event of the game, in order."""
    record = client.record(game_id)
    return [(c.seat, c.reason) for c in record.seat_changes]


def test_a_bot_added_mid_game_moves_on_its_turn(client):
    created = client.create_game("cite", ["human", "human", "human"], seed=4)
    game_id = created.game_id
    assert created.creator_token
    me = client.join(game_id, 0)
    other = client.join(game_id, 1)
    state = play_until(client, game_id, {0: me.token, 1: other.token}, 2)
    assert to_move(state) == 2 and state.bot_status == pb.BOT_STATUS_UNSPECIFIED

    added = client.add_bot(game_id, 2, "greedy", creator_token=created.creator_token)
    assert added.version == state.version + 1 and not added.duplicate
    assert added.now.kind == pb.BOT and added.now.control == pb.Seat.ADDED
    assert added.now.bot_level == "greedy" and added.now.taken

    # The bot plays seat 2's turn by itself: the game leaves seat 2.
    wait_until(lambda: to_move(client.state(game_id)) != 2, 30, "the added bot's move")
    record = client.record(game_id)
    assert any(by(e, 2) and e.ply > added.version for e in record.entries)
    assert [(c.seat, c.reason, c.version) for c in record.seat_changes] == [
        (2, pb.SeatChange.BOT_ADDED, added.version)
    ]
    assert client.state(game_id).seats[2].control == pb.Seat.ADDED
    # Nobody may join the bot's seat now (as for a bot seat from the start).
    with pytest.raises(GameError) as caught:
        client.join(game_id, 2)
    assert caught.value.code == grpc.StatusCode.PERMISSION_DENIED


def test_a_retried_add_bot_is_answered_not_applied_twice(client):
    created = client.create_game("cite", ["human", "human"], seed=5)
    first = client.add_bot(
        created.game_id, 1, creator_token=created.creator_token, request_id="add-1"
    )
    again = client.add_bot(
        created.game_id, 1, creator_token=created.creator_token, request_id="add-1"
    )
    assert again.duplicate and again.version == first.version
    assert changes(client, created.game_id) == [(1, pb.SeatChange.BOT_ADDED)]


def test_anyone_adds_bots_when_the_game_allows_it(client):
    created = client.create_game("cite", ["human", "human"], seed=6, bots_by_anyone=True)
    assert client.state(created.game_id).bots_by_anyone
    added = client.add_bot(created.game_id, 1)  # no creator token
    assert added.now.kind == pb.BOT and added.now.bot_level == "random"


def test_a_seat_handed_to_a_bot_and_taken_back(client):
    created = client.create_game("cite", ["human", "human"], seed=7)
    game_id = created.game_id
    a, b = client.join(game_id, 0), client.join(game_id, 1)
    start = client.state(game_id, a.token)
    assert to_move(start) == 0

    away = client.hand_over(game_id, a.token, "random")
    assert away.version == start.version + 1
    assert away.now.kind == pb.BOT and away.now.control == pb.Seat.AWAY
    # The bot plays seat 0 while its player is away; the token still shows the seat.
    state = wait_until(
        lambda: (s := client.state(game_id, a.token)) and to_move(s) == 1 and s, 30, "the bot"
    )
    assert state.viewer_seat == 0 and state.seats[0].control == pb.Seat.AWAY
    with pytest.raises(GameError) as caught:
        client.submit(game_id, a.token, 0)
    assert caught.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert "away" in caught.value.details and "TakeBackSeat" in caught.value.details

    back = client.take_back(game_id, a.token)
    assert back.now.kind == pb.HUMAN and back.now.control == pb.Seat.CONTROL_UNSPECIFIED
    mine = play_until(client, game_id, {0: a.token, 1: b.token}, 0)
    assert mine.legal_actions and mine.viewer_seat == 0
    # No bot takes the turn now: the player's own move at this version is applied.
    done = client.submit(game_id, a.token, mine.legal_actions[0].id, expected_version=mine.version)
    assert done.version > mine.version
    assert changes(client, game_id) == [(0, pb.SeatChange.AWAY), (0, pb.SeatChange.TAKEN_BACK)]


def test_seat_changes_are_events_in_the_feed(client):
    created = client.create_game("cite", ["human", "human"], seed=8)
    game_id = created.game_id
    a = client.join(game_id, 0)
    client.hand_over(game_id, a.token, "greedy")
    client.take_back(game_id, a.token)
    seen = []
    for event in client.watch(game_id, a.token):
        if event.kind == pb.SEAT_CHANGED:
            seen.append(event)
        if len(seen) == 2:
            break
    assert [e.seat_change.reason for e in seen] == [pb.SeatChange.AWAY, pb.SeatChange.TAKEN_BACK]
    assert seen[0].seat_change.now.bot_level == "greedy" and seen[0].actor.seat == 0
    assert seen[1].seat_change.now.kind == pb.HUMAN
    assert seen[1].seat_change.event_id == seen[1].event_id


def test_a_seat_handed_over_for_good_revokes_its_token_and_may_be_rejoined(client):
    created = client.create_game("cite", ["human", "human"], seed=9, rejoin_handed_seats=True)
    game_id = created.game_id
    a = client.join(game_id, 0)
    gone = client.hand_over(game_id, a.token, "random", for_good=True)
    assert gone.now.control == pb.Seat.HANDED_OVER and gone.now.kind == pb.BOT
    with pytest.raises(GameError) as caught:
        client.state(game_id, a.token)
    assert caught.value.code == grpc.StatusCode.UNAUTHENTICATED
    # Seat 1 (never joined) and seat 0 (handed over, rejoinable) are both free.
    assert {g.game_id: g.free_seats for g in client.list_games()}[game_id] == 2
    c = client.join(game_id, 0, name="carol")
    state = client.state(game_id, c.token)
    assert state.viewer_seat == 0 and state.seats[0].kind == pb.HUMAN
    assert state.seats[0].name == "carol"
    assert changes(client, game_id) == [(0, pb.SeatChange.HANDED_OVER), (0, pb.SeatChange.JOINED)]


def test_a_seat_handed_over_for_good_stays_a_bots_unless_the_game_allows_rejoining(client):
    created = client.create_game("cite", ["human", "human"], seed=10)
    a = client.join(created.game_id, 0)
    client.hand_over(created.game_id, a.token, for_good=True)
    with pytest.raises(GameError) as caught:
        client.join(created.game_id, 0)
    assert caught.value.code == grpc.StatusCode.PERMISSION_DENIED
    assert "rejoin_handed_seats" in caught.value.details


def test_a_seat_that_declines_offers_is_never_asked(client):
    """SetSeatOptions(decline_offers): an offer to that seat is declined in the same
    write as the offer (issue 29), and the seat says so in GetState."""
    created = client.create_game("catan", ["human", "human", "human"], seed=5)
    game_id = created.game_id
    tokens = {seat: client.join(game_id, seat).token for seat in range(3)}
    for seat in (1, 2):
        answer = client.set_seat_options(game_id, tokens[seat], decline_offers=True)
        assert answer.now.decline_offers and answer.now.index == seat
    assert [s.decline_offers for s in client.state(game_id).seats] == [False, True, True]
    assert changes(client, game_id) == [(1, pb.SeatChange.OPTIONS), (2, pb.SeatChange.OPTIONS)]
    offer = None
    for _ in range(400):  # the first legal move for everyone until seat 0 may offer
        state = client.state(game_id)
        mover = to_move(state)
        legal = client.state(game_id, tokens[mover]).legal_actions
        offer = next((a for a in legal if a.notation.startswith("give ")), None)
        if mover == 0 and offer is not None:
            break
        client.submit(game_id, tokens[mover], legal[0].id, expected_version=state.version)
    assert offer is not None, "seat 0 never could offer"
    before = len(client.record(game_id).entries)
    reply = client.submit(game_id, tokens[0], offer.id)
    entries = client.record(game_id).entries[before:]
    assert [(e.actor.seat, e.notation) for e in entries] == [
        (0, offer.notation),
        (1, "decline"),
        (2, "decline"),
    ]
    state = client.state(game_id)
    assert reply.version == state.version and to_move(state) == 0
    # Turned off again: the next offer is asked.
    client.set_seat_options(game_id, tokens[1], decline_offers=False)
    assert not client.state(game_id).seats[1].decline_offers
