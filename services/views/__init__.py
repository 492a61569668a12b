"""Each game's protobuf view (``gamehost.v1``), built from the engine's plain-data
``observation(seat)``: the engines know nothing of the wire format.

May import ``games`` and ``gamehost.v1``; nothing in ``games`` imports this.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

from google.protobuf.message import Message


def _module(game_type: str) -> ModuleType | None:
    """The game's view module; None for a game served without one (a benchmark's
    trivial game, registered with ``games.register_game``)."""
    name = f"services.views.{game_type}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise


def build_view(game_type: str, observation: dict[str, Any]) -> Message:
    """The game's view message (``CiteView``, ``CatanView``, ...) for one observation."""
    return importlib.import_module(f"services.views.{game_type}").build_view(observation)


def revealed_actions(
    game_type: str, actions: list[dict[str, Any]], state: Callable[[], Any]
) -> set[int]:
    """Indices of ``actions`` (the game's action events as stored, in log order) whose
    hidden text the game has made public since (``state``: the game now, read only if
    needed); none for a game without such a rule. Catan: a 7's discards."""
    rule = getattr(_module(game_type), "revealed_actions", None)
    return rule(actions, state) if rule is not None else set()


def view_of(game_type: str, state: Any, seat: int | None, withheld: bool = False) -> Message | None:
    """What ``seat`` (None: a spectator) may see of ``state``, as the game's view message
    (None: the game has no view message; its state is then not sent at all).

    ``withheld``: the game is over but its hidden information is not public yet (a
    game of its deal still runs: ``access.log_public``), so what a game shows every
    seat at its end (Catan: hands and development cards) stays its owner's."""
    module = _module(game_type)
    if module is None:
        return None
    observation = state.observation(seat)
    as_running = getattr(module, "as_running", None)
    if withheld and as_running is not None:
        observation = as_running(observation, seat)
    return module.build_view(observation)


def dealt_view(game_type: str, players: int, seed: int, options: dict[str, Any]) -> Message:
    """A spectator's view of a new game (``gamehost board`` draws it without a server)."""
    from games import get_game

    state = get_game(game_type).new_game(players, seed, options)
    view = view_of(game_type, state, None)
    if view is None:
        raise ValueError(f"{game_type} has no view to draw")
    return view
