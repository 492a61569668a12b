"""The game log: event records as stored, and what one viewer may see of them.

Every change to a game appends events: ``created`` (carries the public initial
state, so the log alone replays the game; it follows the set-up's chance outcomes, so
its version is the created game's), ``joined``, one ``action`` per applied
action (chance outcomes included; ``timeout`` when a fallback level played it for a
seat out of time), ``seat_changed`` (who plays a seat now) and ``finished`` (with a
``reason`` when the game was abandoned rather than played out). In a
timed game the last event of a write carries the running ``clock``. Every event records who is to
move after it (``to_move``: a seat, or ``games.CHANCE`` / ``games.TERMINAL``), so a
watcher never needs another call to know whose turn it is. An action event stores
its full text plus the audience allowed to see it and a redacted text for everyone
else; redaction happens when an event is served, never when it is stored.
"""

from __future__ import annotations

import base64
from typing import Any

from games import TERMINAL, State
from services.kinds import EventKind, FinishReason
from services.stores.records import Seat


def created_event(initial: State, version: int = 0, to_move: int | None = None) -> dict[str, Any]:
    """The created event: ``initial`` is the state before the set-up's chance outcomes
    (version 0, what a replay starts from). It closes the creation write, after those
    outcomes' own events, so its ``version`` is the created game's (the one CreateGame
    answers) and ``to_move`` who acts in it (``initial_to_move``: who acts at version 0)."""
    first = initial.current_player()
    return {
        "kind": EventKind.CREATED,
        "version": version,
        "initial": base64.b64encode(initial.to_bytes()).decode(),
        "to_move": first if to_move is None else to_move,
        "initial_to_move": first,
    }


def joined_event(seat: int, name: str, version: int, to_move: int) -> dict[str, Any]:
    return {
        "kind": EventKind.JOINED,
        "seat": seat,
        "name": name,
        "version": version,
        "to_move": to_move,
    }


def seat_changed_event(
    seat: int, now: Seat, reason: str, version: int, to_move: int
) -> dict[str, Any]:
    """Seat ``seat`` is played as ``now`` from ``version`` (``"now"``: its stored layout)."""
    return {
        "kind": EventKind.SEAT_CHANGED,
        "seat": seat,
        "now": now.to_dict(),
        "reason": reason,
        "version": version,
        "to_move": to_move,
    }


def action_event(state: State, action: int, version_after: int) -> dict[str, Any]:
    """Describe ``action`` on ``state`` before it is applied; ``followed_by`` adds who
    moves next once it has been."""
    audience = state.action_audience(action)
    return {
        "kind": EventKind.ACTION,
        "version": version_after,
        "seat": state.current_player(),
        "action": action,
        "text": state.action_to_string(action),
        "audience": sorted(audience) if audience is not None else None,
        "redacted": state.redacted_action_string(action) if audience is not None else None,
    }


def followed_by(event: dict[str, Any], state: State) -> dict[str, Any]:
    """``event`` with who is to move in ``state``, the state right after it."""
    return {**event, "to_move": state.current_player()}


def finished_event(state: State, version: int) -> dict[str, Any]:
    return {
        "kind": EventKind.FINISHED,
        "version": version,
        "returns": state.returns(),
        "to_move": TERMINAL,
    }


def abandoned_event(version: int, why: str) -> dict[str, Any]:
    """The end of a game stopped where it stood (``services.turns.steps.abandon``): no returns;
    ``why`` says who stopped it, for people reading the log."""
    return {
        "kind": EventKind.FINISHED,
        "version": version,
        "returns": [],
        "to_move": TERMINAL,
        "reason": FinishReason.ABANDONED,
        "why": why,
    }


def finish_reason(event: dict[str, Any]) -> FinishReason:
    """Why the game of a ``finished`` event is over (events before reasons: played out)."""
    return FinishReason(event.get("reason", FinishReason.PLAYED_OUT))


def visible(event: dict[str, Any], viewer: int | None, reveal_all: bool = False) -> dict[str, Any]:
    """The event as ``viewer`` (a seat, or None for a spectator) may see it.

    Hidden actions keep their place in the log (and their audience: who an action
    concerns is public, what it was is not) but lose their id and text.
    """
    if event["kind"] != EventKind.ACTION or event.get("audience") is None or reveal_all:
        return {**event, "hidden": False}
    if viewer is not None and viewer in event["audience"]:
        return {**event, "hidden": False}
    return {**event, "hidden": True, "action": -1, "text": event["redacted"]}


def initial_state_bytes(created: dict[str, Any]) -> bytes:
    return base64.b64decode(created["initial"])
