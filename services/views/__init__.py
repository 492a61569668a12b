"""Each game's protobuf view (``gamehost.v1``), built from the engine's plain-data
``observation(seat)``: the engines know nothing of the wire format.

May import ``games`` and ``gamehost.v1``; nothing in ``games`` imports this.
"""

from __future__ import annotations

import importlib
from typing import Any

from google.protobuf.message import Message


def build_view(game_type: str, observation: dict[str, Any]) -> Message:
    """The game's view message (``CiteView``, ``CatanView``, ...) for one observation."""
    module = importlib.import_module(f"services.views.{game_type}")
    return module.build_view(observation)


def view_of(game_type: str, state: Any, seat: int | None) -> Message:
    """What ``seat`` (None: a spectator) may see of ``state``, as the game's view message."""
    return build_view(game_type, state.observation(seat))


def dealt_view(game_type: str, players: int, seed: int, options: dict[str, Any]) -> Message:
    """A spectator's view of a new game (``gamehost board`` draws it without a server)."""
    from games import get_game

    state = get_game(game_type).new_game(players, seed, options)
    return view_of(game_type, state, None)
