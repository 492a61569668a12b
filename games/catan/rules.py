"""Catan's fixed data and action-id table (see shared/rules/catan-facts.md).

Action ids are stable: they appear in logs and in the API. The engine module
docstring documents the notation of each.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

# Resources; terrain ids equal the resource they produce, the desert is 5.
BRICK, LUMBER, WOOL, GRAIN, ORE = range(5)
RESOURCE_NAMES = ("brick", "lumber", "wool", "grain", "ore")
RESOURCE_ALIASES = {"wood": LUMBER, "sheep": WOOL, "wheat": GRAIN}
HILLS, FOREST, PASTURE, FIELDS, MOUNTAINS, DESERT = range(6)
TERRAIN_NAMES = ("hills", "forest", "pasture", "fields", "mountains", "desert")
TERRAIN_SHORT = ("hil", "for", "pas", "fld", "mtn", "des")
TERRAIN_LEGEND = tuple(
    (s, f"{t} ({RESOURCE_NAMES[i]})" if i < 5 else t)
    for i, (s, t) in enumerate(zip(TERRAIN_SHORT, TERRAIN_NAMES, strict=True))
)
TERRAIN_COUNTS = (3, 4, 4, 4, 3, 1)  # §3
RESOURCE_COUNT = 19  # of each resource (§1)

# Number tokens in letter order A..R, laid along the spiral (§4).
TOKEN_LETTER_ORDER = (5, 2, 6, 3, 8, 10, 9, 12, 11, 4, 8, 10, 9, 4, 5, 6, 3, 11)
DICE_WAYS = (0, 0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1)  # by sum 0..12

# Harbors: 0..4 = 2:1 for that resource, 5 = generic 3:1 (§5).
GENERIC = 5
HARBOR_NAMES = ("2:1 brick", "2:1 lumber", "2:1 wool", "2:1 grain", "2:1 ore", "3:1")
HARBOR_TYPES = (BRICK, LUMBER, WOOL, GRAIN, ORE, GENERIC, GENERIC, GENERIC, GENERIC)

# Development cards (§14).
KNIGHT, ROAD_BUILDING, YEAR_OF_PLENTY, MONOPOLY, VICTORY_POINT = range(5)
DEV_NAMES = ("knight", "road-building", "year-of-plenty", "monopoly", "victory-point")
DEV_DECK = (14, 2, 2, 2, 5)
DEV_TOTAL = 25

# Costs (brick, lumber, wool, grain, ore) (§7).
ROAD_COST = (1, 1, 0, 0, 0)
SETTLEMENT_COST = (1, 1, 1, 1, 0)
CITY_COST = (0, 0, 0, 2, 3)
DEV_COST = (0, 0, 1, 1, 1)
ROADS, SETTLEMENTS, CITIES = 15, 5, 4  # supply per player

WIN_VP = 10
DISCARD_LIMIT = 7
LONGEST_ROAD_MIN = 5
LARGEST_ARMY_MIN = 3
MAX_OFFERS_PER_TURN = 3  # §19a.4
MAX_PLAYERS = 4
DEFAULT_TURN_LIMIT = 1000  # §19a.5
NO_ONE = -1

# Phases.
(
    SETUP_SETTLE,
    SETUP_ROAD,
    PRE_ROLL,
    ROLL_DICE,
    DISCARD,
    ROBBER,
    STEAL,
    MAIN,
    FREE_ROADS,
    DRAW_DEV,
    TRADE_ANSWER,
    TRADE_CONFIRM,
    OVER,
) = range(13)
PHASE_NAMES = (
    "setup-settlement",
    "setup-road",
    "pre-roll",
    "roll",
    "discard",
    "robber",
    "steal",
    "main",
    "free-roads",
    "draw",
    "trade-answer",
    "trade-confirm",
    "over",
)

# --------------------------------------------------------------------- domestic offers
# The compact table: offers giving 1-2 cards and asking for 1-2 cards, no resource on
# both sides (§12, §19a.4), one id each. Each side is a multiset, a 5-count tuple.
# Larger offers (§19a.8) are drafted step by step or given whole (FREE_OFFER_BASE).
MAX_OFFER_SIDE = 2


def _sides() -> list[tuple[int, ...]]:
    sides = []
    for size in range(1, MAX_OFFER_SIDE + 1):
        for combo in combinations_with_replacement(range(5), size):
            counts = [0] * 5
            for r in combo:
                counts[r] += 1
            sides.append(tuple(counts))
    return sides


_SIDES = _sides()
OFFERS: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = tuple(
    (give, get)
    for give in _SIDES
    for get in _SIDES
    if not any(g and w for g, w in zip(give, get, strict=True))
)
NUM_OFFERS = len(OFFERS)
OFFER_INDEX = {offer: i for i, offer in enumerate(OFFERS)}

# --------------------------------------------------------------------- action ids
END_TURN = 0
ROLL = 1
STOP_ROADS = 2
BUY_DEV = 3
PLAY_KNIGHT = 4
PLAY_ROAD_BUILDING = 5
YOP_BASE = 6  # 15 pairs (a <= b) then 5 singles
YOP_PAIRS = tuple((a, b) for a in range(5) for b in range(a, 5))
YOP_CHOICES = (*YOP_PAIRS, *((a,) for a in range(5)))
MONOPOLY_BASE = YOP_BASE + len(YOP_CHOICES)  # + resource
ACCEPT = MONOPOLY_BASE + 5
DECLINE = ACCEPT + 1
CANCEL_TRADE = DECLINE + 1
CONFIRM_BASE = CANCEL_TRADE + 1  # + accepting seat
ROAD_BASE = CONFIRM_BASE + MAX_PLAYERS  # + path
SETTLE_BASE = ROAD_BASE + 72  # + intersection
CITY_BASE = SETTLE_BASE + 54  # + intersection
ROBBER_BASE = CITY_BASE + 54  # + hex * 5 + (victim + 1); victim 0 = nobody to rob
DISCARD_BASE = ROBBER_BASE + 19 * 5  # + resource
MARITIME_BASE = DISCARD_BASE + 5  # + give * 5 + get (give != get)
OFFER_BASE = MARITIME_BASE + 25  # + offer index
DICE_BASE = OFFER_BASE + NUM_OFFERS  # + sum - 2 (chance)
DRAW_BASE = DICE_BASE + 11  # + card type (chance)
STEAL_BASE = DRAW_BASE + 5  # + resource (chance)
# Offer drafts (§19a.8): an offer of any terms built one card at a time.
DRAFT_GIVE_BASE = STEAL_BASE + 5  # + resource: add one card to give
DRAFT_GET_BASE = DRAFT_GIVE_BASE + 5  # + resource: add one card to ask for
DRAFT_MAKE = DRAFT_GET_BASE + 5  # make the drafted offer
DRAFT_DROP = DRAFT_MAKE + 1  # abandon the draft (it counts as one of the turn's offers)
NUM_ACTIONS = DRAFT_DROP + 1  # the enumerated action space (legal_actions draws from it)

# Whole offers beyond the compact table, in one id (the one-line notation): never listed
# by legal_actions, accepted by is_legal. Terms as one signed count per resource
# (+ given, - asked), each in -19..19, written in base 39.
MAX_OFFER_KIND = RESOURCE_COUNT
_TERM_BASE = 2 * MAX_OFFER_KIND + 1
FREE_OFFER_BASE = NUM_ACTIONS
FREE_OFFER_END = FREE_OFFER_BASE + _TERM_BASE**5


def terms_code(terms: list[int] | tuple[int, ...]) -> int:
    code = 0
    for r in range(4, -1, -1):
        code = code * _TERM_BASE + terms[r] + MAX_OFFER_KIND
    return code


def code_terms(code: int) -> list[int]:
    terms = []
    for _ in range(5):
        code, digit = divmod(code, _TERM_BASE)
        terms.append(digit - MAX_OFFER_KIND)
    return terms


def offer_key(give: tuple[int, ...], get: tuple[int, ...]) -> int | None:
    """The offer's key (its action id - OFFER_BASE): the compact table's index when the
    terms fit it, else the free form; None when the terms are no offer at all."""
    if not any(give) or not any(get) or any(g and w for g, w in zip(give, get, strict=True)):
        return None
    if any(k > MAX_OFFER_KIND for k in give) or any(k > MAX_OFFER_KIND for k in get):
        return None
    index = OFFER_INDEX.get((give, get))
    if index is not None:
        return index
    return (
        FREE_OFFER_BASE - OFFER_BASE + terms_code([g - w for g, w in zip(give, get, strict=True)])
    )


def offer_terms(key: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(give, get) counts of an offer key (see ``offer_key``)."""
    if key < NUM_OFFERS:
        return OFFERS[key]
    terms = code_terms(key - (FREE_OFFER_BASE - OFFER_BASE))
    return tuple(max(t, 0) for t in terms), tuple(max(-t, 0) for t in terms)


def is_offer_key(key: int) -> bool:
    if 0 <= key < NUM_OFFERS:
        return True
    if not FREE_OFFER_BASE - OFFER_BASE <= key < FREE_OFFER_END - OFFER_BASE:
        return False
    give, get = offer_terms(key)
    return offer_key(give, get) == key


# Constant chance outcomes of the dice.
DICE_OUTCOMES = tuple((DICE_BASE + s - 2, DICE_WAYS[s] / 36) for s in range(2, 13))


def offer_text(index: int) -> str:
    give, get = offer_terms(index)
    return f"give {side_text(give)} get {side_text(get)}"


def side_text(counts: tuple[int, ...]) -> str:
    return " ".join(f"{c} {RESOURCE_NAMES[r]}" for r, c in enumerate(counts) if c)
