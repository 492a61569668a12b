"""Bot levels a game creator picks per seat, and the one entry point to them.

A bot is only ever given a state that is already a determinization of its own
seat's observation (``State.determinize(seat, rng)``), never the true state, so
it cannot use what its seat may not see.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from games import State


@dataclass(frozen=True)
class Level:
    name: str
    description: str
    decide: Callable[[State, int, random.Random], int]


def _random(state: State, seat: int, rng: random.Random) -> int:
    return rng.choice(state.legal_actions())


LEVELS: dict[str, Level] = {
    "random": Level("random", "picks uniformly among the legal actions", _random),
}


def level_names() -> list[str]:
    return list(LEVELS)


def choose_action(state: State, seat: int, level: str, seed: int) -> int:
    """The action ``level`` plays for ``seat`` in ``state`` (a determinized view).

    Deterministic for a given (state, seat, level, seed).
    """
    if state.current_player() != seat:
        raise ValueError(f"seat {seat} is not to move")
    try:
        bot = LEVELS[level]
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}; known: {', '.join(LEVELS)}") from None
    return bot.decide(state, seat, random.Random(seed))
