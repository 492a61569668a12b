"""Endeavor's final scoring (facts §9.1): one function per line of the scoring list."""

from __future__ import annotations

from typing import Final, Protocol

from games.endeavor import data as D
from games.endeavor import rules as R
from games.endeavor.holdings import TRACKS_PER_SEAT, cards_fit


class ScoredState(Protocol):
    """What scoring reads of a state (``EndeavorState`` has it; not imported, so the
    engine can import this module)."""

    # Read-only members; lists, so the compiled build indexes them as lists.
    @property
    def n(self) -> int: ...
    @property
    def round_down(self) -> bool: ...
    @property
    def track_values(self) -> list[int]: ...
    @property
    def city_owner(self) -> list[int]: ...
    @property
    def card_location(self) -> list[int]: ...
    @property
    def owned(self) -> list[int]: ...
    @property
    def harbor(self) -> list[int]: ...


# data.py's tables, bound here once (data.py stays interpreted: see the engine's aliases).
_NB: Final = D.NUM_BUILDING_TYPES
_NUM_CITIES: Final = D.NUM_CITIES
_NUM_CARDS: Final = D.NUM_CARDS
_CITY_GLORY: Final = D.CITY_GLORY
_CARD_GLORY: Final = D.CARD_GLORY
_BUILDING_GLORY: Final = D.BUILDING_GLORY
_CONNECTIONS: Final = D.CONNECTIONS
_GLORY_ROUND_DOWN: Final = D.GLORY_ROUND_DOWN
_GLORY_PUSH_FORWARD: Final = D.GLORY_PUSH_FORWARD

# The scoring list, in the order the breakdown reports it.
LINES: Final = (
    "tracks",
    "cities",
    "connections",
    "cards",
    "buildings",
    "free_governor_slot",
    "harbor",
    "slavery",
)


def track_glory(value: int, round_down: bool) -> int:
    """Glory of one status track; values above 15 score as 15 (D2)."""
    table = _GLORY_ROUND_DOWN if round_down else _GLORY_PUSH_FORWARD
    return table[min(max(value, 0), D.TRACK_MAX)]


def score_lines(state: ScoredState, s: int) -> dict[str, int]:
    """Seat ``s``'s glory, line by line, as if the game ended now."""
    values = state.track_values
    city = state.city_owner
    loc = state.card_location
    owned = state.owned
    round_down = state.round_down
    tracks = 0
    for k in range(TRACKS_PER_SEAT):
        tracks += track_glory(values[s * TRACKS_PER_SEAT + k], round_down)
    cities = 0
    for c in range(_NUM_CITIES):
        if city[c] == s:
            cities += _CITY_GLORY[c]
    # A connection scores for whoever holds both ends at the end, token or not.
    connections = 0
    for a, b in _CONNECTIONS:
        if city[a] == s and city[b] == s:
            connections += 1
    cards = face_down = 0
    down = R.LOC_FACE_DOWN + s
    for c in range(_NUM_CARDS):
        where = loc[c]
        if where == s:
            cards += _CARD_GLORY[c]
        elif where == down:
            face_down += 1
    buildings = 0
    for t in range(_NB):
        buildings += owned[s * _NB + t] * _BUILDING_GLORY[t]
    return {
        "tracks": tracks,
        "cities": cities,
        "connections": connections,
        "cards": cards,
        "buildings": buildings,
        # Governors may sit in regular slots (D4): the Free slot scores when it is not needed.
        "free_governor_slot": 3 if cards_fit(values, loc, s, free_slot=False) else 0,
        "harbor": state.harbor[s] // 3,
        "slavery": -face_down,
    }


def final_scores(state: ScoredState) -> list[int]:
    """Every seat's total glory."""
    return [sum(score_lines(state, s).values()) for s in range(state.n)]
