"""Cité: gauge safety. A city's score is how far it stands from falling.

A city falls when civilians reach 0 or 10 or army reaches 10, and upkeep moves
civilians through health (health < 4 loses them, > 8 gains) and health through
wheat, so the score multiplies a safety factor for each margin. A card still
held counts as resolved the way its holder would prefer (played or discarded
for 1 gold + 1 wheat), so one-ply lookahead sees what a dealt card will do.
The last city standing wins: shares are safety normalized over standing cities.
"""

from __future__ import annotations

from typing import Final

from games.cite import rules as R
from games.cite.engine import CiteState

# Playouts follow this evaluation (epsilon-greedy, bots.mcts): random Cité play
# discards, levies and starves cities to a fall, so random playouts judged leaves
# badly, and no budget made up for it. At mcts-fast's budget, greedy playouts
# (10% random moves) won 66% of 2-player duplicate games against random ones.
PLAYOUT_EPSILON: Final = 0.1

# Tables tuned by greedy-vs-random self-play (800 games per variant).
# Safety by distance to a fall (index = margin, capped at 5).
_MARGIN: Final[tuple[float, ...]] = (0.1, 0.35, 0.7, 0.88, 0.96, 1.0)
# Safety by health (upkeep: < 2 costs two civilians a turn, < 4 one).
_HEALTH: Final[tuple[float, ...]] = (0.4, 0.5, 0.65, 0.8, 0.95, 1.0, 1.0, 1.0, 1.0, 0.97, 0.95)
# Safety by wheat (upkeep: < 1 costs two health a turn, < 3 one).
_WHEAT: Final[tuple[float, ...]] = (0.7, 0.8, 0.9, 0.97, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
# Safety by army size (wars are won by the larger army).
_ARMY: Final[tuple[float, ...]] = (0.6, 0.75, 0.87, 0.94, 0.98, 1.0)
# Gold pays to discard bad cards and the Allegiance tax.
_GOLD: Final[tuple[float, ...]] = (0.8, 0.9, 0.97, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)


def safety(gold: int, wheat: int, health: int, civ: int, army: int, structures: int) -> float:
    """How safe a city with these gauges is, in [0, 1]."""
    drift = (-2 if health < 2 else -1 if health < 4 else 0) + (1 if health > 8 else 0)
    low = civ + (drift if drift < 0 else 0)  # civilians expected after the next upkeep
    high = 10 - civ - (drift if drift > 0 else 0)
    margin = low if low < high else high
    if margin < 0:
        margin = 0
    army_margin = 10 - army
    # A small army loses wars, and an empty one turns army losses into civilians.
    weak = _ARMY[army if army < 5 else 5]
    value = (
        _MARGIN[margin if margin < 5 else 5]
        * _MARGIN[army_margin if army_margin < 5 else 5]
        * _HEALTH[health]
        * _WHEAT[wheat]
        * _GOLD[gold]
        * weak
    )
    return value * (1.0 + 0.03 * structures)


def _resolved(gold: int, wheat: int, health: int, civ: int, army: int, structures: int) -> float:
    """Safety of a city a card leaves with these gauges (0 when the card makes it fall)."""
    return safety(gold, wheat, health, civ, army, structures) if 0 < civ < 10 else 0.0


def _held_card_safety(card: int, g: list[int], neighbours: int, structures: int) -> float:
    """Safety after the best way the holder may resolve ``card``: play it or, when it
    can, discard it for 1 gold + 1 wheat (approximate, own city only)."""
    gold, wheat, health, civ, army = g[0], g[1], g[2], g[3], g[4]
    if card == R.ALLEGIANCE:  # cannot be discarded
        if gold >= 2:
            return _resolved(gold - 2, wheat, health, civ, army, structures)
        return _resolved(gold, wheat, health, civ - 1, army, structures)
    if card == R.HOSPITAL:
        best = _resolved(gold, wheat, min(health + 1, 10), civ, army, structures)
    elif card == R.FIRE:
        best = _resolved(gold, max(wheat - 2, 0), health, civ, army, structures)
    elif card == R.BARBARIANS:
        lost = 1 if army == 0 else 0
        best = _resolved(gold, max(wheat - 1, 0), health, civ - lost, max(army - 1, 0), structures)
    elif card == R.CIVIL_WAR:
        lost = 1 if army == 0 else 0
        best = _resolved(gold, wheat, health, civ - 1 - lost, max(army - 1, 0), structures)
    elif card == R.LAND_OF_WELCOME:
        best = _resolved(gold, wheat, health, min(civ + neighbours, 10), army, structures)
    else:  # granary, outpost, good war: roughly neutral for the holder
        best = _resolved(gold, wheat, health, civ, army, structures)
    if gold >= 1 and wheat >= 1:
        discarded = _resolved(gold - 1, wheat - 1, health, civ, army, structures)
        if discarded > best:
            best = discarded
    return best


def evaluate(state: CiteState) -> list[float]:
    n = state.n
    standing = state.standing
    scores = [0.0] * n
    for s in range(n):
        if not standing[s]:
            continue
        g = state.gauges[s]
        structures = (state.granary[s] != R.NO_STRUCTURE) + (state.outpost[s] != R.NO_STRUCTURE)
        card = state.hand[s]
        if card == R.NO_CARD:
            scores[s] = safety(g[0], g[1], g[2], g[3], g[4], structures)
        else:
            scores[s] = _held_card_safety(card, g, 2, structures)
    total = sum(scores)
    if total <= 0.0:
        alive = sum(standing)
        return [1.0 / alive if standing[s] else 0.0 for s in range(n)] if alive else [1.0 / n] * n
    return [v / total for v in scores]
