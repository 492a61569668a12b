"""Endeavor's action-id table and notation words.

Action ids are stable: they appear in game logs and in the API. The id space is a fixed
Cartesian product, so every id in ``0..NUM_ACTIONS-1`` has a notation (some can never be
legal, e.g. ``ship europe with Market``) and ``string_to_action`` inverts ``action_to_string``.

    id range                          notation
    0                                 pass
    1                                 done                   (skip the second half of a "+")
    BUILD_BASE + building             build <Building>
    SALARY_BASE + building            salary <Building>      (its marker returns to the harbor)
    DISCARD_BASE + card               discard <card>
    SECOND_BASE + target              <target>               (second half of a "+" action)
    USE_BASE + source * NT + target   <target> with <source> (a turn's action)

Targets (``t`` below, ``NT`` in all): ``ship <region>``, ``occupy <city>``,
``attack <city>``, ``draw <deck>``, ``pay <Building>``. Sources: the 16 building types
(the Colonial House included) and the four blue tokens.
"""

from __future__ import annotations

from games.endeavor import data as D

PASS = 0
DONE = 1
BUILD_BASE = 2
SALARY_BASE = BUILD_BASE + D.NUM_BUILDING_TYPES
DISCARD_BASE = SALARY_BASE + D.NUM_BUILDING_TYPES
SECOND_BASE = DISCARD_BASE + D.NUM_CARDS

# Targets of a sub-action.
T_SHIP = 0  # + region (Europe's id exists but is never legal)
T_OCCUPY = T_SHIP + D.NUM_REGIONS  # + city
T_ATTACK = T_OCCUPY + D.NUM_CITIES  # + city
T_DRAW = T_ATTACK + D.NUM_CITIES  # + deck
T_PAY = T_DRAW + D.NUM_DECKS  # + building type
NT = T_PAY + D.NUM_BUILDING_TYPES  # 89

USE_BASE = SECOND_BASE + NT

# Sources of a turn's action: building types 0-15, then the blue tokens.
TOKEN_SOURCE_BASE = D.NUM_BUILDING_TYPES  # source = 16 + (token type - 4)
NUM_SOURCES = TOKEN_SOURCE_BASE + 4
NUM_ACTIONS = USE_BASE + NUM_SOURCES * NT

TOKEN_SOURCE_SLUGS = ("ship-draw-token", "occupy-draw-token", "attack-token", "payment-token")
SOURCE_NAMES = (*D.BUILDING_NAMES, *TOKEN_SOURCE_SLUGS)
SOURCE_SLUGS = tuple(name.lower() for name in SOURCE_NAMES)
# Kinds of action each source allows, and how its two parts combine.
SOURCE_KINDS = (
    *D.BUILDING_KINDS,
    D.SHIP | D.DRAW,  # Ship / Draw token
    D.OCCUPY | D.DRAW,  # Occupy / Draw token
    D.ATTACK,
    D.PAY,
)
SOURCE_COMBO = (*D.BUILDING_COMBO, D.EITHER, D.EITHER, D.SINGLE, D.SINGLE)

# Phases.
BUILD, SALARY, ACTION, SECOND, DISCARD, OVER = range(6)
PHASE_NAMES = ("build", "salary", "action", "second-half", "discard", "over")

# What the second half of a "+" action may be.
PEND_NONE, PEND_SHIP, PEND_OCCUPY, PEND_DRAW = range(4)
PEND_NAMES = ("none", "ship", "occupy", "draw")

# Where a card is (``card_loc`` values besides a holding seat 0..4).
LOC_DECK = -1
LOC_REMOVED = -2  # Governors discarded, the Slavery deck after Abolition
LOC_FACE_DOWN = 10  # + seat: a Slavery card face down beside its owner (-1 glory)


def target_kind(t: int) -> int:
    if t < T_OCCUPY:
        return D.SHIP
    if t < T_ATTACK:
        return D.OCCUPY
    if t < T_DRAW:
        return D.ATTACK
    if t < T_PAY:
        return D.DRAW
    return D.PAY


def target_to_string(t: int) -> str:
    if t < T_OCCUPY:
        return f"ship {D.REGION_SLUGS[t - T_SHIP]}"
    if t < T_ATTACK:
        return f"occupy {D.CITY_SLUGS[t - T_OCCUPY]}"
    if t < T_DRAW:
        return f"attack {D.CITY_SLUGS[t - T_ATTACK]}"
    if t < T_PAY:
        return f"draw {D.DECK_SLUGS[t - T_DRAW]}"
    return f"pay {D.BUILDING_NAMES[t - T_PAY]}"


def use(source: int, target: int) -> int:
    return USE_BASE + source * NT + target


def second(target: int) -> int:
    return SECOND_BASE + target


def build(building: int) -> int:
    return BUILD_BASE + building


def salary(building: int) -> int:
    return SALARY_BASE + building


def discard(card: int) -> int:
    return DISCARD_BASE + card


def ship(region: int) -> int:
    return T_SHIP + region


def occupy(city: int) -> int:
    return T_OCCUPY + city


def attack(city: int) -> int:
    return T_ATTACK + city


def draw(deck: int) -> int:
    return T_DRAW + deck


def pay(building: int) -> int:
    return T_PAY + building


def token_source(token_type: int) -> int:
    return TOKEN_SOURCE_BASE + token_type - D.TOK_SHIP_DRAW
