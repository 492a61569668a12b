"""The declared fields of a state class, by how ``clone()`` copies them (every engine).

A state class lists its fields by how a copy treats them:

- ``shared``: immutable values (ints, bools, strings, tuples), copied by reference;
- ``lists``: flat lists of immutable values, copied with ``[:]``;
- ``nested``: lists of flat lists, each inner list copied.

The class declares ``__slots__ = fields.names`` and writes its ``clone`` out straight,
one assignment per field in this order (no loop, no ``getattr``: the compiled build
turns each line into a plain slot copy). ``missing_from_clone`` is how a test checks
that a clone still copies every declared field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Fields:
    """A state class's fields by how a copy treats them: the one declaration its
    ``__slots__`` (``names``) and its ``clone`` follow."""

    shared: tuple[str, ...] = ()
    lists: tuple[str, ...] = ()
    nested: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (*self.shared, *self.lists, *self.nested)

    def missing_from_clone(self, original: Any, copy: Any) -> list[str]:
        """Fields ``copy`` (a clone of ``original``) lacks, or shares where it should
        hold its own list: empty when ``clone`` follows the declaration."""
        missing = []
        for name in self.names:
            ours, theirs = getattr(copy, name, None), getattr(original, name)
            own_lists = name not in self.lists or ours is not theirs
            own_rows = name not in self.nested or not any(
                a is b for a, b in zip(ours or (), theirs, strict=True)
            )
            if ours != theirs or not own_lists or not own_rows:
                missing.append(name)
        return missing
