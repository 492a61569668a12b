"""Terminal text for a GameState, drawn from its protobuf view alone (``gamehost play``).

One module per game (``cite``, ``catan``, ``endeavor``), each with ``render(view, viewer)``,
``notices(before, after)`` (announcements between two views), ``HELP`` (its notation) and
optionally ``FOLDS`` (legal actions listed behind one menu entry). May import only
``gamehost.v1`` and the standard library: never the engines.
"""

from __future__ import annotations

from types import ModuleType

from google.protobuf.message import Message

from gamehost.client import seat_of
from gamehost.render import catan, cite, endeavor
from gamehost.v1 import gamehost_pb2 as pb

_GAMES: dict[str, ModuleType] = {"cite": cite, "catan": catan, "endeavor": endeavor}


def seat_to_move(state: pb.GameState) -> int | None:
    """The seat to act, or None when chance or nobody is (the one reader of ``to_move``)."""
    return seat_of(state.to_move)


def mover_text(state: pb.GameState) -> str:
    if state.status == pb.FINISHED:
        return "finished"
    seat = seat_to_move(state)
    return "chance to move" if seat is None else f"seat {seat} to move"


def view_of(state: pb.GameState) -> Message | None:
    kind = state.WhichOneof("view")
    return getattr(state, kind) if kind else None


def render(state: pb.GameState) -> str:
    """A header line, then the game's own screen."""
    header = f"{state.game_type} v{state.version}  "
    if state.status == pb.FINISHED:
        header += "finished: returns " + ", ".join(f"{r:g}" for r in state.returns)
    else:
        header += mover_text(state)
    view = view_of(state)
    module = _GAMES.get(state.game_type)
    if view is None or module is None:
        return header  # a game this client does not know: its moves still work
    return f"{header}\n{module.render(view, viewer_of(state))}"


def viewer_of(state: pb.GameState) -> int | None:
    """The seat whose view this is, or None for a spectator's."""
    return state.viewer_seat if state.HasField("viewer_seat") else None


def notices(before: pb.GameState | None, after: pb.GameState) -> list[str]:
    """Announcements for what changed between two states (falls, titles won, ...)."""
    module = _GAMES.get(after.game_type)
    if module is None or before is None or before.game_type != after.game_type:
        return []
    return module.notices(view_of(before), view_of(after))


def help_text(game_type: str) -> str:
    module = _GAMES.get(game_type)
    return module.HELP if module else f"no notation help for {game_type!r}"


def folds(game_type: str) -> dict[str, tuple[str, ...]]:
    """Menu entry -> notation prefixes of the legal actions listed behind it."""
    return getattr(_GAMES.get(game_type), "FOLDS", {})


__all__ = [
    "folds",
    "help_text",
    "mover_text",
    "notices",
    "render",
    "seat_to_move",
    "view_of",
    "viewer_of",
]
