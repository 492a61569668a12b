"""What a seat's status tracks allow: track levels and whether held cards fit the slots.

Plain functions of the state's lists, so the engine, scoring and loading share them
without importing one another.
"""

from __future__ import annotations

from typing import Final

from games.endeavor import data as D

TRACKS_PER_SEAT: Final = 4  # industry, culture, finance, politics (``D.TRACK_NAMES`` order)
# data.py's tables, bound here once (data.py stays interpreted: see the engine's aliases).
_TRACK_LEVEL: Final = D.TRACK_LEVEL
_CARD_IS_GOVERNOR: Final = D.CARD_IS_GOVERNOR
_CARD_IS_SLAVERY: Final = D.CARD_IS_SLAVERY


def level(value: int) -> int:
    """Track level 1-5 of a raw track value (values above 15 count as 15)."""
    return _TRACK_LEVEL[value if value < 15 else 15]


def cards_fit(
    track_values: list[int], card_location: list[int], seat: int, free_slot: bool
) -> bool:
    """Whether ``seat``'s held cards fit its slots, with or without the Free Governor slot."""
    governors = slaves = others = 0
    for card, where in enumerate(card_location):
        if where == seat:
            if _CARD_IS_GOVERNOR[card]:
                governors += 1
            elif _CARD_IS_SLAVERY[card]:
                slaves += 1
            else:
                others += 1
    slots = level(track_values[seat * TRACKS_PER_SEAT + D.POLITICS])
    # Below Politics 10, slot 5 takes a Slavery card only; from 10 it is a regular slot.
    slave_slot = 1 if slots < 5 else 0
    if free_slot and governors:
        governors -= 1
    return governors + others + max(slaves - slave_slot, 0) <= slots
