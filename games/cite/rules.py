"""Cité's fixed data and its action space (the rules: docs/games/cite.md)."""

from __future__ import annotations

from typing import Final

from games.actions import ActionSpace, Family, Names, Number

# Gauges, in the order a city's gauge list stores them.
GOLD: Final = 0
WHEAT: Final = 1
HEALTH: Final = 2
CIVILIANS: Final = 3
ARMY: Final = 4
GAUGE_NAMES: Final = ("gold", "wheat", "health", "civilians", "army")
GAUGE_MIN: Final = 0
GAUGE_MAX: Final = 10
GAUGE_START: Final = 5

GRANARY_SLOTS: Final = 2
OUTPOST_SLOTS: Final = 4
NO_STRUCTURE: Final = -1  # granary/outpost value when the city has none

# Cards and the deck composition [fixed].
GRANARY: Final = 0
GOOD_WAR: Final = 1
OUTPOST: Final = 2
ALLEGIANCE: Final = 3
HOSPITAL: Final = 4
FIRE: Final = 5
BARBARIANS: Final = 6
CIVIL_WAR: Final = 7
LAND_OF_WELCOME: Final = 8
CARD_NAMES: Final = (
    "granary",
    "good-war",
    "outpost",
    "allegiance",
    "hospital",
    "fire",
    "barbarians",
    "civil-war",
    "land-of-welcome",
)
DECK: Final = (4, 5, 3, 5, 6, 5, 4, 4, 4)
NUM_CARDS: Final = len(DECK)
DECK_SIZE: Final = sum(DECK)  # 40
NO_CARD: Final = -1

# Die faces: five distinct effects, plague on two of the six faces.
HARVEST: Final = 0
COMMERCE: Final = 1
PLAGUE: Final = 2
HAIL: Final = 3
MEDICINE: Final = 4
FACE_NAMES: Final = ("harvest", "commerce", "plague", "hail", "medicine")
FACE_WAYS: Final = (1, 1, 2, 1, 1)
FACE_EFFECT: Final = ((WHEAT, +1), (GOLD, +1), (HEALTH, -1), (WHEAT, -1), (HEALTH, +1))

MAX_PLAYERS: Final = 6

# The action space (``games.actions``): ids are stable, they appear in logs and in the API.
SEAT: Final = Number(MAX_PLAYERS)
CARD: Final = Names(CARD_NAMES)
SIMPLE_ACTIONS: Final = {
    0: "no levy",  # step 3, the turn's city
    1: "levy",
    2: "store wheat",  # step 4, one unit into granary / outpost
    3: "store army",
    4: "empty granary",
    5: "done",
    6: "play",  # step 6, the resolving city's card
    7: "discard",
    8: "take gold",  # the war winner's spoils
    9: "take wheat",
}
SPACE: Final = ActionSpace(
    [
        *(Family(text.replace(" ", "-"), text) for text in SIMPLE_ACTIONS.values()),
        Family("attack", "attack {seat}", [("seat", SEAT)]),  # a Good war on a neighbour
        Family("deal", "deal {card} to {seat}", [("card", CARD), ("seat", SEAT)]),  # step 5
        Family("roll", "roll {face}", [("face", Names(FACE_NAMES))]),  # chance: the die
        Family("draw", "draw {card}", [("card", CARD)]),  # chance: a card drawn
    ]
)
NO_LEVY: Final = SPACE.base("no-levy")
LEVY: Final = SPACE.base("levy")
STORE_WHEAT: Final = SPACE.base("store-wheat")
STORE_ARMY: Final = SPACE.base("store-army")
EMPTY_GRANARY: Final = SPACE.base("empty-granary")
DONE: Final = SPACE.base("done")
PLAY: Final = SPACE.base("play")
DISCARD: Final = SPACE.base("discard")
TAKE_GOLD: Final = SPACE.base("take-gold")
TAKE_WHEAT: Final = SPACE.base("take-wheat")
ATTACK_BASE: Final = SPACE.base("attack")  # + target seat
DEAL_BASE: Final = SPACE.base("deal")  # + card * MAX_PLAYERS + recipient seat
ROLL_BASE: Final = SPACE.base("roll")  # + face (chance)
DRAW_BASE: Final = SPACE.base("draw")  # + card (chance)
NUM_ACTIONS: Final = SPACE.end

# Phases.
ROLL: Final = 0
LEVY_STEP: Final = 1
STORE_STEP: Final = 2
DRAW: Final = 3
DEAL: Final = 4
RESOLVE: Final = 5
WAR_SPOILS: Final = 6
OVER: Final = 7
PHASE_NAMES: Final = ("roll", "levy", "store", "draw", "deal", "resolve", "war-spoils", "over")

DEFAULT_ROUND_LIMIT: Final = 60
MAX_ROUND_LIMIT: Final = 1_000_000  # the largest a stored state accepts


# Fast encoders for the hot paths (``SPACE.encode`` gives the same ids; a test checks).
def attack(seat: int) -> int:
    """The id of ``attack <seat>``."""
    return ATTACK_BASE + seat


def deal(card: int, seat: int) -> int:
    """The id of ``deal <card> to <seat>``."""
    return DEAL_BASE + card * MAX_PLAYERS + seat


def roll(face: int) -> int:
    """The id of the die outcome ``roll <face>``."""
    return ROLL_BASE + face


def draw(card: int) -> int:
    """The id of the card outcome ``draw <card>``."""
    return DRAW_BASE + card
