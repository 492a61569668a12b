"""Catan: victory points and production.

A seat's score is in victory points (its true VP: in a determinized state the
search sees a sampled view of others' hidden cards) plus VP-equivalents for what
turns into points later: production in pips (dice ways of the numbers next to
its buildings, the robbed hex excluded, with a bonus for each resource produced
at all), cards in hand (less past the 7-card limit), unplayed development cards,
knights, road length, open settlement spots and harbors. Shares are a softmax
of the scores, so a lead of a few points is a near-certain win.

Bots never make domestic offers (as catanatron's bots); they answer every
offer made to them (accept/decline) and take every other decision.
"""

from __future__ import annotations

from typing import Final

from bots.heuristics import softmax_shares
from games.catan import board as B
from games.catan import rules as R
from games.catan.engine import CatanState

SHARPNESS: Final = 0.9  # per VP-equivalent
PIP_VALUE: Final = 0.09  # a typical settlement's 10-12 pips are worth about one VP
DIVERSITY: Final = 0.25  # per resource type produced at all
CARD_VALUE: Final = 0.07
OVER_LIMIT: Final = 0.12  # per card above 7: half the hand is lost on a 7
DEV_VALUE: Final = 0.35
KNIGHT_VALUE: Final = 0.15
ROAD_VALUE: Final = 0.04
SPOT_VALUE: Final = 0.25  # per open settlement spot on one's roads (first two)
HARBOR_VALUE: Final = 0.1

_DESERT: Final = R.DESERT
_DICE_WAYS: Final = R.DICE_WAYS
_NODE_HEXES: Final = B.NODE_HEXES

# Per board: for each intersection, its (hex, resource, pips) entries.
_Yields = tuple[tuple[tuple[int, int, int], ...], ...]
_boards: Final[dict[tuple[tuple[int, ...], tuple[int, ...]], _Yields]] = {}


def _node_yields(state: CatanState) -> _Yields:
    key = (state.hex_terrain, state.hex_number)
    table = _boards.get(key)
    if table is None:
        terrain, number = state.hex_terrain, state.hex_number
        table = tuple(
            tuple(
                (hx, terrain[hx], _DICE_WAYS[number[hx]])
                for hx in _NODE_HEXES[v]
                if terrain[hx] != _DESERT
            )
            for v in range(B.NUM_NODES)
        )
        if len(_boards) > 256:
            _boards.clear()
        _boards[key] = table
    return table


def scores(state: CatanState) -> list[float]:
    """Each seat's score in VP-equivalents."""
    n = state.n
    yields = _node_yields(state)
    robber = state.robber
    prod = [0] * (5 * n)  # pips per seat and resource, as ``hand``
    city = state.node_city
    for v, owner in enumerate(state.node_owner):
        if owner >= 0:
            mult = 1 + city[v]
            b = 5 * owner
            for hx, r, pips in yields[v]:
                if hx != robber:
                    prod[b + r] += mult * pips
    hand = state.hand
    dev = state.dev
    rates = state.rates
    free = state.free_nodes
    out = []
    for s in range(n):
        b = 5 * s
        pips = kinds = harbors = 0
        for r in range(5):
            produced = prod[b + r]
            pips += produced
            if produced:
                kinds += 1
            if rates[b + r] < 4:
                harbors += 1
        score = float(state.vp[s] + dev[b + R.VICTORY_POINT])
        score += PIP_VALUE * pips + DIVERSITY * kinds
        cards = hand[b] + hand[b + 1] + hand[b + 2] + hand[b + 3] + hand[b + 4]
        score += CARD_VALUE * cards - (OVER_LIMIT * (cards - 7) if cards > 7 else 0.0)
        score += DEV_VALUE * (state.dev_count[s] - dev[b + R.VICTORY_POINT])
        score += KNIGHT_VALUE * state.knights[s] + ROAD_VALUE * state.road_len[s]
        if state.settles_left[s]:
            spots = (state.road_nodes[s] & free).bit_count()
            score += SPOT_VALUE * (spots if spots < 2 else 2)
        score += HARBOR_VALUE * harbors
        out.append(score)
    return out


def evaluate(state: CatanState) -> list[float]:
    return softmax_shares(scores(state), SHARPNESS)


def bot_actions(state: CatanState) -> list[int]:
    """Legal actions without domestic offers (ids from OFFER_BASE on, drafts included;
    inside a draft, which only random play opens, just dropping it)."""
    return state.actions_without_offers()
