"""The engine interface every game implements.

Modelled on OpenSpiel's ``State`` and python-chess: a state knows whose turn it
is (a seat, the chance player or nobody once terminal), lists legal actions as
stable integer ids with a text notation for each, applies actions (chance
outcomes included, so a log of actions replays a game exactly), clones fast,
serializes to compact bytes (JSON, never pickle: stored bytes are untrusted),
and gives per-seat observations plus ``determinize`` for search under hidden
information.

Engines are pure: no I/O, no clocks, no global randomness. Randomness enters
only through ``new_game``'s seed (set-up) and explicit chance nodes.
"""

from __future__ import annotations

import json
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr  # compile hints only (a no-op when interpreted)

# ``current_player`` values that are not seats.
CHANCE: Final = -1
TERMINAL: Final = -4


def quote_input(text: object, limit: int = 40) -> str:
    """Client input as an error message shows it: repr'd, cut to a short prefix, so a
    huge input never comes back in the error (the one helper for every such message)."""
    shown = repr(text)
    return shown if len(shown) <= limit else f"{shown[:limit]}... ({len(str(text))} chars)"


class GameError(ValueError):
    """Base class of every error an engine raises on bad input."""


class NotationError(GameError):
    """Action text that does not parse, or an id outside the action space."""


class IllegalActionError(GameError):
    """A well-formed action that is not legal in this state."""


class CorruptStateError(GameError):
    """Serialized bytes that do not describe a valid state."""


class OptionsError(GameError):
    """Unknown or out-of-range game options."""


@dataclass(frozen=True)
class OptionBounds:
    """What values an option takes: an inclusive integer range, or a set of words."""

    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()

    def check(self, key: str, value: Any) -> None:
        """Raise OptionsError when ``value`` is outside the bounds."""
        if self.choices and str(value).strip().lower() not in self.choices:
            raise OptionsError(
                f"option {key!r} is one of {', '.join(self.choices)}, not {quote_input(value)}"
            )
        if self.low is not None and value < self.low or self.high is not None and value > self.high:
            raise OptionsError(f"option {key!r} must be in {self.low}..{self.high}, not {value}")


@dataclass(frozen=True)
class GameInfo:
    """Static facts about a game type."""

    name: str
    title: str
    min_players: int
    max_players: int
    summary: str
    default_options: Mapping[str, Any] = field(default_factory=dict)
    # Declared bounds of each option; ``parse_options`` enforces them for every game.
    option_bounds: Mapping[str, OptionBounds] = field(default_factory=dict)


# Tests and other games may subclass the compiled base classes (mypyc allows it only so).
@mypyc_attr(allow_interpreted_subclasses=True)
class State(ABC):
    """A game state. Subclasses hold their data in plain lists/ints for speed."""

    info: ClassVar[GameInfo]

    # --- whose turn -----------------------------------------------------
    @property
    @abstractmethod
    def num_players(self) -> int: ...

    @abstractmethod
    def current_player(self) -> int:
        """The seat to act, ``CHANCE`` at a chance node, ``TERMINAL`` at the end."""

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        """Whether chance (dice, a draw) moves next."""
        return self.current_player() == CHANCE

    # --- actions --------------------------------------------------------
    @abstractmethod
    def legal_actions(self) -> list[int]:
        """Legal action ids for the seat to move (empty at chance/terminal nodes)."""

    @abstractmethod
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """At a chance node: (outcome action id, probability) pairs summing to 1."""

    @abstractmethod
    def apply_unchecked(self, action: int) -> None:
        """Apply an action known to be legal (the search fast path)."""

    def apply_action(self, action: object) -> None:
        """Apply a decision or chance outcome, checking legality first (anything but a
        legal int id is an IllegalActionError: a compiled build checks the type too)."""
        if self.is_terminal():
            raise IllegalActionError("the game is over")
        if not isinstance(action, int) or not self.is_legal(action):
            raise IllegalActionError(f"action {action} ({self._describe(action)}) is not legal now")
        self.apply_unchecked(action)

    def illegal_reason(self, action: int) -> str | None:
        """Why ``action`` (well-formed, not legal now) is refused, when the game can say
        it better than "not legal now" (e.g. "no settlement of yours at 5")."""
        return None

    def decline_offer_action(self) -> int | None:
        """The action that declines a trade offer the seat to move is asked to answer
        now; None when no offer waits on it (or the game has no offers)."""
        return None

    def is_legal(self, action: object) -> bool:
        """Whether ``action`` may be applied now. Usually: it is listed. A game may also
        accept ids it does not list, each equal to a sequence of listed small choices
        (Catan's whole domestic offers), so the listed action space stays small."""
        if self.is_terminal():
            return False
        if self.is_chance_node():
            return action in [a for a, _ in self.chance_outcomes()]
        return action in self.legal_actions()

    def _describe(self, action: object) -> str:
        if not isinstance(action, int):
            return "outside the action space"
        try:
            return self.action_to_string(action)
        except GameError:
            return "outside the action space"

    @abstractmethod
    def action_to_string(self, action: int) -> str:
        """The notation of an action id in this state (it may name the actor's context)."""

    @abstractmethod
    def string_to_action(self, text: str) -> int:
        """Parse notation back to an id; raises NotationError for text that does not parse.

        Legality is not checked here: ``apply_action`` does that.
        """

    def sample_chance(self, rng: random.Random) -> int:
        """Draw a chance outcome with the node's probabilities."""
        outcomes = self.chance_outcomes()
        r = rng.random()
        acc = 0.0
        for action, p in outcomes:
            acc += p
            if r < acc:
                return action
        return outcomes[-1][0]

    # --- hidden information -------------------------------------------
    def action_audience(self, action: int) -> frozenset[int] | None:
        """Seats that may see ``action`` (called before applying it); None = everyone."""
        return None

    def redacted_action_string(self, action: int) -> str:
        """What seats outside ``action_audience`` see of the action."""
        return self.action_to_string(action)

    @abstractmethod
    def observation(self, seat: int | None) -> dict[str, Any]:
        """Everything ``seat`` may see (``None``: a spectator), as plain data."""

    @abstractmethod
    def determinize(self, seat: int, rng: random.Random) -> State:
        """A full state consistent with ``observation(seat)``, sampling what the seat
        cannot see. It must depend only on that observation and ``rng``."""

    # --- outcome --------------------------------------------------------
    @abstractmethod
    def returns(self) -> list[float]:
        """Per seat: 1 for a win, 0 for a loss, a shared win split equally."""

    # --- copying and bytes -----------------------------------------------
    @abstractmethod
    def clone(self) -> State: ...

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data, enough to rebuild the exact state."""

    @classmethod
    @abstractmethod
    def from_dict(cls, data: Mapping[str, Any]) -> State:
        """Rebuild from ``to_dict`` output, validating it (raise CorruptStateError)."""

    def to_bytes(self) -> bytes:
        """Compact JSON of ``to_dict``."""
        return json.dumps(self.to_dict(), separators=(",", ":")).encode()

    @classmethod
    def from_bytes(cls, data: bytes) -> State:
        """Rebuild from ``to_bytes`` output; any defect is a CorruptStateError."""
        try:
            raw = json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            raise CorruptStateError(f"state bytes are not JSON: {exc}") from exc
        if not isinstance(raw, dict):
            raise CorruptStateError("state bytes must hold a JSON object")
        try:
            return cls.from_dict(raw)
        except CorruptStateError:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise CorruptStateError(f"state data is invalid: {exc!r}") from exc

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, State)
            and type(self) is type(other)
            and self.to_dict() == other.to_dict()
        )

    __hash__ = None  # type: ignore[assignment]


def shared_win(winners: Sequence[int], players: int) -> list[float]:
    """Returns for a finished game: the winners split one win equally."""
    share = 1.0 / len(winners)
    return [share if seat in winners else 0.0 for seat in range(players)]


@mypyc_attr(allow_interpreted_subclasses=True)
class Game(ABC):
    """A game type: its facts and a factory for initial states."""

    info: ClassVar[GameInfo]
    state_class: ClassVar[type[State]]

    @classmethod
    @abstractmethod
    def new_game(cls, players: int, seed: int, options: Mapping[str, Any] | None = None) -> State:
        """The initial state. All set-up randomness comes from ``seed``; the initial
        state must be fully public (later hidden draws are chance nodes), so a game
        record can carry it."""

    @classmethod
    def check_players(cls, players: int) -> None:
        """Raise OptionsError for a player count the game does not take."""
        if not cls.info.min_players <= players <= cls.info.max_players:
            raise OptionsError(
                f"{cls.info.name} takes {cls.info.min_players}-{cls.info.max_players} "
                f"players, not {players}"
            )

    @classmethod
    def parse_options(cls, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Merge ``options`` over the defaults, type-checked against them.

        String values (as they arrive over the API) are converted to the default's type,
        then checked against the option's declared bounds.
        """
        merged = dict(cls.info.default_options)
        for key, value in (options or {}).items():
            if key not in merged:
                known = ", ".join(sorted(merged)) or "none"
                raise OptionsError(
                    f"unknown option {quote_input(key)} for {cls.info.name} (known: {known})"
                )
            merged[key] = _coerce_option(key, value, merged[key])
            bounds = cls.info.option_bounds.get(key)
            if bounds is not None:
                bounds.check(key, merged[key])
        return merged

    @classmethod
    def replay(cls, initial: State, actions: Sequence[int]) -> State:
        """Apply a logged action sequence (chance outcomes included) to a copy of ``initial``."""
        state = initial.clone()
        for action in actions:
            state.apply_action(action)
        return state


def _coerce_option(key: str, value: Any, default: Any) -> Any:
    kind = type(default)
    if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            if kind is bool:
                if text.lower() in ("1", "true", "yes", "on"):
                    return True
                if text.lower() in ("0", "false", "no", "off"):
                    return False
                raise ValueError(text)
            return kind(text)
        except ValueError:
            pass
    what = {int: "a whole number", float: "a number", bool: "true or false"}.get(kind, "text")
    raise OptionsError(f"option {key!r} must be {what}, got {quote_input(value)}")
