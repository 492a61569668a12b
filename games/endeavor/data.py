"""Endeavor's fixed data, in one place (the facts' §2-§7; rules: docs/games/endeavor.md).

Every table here is plain Python so the engine imports it with no I/O. The tests in
``tests/games/endeavor/test_data.py`` check each count against the facts file.

Index conventions (used everywhere in the engine):

* Regions ``0..6``: Europe, Africa, South America, Caribbean, North America, India,
  Far East (the facts file's order; city indices then equal [SN-PY]'s ``locations``).
* Cities ``0..28``: EU0-EU9, AF0-AF1, SA0-SA2, CA0-CA2, NA0-NA2, IN0-IN2, FE0-FE4.
* Track spaces ``0..39``: each region's spaces in fill order, the first one being the
  farthest from the deck (filled first) and the last the one beside the deck.
* Token spaces ``0..94``: cities 0-28, then track spaces (29-68), then connections (69-94).
* Decks ``0..7``: 0 Mediterranean, 1-6 the outer regions' decks (deck d belongs to region d),
  7 Slavery (belongs to Europe). Card id = deck * 6 + position, position 0 on top.
* Building types ``0..15``: 0 is the Colonial House printed on every player board.
"""

from __future__ import annotations

from typing import Final

# ---------------------------------------------------------------- status tracks
INDUSTRY: Final = 0
CULTURE: Final = 1
FINANCE: Final = 2
POLITICS: Final = 3
TRACK_NAMES: Final = ("industry", "culture", "finance", "politics")
TRACK_MAX: Final = 15  # the board ends at 15; raw sums above it are kept (D2)

# Level 1-5 by track position 0..15 (0-1: 1, 2-3: 2, 4-6: 3, 7-9: 4, 10+: 5).
TRACK_LEVEL: Final = (1, 1, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 5, 5, 5)
# Positions carrying a printed glory icon.
TRACK_ICON_POSITIONS: Final = (0, 2, 4, 7, 10, 11, 12, 13, 14, 15)
# Track glory by position: a marker on an icon-less space is pushed forward to the next
# icon (the project default, §13a D1) or rounded down to the last icon reached (option).
GLORY_PUSH_FORWARD: Final = (0, 2, 2, 4, 4, 7, 7, 7, 10, 10, 10, 11, 12, 13, 14, 15)
GLORY_ROUND_DOWN: Final = (0, 0, 2, 2, 4, 4, 4, 7, 7, 7, 10, 11, 12, 13, 14, 15)
# What a level gives: Industry = building level, Culture = growth (level + 1),
# Finance = salary payments, Politics = regular card slots.
# Card slots 1-5 need Politics 0 / 2 / 4 / 7 / 10; below 10 slot 5 takes a Slavery card only.
SLOT_POLITICS: Final = (0, 2, 4, 7, 10)
MAX_CARDS: Final = 6  # five regular slots and the Free Governor slot

# ---------------------------------------------------------------- regions and cities
EUROPE: Final = 0
AFRICA: Final = 1
SOUTH_AMERICA: Final = 2
CARIBBEAN: Final = 3
NORTH_AMERICA: Final = 4
INDIA: Final = 5
FAR_EAST: Final = 6
NUM_REGIONS: Final = 7
REGION_SLUGS: Final = (
    "europe",
    "africa",
    "south-america",
    "caribbean",
    "north-america",
    "india",
    "far-east",
)
REGION_CODES: Final = ("EU", "AF", "SA", "CA", "NA", "IN", "FE")  # the facts file's city prefixes

# Glory icons of each region's cities, in city-id order.
_CITY_GLORY_BY_REGION: Final = (
    (1, 1, 1, 1, 1, 1, 1, 1, 1, 1),  # Europe & Mediterranean: 10 cities
    (1, 1),  # Africa
    (2, 1, 1),  # South America: SA0 is worth 2
    (1, 1, 1),  # Caribbean
    (1, 1, 1),  # North America
    (1, 1, 1),  # India
    (1, 1, 1, 1, 2),  # Far East: FE4 is worth 2
)
CITY_REGION: Final = tuple(r for r, cities in enumerate(_CITY_GLORY_BY_REGION) for _ in cities)
CITY_GLORY: Final = tuple(g for cities in _CITY_GLORY_BY_REGION for g in cities)
CITY_INDEX_IN_REGION: Final = tuple(
    i for cities in _CITY_GLORY_BY_REGION for i in range(len(cities))
)
NUM_CITIES: Final = len(CITY_REGION)  # 29
REGION_CITIES: Final = tuple(
    tuple(c for c in range(NUM_CITIES) if CITY_REGION[c] == r) for r in range(NUM_REGIONS)
)
CITY_SLUGS: Final = tuple(
    f"{REGION_SLUGS[CITY_REGION[c]]}-{CITY_INDEX_IN_REGION[c]}" for c in range(NUM_CITIES)
)
CITY_CODES: Final = tuple(
    f"{REGION_CODES[CITY_REGION[c]]}{CITY_INDEX_IN_REGION[c]}" for c in range(NUM_CITIES)
)


def _city(code: str) -> int:
    return CITY_CODES.index(code)


# The 26 connections (each holds one trade token), as in the facts file §2.3.
CONNECTIONS: Final = tuple(
    (_city(a), _city(b))
    for a, b in (
        ("EU0", "EU1"),
        ("EU1", "EU2"),
        ("EU0", "EU3"),
        ("EU3", "EU4"),
        ("AF0", "AF1"),
        ("EU9", "AF0"),
        ("EU1", "AF1"),
        ("SA2", "CA2"),
        ("EU7", "SA2"),
        ("EU8", "SA1"),
        ("CA0", "CA1"),
        ("CA0", "NA0"),
        ("EU8", "CA0"),
        ("EU7", "CA1"),
        ("NA1", "NA2"),
        ("EU9", "NA0"),
        ("EU5", "NA2"),
        ("EU4", "NA1"),
        ("IN0", "IN1"),
        ("EU5", "IN0"),
        ("IN2", "FE0"),
        ("IN2", "FE1"),
        ("EU6", "IN1"),
        ("FE2", "FE3"),
        ("EU6", "FE0"),
        ("EU0", "FE1"),
    )
)
NUM_CONNECTIONS: Final = len(CONNECTIONS)  # 26
# Per city: (connection index, city at the other end).
CITY_LINKS: Final = tuple(
    tuple((k, b if a == c else a) for k, (a, b) in enumerate(CONNECTIONS) if c in (a, b))
    for c in range(NUM_CITIES)
)

# ---------------------------------------------------------------- shipping tracks
TRACK_LENGTH: Final = (0, 6, 6, 6, 7, 7, 8)  # Europe has no track
TRACK_OFFSET: Final = tuple(sum(TRACK_LENGTH[:r]) for r in range(NUM_REGIONS))
NUM_TRACK_SPACES: Final = sum(TRACK_LENGTH)  # 40

# ---------------------------------------------------------------- token spaces
CITY_SPACE_BASE: Final = 0
TRACK_SPACE_BASE: Final = NUM_CITIES  # 29
CONNECTION_SPACE_BASE: Final = TRACK_SPACE_BASE + NUM_TRACK_SPACES  # 69
NUM_SPACES: Final = CONNECTION_SPACE_BASE + NUM_CONNECTIONS  # 95

# ---------------------------------------------------------------- trade tokens
# Brown tokens 0-3 raise the track of the same index; blue tokens 4-7 are spent as actions.
TOK_INDUSTRY: Final = 0
TOK_CULTURE: Final = 1
TOK_FINANCE: Final = 2
TOK_POLITICS: Final = 3
TOK_SHIP_DRAW: Final = 4
TOK_OCCUPY_DRAW: Final = 5
TOK_ATTACK: Final = 6
TOK_PAYMENT: Final = 7
NUM_TOKEN_TYPES: Final = 8
TOKEN_SLUGS: Final = (
    "industry",
    "culture",
    "finance",
    "politics",
    "ship-draw",
    "occupy-draw",
    "attack",
    "payment",
)
TOKEN_COUNTS: Final = (17, 20, 17, 25, 6, 6, 2, 2)  # 95
NUM_TOKENS: Final = sum(TOKEN_COUNTS)
NO_TOKEN: Final = -1

# ---------------------------------------------------------------- actions (kinds)
SHIP: Final = 1
OCCUPY: Final = 2
ATTACK: Final = 4
DRAW: Final = 8
PAY: Final = 16
ACTION_KIND_NAMES: Final = {
    SHIP: "ship",
    OCCUPY: "occupy",
    ATTACK: "attack",
    DRAW: "draw",
    PAY: "pay",
}
# How a two-part action combines: EITHER = "X / Y" (do exactly one), BOTH = "X + Y" (one or
# both, in either order, in one region; Draw + Draw from one deck).
SINGLE: Final = 0
EITHER: Final = 1
BOTH: Final = 2

# ---------------------------------------------------------------- buildings
# (name, level, copies in the supply, (I, C, F, P) icons, action kinds, combination, glory)
COLONIAL_HOUSE: Final = 0
BUILDINGS: Final = (
    ("Colonial-House", 0, 0, (0, 0, 0, 0), OCCUPY, SINGLE, 0),
    ("Market", 1, 5, (0, 0, 0, 0), DRAW, SINGLE, 0),
    ("Shipyard", 1, 5, (0, 1, 0, 0), SHIP, SINGLE, 0),
    ("Workshop", 1, 5, (2, 0, 0, 0), 0, SINGLE, 0),
    ("Bank", 2, 4, (0, 0, 2, 0), 0, SINGLE, 0),
    ("Barracks", 2, 4, (0, 0, 0, 0), ATTACK, SINGLE, 0),
    ("Guild-Hall", 2, 4, (0, 0, 0, 0), SHIP | DRAW, EITHER, 0),
    ("Docks", 3, 3, (0, 0, 0, 0), OCCUPY | SHIP, BOTH, 0),
    ("Fortress", 3, 3, (0, 0, 0, 1), OCCUPY | ATTACK, EITHER, 0),
    ("Theatre", 3, 3, (0, 2, 0, 0), 0, SINGLE, 0),
    ("Cartographer", 4, 2, (0, 0, 0, 0), SHIP, BOTH, 0),  # Ship + Ship
    ("Trade-Office", 4, 2, (0, 0, 0, 0), DRAW, BOTH, 0),  # Draw + Draw
    ("University", 4, 2, (0, 0, 0, 0), 0, SINGLE, 3),
    ("Exchange", 5, 1, (0, 0, 2, 0), PAY, SINGLE, 0),
    ("Museum", 5, 1, (0, 2, 0, 0), PAY, SINGLE, 0),
    ("Parliament", 5, 1, (0, 0, 0, 2), PAY, SINGLE, 0),
)
NUM_BUILDING_TYPES: Final = len(BUILDINGS)  # 16, the Colonial House included
BUILDING_NAMES: Final = tuple(b[0] for b in BUILDINGS)
BUILDING_SLUGS: Final = tuple(b[0].lower() for b in BUILDINGS)
BUILDING_LEVEL: Final = tuple(b[1] for b in BUILDINGS)
BUILDING_SUPPLY: Final = tuple(b[2] for b in BUILDINGS)
BUILDING_ICONS: Final = tuple(b[3] for b in BUILDINGS)
BUILDING_KINDS: Final = tuple(b[4] for b in BUILDINGS)
BUILDING_COMBO: Final = tuple(b[5] for b in BUILDINGS)
BUILDING_GLORY: Final = tuple(b[6] for b in BUILDINGS)
UNIVERSITY: Final = BUILDING_NAMES.index("University")
BUILDING_SPACES: Final = 8  # one is the printed Colonial House

# ---------------------------------------------------------------- asset cards
MEDITERRANEAN_DECK: Final = 0
SLAVERY_DECK: Final = 7
NUM_DECKS: Final = 8
DECK_SIZE: Final = 6
NUM_CARDS: Final = NUM_DECKS * DECK_SIZE  # 48
DECK_SLUGS: Final = ("mediterranean", *REGION_SLUGS[1:], "slavery")
DECK_REGION: Final = (
    EUROPE,
    AFRICA,
    SOUTH_AMERICA,
    CARIBBEAN,
    NORTH_AMERICA,
    INDIA,
    FAR_EAST,
    EUROPE,
)
GOVERNOR_POSITION: Final = 0  # outer decks: the Governor lies on top of cards 1-5

# (I, C, F, P, G) per card, deck by deck, top to bottom.
_CARD_ICONS_BY_DECK: Final = (
    # Mediterranean 0-5; the 5 is the Abolition of Slavery.
    ((0, 1, 1, 0, 0), (0, 2, 0, 1, 0), (0, 0, 0, 3, 0), (1, 1, 1, 1, 0), (0, 0, 0, 0, 5),
     (0, 3, 0, 0, 3)),
    # Africa: Governor, 1-5
    ((0, 0, 2, 1, 1), (1, 0, 0, 1, 0), (1, 0, 1, 1, 0), (0, 0, 2, 2, 0), (2, 0, 1, 1, 1),
     (2, 0, 2, 0, 2)),
    # South America
    ((0, 0, 0, 3, 1), (0, 2, 0, 0, 0), (0, 3, 0, 0, 0), (0, 4, 0, 0, 0), (0, 0, 3, 0, 2),
     (0, 0, 3, 0, 3)),
    # Caribbean
    ((0, 2, 0, 1, 1), (0, 0, 0, 2, 0), (0, 0, 1, 2, 0), (0, 0, 4, 0, 0), (0, 0, 0, 3, 2),
     (3, 0, 0, 0, 3)),
    # North America
    ((0, 0, 1, 2, 1), (2, 0, 0, 0, 0), (0, 0, 3, 0, 0), (2, 2, 0, 0, 0), (0, 2, 0, 2, 1),
     (0, 0, 0, 0, 6)),
    # India
    ((0, 1, 1, 1, 1), (0, 1, 0, 1, 0), (0, 1, 1, 1, 0), (0, 1, 2, 1, 0), (0, 0, 2, 1, 2),
     (0, 0, 2, 2, 2)),
    # Far East
    ((2, 1, 0, 0, 1), (1, 0, 1, 0, 0), (2, 0, 1, 0, 0), (2, 0, 2, 0, 0), (1, 1, 1, 1, 1),
     (0, 0, 0, 3, 3)),
    # Slavery 0-5
    ((2, 0, 0, 0, 0), (0, 0, 2, 0, 0), (1, 0, 2, 0, 0), (3, 0, 0, 0, 0), (2, 0, 2, 0, 0),
     (3, 0, 2, 0, 0)),
)  # fmt: skip
CARD_ICONS: Final = tuple(card[:4] for deck in _CARD_ICONS_BY_DECK for card in deck)
CARD_GLORY: Final = tuple(card[4] for deck in _CARD_ICONS_BY_DECK for card in deck)
CARD_DECK: Final = tuple(c // DECK_SIZE for c in range(NUM_CARDS))
CARD_POSITION: Final = tuple(c % DECK_SIZE for c in range(NUM_CARDS))
# Presence needed to draw: the number on the card (Governors are never drawn).
CARD_LEVEL: Final = CARD_POSITION
CARD_IS_GOVERNOR: Final = tuple(
    CARD_DECK[c] not in (MEDITERRANEAN_DECK, SLAVERY_DECK) and CARD_POSITION[c] == 0
    for c in range(NUM_CARDS)
)
CARD_IS_SLAVERY: Final = tuple(CARD_DECK[c] == SLAVERY_DECK for c in range(NUM_CARDS))
ABOLITION: Final = MEDITERRANEAN_DECK * DECK_SIZE + 5
GOVERNOR_OF_REGION: Final = tuple(
    -1 if r == EUROPE else r * DECK_SIZE + GOVERNOR_POSITION for r in range(NUM_REGIONS)
)
CARD_SLUGS: Final = tuple(
    f"{DECK_SLUGS[CARD_DECK[c]]}-{'governor' if CARD_IS_GOVERNOR[c] else CARD_POSITION[c]}"
    for c in range(NUM_CARDS)
)

# ---------------------------------------------------------------- players and rounds
MIN_PLAYERS: Final = 3
MAX_PLAYERS: Final = 5
MARKERS: Final = 30  # population markers per player
ROUNDS: Final = 7
