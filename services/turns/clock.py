"""Turn timers of human seats: every clock rule is here, for games that ask for
them (``CreateGame.timer``) and for tournament tables (external entrants' move limit).

A timed game's metadata holds its ``timer`` (the settings) and its ``clock``: the seat
whose time runs (None when no human seat is to move), the version it started at, when
it started and runs out, and per seat the bank left and the timeouts in a row (the
records ``Timer`` and ``Clock`` of ``services.stores.records``). Every
write to a timed game moves the clock on in the same compare-and-set, and puts the
deadline in the store's turn schedule (``bot_due_in``), so every replica's sweeper
finds a seat out of time after any restart. The sweeper then plays one move for the
seat with the fallback level, under the request key ``timeout:<version>``
(``services.bots.bot_turns``): played once, whoever gets there first.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, TypeVar

from games import State
from services.stores.records import Clock, GameMeta, Timer
from services.turns import seat_control

MAX_MOVE_SECONDS = 7 * 86400.0
MAX_BANK_SECONDS = 30 * 86400.0
MAX_TIMEOUTS = 1000

# Each rule takes a game's metadata as its record, or as stored (a snapshot's raw
# ``meta``: the clock's tests hand it so), and answers in the kind it was given.
Meta = TypeVar("Meta", GameMeta, dict[str, Any])


def _record(meta: GameMeta | dict[str, Any]) -> GameMeta:
    return meta if isinstance(meta, GameMeta) else GameMeta.from_dict(meta)


def _as_given(given: Meta, clock: Clock | None, timer: Timer | None = None) -> Meta:
    """``given`` with ``clock`` (and ``timer``, when set), in the kind it was given."""
    meta = _record(given)
    changed = dataclasses.replace(meta, clock=clock, timer=timer or meta.timer)
    return changed if isinstance(given, GameMeta) else changed.to_dict()  # type: ignore[return-value]


def timer_problem(timer: Timer) -> str | None:
    """Why a client's timer settings cannot be used, or None."""
    if not (math.isfinite(timer.move) and 0 < timer.move <= MAX_MOVE_SECONDS):
        return f"timer.move_seconds must be more than 0 and at most {MAX_MOVE_SECONDS:g}"
    if not (math.isfinite(timer.bank) and 0 <= timer.bank <= MAX_BANK_SECONDS):
        return f"timer.bank_seconds must be 0..{MAX_BANK_SECONDS:g}"
    if not 0 <= timer.max_timeouts <= MAX_TIMEOUTS:
        return f"timer.max_timeouts must be 0..{MAX_TIMEOUTS} (0: never hand the seat over)"
    return None


def start(meta: Meta, timer: Timer | None) -> Meta:
    """A new game's metadata with its timer and a clock that has not started."""
    if timer is None:
        return meta
    players = len(_record(meta).seats)
    return _as_given(meta, Clock(banks=(timer.bank,) * players, strikes=(0,) * players), timer)


def charge(meta: Meta, seat: int, now: float, timed_out: bool) -> Meta:
    """``meta`` after ``seat`` moved (or timed out) at ``now``: a move over the move time
    draws on its bank; a timeout empties the bank and counts one more in a row; a move
    of its own ends the row. Seats whose clock was not running are left as they were."""
    record = _record(meta)
    timer, clock = record.timer, record.clock
    if timer is None or clock is None or clock.seat != seat:
        return meta
    banks, strikes = list(clock.banks), list(clock.strikes)
    if timed_out:
        banks[seat] = 0.0
        strikes[seat] += 1
    else:
        over = now - clock.started - timer.move
        if over > 0:
            banks[seat] = max(0.0, banks[seat] - over)
        strikes[seat] = 0
    return _as_given(meta, dataclasses.replace(clock, banks=tuple(banks), strikes=tuple(strikes)))


def out_of_chances(meta: GameMeta | dict[str, Any], seat: int) -> bool:
    """True when ``seat`` has timed out ``max_timeouts`` times in a row (and the timer
    hands seats over at all)."""
    record = _record(meta)
    timer, clock = record.timer, record.clock
    if timer is None or clock is None or timer.max_timeouts <= 0:
        return False
    return clock.strikes[seat] >= timer.max_timeouts


def forgive(meta: Meta, seat: int) -> Meta:
    """A new person on the seat: no timeouts in a row."""
    clock = _record(meta).clock
    if clock is None:
        return meta
    strikes = list(clock.strikes)
    strikes[seat] = 0
    return _as_given(meta, dataclasses.replace(clock, strikes=tuple(strikes)))


def restart(meta: Meta, state: State, version: int, now: float, moved: bool) -> Meta:
    """``meta`` with the clock of whoever is to move in ``state`` at ``version``: a human
    seat's time starts now (move time plus its bank); after a write without a move (a
    seat change) a clock already running for the same human seat runs on."""
    record = _record(meta)
    clock, timer = record.clock, record.timer
    if clock is None or timer is None:
        return meta
    seat = state.current_player()
    if seat < 0 or record.seats[seat].is_bot:
        return _as_given(meta, dataclasses.replace(clock, seat=None, version=version))
    if not moved and clock.seat == seat:
        return _as_given(meta, dataclasses.replace(clock, version=version))
    deadline = now + timer.move + clock.banks[seat]
    running = dataclasses.replace(clock, seat=seat, version=version, started=now, deadline=deadline)
    return _as_given(meta, running)


def running(meta: GameMeta | dict[str, Any], version: int) -> dict[str, Any] | None:
    """The clock at ``version`` when a human seat's time runs, as events carry it: seat,
    deadline, bank."""
    clock = _record(meta).clock
    if clock is None or not clock.runs_at(version):
        return None
    assert clock.seat is not None
    return {"seat": clock.seat, "deadline": clock.deadline, "bank": clock.banks[clock.seat]}


def seconds_left(meta: GameMeta | dict[str, Any], version: int, now: float) -> float | None:
    """Seconds until the running clock at ``version`` runs out (0 or less: out of
    time); None when no clock runs."""
    clock = _record(meta).clock
    return None if clock is None else clock.left(version, now)


def due_in(
    meta: GameMeta, state: State, version: int, now: float, lease: float = 0.0
) -> float | None:
    """When the game next needs the sweeper: a bot to move, now (or after the
    committer's ``lease``); a human seat's clock, when it runs out; else None."""
    if seat_control.bot_to_move(meta, state):
        return lease
    left = None if meta.clock is None else meta.clock.left(version, now)
    return None if left is None else max(0.0, left)
