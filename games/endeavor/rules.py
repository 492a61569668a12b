"""Endeavor's action space and the words of its notation (``games.actions``).

Ids are stable: they appear in game logs and in the API, so the families keep their
order. The space is a fixed Cartesian product, so every id in ``0..NUM_ACTIONS-1`` has a
notation (some can never be legal, e.g. ``ship europe with Market``) and
``string_to_action`` inverts ``action_to_string``:

    family    id range                          notation
    pass      0                                 pass
    done      1                                 done      (skip the second half of a "+")
    build     BUILD_BASE + building             build <Building>
    salary    SALARY_BASE + building            salary <Building>  (its marker comes back)
    discard   DISCARD_BASE + card               discard <card>
    second    SECOND_BASE + target              <target>  (second half of a "+" action)
    use       USE_BASE + source * NT + target   <target> with <source>  (a turn's action)

Targets (``TARGETS``, ``NT`` in all): ``ship <region>``, ``occupy <city>``,
``attack <city>``, ``draw <deck>``, ``pay <Building>``. Sources: the 16 building types
(the Colonial House included) and the four blue tokens. Names may be written with
spaces for hyphens; the facts' codes (``CA2``, ``AF``) are read too.

    >>> TARGETS.text(occupy(D.CITY_SLUGS.index("caribbean-2")))
    'occupy caribbean-2'
    >>> SPACE.text(use(D.BUILDING_NAMES.index("Shipyard"), ship(1)))
    'ship africa with Shipyard'
    >>> SPACE.parse("ship AF with shipyard") == use(2, ship(1))
    True
"""

from __future__ import annotations

from typing import Final

from games.actions import ActionSpace, Family, Names
from games.endeavor import data as D

# Sources of a turn's action: building types 0-15, then the blue tokens.
TOKEN_SOURCE_BASE: Final = D.NUM_BUILDING_TYPES  # source = 16 + (token type - 4)
NUM_SOURCES: Final = TOKEN_SOURCE_BASE + 4

TOKEN_SOURCE_SLUGS: Final = (
    "ship-draw-token",
    "occupy-draw-token",
    "attack-token",
    "payment-token",
)
SOURCE_NAMES: Final = (*D.BUILDING_NAMES, *TOKEN_SOURCE_SLUGS)
# Kinds of action each source allows, and how its two parts combine.
SOURCE_KINDS: Final = (
    *D.BUILDING_KINDS,
    D.SHIP | D.DRAW,  # Ship / Draw token
    D.OCCUPY | D.DRAW,  # Occupy / Draw token
    D.ATTACK,
    D.PAY,
)
SOURCE_COMBO: Final = (*D.BUILDING_COMBO, D.EITHER, D.EITHER, D.SINGLE, D.SINGLE)

# Argument words.
BUILDING: Final = Names(D.BUILDING_NAMES, joiner="-")
REGION: Final = Names(
    D.REGION_SLUGS, {c.lower(): r for r, c in enumerate(D.REGION_CODES)}, joiner="-"
)
CITY: Final = Names(D.CITY_SLUGS, {c.lower(): k for k, c in enumerate(D.CITY_CODES)}, joiner="-")
DECK: Final = Names(
    D.DECK_SLUGS, {c.lower(): d for d, c in enumerate(D.REGION_CODES) if d}, joiner="-"
)
CARD: Final = Names(D.CARD_SLUGS, joiner="-")
SOURCE: Final = Names(SOURCE_NAMES, joiner="-")

# What a sub-action does, and to what (a target; ``T_*`` are its family bases).
TARGETS: Final = ActionSpace(
    [
        Family("ship", "ship {region}", [("region", REGION)]),  # Europe's id is never legal
        Family("occupy", "occupy {city}", [("city", CITY)]),
        Family("attack", "attack {city}", [("city", CITY)]),
        Family("draw", "draw {deck}", [("deck", DECK)]),
        Family("pay", "pay {building}", [("building", BUILDING)]),
    ]
)
T_SHIP: Final = TARGETS.base("ship")  # + region
T_OCCUPY: Final = TARGETS.base("occupy")  # + city
T_ATTACK: Final = TARGETS.base("attack")  # + city
T_DRAW: Final = TARGETS.base("draw")  # + deck
T_PAY: Final = TARGETS.base("pay")  # + building type
NT: Final = TARGETS.size  # 89

SPACE: Final = ActionSpace(
    [
        Family("pass", "pass"),  # end your Action phase
        Family("done", "done"),  # skip the second half of a "+" action
        Family("build", "build {building}", [("building", BUILDING)]),
        Family("salary", "salary {building}", [("building", BUILDING)]),
        Family("discard", "discard {card}", [("card", CARD)]),
        Family("second", "{target}", [("target", TARGETS)]),
        Family("use", "{target} with {source}", [("source", SOURCE), ("target", TARGETS)]),
    ]
)
PASS: Final = SPACE.base("pass")
DONE: Final = SPACE.base("done")
BUILD_BASE: Final = SPACE.base("build")
SALARY_BASE: Final = SPACE.base("salary")
DISCARD_BASE: Final = SPACE.base("discard")
SECOND_BASE: Final = SPACE.base("second")
USE_BASE: Final = SPACE.base("use")
NUM_ACTIONS: Final = SPACE.end

# Phases.
BUILD: Final = 0
SALARY: Final = 1
ACTION: Final = 2
SECOND: Final = 3
DISCARD: Final = 4
OVER: Final = 5
PHASE_NAMES: Final = ("build", "salary", "action", "second-half", "discard", "over")

# What the second half of a "+" action may be.
PENDING_NONE: Final = 0
PENDING_SHIP: Final = 1
PENDING_OCCUPY: Final = 2
PENDING_DRAW: Final = 3
PENDING_NAMES: Final = ("none", "ship", "occupy", "draw")

# Where a card is (``card_loc`` values besides a holding seat 0..4).
LOC_DECK: Final = -1
LOC_REMOVED: Final = -2  # Governors discarded, the Slavery deck after Abolition
LOC_FACE_DOWN: Final = 10  # + seat: a Slavery card face down beside its owner (-1 glory)


def target_kind(t: int) -> int:
    """The kind of sub-action (``D.SHIP`` ...) a target is."""
    if t < T_OCCUPY:
        return D.SHIP
    if t < T_ATTACK:
        return D.OCCUPY
    if t < T_DRAW:
        return D.ATTACK
    if t < T_PAY:
        return D.DRAW
    return D.PAY


# Fast encoders for the hot paths (``SPACE.encode`` gives the same ids; a test checks).
def use(source: int, target: int) -> int:
    """The id of ``<target> with <source>`` (a turn's action)."""
    return USE_BASE + source * NT + target


def second(target: int) -> int:
    """The id of the bare ``<target>`` (second half of a "+" action)."""
    return SECOND_BASE + target


def build(building: int) -> int:
    """The id of ``build <Building>``."""
    return BUILD_BASE + building


def salary(building: int) -> int:
    """The id of ``salary <Building>``."""
    return SALARY_BASE + building


def discard(card: int) -> int:
    """The id of ``discard <card>``."""
    return DISCARD_BASE + card


def ship(region: int) -> int:
    """The target ``ship <region>``."""
    return T_SHIP + region


def occupy(city: int) -> int:
    """The target ``occupy <city>``."""
    return T_OCCUPY + city


def attack(city: int) -> int:
    """The target ``attack <city>``."""
    return T_ATTACK + city


def draw(deck: int) -> int:
    """The target ``draw <deck>``."""
    return T_DRAW + deck


def pay(building: int) -> int:
    """The target ``pay <Building>``."""
    return T_PAY + building


def token_source(token_type: int) -> int:
    """The source number of a blue token type (4-7)."""
    return TOKEN_SOURCE_BASE + token_type - D.TOK_SHIP_DRAW
