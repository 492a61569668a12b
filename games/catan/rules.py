"""Catan's fixed data and its action space (the rules as implemented: docs/games/catan.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import Any, Final

from games.actions import ActionSpace, Family, Names, Number, OptionalArg, custom

# Resources; terrain ids equal the resource they produce, the desert is 5.
BRICK: Final = 0
LUMBER: Final = 1
WOOL: Final = 2
GRAIN: Final = 3
ORE: Final = 4
RESOURCE_NAMES: Final = ("brick", "lumber", "wool", "grain", "ore")
RESOURCE_ALIASES: Final = {"wood": LUMBER, "sheep": WOOL, "wheat": GRAIN}
HILLS: Final = 0
FOREST: Final = 1
PASTURE: Final = 2
FIELDS: Final = 3
MOUNTAINS: Final = 4
DESERT: Final = 5
TERRAIN_NAMES: Final = ("hills", "forest", "pasture", "fields", "mountains", "desert")
TERRAIN_SHORT: Final = ("hil", "for", "pas", "fld", "mtn", "des")
TERRAIN_LEGEND: Final = tuple(
    (s, f"{t} ({RESOURCE_NAMES[i]})" if i < 5 else t)
    for i, (s, t) in enumerate(zip(TERRAIN_SHORT, TERRAIN_NAMES, strict=True))
)
TERRAIN_COUNTS: Final = (3, 4, 4, 4, 3, 1)  # §3
RESOURCE_COUNT: Final = 19  # of each resource (§1)

# Number tokens in letter order A..R, laid along the spiral (§4).
TOKEN_LETTER_ORDER: Final[tuple[int, ...]] = (
    5,
    2,
    6,
    3,
    8,
    10,
    9,
    12,
    11,
    4,
    8,
    10,
    9,
    4,
    5,
    6,
    3,
    11,
)
DICE_WAYS: Final[tuple[int, ...]] = (0, 0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1)  # by sum 0..12

# Harbors: 0..4 = 2:1 for that resource, 5 = generic 3:1 (§5).
GENERIC: Final = 5
HARBOR_NAMES: Final = ("2:1 brick", "2:1 lumber", "2:1 wool", "2:1 grain", "2:1 ore", "3:1")
HARBOR_TYPES: Final[tuple[int, ...]] = (
    BRICK,
    LUMBER,
    WOOL,
    GRAIN,
    ORE,
    GENERIC,
    GENERIC,
    GENERIC,
    GENERIC,
)

# Development cards (§14).
KNIGHT: Final = 0
ROAD_BUILDING: Final = 1
YEAR_OF_PLENTY: Final = 2
MONOPOLY: Final = 3
VICTORY_POINT: Final = 4
DEV_NAMES: Final = ("knight", "road-building", "year-of-plenty", "monopoly", "victory-point")
DEV_DECK: Final = (14, 2, 2, 2, 5)
DEV_TOTAL: Final = 25

# Costs (brick, lumber, wool, grain, ore) (§7).
ROAD_COST: Final = (1, 1, 0, 0, 0)
SETTLEMENT_COST: Final = (1, 1, 1, 1, 0)
CITY_COST: Final = (0, 0, 0, 2, 3)
DEV_COST: Final = (0, 0, 1, 1, 1)
# Supply per player.
ROADS: Final = 15
SETTLEMENTS: Final = 5
CITIES: Final = 4

WIN_VP: Final = 10
DISCARD_LIMIT: Final = 7
LONGEST_ROAD_MIN: Final = 5
LARGEST_ARMY_MIN: Final = 3
MAX_OFFERS_PER_TURN: Final = 3  # §19a.4
MAX_PLAYERS: Final = 4
DEFAULT_TURN_LIMIT: Final = 1000  # §19a.5
NO_ONE: Final = -1

# Phases.
SETUP_SETTLE: Final = 0
SETUP_ROAD: Final = 1
PRE_ROLL: Final = 2
ROLL_DICE: Final = 3
DISCARD: Final = 4
ROBBER: Final = 5
STEAL: Final = 6
MAIN: Final = 7
FREE_ROADS: Final = 8
DRAW_DEV: Final = 9
TRADE_ANSWER: Final = 10
TRADE_CONFIRM: Final = 11
OVER: Final = 12
PHASE_NAMES: Final = (
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
MAX_OFFER_SIDE: Final = 2


def _sides() -> list[tuple[int, ...]]:
    sides = []
    for size in range(1, MAX_OFFER_SIDE + 1):
        for combo in combinations_with_replacement(range(5), size):
            counts = [0] * 5
            for r in combo:
                counts[r] += 1
            sides.append(tuple(counts))
    return sides


_SIDES: Final = _sides()
OFFERS: Final[tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]] = tuple(
    (give, get)
    for give in _SIDES
    for get in _SIDES
    if not any(g and w for g, w in zip(give, get, strict=True))
)
NUM_OFFERS: Final = len(OFFERS)
OFFER_INDEX: Final = {offer: i for i, offer in enumerate(OFFERS)}

# --------------------------------------------------------------------- the action space
# Ids are stable (logs and the API replay by id): families keep this order. The
# notation of each is in docs/games/catan.md; ``games.actions`` explains the layout.
YOP_PAIRS: Final = tuple((a, b) for a in range(5) for b in range(a, 5))
YOP_CHOICES: Final = (*YOP_PAIRS, *((a,) for a in range(5)))  # 15 pairs (a <= b), then 5 singles
RESOURCE: Final = Names(RESOURCE_NAMES, aliases=RESOURCE_ALIASES)
SEAT: Final = Number(MAX_PLAYERS)


@dataclass(frozen=True)
class _YearOfPlenty:
    """The cards of a year of plenty: one of ``YOP_CHOICES``, read in any order."""

    size: int = len(YOP_CHOICES)

    def show(self, value: int) -> str:
        return " ".join(RESOURCE_NAMES[r] for r in YOP_CHOICES[value])

    def read(self, words: Sequence[str]) -> int:
        if len(words) not in (1, 2):
            raise ValueError("year of plenty takes one or two cards")
        return YOP_CHOICES.index(tuple(sorted(RESOURCE.read([w]) for w in words)))


def _bank_text(values: tuple[int, ...], state: Any) -> str:
    give, get = values
    if give == get:
        raise ValueError("unused maritime slot")
    rate = state.rates[5 * state.turn + give]
    return f"bank {rate} {RESOURCE_NAMES[give]} for {RESOURCE_NAMES[get]}"


def _bank_read(words: Sequence[str], state: Any, limits: Mapping[str, int]) -> tuple[int, ...]:
    """``bank [<n>] <give> for <get>``; a rate, when given, must be the seat's own."""
    if not words or words[0] != "bank":
        raise ValueError("not a maritime trade")
    rest = list(words[1:])
    rate = None
    if rest and rest[0].isdigit():
        rate = int(rest[0])
        rest = rest[1:]
    if len(rest) != 3 or rest[1] != "for":
        raise ValueError("bank [<n>] <resource> for <resource>")
    give, get = RESOURCE.read(rest[:1]), RESOURCE.read(rest[2:])
    if give == get:
        raise ValueError("a maritime trade must get a different resource")
    if rate is not None and rate != state.rates[5 * state.turn + give]:
        raise ValueError(f"seat {state.turn} does not trade {RESOURCE_NAMES[give]} at {rate}:1")
    return give, get


def _offer_read(words: Sequence[str], whole: bool) -> int:
    """The offer key ``give ... get ...`` names, when it is in the compact table
    (``whole`` False) or beyond it (``whole`` True)."""
    if not words or words[0] != "give" or "get" not in words:
        raise ValueError("not an offer")
    cut = words.index("get")
    key = offer_key(_side(words[1:cut]), _side(words[cut + 1 :]))
    if key is None:
        raise ValueError(
            "an offer gives and asks for at least one card each, with no resource "
            f"on both sides and at most {MAX_OFFER_KIND} of a kind"
        )
    if (key >= NUM_OFFERS) != whole:
        raise ValueError("the other offer family")
    return key


def _side(words: Sequence[str]) -> tuple[int, ...]:
    """``2 wool 1 ore`` (a bare resource counts 1) -> counts."""
    counts = [0] * 5
    i = 0
    if not words:
        raise ValueError("empty side")
    while i < len(words):
        k = 1
        if words[i].isdigit():
            k = int(words[i])
            i += 1
        counts[RESOURCE.read(words[i : i + 1])] += k
        i += 1
    return tuple(counts)


def _whole_offer_text(values: tuple[int, ...], _state: Any) -> str:
    key = FREE_OFFER_BASE - OFFER_BASE + values[0]
    if not is_offer_key(key):
        raise ValueError("no offer")
    return offer_text(key)


def _steal_text(values: tuple[int, ...], state: Any) -> str:
    text = f"steal {RESOURCE_NAMES[values[0]]}"
    if state is not None and state.steal_victim >= 0:
        text += f" from {state.steal_victim}"
    return text


def _steal_read(words: Sequence[str], _state: Any, _limits: Mapping[str, int]) -> tuple[int, ...]:
    """``steal <r>`` or ``steal <r> from <seat>`` (the victim is the state's)."""
    if not words or words[0] != "steal" or len(words) not in (2, 4):
        raise ValueError("not a steal")
    if len(words) == 4 and words[2] != "from":
        raise ValueError(words[2])
    return (RESOURCE.read(words[1:2]),)


_TERM_BASE: Final = 2 * RESOURCE_COUNT + 1  # whole-offer terms: one digit per resource
SPACE: Final = ActionSpace(
    [
        Family("end", "end", also=("end turn",)),
        Family("roll", "roll"),  # only for a player holding development cards
        Family("stop", "stop"),  # end road building after the first free road (§19a.3)
        Family("buy-dev", "buy dev", also=("buy development card",)),
        Family("knight", "play knight"),  # then ``robber ...``
        Family("road-building", "play road-building"),  # then up to 2 ``road <path>``
        Family("year-of-plenty", "play year-of-plenty {cards}", [("cards", _YearOfPlenty())]),
        Family("monopoly", "play monopoly {resource}", [("resource", RESOURCE)]),
        Family("accept", "accept"),  # a seat's answer to the offer, in seat order
        Family("decline", "decline"),
        Family("cancel", "cancel"),  # the offerer closes the offer without a trade
        Family("confirm", "trade with {seat}", [("seat", SEAT)]),
        Family("road", "road {path}", [("path", Number(72))]),
        Family("settle", "settle {node}", [("node", Number(54))], also=("settlement {node}",)),
        Family("city", "city {node}", [("node", Number(54))]),
        # Victim 0 is nobody: ``robber 7``; 1 + seat: ``robber 7 rob 2``.
        Family(
            "robber",
            "robber {hex} {victim}",
            [("hex", Number(19)), ("victim", OptionalArg("rob", SEAT))],
        ),
        Family("discard", "discard {resource}", [("resource", RESOURCE)]),  # one card of a 7
        Family(
            "maritime",
            "bank <rate> {give} for {get}",
            [("give", RESOURCE), ("get", RESOURCE)],  # give == get: unused ids
            notation=custom(_bank_text, _bank_read),
        ),
        Family(
            "offer",  # the compact table, ``OFFERS``
            "give <k> <r> ... get <k> <r> ...",
            [("offer", Number(NUM_OFFERS))],
            notation=custom(
                lambda values, _s: offer_text(values[0]),
                lambda words, _s, _l: (_offer_read(words, whole=False),),
            ),
        ),
        Family("dice", "dice {sum}", [("sum", Number(11, low=2))]),  # chance: the total
        Family("draw", "draw {card}", [("card", Names(DEV_NAMES))]),  # chance: a dev card
        Family(
            "steal",  # chance: the stolen card
            "steal {resource} from <victim>",
            [("resource", RESOURCE)],
            notation=custom(_steal_text, _steal_read),
        ),
        Family("add-give", "add give {resource}", [("resource", RESOURCE)]),  # a draft (§19a.8)
        Family("add-get", "add get {resource}", [("resource", RESOURCE)]),
        Family("make-offer", "make offer"),  # offer the draft
        Family("drop-offer", "drop offer"),  # abandon it (it counts as one of the offers)
        # Whole offers beyond the compact table, in one id (the one-line notation): never
        # listed by legal_actions, accepted by is_legal. Terms as one signed count per
        # resource (+ given, - asked), each in -19..19, written in base 39.
        Family(
            "whole-offer",
            "give <k> <r> ... get <k> <r> ...",
            [("terms", Number(_TERM_BASE**5))],
            notation=custom(
                _whole_offer_text,
                lambda words, _s, _l: (
                    _offer_read(words, whole=True) - (FREE_OFFER_BASE - OFFER_BASE),
                ),
            ),
        ),
    ],
    phrases=(
        ("road building", "road-building"),
        ("year of plenty", "year-of-plenty"),
        ("victory point", "victory-point"),
    ),
)

END_TURN: Final = SPACE.base("end")
ROLL: Final = SPACE.base("roll")
STOP_ROADS: Final = SPACE.base("stop")
BUY_DEV: Final = SPACE.base("buy-dev")
PLAY_KNIGHT: Final = SPACE.base("knight")
PLAY_ROAD_BUILDING: Final = SPACE.base("road-building")
YOP_BASE: Final = SPACE.base("year-of-plenty")  # + index in YOP_CHOICES
MONOPOLY_BASE: Final = SPACE.base("monopoly")  # + resource
ACCEPT: Final = SPACE.base("accept")
DECLINE: Final = SPACE.base("decline")
CANCEL_TRADE: Final = SPACE.base("cancel")
CONFIRM_BASE: Final = SPACE.base("confirm")  # + accepting seat
ROAD_BASE: Final = SPACE.base("road")  # + path
SETTLE_BASE: Final = SPACE.base("settle")  # + intersection
CITY_BASE: Final = SPACE.base("city")  # + intersection
ROBBER_BASE: Final = SPACE.base("robber")  # + hex * 5 + (victim + 1); victim 0 = nobody to rob
DISCARD_BASE: Final = SPACE.base("discard")  # + resource
MARITIME_BASE: Final = SPACE.base("maritime")  # + give * 5 + get (give != get)
OFFER_BASE: Final[int] = SPACE.base("offer")  # + offer index
DICE_BASE: Final = SPACE.base("dice")  # + sum - 2 (chance)
DRAW_BASE: Final = SPACE.base("draw")  # + card type (chance)
STEAL_BASE: Final = SPACE.base("steal")  # + resource (chance)
# Offer drafts (§19a.8): an offer of any terms built one card at a time.
DRAFT_GIVE_BASE: Final = SPACE.base("add-give")  # + resource: add one card to give
DRAFT_GET_BASE: Final = SPACE.base("add-get")  # + resource: add one card to ask for
DRAFT_MAKE: Final = SPACE.base("make-offer")  # make the drafted offer
DRAFT_DROP: Final = SPACE.base("drop-offer")  # abandon the draft
NUM_ACTIONS: Final = SPACE.base("whole-offer")  # the enumerated action space (legal_actions)

# Whole offers beyond the compact table, in one id (the one-line notation): never listed
# by legal_actions, accepted by is_legal. Terms as one signed count per resource
# (+ given, - asked), each in -19..19, written in base 39.
MAX_OFFER_KIND: Final = RESOURCE_COUNT
FREE_OFFER_BASE: Final[int] = NUM_ACTIONS
FREE_OFFER_END: Final = SPACE.end


def terms_code(terms: list[int] | tuple[int, ...]) -> int:
    """Signed terms (+ given, - asked per resource) as one base-39 number."""
    code = 0
    for r in range(4, -1, -1):
        code = code * _TERM_BASE + terms[r] + MAX_OFFER_KIND
    return code


def code_terms(code: int) -> list[int]:
    """The signed terms of a ``terms_code`` number."""
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
    """Whether ``key`` is an offer key in its one canonical form."""
    if 0 <= key < NUM_OFFERS:
        return True
    if not FREE_OFFER_BASE - OFFER_BASE <= key < FREE_OFFER_END - OFFER_BASE:
        return False
    give, get = offer_terms(key)
    return offer_key(give, get) == key


# Constant chance outcomes of the dice.
DICE_OUTCOMES: Final = tuple((DICE_BASE + s - 2, DICE_WAYS[s] / 36) for s in range(2, 13))


def offer_text(index: int) -> str:
    """The notation of an offer key: ``give <k> <r> ... get <k> <r> ...``."""
    give, get = offer_terms(index)
    return f"give {side_text(give)} get {side_text(get)}"


def side_text(counts: tuple[int, ...]) -> str:
    """One side of an offer as text, e.g. ``2 wool 1 ore``."""
    return " ".join(f"{c} {RESOURCE_NAMES[r]}" for r, c in enumerate(counts) if c)
