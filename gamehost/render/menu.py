"""The legal actions as a short menu: one entry per family, trades folded away.

Entries show notation only, never a menu number that could be taken for a board id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gamehost.render.text import wrap

_MIN_GROUP = 3  # fewer alternatives than this are listed one by one


def group(notations: Sequence[str]) -> list[str]:
    """Actions that differ in one word only, merged: ``settle 3|7|12``,
    ``occupy europe-1|europe-2 with Colonial-House``; the rest as they are, in order."""
    words = [n.split() for n in notations]
    patterns: dict[tuple, list[int]] = {}
    for i, w in enumerate(words):
        for pos in range(len(w)):
            patterns.setdefault((len(w), pos, *w[:pos], "", *w[pos + 1 :]), []).append(i)
    placed: dict[int, str] = {}
    first_of: dict[int, int] = {}
    # Largest families first, so each action joins the biggest one it belongs to.
    for key, members in sorted(patterns.items(), key=lambda kv: -len(kv[1])):
        free = [i for i in members if i not in placed]
        if len(free) < _MIN_GROUP or len(free) < len(members):
            continue
        pos = key[1]
        w = words[free[0]]
        merged = "|".join(words[i][pos] for i in free)
        entry = " ".join([*w[:pos], merged, *w[pos + 1 :]])
        for i in free:
            placed[i] = entry
        first_of[free[0]] = 1
    entries = []
    for i, n in enumerate(notations):
        if i not in placed:
            entries.append(n)
        elif i in first_of:
            entries.append(placed[i])
    return entries


def split_folds(
    notations: Sequence[str], folds: Mapping[str, tuple[str, ...]]
) -> tuple[list[str], dict[str, list[str]]]:
    """The notations shown directly, and per fold name the ones listed behind it."""
    shown: list[str] = []
    hidden: dict[str, list[str]] = {}
    for n in notations:
        name = next((f for f, prefixes in folds.items() if n.startswith(prefixes)), None)
        if name is None:
            shown.append(n)
        else:
            hidden.setdefault(name, []).append(n)
    return shown, hidden


def menu(notations: Sequence[str], folds: Mapping[str, tuple[str, ...]]) -> list[str]:
    """Lines listing the moves: grouped families, then one entry per fold."""
    shown, hidden = split_folds(notations, folds)
    entries = group(shown)
    for name, members in hidden.items():
        entries.append(f"{name} … ({len(members)} ways: type `{name}` to list them)")
    return wrap("moves: ", entries, "  ·  ")
