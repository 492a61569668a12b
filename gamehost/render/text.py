"""Small text helpers shared by the game screens."""

from __future__ import annotations

from collections.abc import Iterable

WIDTH = 100


def wrap(head: str, items: Iterable[str], sep: str = "  ", width: int = WIDTH) -> list[str]:
    """``head`` then the items, broken into lines of at most ``width`` characters; the
    continuation lines are indented under the first item."""
    indent = " " * len(head)
    lines: list[str] = []
    line = head
    first = True
    for item in items:
        candidate = line + ("" if first else sep) + item
        if not first and len(candidate) > width:
            lines.append(line)
            line = indent + item
        else:
            line = candidate
        first = False
    lines.append(line)
    return lines
