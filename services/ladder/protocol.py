"""The bot protocol's lines, version 1 (docs/bot-protocol.md): what the server hands a
bot through its runner (start, act, end: one JSON object a line) and the reading of
the bot's answer to an act (``{"id": N}``). Pure: no I/O."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from services.ladder.model import Fault

VERSION = 1
MAX_LINE = 1024  # characters of an answer the server reads; a longer one is garbage


def _line(message: Mapping[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


def start_line(
    game_id: str, game_type: str, players: int, seat: int, options: Mapping[str, Any]
) -> str:
    return _line(
        {
            "type": "start",
            "protocol": VERSION,
            "game_id": game_id,
            "game_type": game_type,
            "players": players,
            "seat": seat,
            "options": {str(k): v for k, v in options.items()},
        }
    )


def act_line(
    game_id: str,
    seat: int,
    state: Mapping[str, Any],
    legal: Sequence[tuple[int, str]],
    ms_left: int,
) -> str:
    return _line(
        {
            "type": "act",
            "game_id": game_id,
            "seat": seat,
            "state": state,
            "legal": [{"id": action, "notation": text} for action, text in legal],
            "ms_left": ms_left,
        }
    )


def end_line(game_id: str, returns: Sequence[float]) -> str:
    return _line({"type": "end", "game_id": game_id, "returns": list(returns)})


def read_answer(line: str, legal: Collection[int]) -> tuple[int | None, Fault | None]:
    """The action an answer names, or the fault that makes it unplayable: GARBAGE
    for anything but one JSON object with an integer ``id`` (other keys are ignored),
    ILLEGAL for an id that is not among ``legal``."""
    if len(line) > MAX_LINE:
        return None, Fault.GARBAGE
    try:
        answer = json.loads(line)
    except ValueError:
        return None, Fault.GARBAGE
    if not isinstance(answer, dict):
        return None, Fault.GARBAGE
    action = answer.get("id")
    if not isinstance(action, int) or isinstance(action, bool):
        return None, Fault.GARBAGE
    if action not in legal:
        return None, Fault.ILLEGAL
    return action, None
