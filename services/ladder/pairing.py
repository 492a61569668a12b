"""Who plays whom, and in which seats (pure: the matchmaker gives it the ratings and a
random generator).

Opponents are drawn by rating closeness, with some exploration: with probability
``exploration`` an opponent is drawn uniformly from those available, otherwise with
weight 1 / (1 + |mu difference|)^2, so near ratings meet most and every pairing still
happens now and then (a new bot's rating moves fastest against varied opponents). A
set is the same deal played under every seat rotation (duplicate play), so seat order
and the deal's luck cancel out of the set."""

from __future__ import annotations

import random
from collections.abc import Sequence


def choose_opponents(
    focus_mu: float,
    candidates: Sequence[tuple[str, float]],
    count: int,
    rng: random.Random,
    exploration: float,
) -> list[str]:
    """``count`` distinct names from ``candidates`` ((name, mu) pairs), fewer when
    there are not enough."""
    pool = list(candidates)
    chosen: list[str] = []
    while pool and len(chosen) < count:
        if rng.random() < exploration:
            pick = rng.randrange(len(pool))
        else:
            weights = [1.0 / (1.0 + abs(mu - focus_mu)) ** 2 for _, mu in pool]
            pick = rng.choices(range(len(pool)), weights)[0]
        chosen.append(pool.pop(pick)[0])
    return chosen


def rotations(participants: Sequence[str]) -> list[tuple[str, ...]]:
    """The seatings of one duplicate set: participant i sits in seat (i + r) mod n in
    rotation r, so each plays each seat once."""
    n = len(participants)
    return [tuple(participants[(seat - r) % n] for seat in range(n)) for r in range(n)]
