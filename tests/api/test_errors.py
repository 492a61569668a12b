"""Every error code the API promises, each leaving the game exactly as it was."""

from __future__ import annotations

import grpc
import pytest

from gamehost import GameError
from gamehost.v1 import gamehost_pb2 as pb


@pytest.fixture
def game(client):
    """A 2-seat Cité game between two people, both joined; seat 0 is to move."""
    created = client.create_game("cite", ["human", "human"], seed=21)
    first, second = client.join(created.game_id), client.join(created.game_id)
    state = client.state(created.game_id, first.token)
    assert state.to_move == pb.Actor(kind=pb.Actor.SEAT, seat=0) and state.legal_actions
    return created.game_id, first, second


def unchanged(client, game_id, before: pb.GameState) -> None:
    after = client.state(game_id)
    assert after.version == before.version
    assert after.last_event_id == before.last_event_id
    assert after.cite == before.cite


def refused(code: grpc.StatusCode, call, *args, **kwargs) -> str:
    with pytest.raises(GameError) as caught:
        call(*args, **kwargs)
    assert caught.value.code == code, caught.value
    assert caught.value.details
    return caught.value.details


def test_unknown_game_is_not_found(client):
    missing = "0" * 32
    assert "no game" in refused(grpc.StatusCode.NOT_FOUND, client.state, missing)
    refused(grpc.StatusCode.NOT_FOUND, client.submit, missing, "token", 0)
    refused(grpc.StatusCode.NOT_FOUND, client.join, missing)
    refused(grpc.StatusCode.NOT_FOUND, client.record, missing)
    with pytest.raises(GameError) as caught:
        next(client.watch(missing))
    assert caught.value.code == grpc.StatusCode.NOT_FOUND


def test_malformed_requests_are_invalid_arguments(client, game):
    game_id, me, _ = game
    before = client.state(game_id)
    details = refused(grpc.StatusCode.INVALID_ARGUMENT, client.submit, game_id, me.token, "fly")
    assert "cannot read 'fly'" in details
    refused(grpc.StatusCode.INVALID_ARGUMENT, client.submit, game_id, me.token, 10_000)
    refused(grpc.StatusCode.INVALID_ARGUMENT, client.state, "not-a-game-id")
    refused(grpc.StatusCode.INVALID_ARGUMENT, client.create_game, "chess", ["human", "human"])
    refused(grpc.StatusCode.INVALID_ARGUMENT, client.create_game, "cite", ["human"])
    refused(
        grpc.StatusCode.INVALID_ARGUMENT,
        client.create_game,
        "cite",
        ["human", "human"],
        options={"round_limit": "soon"},
    )
    refused(grpc.StatusCode.INVALID_ARGUMENT, client.create_game, "cite", ["human", "bot:genius"])
    with pytest.raises(GameError) as caught:
        next(client.watch(game_id, after=before.last_event_id + 1))  # not sent yet
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    unchanged(client, game_id, before)


def test_illegal_now_and_not_your_turn_fail_preconditions(client, game):
    game_id, me, other = game
    before = client.state(game_id)
    details = refused(grpc.StatusCode.FAILED_PRECONDITION, client.submit, game_id, me.token, "play")
    assert "not legal now" in details and "legal now:" in details
    details = refused(
        grpc.StatusCode.FAILED_PRECONDITION, client.submit, game_id, other.token, "no levy"
    )
    assert "not your turn" in details and "seat 0" in details
    unchanged(client, game_id, before)


def test_stale_version_is_aborted(client, game):
    game_id, me, _ = game
    before = client.state(game_id, me.token)
    details = refused(
        grpc.StatusCode.ABORTED,
        client.submit,
        game_id,
        me.token,
        before.legal_actions[0].id,
        expected_version=before.version - 1,
    )
    assert f"the game is at {before.version}" in details
    unchanged(client, game_id, before)


def test_bad_or_missing_token_is_unauthenticated(client, game):
    game_id, _, _ = game
    before = client.state(game_id)
    refused(grpc.StatusCode.UNAUTHENTICATED, client.submit, game_id, "forged", "no levy")
    refused(grpc.StatusCode.UNAUTHENTICATED, client.submit, game_id, "", "no levy")
    refused(grpc.StatusCode.UNAUTHENTICATED, client.state, game_id, "forged")
    unchanged(client, game_id, before)


def test_wrong_seat_is_permission_denied(client, game):
    game_id, me, _ = game
    before = client.state(game_id)
    details = refused(
        grpc.StatusCode.PERMISSION_DENIED, client.submit, game_id, me.token, "no levy", seat=1
    )
    assert "seat 0, not seat 1" in details
    bots = client.create_game("cite", ["human", "bot:random"], seed=2)
    refused(grpc.StatusCode.PERMISSION_DENIED, client.join, bots.game_id, seat=1)
    unchanged(client, game_id, before)


def test_taken_seat_and_full_game(client, game):
    game_id, _, _ = game
    before = client.state(game_id)
    refused(grpc.StatusCode.ALREADY_EXISTS, client.join, game_id, seat=0)
    refused(grpc.StatusCode.FAILED_PRECONDITION, client.join, game_id)
    unchanged(client, game_id, before)


def _played_out(client):
    """A one-round Cité game against a random bot, played to its end: (the game, our
    seat, its final state)."""
    created = client.create_game(
        "cite", ["human", "bot:random"], seed=5, options={"round_limit": 1}
    )
    me = client.join(created.game_id)
    state = client.state(created.game_id, me.token)
    while state.status != pb.FINISHED:
        if state.legal_actions:
            client.submit(created.game_id, me.token, state.legal_actions[0].id)
        else:
            next(client.watch(created.game_id, me.token, after=state.last_event_id))
        state = client.state(created.game_id, me.token)
    return created, me, state


def test_a_finished_game_takes_no_actions(client):
    created, me, state = _played_out(client)
    details = refused(
        grpc.StatusCode.FAILED_PRECONDITION, client.submit, created.game_id, me.token, 0
    )
    assert "over" in details
    assert client.state(created.game_id).version == state.version


# ---------------------------------------------------------------------- seats on demand
def test_seat_calls_refuse_bad_requests_and_change_nothing(client):
    created = client.create_game("cite", ["human", "human", "human"], seed=31)
    game_id, creator = created.game_id, created.creator_token
    me = client.join(game_id, 0)
    before = client.state(game_id)
    missing = "0" * 32
    refused(grpc.StatusCode.NOT_FOUND, client.add_bot, missing, 1, creator_token=creator)
    refused(grpc.StatusCode.NOT_FOUND, client.hand_over, missing, me.token)
    refused(grpc.StatusCode.NOT_FOUND, client.take_back, missing, me.token)
    refused(grpc.StatusCode.INVALID_ARGUMENT, client.add_bot, "nope", 1, creator_token=creator)
    details = refused(
        grpc.StatusCode.UNAUTHENTICATED, client.add_bot, game_id, 1, creator_token="x"
    )
    assert "creator token is not valid" in details
    details = refused(grpc.StatusCode.PERMISSION_DENIED, client.add_bot, game_id, 1)
    assert "creator_token" in details and "bots_by_anyone" in details
    details = refused(
        grpc.StatusCode.INVALID_ARGUMENT, client.add_bot, game_id, 7, creator_token=creator
    )
    assert "seats 0-2" in details
    refused(
        grpc.StatusCode.INVALID_ARGUMENT,
        client.add_bot,
        game_id,
        1,
        "genius",
        creator_token=creator,
    )
    details = refused(
        grpc.StatusCode.ALREADY_EXISTS, client.add_bot, game_id, 0, creator_token=creator
    )
    assert "taken by a player" in details and "free seats: 1, 2" in details
    refused(grpc.StatusCode.UNAUTHENTICATED, client.hand_over, game_id, "forged")
    refused(grpc.StatusCode.UNAUTHENTICATED, client.hand_over, game_id, "")
    refused(grpc.StatusCode.UNAUTHENTICATED, client.take_back, game_id, "forged")
    refused(grpc.StatusCode.INVALID_ARGUMENT, client.hand_over, game_id, me.token, "genius")
    details = refused(grpc.StatusCode.FAILED_PRECONDITION, client.take_back, game_id, me.token)
    assert "not away" in details
    unchanged(client, game_id, before)
    assert client.state(game_id).seats == before.seats


def test_away_twice_is_a_failed_precondition(client):
    created = client.create_game("cite", ["human", "human"], seed=32)
    me = client.join(created.game_id, 1)
    client.hand_over(created.game_id, me.token, "random")
    before = client.state(created.game_id)
    details = refused(
        grpc.StatusCode.FAILED_PRECONDITION, client.hand_over, created.game_id, me.token
    )
    assert "already away" in details and "TakeBackSeat" in details
    assert client.state(created.game_id).last_event_id == before.last_event_id


def test_bad_timer_settings_are_invalid_arguments(client):
    from gamehost import turn_timer

    for timer in (
        turn_timer(-1),
        turn_timer(float("inf")),
        turn_timer(1, bank_seconds=-5),
        turn_timer(1, fallback_level="genius"),
        turn_timer(1, max_timeouts=5000),
    ):
        refused(
            grpc.StatusCode.INVALID_ARGUMENT, client.create_game, "cite", ["human"] * 2, timer=timer
        )


def test_seats_of_a_finished_game_no_longer_change(client):
    created, me, state = _played_out(client)
    for call, args in (
        (client.hand_over, (created.game_id, me.token)),
        (client.take_back, (created.game_id, me.token)),
    ):
        assert "over" in refused(grpc.StatusCode.FAILED_PRECONDITION, call, *args)
    refused(
        grpc.StatusCode.FAILED_PRECONDITION,
        client.add_bot,
        created.game_id,
        0,
        creator_token=created.creator_token,
    )
    assert client.state(created.game_id).version == state.version
