"""One action-space codec for every engine: (family, arguments) <-> action id <-> notation.

A game declares its action space once, as an ordered list of ``Family`` entries. Each
family has a name, the ranges of its arguments and a notation template; the space lays
the families out one after another, so a family's ids are ``base .. base + size - 1``
and its arguments are written in mixed radix, the first argument most significant
(as OpenSpiel games lay out their distinct actions). Ids are stable as long as the
declaration keeps its order: stored games replay by id.

    >>> SEAT = Number(6)
    >>> space = ActionSpace([
    ...     Family("pass", "pass"),
    ...     Family("attack", "attack {seat}", [("seat", SEAT)]),
    ...     Family("deal", "deal {card} to {seat}",
    ...            [("card", Names(("fire", "good-war"))), ("seat", SEAT)]),
    ... ])
    >>> space.base("attack"), space.base("deal"), space.size
    (1, 7, 19)
    >>> space.encode("deal", 1, 2)          # 7 + 1 * 6 + 2
    15
    >>> space.decode(15)
    ('deal', (1, 2))
    >>> space.text(15)
    'deal good-war to 2'
    >>> space.parse("  Deal good-war TO 2 ")
    15
    >>> space.parse("attack 4", limits={"seat": 3})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...

Templates: literal words and ``{argument}`` slots. A slot reads the words up to the
next literal word of its template (or to the end), so names with spaces work where an
argument joins its words (``Names(..., joiner="-")`` reads ``guild hall`` as
``guild-hall``). An argument is anything with a ``size``, ``show(value)`` and
``read(words)``: ``Number``, ``Names``, ``OptionalArg`` or a nested ``ActionSpace``;
a game with a notation that a template cannot say (one that depends on the state,
such as Catan's maritime rate) gives the family its own ``Notation``.

Parsing is for user input and not a hot path; engines keep plain arithmetic on the
bases (``space.base(name)``) in ``legal_actions`` and ``apply_unchecked``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


class Arg(Protocol):
    """An argument's range (``0 .. size - 1``) with its notation."""

    @property
    def size(self) -> int:
        """How many values the argument takes (read-only, as frozen dataclasses hold it)."""
        ...

    def show(self, value: int) -> str:
        """The words of ``value``."""
        ...

    def read(self, words: Sequence[str]) -> int:
        """The value ``words`` name; ValueError when they name none."""
        ...


@dataclass(frozen=True)
class Number:
    """An integer argument shown as ``low + value`` (``Number(11, low=2)``: 2..12)."""

    size: int
    low: int = 0

    def show(self, value: int) -> str:
        return str(self.low + value)

    def read(self, words: Sequence[str]) -> int:
        if len(words) != 1:
            raise ValueError(f"expected one number, got {' '.join(words)!r}")
        value = int(words[0]) - self.low
        if not 0 <= value < self.size:
            raise ValueError(f"{words[0]} is out of range")
        return value


@dataclass(frozen=True)
class Names:
    """An argument named by words: ``shown[value]``, read case-insensitively from the
    shown names and ``aliases``; ``joiner`` joins a name's words (None: one word)."""

    shown: tuple[str, ...]
    aliases: Mapping[str, int] = field(default_factory=dict)
    joiner: str | None = None
    size: int = field(init=False)
    _words: Mapping[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        words = {name.lower(): value for value, name in enumerate(self.shown)}
        words.update({word.lower(): value for word, value in self.aliases.items()})
        object.__setattr__(self, "size", len(self.shown))
        object.__setattr__(self, "_words", words)

    def show(self, value: int) -> str:
        return self.shown[value]

    def read(self, words: Sequence[str]) -> int:
        if self.joiner is None and len(words) != 1:
            raise ValueError(f"expected one word, got {' '.join(words)!r}")
        key = (self.joiner or "").join(words).lower()
        if key not in self._words:
            raise ValueError(f"unknown name {key!r}")
        return self._words[key]


@dataclass(frozen=True)
class OptionalArg:
    """An optional tail ``<word> <inner>``: value 0 is absent (shown as nothing),
    ``1 + v`` is the inner value ``v`` (Catan's ``robber 7`` / ``robber 7 rob 2``)."""

    word: str
    inner: Arg
    size: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", 1 + self.inner.size)

    def show(self, value: int) -> str:
        return f"{self.word} {self.inner.show(value - 1)}" if value else ""

    def read(self, words: Sequence[str]) -> int:
        if not words:
            return 0
        if words[0] != self.word:
            raise ValueError(f"expected {self.word!r}, got {words[0]!r}")
        return 1 + self.inner.read(words[1:])


class Notation(Protocol):
    """How one family's ids are written: the argument values <-> text.

    ``context`` is whatever the engine passes (its state), for notations that name
    something the id does not hold; ``limits`` caps arguments by name (see ``parse``).
    """

    def show(self, values: tuple[int, ...], context: Any) -> str:
        """The text of an id with these argument values; ValueError for an unused id."""
        ...

    def read(
        self, words: Sequence[str], context: Any, limits: Mapping[str, int]
    ) -> tuple[int, ...]:
        """The argument values ``words`` name; ValueError when they name none."""
        ...


@dataclass(frozen=True)
class Template:
    """The usual notation: literal words and ``{argument}`` slots (see the module doc).
    ``also`` lists further templates that parse to the same family (aliases)."""

    text: str
    args: Mapping[str, Arg]
    also: tuple[str, ...] = ()

    def show(self, values: tuple[int, ...], context: Any = None) -> str:
        shown = {
            name: arg.show(v) for (name, arg), v in zip(self.args.items(), values, strict=True)
        }
        return " ".join(word for word in self.text.format(**shown).split())

    def read(
        self, words: Sequence[str], context: Any = None, limits: Mapping[str, int] | None = None
    ) -> tuple[int, ...]:
        error: ValueError | None = None
        for text in (self.text, *self.also):
            try:
                return self._read_one(text, words, limits or {})
            except ValueError as exc:
                error = exc
        raise error or ValueError("no template")

    def _read_one(
        self, text: str, words: Sequence[str], limits: Mapping[str, int]
    ) -> tuple[int, ...]:
        tokens = text.split()
        found: dict[str, int] = {}
        pos = 0
        for i, token in enumerate(tokens):
            if not token.startswith("{"):
                if pos >= len(words) or words[pos] != token:
                    raise ValueError(f"expected {token!r}")
                pos += 1
                continue
            name = token[1:-1]
            after = tokens[i + 1] if i + 1 < len(tokens) else None
            if after is None:
                end = len(words)
            elif after.startswith("{"):
                end = pos + 1
            else:
                try:
                    end = words.index(after, pos)
                except ValueError:
                    raise ValueError(f"expected {after!r}") from None
            value = self.args[name].read(words[pos:end])
            if name in limits and value >= limits[name]:
                raise ValueError(f"{name} {' '.join(words[pos:end])} is out of range")
            found[name] = value
            pos = end
        if pos != len(words):
            raise ValueError("unexpected words at the end")
        return tuple(found[name] for name in self.args)


@dataclass(frozen=True)
class Family:
    """One kind of action: its name, notation template and arguments (in id order).

    ``notation`` replaces the template for a family the template cannot say.
    """

    name: str
    template: str
    args: Sequence[tuple[str, Arg]] = ()
    also: tuple[str, ...] = ()
    notation: Notation | None = None

    @property
    def sizes(self) -> tuple[int, ...]:
        """Each argument's range size, in id order."""
        return tuple(arg.size for _name, arg in self.args)

    @property
    def size(self) -> int:
        """How many ids the family takes."""
        total = 1
        for size in self.sizes:
            total *= size
        return total

    def writer(self) -> Notation:
        """The family's notation: its own, or the template's."""
        return self.notation or Template(self.template, dict(self.args), self.also)


class ActionSpace:
    """The ordered families of one game, laid out from id ``start`` (see the module doc)."""

    def __init__(
        self,
        families: Iterable[Family],
        start: int = 0,
        phrases: Sequence[tuple[str, str]] = (),
    ) -> None:
        self.families = tuple(families)
        self.phrases = tuple(phrases)  # rewritten before parsing, e.g. "road building"
        self._by_name: dict[str, int] = {}
        self._bases: list[int] = []
        self._writers = [family.writer() for family in self.families]
        base = start
        for index, family in enumerate(self.families):
            if family.name in self._by_name:
                raise ValueError(f"two families named {family.name!r}")
            self._by_name[family.name] = index
            self._bases.append(base)
            base += family.size
        self.start = start
        self.end = base
        self.size = base - start

    # -------------------------------------------------------------- ids
    def base(self, name: str) -> int:
        """The first id of family ``name``."""
        return self._bases[self._by_name[name]]

    def family(self, name: str) -> Family:
        """The declared family ``name``."""
        return self.families[self._by_name[name]]

    def encode(self, name: str, *values: int) -> int:
        """The id of family ``name`` with these argument values."""
        index = self._by_name[name]
        family = self.families[index]
        sizes = family.sizes
        if len(values) != len(sizes):
            raise ValueError(f"{name} takes {len(sizes)} arguments, not {len(values)}")
        code = 0
        for value, size in zip(values, sizes, strict=True):
            if not 0 <= value < size:
                raise ValueError(f"{name}: argument {value} is outside 0..{size - 1}")
            code = code * size + value
        return self._bases[index] + code

    def decode(self, action: int) -> tuple[str, tuple[int, ...]]:
        """(family name, argument values) of an id; ValueError outside the space."""
        index = self._index(action)
        family = self.families[index]
        return family.name, _digits(action - self._bases[index], family.sizes)

    def contains(self, action: Any) -> bool:
        """Whether ``action`` is an int id of this space."""
        return type(action) is int and self.start <= action < self.end

    def _index(self, action: int) -> int:
        if not self.contains(action):
            raise ValueError(f"{action!r} is outside {self.start}..{self.end - 1}")
        return bisect_right(self._bases, action) - 1

    # -------------------------------------------------------------- notation
    def text(self, action: int, context: Any = None) -> str:
        """The notation of an id; ValueError outside the space or for an unused slot."""
        index = self._index(action)
        family = self.families[index]
        values = _digits(action - self._bases[index], family.sizes)
        return self._writers[index].show(values, context)

    def parse(
        self,
        text: str | Sequence[str],
        context: Any = None,
        limits: Mapping[str, int] | None = None,
    ) -> int:
        """The id ``text`` names: words are lower-cased and ``phrases`` rewritten, then
        each family is tried in order. ``limits`` caps arguments by name (exclusive),
        e.g. ``{"seat": players}``. ValueError when no family reads the text."""
        if isinstance(text, str):
            words = self.words(text)
        elif isinstance(text, list | tuple) and all(isinstance(w, str) for w in text):
            words = list(text)
        else:
            raise ValueError(f"notation must be text, not {type(text).__name__}")
        error: ValueError = ValueError("no words")
        # The reason worth showing is the one of a family the text starts like
        # ("city 99": out of range), not the last family's ("not an offer").
        preferred: ValueError | None = None
        verb = words[0] if words else None
        for index, family in enumerate(self.families):
            try:
                values = self._writers[index].read(words, context, limits or {})
            except (ValueError, IndexError, KeyError) as exc:
                error = exc if isinstance(exc, ValueError) else ValueError(str(exc))
                if preferred is None and verb in _verbs(family):
                    preferred = error
                continue
            return self._bases[index] + _code(values, family.sizes)
        raise preferred or error

    def verbs(self) -> frozenset[str]:
        """The first words of every family's notation."""
        return frozenset(verb for family in self.families for verb in _verbs(family))

    def words(self, text: str) -> list[str]:
        """``text`` as the words ``parse`` reads: lower case, phrases rewritten."""
        joined = " ".join(text.strip().lower().split())
        for long, short in self.phrases:
            joined = joined.replace(long, short)
        return joined.split()

    # -------------------------------------------------------------- as an argument
    # A space can be the argument of another family (Endeavor's ``<target> with <source>``).
    def show(self, value: int) -> str:
        return self.text(self.start + value)

    def read(self, words: Sequence[str]) -> int:
        return self.parse(words) - self.start


def _verbs(family: Family) -> set[str]:
    return {text.split()[0] for text in (family.template, *family.also) if text.split()}


def _digits(code: int, sizes: tuple[int, ...]) -> tuple[int, ...]:
    values = []
    for size in reversed(sizes):
        code, value = divmod(code, size)
        values.append(value)
    return tuple(reversed(values))


def _code(values: tuple[int, ...], sizes: tuple[int, ...]) -> int:
    code = 0
    for value, size in zip(values, sizes, strict=True):
        code = code * size + value
    return code


def custom(
    show: Callable[[tuple[int, ...], Any], str],
    read: Callable[[Sequence[str], Any, Mapping[str, int]], tuple[int, ...]],
) -> Notation:
    """A notation from two functions, for families a template cannot say."""
    return _Custom(show, read)


@dataclass(frozen=True)
class _Custom:
    show_fn: Callable[[tuple[int, ...], Any], str]
    read_fn: Callable[[Sequence[str], Any, Mapping[str, int]], tuple[int, ...]]

    def show(self, values: tuple[int, ...], context: Any) -> str:
        return self.show_fn(values, context)

    def read(
        self, words: Sequence[str], context: Any, limits: Mapping[str, int]
    ) -> tuple[int, ...]:
        return self.read_fn(words, context, limits)
