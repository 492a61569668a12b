"""The data tables against the counts and tables of shared/rules/endeavor-facts.md."""

from __future__ import annotations

from collections import Counter

from games.endeavor import data as D
from games.endeavor import rules as R
from tests.games.endeavor.helpers import BUILDING, CARD, CITY


def test_regions_and_cities() -> None:
    assert D.NUM_REGIONS == 7
    assert D.NUM_CITIES == 29
    per_region = Counter(D.REGION_SLUGS[r] for r in D.CITY_REGION)
    assert per_region == {
        "europe": 10,
        "africa": 2,
        "south-america": 3,
        "caribbean": 3,
        "north-america": 3,
        "india": 3,
        "far-east": 5,
    }
    assert sum(D.CITY_GLORY) == 31
    assert [D.CITY_SLUGS[c] for c in range(D.NUM_CITIES) if D.CITY_GLORY[c] == 2] == [
        "south-america-0",
        "far-east-4",
    ]
    assert D.CITY_CODES[12] == "SA0" and D.CITY_CODES[28] == "FE4"  # [SN-PY] indices
    # A region's cities are numbered together, in region order: the engine lists a turn's
    # occupy/attack targets region by region and gets them in city order.
    assert [c for r in range(D.NUM_REGIONS) for c in D.REGION_CITIES[r]] == list(
        range(D.NUM_CITIES)
    )


def test_connections() -> None:
    assert len(D.CONNECTIONS) == 26 == D.NUM_CONNECTIONS
    assert len(set(map(frozenset, D.CONNECTIONS))) == 26
    inside = sum(1 for a, b in D.CONNECTIONS if D.CITY_REGION[a] == D.CITY_REGION[b])
    assert (inside, 26 - inside) == (9, 17)
    degree = Counter(c for pair in D.CONNECTIONS for c in pair)
    assert degree[CITY["south-america-0"]] == 0 and degree[CITY["far-east-4"]] == 0
    assert degree[CITY["europe-2"]] == 1 and degree[CITY["caribbean-2"]] == 1
    # A few links spelled out in the facts file.
    assert (CITY["europe-0"], CITY["far-east-1"]) in D.CONNECTIONS  # C25
    assert (CITY["south-america-2"], CITY["caribbean-2"]) in D.CONNECTIONS  # C07
    assert (CITY["europe-4"], CITY["north-america-1"]) in D.CONNECTIONS  # C17


def test_shipping_tracks() -> None:
    lengths = dict(zip(D.REGION_SLUGS, D.TRACK_LENGTH, strict=True))
    assert lengths == {
        "europe": 0,
        "africa": 6,
        "south-america": 6,
        "caribbean": 6,
        "north-america": 7,
        "india": 7,
        "far-east": 8,
    }
    assert D.NUM_TRACK_SPACES == 40


def test_trade_tokens_fill_every_circle() -> None:
    counts = dict(zip(D.TOKEN_SLUGS, D.TOKEN_COUNTS, strict=True))
    assert counts == {
        "industry": 17,
        "culture": 20,
        "finance": 17,
        "politics": 25,
        "ship-draw": 6,
        "occupy-draw": 6,
        "attack": 2,
        "payment": 2,
    }
    assert D.NUM_TOKENS == 95 == D.NUM_CITIES + D.NUM_TRACK_SPACES + D.NUM_CONNECTIONS
    assert D.NUM_SPACES == 95


def test_asset_cards() -> None:
    assert D.NUM_CARDS == 48 and D.NUM_DECKS == 8 and D.DECK_SIZE == 6
    assert sum(D.CARD_IS_GOVERNOR) == 6
    assert sum(D.CARD_IS_SLAVERY) == 6
    assert all(D.CARD_GLORY[c] == 1 for c in range(48) if D.CARD_IS_GOVERNOR[c])
    # Column totals of the facts file's card table (I, C, F, P, G).
    totals = [sum(D.CARD_ICONS[c][k] for c in range(48)) for k in range(4)]
    totals.append(sum(D.CARD_GLORY))
    assert totals == [33, 28, 46, 37, 42]  # summed from the facts table
    # Spot checks, one per deck.
    expect = {
        "africa-governor": ((0, 0, 2, 1), 1),
        "south-america-3": ((0, 4, 0, 0), 0),
        "caribbean-5": ((3, 0, 0, 0), 3),
        "north-america-5": ((0, 0, 0, 0), 6),
        "india-4": ((0, 0, 2, 1), 2),
        "far-east-4": ((1, 1, 1, 1), 1),
        "mediterranean-4": ((0, 0, 0, 0), 5),
        "mediterranean-5": ((0, 3, 0, 0), 3),
        "slavery-5": ((3, 0, 2, 0), 0),
    }
    for slug, (icons, glory) in expect.items():
        assert (D.CARD_ICONS[CARD[slug]], D.CARD_GLORY[CARD[slug]]) == (icons, glory), slug
    assert CARD["mediterranean-5"] == D.ABOLITION
    assert D.DECK_REGION[D.SLAVERY_DECK] == D.EUROPE  # the Slavery deck belongs to Europe


def test_buildings() -> None:
    assert D.NUM_BUILDING_TYPES - 1 == 15
    assert sum(D.BUILDING_SUPPLY) == 45
    by_level = Counter()
    for t in range(1, D.NUM_BUILDING_TYPES):
        by_level[D.BUILDING_LEVEL[t]] += 1
        assert D.BUILDING_SUPPLY[t] == 6 - D.BUILDING_LEVEL[t]  # 5/4/3/2/1 copies
    assert by_level == {1: 3, 2: 3, 3: 3, 4: 3, 5: 3}
    icons = {
        D.BUILDING_NAMES[t]: D.BUILDING_ICONS[t] for t in range(16) if any(D.BUILDING_ICONS[t])
    }
    assert icons == {
        "Shipyard": (0, 1, 0, 0),
        "Workshop": (2, 0, 0, 0),
        "Bank": (0, 0, 2, 0),
        "Fortress": (0, 0, 0, 1),
        "Theatre": (0, 2, 0, 0),
        "Exchange": (0, 0, 2, 0),
        "Museum": (0, 2, 0, 0),
        "Parliament": (0, 0, 0, 2),
    }
    actions = {D.BUILDING_NAMES[t]: (D.BUILDING_KINDS[t], D.BUILDING_COMBO[t]) for t in range(16)}
    assert actions == {
        "Colonial-House": (D.OCCUPY, D.SINGLE),
        "Market": (D.DRAW, D.SINGLE),
        "Shipyard": (D.SHIP, D.SINGLE),
        "Workshop": (0, D.SINGLE),
        "Bank": (0, D.SINGLE),
        "Barracks": (D.ATTACK, D.SINGLE),
        "Guild-Hall": (D.SHIP | D.DRAW, D.EITHER),
        "Docks": (D.OCCUPY | D.SHIP, D.BOTH),
        "Fortress": (D.OCCUPY | D.ATTACK, D.EITHER),
        "Theatre": (0, D.SINGLE),
        "Cartographer": (D.SHIP, D.BOTH),
        "Trade-Office": (D.DRAW, D.BOTH),
        "University": (0, D.SINGLE),
        "Exchange": (D.PAY, D.SINGLE),
        "Museum": (D.PAY, D.SINGLE),
        "Parliament": (D.PAY, D.SINGLE),
    }
    assert [D.BUILDING_NAMES[t] for t in range(16) if D.BUILDING_GLORY[t]] == ["University"]
    assert D.BUILDING_GLORY[BUILDING["University"]] == 3
    assert D.BUILDING_SPACES == 8


def test_track_tables() -> None:
    assert D.TRACK_LEVEL == (1, 1, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 5, 5, 5)
    assert D.GLORY_ROUND_DOWN == (0, 0, 2, 2, 4, 4, 4, 7, 7, 7, 10, 11, 12, 13, 14, 15)
    assert D.GLORY_PUSH_FORWARD == (0, 2, 2, 4, 4, 7, 7, 7, 10, 10, 10, 11, 12, 13, 14, 15)
    # Icons sit where the two glory readings agree.
    agree = tuple(p for p in range(16) if D.GLORY_ROUND_DOWN[p] == D.GLORY_PUSH_FORWARD[p])
    assert agree == D.TRACK_ICON_POSITIONS
    # Slots need Politics 0 / 2 / 4 / 7 / 10: exactly the level thresholds.
    assert tuple(D.TRACK_LEVEL.index(lv) for lv in range(1, 6)) == D.SLOT_POLITICS
    assert D.MAX_CARDS == 6


def test_players_and_rounds() -> None:
    assert (D.MIN_PLAYERS, D.MAX_PLAYERS, D.MARKERS, D.ROUNDS) == (3, 5, 30, 7)


def test_action_id_table_is_dense_and_stable() -> None:
    assert (R.PASS, R.DONE, R.BUILD_BASE) == (0, 1, 2)
    assert R.NT == 89
    assert R.NUM_ACTIONS == R.USE_BASE + 20 * 89
    # Spot values that appear in logs: they must never move.
    assert R.build(BUILDING["Docks"]) == 9
    assert R.use(BUILDING["Colonial-House"], R.occupy(CITY["europe-0"])) == R.USE_BASE + 7
