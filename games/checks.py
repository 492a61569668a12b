"""Checking untrusted plain data (``from_dict``/``from_bytes``) field by field.

Every engine rebuilds its state from JSON that may have been tampered with, so each
value is type- and range-checked here before an engine trusts it. A failed check
raises ``CorruptStateError`` naming the field (``what``) and the bad value, cut short.

    >>> checked_int(3, 0, 5, "turn")
    3
    >>> checked_ints([1, 2], 2, 0, 9, "bank")
    [1, 2]
    >>> checked_int(True, 0, 5, "turn")  # a bool is no integer here
    Traceback (most recent call last):
    ...
    games.base.CorruptStateError: turn: expected an integer in 0..5, got True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.base import CorruptStateError, quote_input


def checked_int(value: Any, low: int, high: int, what: str = "value") -> int:
    """``value`` when it is an int (not a bool) in ``low..high``."""
    if type(value) is not int or not low <= value <= high:
        raise CorruptStateError(
            f"{what}: expected an integer in {low}..{high}, got {quote_input(value)}"
        )
    return value


def checked_bool(value: Any, what: str = "value") -> bool:
    """``value`` when it is ``true`` or ``false``."""
    if type(value) is not bool:
        raise CorruptStateError(f"{what}: expected true/false, got {quote_input(value)}")
    return value


def checked_list(value: Any, length: int | None = None, what: str = "value") -> list[Any]:
    """``value`` when it is a list (of exactly ``length`` items, when given)."""
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise CorruptStateError(
            f"{what}: expected a list of {length or 'some'} items, got {quote_input(value)}"
        )
    return value


def checked_ints(
    value: Any, length: int | None, low: int, high: int, what: str = "value"
) -> list[int]:
    """A list of ints in ``low..high`` (``length`` of them, when given)."""
    return [checked_int(v, low, high, what) for v in checked_list(value, length, what)]


def checked_bools(value: Any, length: int | None, what: str = "value") -> list[bool]:
    """A list of booleans (``length`` of them, when given)."""
    return [checked_bool(v, what) for v in checked_list(value, length, what)]


def checked_choice(value: Any, allowed: tuple[str, ...], what: str = "value") -> str:
    """``value`` when it is one of the strings ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        raise CorruptStateError(f"{what}: expected one of {allowed}, got {quote_input(value)}")
    return value


def require_fields(data: Any, names: tuple[str, ...], game: str) -> Mapping[str, Any]:
    """``data`` when it is a mapping holding every field in ``names``."""
    if not isinstance(data, Mapping):
        raise CorruptStateError(f"{game} state data must be an object")
    missing = [name for name in names if name not in data]
    if missing:
        raise CorruptStateError(f"{game} state lacks {', '.join(missing)}")
    return data
