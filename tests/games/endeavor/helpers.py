"""Position builders for the Endeavor rule tests (shared/rules/endeavor-facts.md).

Positions are built on a raw ``EndeavorState`` with the engine's own bookkeeping helpers,
so every marker, token and card stays conserved; ``check`` round-trips a position through
``from_dict``, whose validation enforces those laws. Then the position is driven with
public notation (``act``) exactly as a player would.
"""

from __future__ import annotations

import random

from games.endeavor import data as D
from games.endeavor import rules as R
from games.endeavor.engine import EndeavorState

REGION = {slug: r for r, slug in enumerate(D.REGION_SLUGS)}
CITY = {slug: c for c, slug in enumerate(D.CITY_SLUGS)}
DECK = {slug: d for d, slug in enumerate(D.DECK_SLUGS)}
CARD = {slug: c for c, slug in enumerate(D.CARD_SLUGS)}
BUILDING = {name: t for t, name in enumerate(D.BUILDING_NAMES)}
TOKEN = {slug: k for k, slug in enumerate(D.TOKEN_SLUGS)}
NB = D.NUM_BUILDING_TYPES


def make(players: int = 3, *, round_down: bool = False, seed: int = 0) -> EndeavorState:
    """Round 1's Action phase, seat 0 to act and holding the crown, nobody holding anything.

    The tokens lie as ``new_game`` would place them for ``seed``.
    """
    st = EndeavorState(players, round_down)
    tokens = [k for k, count in enumerate(D.TOKEN_COUNTS) for _ in range(count)]
    random.Random(seed).shuffle(tokens)
    st.space_token = tokens
    st.phase = R.ACTION
    st.to_move = 0
    st.crown = 0
    return st


def check(st: EndeavorState) -> EndeavorState:
    """Assert the position is consistent (validation passes and nothing is lost)."""
    again = EndeavorState.from_dict(st.to_dict())
    assert again == st
    assert again.presence == st.presence and again.track_fill == st.track_fill
    assert again.deck_mask == st.deck_mask
    return st


def harbor(st: EndeavorState, seat: int, count: int) -> None:
    """Set ``seat``'s harbor to ``count`` markers, moving them from / to the supply."""
    delta = count - st.harbor[seat]
    assert st.supply[seat] >= delta
    st.supply[seat] -= delta
    st.harbor[seat] = count


def give_building(st: EndeavorState, seat: int, name: str, used: int = 0) -> None:
    """Build ``name`` for ``seat`` from the supply; ``used`` markers (from supply) on it."""
    t = BUILDING[name]
    if t != D.COLONIAL_HOUSE:
        st._build(seat, t)
    st.supply[seat] -= used
    st.used[seat * NB + t] += used


def set_token(st: EndeavorState, space: int, kind: str) -> None:
    """Put a ``kind`` token on ``space`` by swapping with a space that holds one."""
    k = TOKEN[kind]
    if st.space_token[space] == k:
        return
    other = next(i for i, v in enumerate(st.space_token) if v == k and i != space)
    st.space_token[space], st.space_token[other] = st.space_token[other], st.space_token[space]


def city_space(slug: str) -> int:
    return D.CITY_SPACE_BASE + CITY[slug]


def track_space(region: str, index: int) -> int:
    """Token space of a track's ``index``-th space (0 = farthest from the deck)."""
    return D.TRACK_SPACE_BASE + D.TRACK_OFFSET[REGION[region]] + index


def connection_space(a: str, b: str) -> int:
    ends = {CITY[a], CITY[b]}
    k = next(k for k, pair in enumerate(D.CONNECTIONS) if set(pair) == ends)
    return D.CONNECTION_SPACE_BASE + k


def ship(st: EndeavorState, seat: int, region: str, times: int = 1) -> None:
    """Ship ``times`` markers of ``seat`` from its supply (tokens and Governor as in play)."""
    for _ in range(times):
        st.supply[seat] -= 1
        st.harbor[seat] += 1
        st._ship(seat, REGION[region])


def open_region(st: EndeavorState, region: str, seats: list[int]) -> None:
    """Fill a track with markers of ``seats`` in order (the last gets the Governor on ties)."""
    assert len(seats) == D.TRACK_LENGTH[REGION[region]]
    for seat in seats:
        ship(st, seat, region)


def place(st: EndeavorState, seat: int, city: str) -> None:
    """Occupy ``city`` with a marker from ``seat``'s supply (tokens taken as in play)."""
    st.supply[seat] -= 1
    st._take_city(seat, CITY[city])


def give_token(st: EndeavorState, seat: int, kind: str) -> None:
    """Take a ``kind`` token off the board for ``seat`` (brown ones raise the track)."""
    k = TOKEN[kind]
    space = next(i for i, v in enumerate(st.space_token) if v == k)
    st._gain_token(seat, space)


def give_card(st: EndeavorState, seat: int, slug: str) -> None:
    """Hand ``seat`` a card straight from its deck (icons applied)."""
    card = CARD[slug]
    assert st.card_location[card] == R.LOC_DECK
    st.card_location[card] = seat
    st.deck_mask[D.CARD_DECK[card]] &= ~(1 << D.CARD_POSITION[card])
    st._add_icons(seat, D.CARD_ICONS[card], 1)


def act(st: EndeavorState, text: str) -> None:
    st.apply_action(st.string_to_action(text))


def legal(st: EndeavorState) -> set[str]:
    return {st.action_to_string(a) for a in st.legal_actions()}


def track(st: EndeavorState, seat: int, name: str) -> int:
    return st.track_values[seat * 4 + D.TRACK_NAMES.index(name)]


def markers(st: EndeavorState, seat: int) -> int:
    """All of ``seat``'s markers wherever they are (always 30)."""
    on_board = (
        sum(1 for v in st.city_owner if v == seat)
        + sum(1 for v in st.shipping_track if v == seat)
        + sum(st.beside_track[seat * D.NUM_REGIONS : (seat + 1) * D.NUM_REGIONS])
    )
    on_buildings = sum(st.used[seat * NB : (seat + 1) * NB])
    return st.supply[seat] + st.harbor[seat] + on_buildings + on_board


def pass_all_but(st: EndeavorState, keep: int) -> None:
    """Mark every other seat as passed (as if they had passed earlier this round)."""
    for seat in range(st.n):
        if seat != keep:
            st.passed[seat] = True
    st.passed_count = st.n - 1
