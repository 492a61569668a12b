"""Catan's 7-discards are open once all are in (issue 27; rules §19a.9): while seats
are still discarding, each discard is hidden from the other seats (``discard ?``);
once every seat that must discard has, the cards are back in the bank in front of
everyone, and every caller's record shows the discards in full."""

from __future__ import annotations

import pytest

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from services.server import ServerConfig, ServerThread


@pytest.fixture(scope="module")
def client():
    with ServerThread(ServerConfig(port=0, bot_workers=1)) as server, Client(server.target) as c:
        yield c


def discarding(state: pb.GameState) -> bool:
    return bool(state.legal_actions) and all(
        a.notation.startswith("discard ") for a in state.legal_actions
    )


def mover(client: Client, game_id: str, tokens: dict[int, str]) -> tuple[int, pb.GameState]:
    public = client.state(game_id)
    assert public.to_move.kind == pb.Actor.SEAT, public.to_move
    seat = public.to_move.seat
    return seat, client.state(game_id, tokens[seat])


def play(client: Client, game_id: str, seat_state: pb.GameState, tokens, seat: int) -> None:
    """Roll, end the turn, or else the first legal action: hands grow until a 7 makes
    someone discard."""
    by_text = {a.notation: a.id for a in seat_state.legal_actions}
    action = by_text.get("roll", by_text.get("end", seat_state.legal_actions[0].id))
    client.submit(game_id, tokens[seat], action, expected_version=seat_state.version)


def discards(record: pb.GameRecord, seat: int, after: int) -> list[pb.RecordEntry]:
    return [
        e
        for e in record.entries
        if e.ply > after
        and e.actor.kind == pb.Actor.SEAT
        and e.actor.seat == seat
        and e.notation.startswith("discard ")
    ]


def test_discards_on_a_seven_are_shown_to_everyone_once_all_are_in(client):
    game_id = client.create_game("catan", ["human"] * 3).game_id
    tokens = {s: client.join(game_id, s).token for s in range(3)}
    for _ in range(3000):  # a 7 with 8+ cards in a hand comes within ~70 moves
        seat, state = mover(client, game_id, tokens)
        if discarding(state):
            break
        play(client, game_id, state, tokens, seat)
    else:
        raise AssertionError("no seat had to discard")
    before = state.version
    first = seat
    others = [s for s in range(3) if s != first]

    # One card down, more to go: the others see "discard ?", the discarder its card.
    play(client, game_id, state, tokens, first)
    for viewer in others:
        (entry,) = discards(client.record(game_id, tokens[viewer]), first, before)
        assert entry.hidden and entry.notation == "discard ?" and entry.action_id == -1
    (own,) = discards(client.record(game_id, tokens[first]), first, before)
    assert not own.hidden and own.notation.startswith("discard ") and own.notation != "discard ?"

    # Every seat that must discard does; then the robber is to move.
    discarders = {first}
    while True:
        seat, state = mover(client, game_id, tokens)
        if not discarding(state):
            break
        discarders.add(seat)
        play(client, game_id, state, tokens, seat)
    done = {
        s: [e.notation for e in discards(client.record(game_id, tokens[s]), s, before)]
        for s in discarders
    }
    assert all(len(cards) >= 4 and "discard ?" not in cards for cards in done.values()), done

    def everyone_sees_them() -> None:
        for token in ("", *tokens.values()):  # a spectator too
            record = client.record(game_id, token)
            for s in discarders:
                entries = discards(record, s, before)
                assert [e.notation for e in entries] == done[s]
                assert not any(e.hidden for e in entries)

    everyone_sees_them()  # all in, before the robber moves
    play(client, game_id, state, tokens, seat)  # the robber
    everyone_sees_them()
