"""Confidence intervals of a win share: Wilson over games, or a normal interval over deals.

This math is written here only: the tournament report and the bot benchmarks
(``loadtest/bots_common.py``, ``benchmarks/bots_strength.py``) both use it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.96


def wilson(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (shared wins count fractionally)."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def over_deals(means: Sequence[float], z: float = Z95) -> tuple[float, float]:
    """95% normal interval of the mean of per-deal mean results (duplicate play).

    Each value is one deal's mean result in [0, 1]; luck moves those less than single
    games, so the interval is narrower than Wilson's over the same games.
    """
    n = len(means)
    if n == 0:
        return (0.0, 1.0)
    mean, half = normal_half_width(means, z)
    if half == 0.0:  # no spread seen (e.g. every deal won): a deal mean lies in [0, 1],
        return wilson(sum(means), n, z)  # so Wilson over the deals is a safe bound
    return (max(0.0, mean - half), min(1.0, mean + half))


def normal_half_width(values: Sequence[float], z: float = Z95) -> tuple[float, float]:
    """The mean of ``values`` and its normal interval's half width, unclamped (so it
    also serves differences, which may be negative); half width 0 for one value."""
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    return mean, z * sd / math.sqrt(n)
