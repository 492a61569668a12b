"""Who plays each seat (``meta["seats"]``): the pure part of seat changes, shared by
the seat RPCs (``services.play.seating``) and the write path (``services.turns.steps``), which
hands a seat out of time to its fallback bot for good.

A seat entry is ``{"kind", "level", "name"}`` plus, once it changed hands,
``"control"`` (``services.kinds.SeatControl``). A seat a bot plays for good (added
to a free seat, or handed over) holds ``BOT_TOKEN`` in the store's token hashes:
nobody's token hashes to it, and a person can no longer claim the seat with
JoinGame's set-if-absent.
"""

from __future__ import annotations

from typing import Any

from games import State
from services.kinds import EventKind, SeatChangeReason, SeatControl, SeatKind
from services.watch import events as ev

BOT_TOKEN = "bot"  # never a sha256 hex digest: no token is valid for the seat
# The seat changes after which the seat's token still holds it; every other change
# (handed over for good, timed out for good, rejoined with a new token, a bot added)
# leaves no earlier token valid. Listed this way round so a new reason revokes.
_TOKEN_KEPT = frozenset({SeatChangeReason.AWAY, SeatChangeReason.TAKEN_BACK})


def is_bot(meta: dict[str, Any], seat: int) -> bool:
    """True when a bot plays ``seat`` now (as created, or away, or handed over)."""
    return meta["seats"][seat]["kind"] == SeatKind.BOT


def bot_to_move(meta: dict[str, Any], state: State) -> bool:
    """True when a bot seat is to move in ``state`` (its turn goes in the schedule):
    the one home of "whose bot is to move"."""
    actor = state.current_player()
    return actor >= 0 and is_bot(meta, actor)


def bot_seat(level: str, name: str, control: SeatControl) -> dict[str, Any]:
    return {"kind": SeatKind.BOT, "level": level, "name": name, "control": control}


def human_seat(name: str) -> dict[str, Any]:
    return {"kind": SeatKind.HUMAN, "level": "", "name": name, "control": SeatControl.AS_CREATED}


def control_of(seat: dict[str, Any]) -> SeatControl:
    return SeatControl(seat.get("control", ""))


def revokes_token(event: dict[str, Any], seat: int) -> bool:
    """Whether ``event`` (a stored event's data) ends every earlier token's hold on
    ``seat``: the one test a live feed makes per event (no store read)."""
    return (
        event["kind"] == EventKind.SEAT_CHANGED
        and event["seat"] == seat
        and event["reason"] not in _TOKEN_KEPT
    )


def with_seat(meta: dict[str, Any], index: int, seat: dict[str, Any]) -> dict[str, Any]:
    """``meta`` with seat ``index`` played as ``seat`` (a new dict: snapshots share theirs)."""
    seats = [dict(s) for s in meta["seats"]]
    seats[index] = dict(seat)
    return {**meta, "seats": seats}


def hand_to_fallback(
    meta: dict[str, Any], seat: int, level: str, version: int, to_move: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A seat out of time too often, handed to the fallback bot for good: the new meta
    and the event that says so."""
    now = bot_seat(level, meta["seats"][seat]["name"], SeatControl.HANDED_OVER)
    changed = with_seat(meta, seat, now)
    return changed, ev.seat_changed_event(seat, now, SeatChangeReason.TIMED_OUT, version, to_move)
