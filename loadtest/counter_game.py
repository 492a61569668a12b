"""The trivial two-player game of benchmarks/studies/peer_server.py, gamehost's side of
the boardgame.io counter: each move adds one, the seats take turns, and the game ends
after ``moves`` moves. Not in the shipped catalogue: the benchmarks and tests register it
in the processes they start (``GAMEHOST_EXTRA_GAMES``, ``COUNTER`` below, read by
services/server.py), so it is served with no view message of its own.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from typing import Any, ClassVar

from games import TERMINAL, CorruptStateError, Game, GameInfo, NotationError, State
from games.base import OptionBounds

INC = 0  # the one action
# The GAMEHOST_EXTRA_GAMES entry that serves this game.
COUNTER = "counter=loadtest.counter_game:Counter"


def counter_env() -> dict[str, str]:
    """This environment with the counter registered, for a ``gamehost serve`` to start
    (its serving processes inherit it)."""
    return {**os.environ, "GAMEHOST_EXTRA_GAMES": COUNTER}


INFO = GameInfo(
    name="counter",
    title="Counter",
    min_players=2,
    max_players=2,
    summary="each move adds one; the game ends after `moves` moves (a benchmark's game)",
    default_options={"moves": 500},
    option_bounds={"moves": OptionBounds(1, 1_000_000)},
)


class CounterState(State):
    info: ClassVar[GameInfo] = INFO

    def __init__(self, limit: int, n: int = 0) -> None:
        self.limit = limit
        self.n = n

    @property
    def num_players(self) -> int:
        return 2

    def current_player(self) -> int:
        return TERMINAL if self.n >= self.limit else self.n % 2

    def legal_actions(self) -> list[int]:
        return [] if self.n >= self.limit else [INC]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return []

    def apply_unchecked(self, action: int) -> None:
        self.n += 1

    def action_to_string(self, action: int) -> str:
        if action != INC:
            raise NotationError(f"the counter has one action, {INC} (inc), not {action}")
        return "inc"

    def string_to_action(self, text: str) -> int:
        if text.strip().lower() != "inc":
            raise NotationError(f"the counter's one action is 'inc', not {text!r}")
        return INC

    def observation(self, seat: int | None) -> dict[str, Any]:
        return {"n": self.n, "limit": self.limit}

    def determinize(self, seat: int, rng: random.Random) -> CounterState:
        return self.clone()

    def returns(self) -> list[float]:
        return [0.5, 0.5] if self.n >= self.limit else [0.0, 0.0]

    def clone(self) -> CounterState:
        return CounterState(self.limit, self.n)

    def to_dict(self) -> dict[str, Any]:
        return {"limit": self.limit, "n": self.n}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CounterState:
        limit, n = data["limit"], data["n"]
        if not (isinstance(limit, int) and isinstance(n, int) and 0 <= n <= limit):
            raise CorruptStateError(f"counter state out of range: {dict(data)!r}")
        return cls(limit, n)


class Counter(Game):
    info: ClassVar[GameInfo] = INFO
    state_class: ClassVar[type[State]] = CounterState

    @classmethod
    def new_game(
        cls, players: int, seed: int, options: Mapping[str, Any] | None = None
    ) -> CounterState:
        cls.check_players(players)
        return CounterState(cls.parse_options(options)["moves"])
