"""Turn timers of human seats: the one home of the clock rules, for games that ask for
them (``CreateGame.timer``) and for tournament tables (external entrants' move limit).

A timed game's metadata holds its ``timer`` (the settings) and its ``clock``: the seat
whose time runs (None when no human seat is to move), the version it started at, when
it started and runs out, and per seat the bank left and the timeouts in a row. Every
write to a timed game moves the clock on in the same compare-and-set, and puts the
deadline in the store's turn schedule (``bot_due_in``), so every replica's sweeper
finds a seat out of time after any restart. The sweeper then plays one move for the
seat with the fallback level, under the request key ``timeout:<version>``
(``services.bots.bot_turns``): played once, whoever gets there first.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from games import State
from services.kinds import SeatKind
from services.turns import seat_control

DEFAULT_MAX_TIMEOUTS = 3
MAX_MOVE_SECONDS = 7 * 86400.0
MAX_BANK_SECONDS = 30 * 86400.0
MAX_TIMEOUTS = 1000


@dataclass(frozen=True)
class Timer:
    """A game's timer settings (``meta["timer"]``)."""

    move: float  # seconds per move
    bank: float = 0.0  # seconds per seat for the whole game, beyond the move time
    fallback: str = "random"  # the level that plays a timed-out move
    max_timeouts: int = DEFAULT_MAX_TIMEOUTS  # in a row: handed over for good (0: never)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Timer:
        return cls(**data)


def timer_problem(timer: Timer) -> str | None:
    """Why a client's timer settings cannot be used, or None."""
    if not (math.isfinite(timer.move) and 0 < timer.move <= MAX_MOVE_SECONDS):
        return f"timer.move_seconds must be more than 0 and at most {MAX_MOVE_SECONDS:g}"
    if not (math.isfinite(timer.bank) and 0 <= timer.bank <= MAX_BANK_SECONDS):
        return f"timer.bank_seconds must be 0..{MAX_BANK_SECONDS:g}"
    if not 0 <= timer.max_timeouts <= MAX_TIMEOUTS:
        return f"timer.max_timeouts must be 0..{MAX_TIMEOUTS} (0: never hand the seat over)"
    return None


def timer_of(meta: dict[str, Any]) -> Timer | None:
    data = meta.get("timer")
    return Timer.from_json(data) if data else None


def start(meta: dict[str, Any], timer: Timer | None) -> dict[str, Any]:
    """A new game's metadata with its timer and a clock that has not started."""
    if timer is None:
        return meta
    players = len(meta["seats"])
    clock = {"seat": None, "version": 0, "started": 0.0, "deadline": 0.0}
    clock |= {"banks": [timer.bank] * players, "strikes": [0] * players}
    return {**meta, "timer": timer.to_json(), "clock": clock}


def charge(meta: dict[str, Any], seat: int, now: float, timed_out: bool) -> dict[str, Any]:
    """``meta`` after ``seat`` moved (or timed out) at ``now``: a move over the move time
    draws on its bank; a timeout empties the bank and counts one more in a row; a move
    of its own ends the row. Seats whose clock was not running are left as they were."""
    timer, clock = timer_of(meta), meta.get("clock")
    if timer is None or clock is None or clock["seat"] != seat:
        return meta
    banks, strikes = list(clock["banks"]), list(clock["strikes"])
    if timed_out:
        banks[seat] = 0.0
        strikes[seat] += 1
    else:
        over = now - clock["started"] - timer.move
        if over > 0:
            banks[seat] = max(0.0, banks[seat] - over)
        strikes[seat] = 0
    return {**meta, "clock": {**clock, "banks": banks, "strikes": strikes}}


def out_of_chances(meta: dict[str, Any], seat: int) -> bool:
    """True when ``seat`` has timed out ``max_timeouts`` times in a row (and the timer
    hands seats over at all)."""
    timer, clock = timer_of(meta), meta.get("clock")
    if timer is None or clock is None or timer.max_timeouts <= 0:
        return False
    return clock["strikes"][seat] >= timer.max_timeouts


def forgive(meta: dict[str, Any], seat: int) -> dict[str, Any]:
    """A new person on the seat: no timeouts in a row."""
    clock = meta.get("clock")
    if clock is None:
        return meta
    strikes = list(clock["strikes"])
    strikes[seat] = 0
    return {**meta, "clock": {**clock, "strikes": strikes}}


def restart(
    meta: dict[str, Any], state: State, version: int, now: float, moved: bool
) -> dict[str, Any]:
    """``meta`` with the clock of whoever is to move in ``state`` at ``version``: a human
    seat's time starts now (move time plus its bank); after a write without a move (a
    seat change) a clock already running for the same human seat runs on."""
    clock = meta.get("clock")
    timer = timer_of(meta)
    if clock is None or timer is None:
        return meta
    seat = state.current_player()
    human = seat >= 0 and meta["seats"][seat]["kind"] == SeatKind.HUMAN
    if not human:
        return {**meta, "clock": {**clock, "seat": None, "version": version}}
    if not moved and clock["seat"] == seat:
        return {**meta, "clock": {**clock, "version": version}}
    deadline = now + timer.move + clock["banks"][seat]
    running = {"seat": seat, "version": version, "started": now, "deadline": deadline}
    return {**meta, "clock": {**clock, **running}}


def running(meta: dict[str, Any], version: int) -> dict[str, Any] | None:
    """The clock at ``version`` when a human seat's time runs: seat, deadline, bank."""
    clock = meta.get("clock")
    if clock is None or clock["seat"] is None or clock["version"] != version:
        return None
    seat = clock["seat"]
    return {"seat": seat, "deadline": clock["deadline"], "bank": clock["banks"][seat]}


def seconds_left(meta: dict[str, Any], version: int, now: float) -> float | None:
    """Seconds until the running clock at ``version`` runs out (0 or less: out of
    time); None when no clock runs."""
    clock = running(meta, version)
    return None if clock is None else clock["deadline"] - now


def due_in(meta: dict[str, Any], state: State, version: int, now: float, lease: float = 0.0):
    """When the game next needs the sweeper: a bot to move, now (or after the
    committer's ``lease``); a human seat's clock, when it runs out; else None."""
    if seat_control.bot_to_move(meta, state):
        return lease
    left = seconds_left(meta, version, now)
    return None if left is None else max(0.0, left)
