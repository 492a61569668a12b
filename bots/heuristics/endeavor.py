"""Endeavor: glory now plus what the status tracks and markers will still earn.

A seat's score is the glory it would score if the game ended now (the engine's
own scoring lines), plus, weighted by the share of the game still to play, the
levels of its four status tracks (they drive buildings, growth, salary and card
slots), the population markers in its harbor (actions to come) and its unused
buildings. Shares are a softmax of the scores.
"""

from __future__ import annotations

from typing import Final

from bots.heuristics import softmax_shares
from games.endeavor import data as D
from games.endeavor import rules as R
from games.endeavor.engine import EndeavorState
from games.endeavor.scoring import score_lines

SHARPNESS: Final = 0.3  # per glory point
LEVEL_VALUE: Final = 1.5  # per track level, at the start of the game
MARKER_VALUE: Final = 0.1  # per marker in the harbor (more makes bots hoard them)
BUILDING_VALUE: Final = 0.6  # per building without a marker (an action this round)

_LEVEL: Final = D.TRACK_LEVEL
_NB: Final = D.NUM_BUILDING_TYPES


def scores(state: EndeavorState) -> list[float]:
    n = state.n
    if state.phase == R.OVER:
        return [float(v) for v in state.scores]
    future = (D.ROUNDS - state.round + 1) / D.ROUNDS
    track_values = state.track_values
    owned = state.owned
    used = state.used
    out = []
    for s in range(n):
        glory = sum(score_lines(state, s).values())
        levels = 0
        for k in range(4):
            v = track_values[4 * s + k]
            levels += _LEVEL[v if v < 15 else 15]
        base = s * _NB
        idle = 0
        for t in range(1, _NB):
            idle += owned[base + t] - used[base + t]
        out.append(
            glory
            + future * (LEVEL_VALUE * levels + BUILDING_VALUE * idle)
            + MARKER_VALUE * state.harbor[s]
        )
    return out


def evaluate(state: EndeavorState) -> list[float]:
    return softmax_shares(scores(state), SHARPNESS)
