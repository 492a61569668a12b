"""A tiny game for search tests: seats move in turn along a fixed script of nodes.

``Script`` nodes: ``("decide", seat, {action: next})``, ``("chance", {outcome: (p, next)})``
or ``("end", returns)``. Everything is public, so ``determinize`` is a clone.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from games import CHANCE, TERMINAL, GameInfo, State

INFO = GameInfo(name="toy", title="Toy", min_players=2, max_players=4, summary="test game")
Script = dict[str, tuple]


class ToyState(State):
    info: ClassVar[GameInfo] = INFO

    def __init__(self, script: Script, players: int, node: str = "start") -> None:
        self.script = script
        self.players = players
        self.node = node

    @property
    def num_players(self) -> int:
        return self.players

    def current_player(self) -> int:
        kind = self.script[self.node][0]
        if kind == "decide":
            return self.script[self.node][1]
        return CHANCE if kind == "chance" else TERMINAL

    def legal_actions(self) -> list[int]:
        entry = self.script[self.node]
        return sorted(entry[2]) if entry[0] == "decide" else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        entry = self.script[self.node]
        return [(o, p) for o, (p, _) in sorted(entry[1].items())] if entry[0] == "chance" else []

    def apply_unchecked(self, action: int) -> None:
        entry = self.script[self.node]
        self.node = entry[2][action] if entry[0] == "decide" else entry[1][action][1]

    def returns(self) -> list[float]:
        entry = self.script[self.node]
        return list(entry[1]) if entry[0] == "end" else [0.0] * self.players

    def clone(self) -> ToyState:
        return ToyState(self.script, self.players, self.node)

    def determinize(self, seat: int, rng: random.Random) -> ToyState:
        return self.clone()

    def action_to_string(self, action: int) -> str:
        return str(action)

    def string_to_action(self, text: str) -> int:
        return int(text)

    def observation(self, seat: int | None) -> dict[str, Any]:
        return {"node": self.node}

    def view(self, seat: int | None) -> Any:
        return self.observation(seat)

    def to_dict(self) -> dict[str, Any]:
        return {"node": self.node}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToyState:
        raise NotImplementedError


def even(state: State) -> list[float]:
    """A heuristic that knows nothing: equal shares."""
    n = state.num_players
    return [1.0 / n] * n
