"""Fast ``clone()`` from a declared list of fields, shared by every engine.

A state class lists its fields by how a copy treats them:

- ``shared``: immutable values (ints, bools, strings, tuples), copied by reference;
- ``lists``: flat lists of immutable values, copied with ``[:]``;
- ``nested``: lists of flat lists, each inner list copied.

``make_clone`` (or the class decorator ``cloned``, from a ``Fields`` declaration) writes the clone method from that declaration once, at import, as one
straight-line function (one assignment per field, the way a hand-written clone reads),
so bots that clone millions of times pay no loop or ``getattr`` per field:

    >>> class Point:
    ...     __slots__ = ("x", "path")
    >>> Point.clone = make_clone(Point, shared=("x",), lists=("path",))
    >>> p = Point(); p.x = 1; p.path = [1, 2]
    >>> q = p.clone(); q.path.append(3)
    >>> (q.x, p.path, q.path)
    (1, [1, 2], [1, 2, 3])
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Fields:
    """A state class's fields by how a copy treats them: the one declaration both its
    ``__slots__`` (``names``) and its ``clone`` (``cloned``) are made from."""

    shared: tuple[str, ...] = ()
    lists: tuple[str, ...] = ()
    nested: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (*self.shared, *self.lists, *self.nested)


def make_clone(
    cls: type,
    shared: Sequence[str] = (),
    lists: Sequence[str] = (),
    nested: Sequence[str] = (),
) -> Callable[[Any], Any]:
    """A ``clone(self)`` method for ``cls`` copying each field as declared."""
    names = [*shared, *lists, *nested]
    if not all(name.isidentifier() for name in names):
        raise ValueError(f"{cls.__name__}: field names must be identifiers")
    if len(set(names)) != len(names):
        raise ValueError(f"{cls.__name__}: a field is declared twice")
    slots = set(getattr(cls, "__slots__", ()))
    missing = slots - set(names)
    if slots and missing:
        raise ValueError(f"{cls.__name__}: clone does not copy {sorted(missing)}")
    lines = ["def clone(self):", "    new = _new(_cls)"]
    lines += [f"    new.{name} = self.{name}" for name in shared]
    lines += [f"    new.{name} = self.{name}[:]" for name in lists]
    lines += [f"    new.{name} = [inner[:] for inner in self.{name}]" for name in nested]
    lines.append("    return new")
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    # Generated from field names only (identifiers of the class), never from data.
    exec(compile("\n".join(lines), f"<clone of {cls.__name__}>", "exec"), namespace)  # noqa: S102
    clone = namespace["clone"]
    clone.__doc__ = f"A copy of this {cls.__name__}: lists copied, immutable fields shared."
    clone.__qualname__ = f"{cls.__name__}.clone"
    return clone


def cloned(fields: Fields) -> Callable[[type], type]:
    """Class decorator: give the class ``make_clone``'s method for ``fields`` (it fills
    ``State.clone``); the class declares ``__slots__ = fields.names``."""

    def decorate(cls: type) -> type:
        cls.clone = make_clone(cls, fields.shared, fields.lists, fields.nested)  # type: ignore[attr-defined]
        abc.update_abstractmethods(cls)
        return cls

    return decorate
