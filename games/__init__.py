"""Pure rules engines: no I/O, no clocks, no global randomness; observations as plain data.

May import: the standard library, ``mypy_extensions`` (compile hints) and ``games``
itself, nothing else (no protobuf, no
``bots``, ``services`` or ``gamehost``). Inside, imports point one way: ``base`` <-
``checks``, ``copying``, ``actions`` <- each game package (``cite``, ``catan``,
``endeavor``, which never import one another). ``pyproject.toml``'s import
contracts check it (tests/test_import_contracts.py).
"""

from __future__ import annotations

import importlib
import importlib.util

from games.build import engine_build, install_switch

install_switch()  # GAMEHOST_PURE_PYTHON=1: the .py sources, before any compiled module loads

from games.base import (  # noqa: E402 - after the build switch
    CHANCE,
    TERMINAL,
    CorruptStateError,
    Game,
    GameError,
    GameInfo,
    IllegalActionError,
    NotationError,
    OptionsError,
    State,
)

# game id -> "module:Class"; imported on first use so one game's import cost is not every game's.
_REGISTRY = {
    "cite": "games.cite.engine:Cite",
    "catan": "games.catan.engine:Catan",
    "endeavor": "games.endeavor.engine:Endeavor",
}


def game_names() -> list[str]:
    """Ids of every game this build serves."""
    return [name for name in _REGISTRY if _available(name)]


def get_game(name: str) -> type[Game]:
    """The game class for a game id; raises KeyError for unknown ids."""
    target = _REGISTRY.get(name)
    if target is None:
        raise KeyError(name)
    module_name, _, attr = target.partition(":")
    game: type[Game] = getattr(importlib.import_module(module_name), attr)
    return game


def register_game(name: str, target: str) -> None:
    """Serve one more game, ``target`` being "module:Class", beside the shipped ones
    (a benchmark's trivial game); a shipped game's id cannot be taken over."""
    if _REGISTRY.get(name, target) != target:
        raise ValueError(f"game id {name!r} is taken by {_REGISTRY[name]}")
    _REGISTRY[name] = target


def _available(name: str) -> bool:
    module_name = _REGISTRY[name].partition(":")[0]
    try:
        return importlib.util.find_spec(module_name) is not None
    except ModuleNotFoundError:
        return False


__all__ = [
    "CHANCE",
    "TERMINAL",
    "CorruptStateError",
    "Game",
    "GameError",
    "GameInfo",
    "IllegalActionError",
    "NotationError",
    "OptionsError",
    "State",
    "engine_build",
    "game_names",
    "get_game",
    "register_game",
]
