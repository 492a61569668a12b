"""Who plays each seat (``GameMeta.seats``): the pure part of seat changes, shared by
the seat RPCs (``services.play.seating``) and the write path (``services.turns.steps``), which
hands a seat out of time to its fallback bot for good.

A seat is a ``services.stores.records.Seat``: a person or a bot of a level, and once it
changed hands, how (``control``: ``services.kinds.SeatControl``). A seat a bot plays for good (added
to a free seat, or handed over) holds ``BOT_TOKEN`` in the store's token hashes:
nobody's token hashes to it, and a person can no longer claim the seat with
JoinGame's set-if-absent.
"""

from __future__ import annotations

from typing import Any

from games import State
from services.kinds import EventKind, SeatChangeReason, SeatControl, SeatKind
from services.stores.records import GameMeta, Seat
from services.watch import events as ev

BOT_TOKEN = "bot"  # never a sha256 hex digest: no token is valid for the seat
# The seat changes after which the seat's token still holds it; every other change
# (handed over for good, timed out for good, rejoined with a new token, a bot added)
# leaves no earlier token valid. Listed this way round so a new reason revokes.
_TOKEN_KEPT = frozenset({SeatChangeReason.AWAY, SeatChangeReason.TAKEN_BACK})


def bot_to_move(meta: GameMeta, state: State) -> bool:
    """True when a bot seat is to move in ``state`` (its turn goes in the schedule):
    the only test of "whose bot is to move"."""
    actor = state.current_player()
    return actor >= 0 and meta.seats[actor].is_bot


def bot_seat(level: str, name: str, control: SeatControl) -> Seat:
    return Seat(SeatKind.BOT, level, name, control)


def human_seat(name: str) -> Seat:
    return Seat(SeatKind.HUMAN, "", name, SeatControl.AS_CREATED)


def revokes_token(event: dict[str, Any], seat: int) -> bool:
    """Whether ``event`` (a stored event's data) ends every earlier token's hold on
    ``seat``: the one test a live feed makes per event (no store read)."""
    return (
        event["kind"] == EventKind.SEAT_CHANGED
        and event["seat"] == seat
        and event["reason"] not in _TOKEN_KEPT
    )


def hand_to_fallback(
    meta: GameMeta, seat: int, level: str, version: int, to_move: int
) -> tuple[GameMeta, dict[str, Any]]:
    """A seat out of time too often, handed to the fallback bot for good: the new meta
    and the event that says so."""
    now = bot_seat(level, meta.seats[seat].name, SeatControl.HANDED_OVER)
    changed = meta.with_seat(seat, now)
    return changed, ev.seat_changed_event(seat, now, SeatChangeReason.TIMED_OUT, version, to_move)
