"""Endeavor's final scoring (facts §9.1): one function per line of the scoring list."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol

from games.endeavor import data as D
from games.endeavor import rules as R
from games.endeavor.holdings import TRACKS_PER_SEAT, cards_fit


class ScoredState(Protocol):
    """What scoring reads of a state (``EndeavorState`` has it; not imported, so the
    engine can import this module)."""

    # Read-only members, so a state's ``list[int]`` fields match ``Sequence[int]``.
    @property
    def n(self) -> int: ...
    @property
    def round_down(self) -> bool: ...
    @property
    def track_values(self) -> Sequence[int]: ...
    @property
    def city_owner(self) -> Sequence[int]: ...
    @property
    def card_location(self) -> Sequence[int]: ...
    @property
    def owned(self) -> Sequence[int]: ...
    @property
    def harbor(self) -> Sequence[int]: ...


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
    table = D.GLORY_ROUND_DOWN if round_down else D.GLORY_PUSH_FORWARD
    return table[min(max(value, 0), D.TRACK_MAX)]


def score_lines(state: ScoredState, s: int) -> dict[str, int]:
    """Seat ``s``'s glory, line by line, as if the game ended now."""
    values = state.track_values
    city = state.city_owner
    loc = state.card_location
    nb = D.NUM_BUILDING_TYPES
    return {
        "tracks": sum(
            track_glory(values[s * TRACKS_PER_SEAT + k], state.round_down)
            for k in range(TRACKS_PER_SEAT)
        ),
        "cities": sum(D.CITY_GLORY[c] for c in range(D.NUM_CITIES) if city[c] == s),
        # A connection scores for whoever holds both ends at the end, token or not.
        "connections": sum(1 for a, b in D.CONNECTIONS if city[a] == s and city[b] == s),
        "cards": sum(D.CARD_GLORY[c] for c in range(D.NUM_CARDS) if loc[c] == s),
        "buildings": sum(state.owned[s * nb + t] * D.BUILDING_GLORY[t] for t in range(nb)),
        # Governors may sit in regular slots (D4): the Free slot scores when it is not needed.
        "free_governor_slot": 3 if cards_fit(values, loc, s, free_slot=False) else 0,
        "harbor": state.harbor[s] // 3,
        "slavery": -sum(1 for c in range(D.NUM_CARDS) if loc[c] == R.LOC_FACE_DOWN + s),
    }


def final_scores(state: ScoredState) -> list[int]:
    """Every seat's total glory."""
    return [sum(score_lines(state, s).values()) for s in range(state.n)]
