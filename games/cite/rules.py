"""Cité's fixed data and action-id table (see shared/rules/cite.md).

Action ids are stable: they appear in logs and in the API.
"""

from __future__ import annotations

# Gauges, in the order a city's gauge list stores them.
GOLD, WHEAT, HEALTH, CIVILIANS, ARMY = range(5)
GAUGE_NAMES = ("gold", "wheat", "health", "civilians", "army")
GAUGE_MIN, GAUGE_MAX, GAUGE_START = 0, 10, 5

GRANARY_SLOTS = 2
OUTPOST_SLOTS = 4
NO_STRUCTURE = -1  # granary/outpost value when the city has none

# Cards and the deck composition [fixed].
(
    GRANARY,
    GOOD_WAR,
    OUTPOST,
    ALLEGIANCE,
    HOSPITAL,
    FIRE,
    BARBARIANS,
    CIVIL_WAR,
    LAND_OF_WELCOME,
) = range(9)
CARD_NAMES = (
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
DECK = (4, 5, 3, 5, 6, 5, 4, 4, 4)
NUM_CARDS = len(DECK)
DECK_SIZE = sum(DECK)  # 40
NO_CARD = -1

# Die faces: five distinct effects, plague on two of the six faces.
HARVEST, COMMERCE, PLAGUE, HAIL, MEDICINE = range(5)
FACE_NAMES = ("harvest", "commerce", "plague", "hail", "medicine")
FACE_WAYS = (1, 1, 2, 1, 1)
FACE_EFFECT = ((WHEAT, +1), (GOLD, +1), (HEALTH, -1), (WHEAT, -1), (HEALTH, +1))

MAX_PLAYERS = 6

# Action ids.
NO_LEVY = 0
LEVY = 1
STORE_WHEAT = 2
STORE_ARMY = 3
EMPTY_GRANARY = 4
DONE = 5
PLAY = 6
DISCARD = 7
TAKE_GOLD = 8
TAKE_WHEAT = 9
ATTACK_BASE = 10  # + target seat
DEAL_BASE = ATTACK_BASE + MAX_PLAYERS  # + card * MAX_PLAYERS + recipient seat
ROLL_BASE = DEAL_BASE + NUM_CARDS * MAX_PLAYERS  # + face (chance)
DRAW_BASE = ROLL_BASE + len(FACE_NAMES)  # + card (chance)
NUM_ACTIONS = DRAW_BASE + NUM_CARDS

SIMPLE_ACTIONS = {
    NO_LEVY: "no levy",
    LEVY: "levy",
    STORE_WHEAT: "store wheat",
    STORE_ARMY: "store army",
    EMPTY_GRANARY: "empty granary",
    DONE: "done",
    PLAY: "play",
    DISCARD: "discard",
    TAKE_GOLD: "take gold",
    TAKE_WHEAT: "take wheat",
}

# Phases.
ROLL, LEVY_STEP, STORE_STEP, DRAW, DEAL, RESOLVE, WAR_SPOILS, OVER = range(8)
PHASE_NAMES = ("roll", "levy", "store", "draw", "deal", "resolve", "war-spoils", "over")

DEFAULT_ROUND_LIMIT = 60
MAX_ROUND_LIMIT = 1_000_000  # the largest a stored state accepts


def attack(seat: int) -> int:
    return ATTACK_BASE + seat


def deal(card: int, seat: int) -> int:
    return DEAL_BASE + card * MAX_PLAYERS + seat


def roll(face: int) -> int:
    return ROLL_BASE + face


def draw(card: int) -> int:
    return DRAW_BASE + card
