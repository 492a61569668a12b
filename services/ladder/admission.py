"""How many duplicate sets a ladder may have open: at most ``--ladder-tables``, fewer
while bots' answers come back slowly.

The ladder is a closed loop: every open game has a bot waiting on the server, so
opening more games than the machine answers promptly adds few games per hour and
much queueing, and every bot's move (its clock running) waits behind the others. A
bot waiting for its next game loses nothing. So the matchmaker admits new sets the way
a congestion window admits packets (additive increase, multiplicative decrease): one
more set while answers keep time and the limit is what holds the ladder back, a
quarter fewer after a slow tick, and no second cut until the open sets are down to
the first one (games already playing are never stopped; they take a game's length to
drain).

A tick is slow when either passes ``--ladder-target-ms``:
- the median over the bots of how much longer than its fastest answers a bot's newest
  answer took. Runners report each answer's round trip with their next one
  (``BotReplyRequest.last_round_trip_ms``: the act's arrival to the answer played,
  less the program's own time), the figure bots feel, with every queue on the way in
  it: this server's, the wire's, the cores'. Measured against each bot's own fastest
  (over the last ``FLOOR_SECONDS``), not against a fixed figure, a bot far away on the
  network counts its queueing only, not its distance. One value per bot per tick, so
  no one bot's reports move the median;
- the median lateness of a timer on this replica's event loop (``LoopLag``), for a
  replica whose bots report nothing (other clients of BotReply).

Either counts only while this serving process is busy, using ``BUSY`` of a core or
more over the tick (its event loop is one thread): below that its own queue is short
(at 40% of a core, an answer waits for about two thirds of another's handling), the
slowness is jitter or lies elsewhere, and fewer games would not cure it but leave bots
waiting for one (bots that think a second a move, say, whose answers vary by a few ms).

Medians say how the typical answer fares; the tail is what bots feel at their worst,
and answers that land together on a loop that is not busy overall still queue behind
each other. So a third measure, over many ticks (``TailWindow``): of the answers whose
round trips runners reported since the limit last changed, the share that ran more
than ``--ladder-tail-ms`` beyond their bot's fastest (or than ``TAIL_OF_CYCLE`` of
the answer's whole cycle, for bots that think long). Past ``TAIL_SHARE`` (the p99 over
the mark), from ``MIN_BOTS`` bots or more (not one bot's jittery network), the limit
is cut, whatever the CPU; another set is tried only once ``TAIL_ANSWERS`` answers came
back with at most half that share (or ``TAIL_CLEAN`` with none late), and after a cut
for the tail it waits for twice as many before trying that set again (up to
``TAIL_PATIENCE`` times), so that probing costs the tail little.

Every replica measures them for itself, as a ``Pace`` a tick, and publishes it
(``paces``): the matchmaking replica judges each replica's pace on its own (a replica's
busyness is its own), and a tick is slow when any busy replica's is. A ladder starts at
``START`` sets and grows from there, so that bots' fastest answers are seen before the
machine is loaded.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from services import metrics

PROBE_SECONDS = 0.025  # how often the loop's lateness is sampled
CUT = 0.75  # the share of the limit kept after a late tick
MIN_SAMPLES = 5  # fewer lag samples than this in a tick (a short one) decide nothing
MIN_BOTS = 3  # fewer bots reporting round trips than this in a tick decide nothing
START = 2  # sets a ladder starts with
FLOOR_SECONDS = 600.0  # a bot's fastest answer counts this long
BUSY = 0.4  # the process's CPU, in cores, under which no tick is slow
TAIL_SHARE = 0.01  # the share of answers that may run past --ladder-tail-ms (a p99)
TAIL_ANSWERS = 400  # answers a verdict on the tail needs (4 late at TAIL_SHARE)
TAIL_CLEAN = 20  # or this many with none late: one more set is tried (bots that think long)
TAIL_PATIENCE = 8  # at most this many times TAIL_ANSWERS before a set cut is tried again
# An answer is late past --ladder-tail-ms or this share of its whole cycle (the act sent
# to the answer back, the bot's thinking in it), whichever is more: a few ms of queueing
# are nothing to a bot that thinks for a second, and fewer sets would cost it games.
TAIL_OF_CYCLE = 0.1


@dataclass
class _Floor:
    """A bot's fastest round trip over the last FLOOR_SECONDS or so: the lower of the
    current half-window's minimum and the previous one's."""

    current: float
    previous: float
    since: float

    def add(self, milliseconds: float, now: float) -> float:
        if now - self.since > FLOOR_SECONDS / 2:
            self.previous, self.current, self.since = self.current, milliseconds, now
        self.current = min(self.current, milliseconds)
        return min(self.current, self.previous)


class RoundTrips:
    """The round trips bots' runners report on this replica: for each ladder, how much
    longer than its fastest each bot's newest answer took, since the last take."""

    def __init__(self) -> None:
        self._excess: dict[str, dict[str, float]] = {}  # ladder -> bot -> milliseconds
        # ladder -> every answer: (bot, ms beyond its fastest, its cycle in ms)
        self._answers: dict[str, list[tuple[str, float, float]]] = {}
        self._floors: dict[tuple[str, str], _Floor] = {}

    def report(self, ladder: str, bot: str, milliseconds: float, cycle_ms: float = 0.0) -> None:
        """A bot's answer's round trip beyond its own time (``milliseconds``), and its
        whole cycle as the server saw it (the act sent to the answer back; 0: unknown)."""
        if not 0 < milliseconds < 3_600_000:  # 0: the runner measured nothing (a first answer)
            return
        now = time.monotonic()
        floor = self._floors.get((ladder, bot))
        if floor is None:
            floor = self._floors[(ladder, bot)] = _Floor(milliseconds, milliseconds, now)
        fastest = floor.add(milliseconds, now)
        self._excess.setdefault(ladder, {})[bot] = milliseconds - fastest
        self._answers.setdefault(ladder, []).append((bot, milliseconds - fastest, cycle_ms))

    def take(self, ladder: str) -> list[float]:
        """One value per bot of ``ladder`` that reported since the last take (ms)."""
        now = time.monotonic()
        for key in [k for k, f in self._floors.items() if now - f.since > FLOOR_SECONDS]:
            del self._floors[key]  # a bot gone quiet: its next answer starts afresh
        return list(self._excess.pop(ladder, {}).values())

    def take_tail(self, ladder: str, tail_ms: float) -> tuple[int, tuple[str, ...]]:
        """How many answers of ``ladder`` were reported since the last take, and the bot
        of each that ran more than ``tail_ms`` (or TAIL_OF_CYCLE of its cycle) beyond its
        bot's fastest."""
        answers = self._answers.pop(ladder, [])
        late: tuple[str, ...] = ()
        if tail_ms > 0:
            late = tuple(b for b, ms, cycle in answers if ms > max(tail_ms, TAIL_OF_CYCLE * cycle))
        metrics.LADDER_ROUND_TRIPS.labels(ladder, "true").inc(len(late))
        metrics.LADDER_ROUND_TRIPS.labels(ladder, "false").inc(len(answers) - len(late))
        return len(answers), late


class CpuShare:
    """This process's CPU time (all its threads) over wall time, in cores, between takes."""

    def __init__(self) -> None:
        self._at = (time.monotonic(), time.process_time())

    def take(self) -> float:
        wall, cpu = time.monotonic(), time.process_time()
        then_wall, then_cpu = self._at
        self._at = (wall, cpu)
        return (cpu - then_cpu) / max(wall - then_wall, 1e-9)


class LoopLag:
    """Samples how late the running event loop wakes a timer, every PROBE_SECONDS."""

    def __init__(self) -> None:
        self._samples: list[float] = []
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="loop lag")

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + PROBE_SECONDS
            await asyncio.sleep(PROBE_SECONDS)
            # The loop runs a timer up to its clock resolution early: never below 0.
            lag = max(0.0, loop.time() - due)
            self._samples.append(lag)
            metrics.EVENT_LOOP_LAG_SECONDS.observe(lag)

    def take(self) -> list[float]:
        """The samples since the last take."""
        samples, self._samples = self._samples, []
        return samples

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


@dataclass(frozen=True)
class Pace:
    """How one replica fared since its last tick: the median lateness of its event
    loop's timer (None: fewer than MIN_SAMPLES samples), the round trips its bots'
    runners reported beyond their fastest (ms, one per bot, ``RoundTrips``), its CPU
    in cores (``CpuShare``), and how many answers' round trips were reported, with the
    bot of each that ran past ``--ladder-tail-ms`` (``RoundTrips.take_tail``)."""

    lag_ms: float | None
    round_trips: tuple[float, ...]
    busy: float
    answers: int = 0
    late: tuple[str, ...] = ()

    @classmethod
    def measured(
        cls,
        lags: Sequence[float],
        round_trips: Sequence[float],
        busy: float,
        tail: tuple[int, Sequence[str]] = (0, ()),
    ) -> Pace:
        """From a tick's lag samples (seconds), round trips (ms) and tail (answers, the
        late ones' bots)."""
        lag_ms = statistics.median(lags) * 1000 if len(lags) >= MIN_SAMPLES else None
        answers, late = tail
        return cls(lag_ms, tuple(round_trips), busy, answers, tuple(late))

    def slow(self, target_ms: float) -> bool | None:
        """True: this replica answers late and is busy (fewer games would help); False:
        on time, or late while idle (they would not); None: too few samples to say."""
        verdicts = []
        if self.lag_ms is not None:
            verdicts.append(self.lag_ms > target_ms)
        if len(self.round_trips) >= MIN_BOTS:
            verdicts.append(statistics.median(self.round_trips) > target_ms)
        if not verdicts:
            return None
        return any(verdicts) and self.busy >= BUSY


class TailWindow:
    """The answers reported since the limit last changed, and the bots of those that ran
    late; how long to wait for them before trying one more set (``patience``)."""

    def __init__(self) -> None:
        self.answers = 0
        self.late: list[str] = []
        self.patience = 1  # times TAIL_ANSWERS a try of one more set waits for
        self.cut_from = 0  # the limit last cut for the tail (0: none)
        self.reported = False  # runners have reported round trips (else: the medians decide)

    def add(self, paces: Sequence[Pace]) -> None:
        for pace in paces:
            self.answers += pace.answers
            self.late.extend(pace.late)
            self.reported = self.reported or pace.answers > 0
        if self.answers > 4 * TAIL_ANSWERS * self.patience:  # a long stay: the newer half
            self.answers //= 2
            self.late = self.late[len(self.late) // 2 :]

    def verdict(self) -> bool | None:
        """True: more late answers than TAIL_SHARE allows (before TAIL_ANSWERS answers
        came back, more than it allows of TAIL_ANSWERS), from MIN_BOTS bots or more;
        False: ``patience`` times TAIL_ANSWERS answers, at most half that share late, or
        ``patience`` times TAIL_CLEAN answers, none late (bots that answer a few times a
        second would wait minutes for TAIL_ANSWERS); None: not known yet."""
        too_many = len(self.late) > TAIL_SHARE * max(self.answers, TAIL_ANSWERS)
        if too_many and len(set(self.late)) >= MIN_BOTS:
            return True
        if not self.late and self.answers >= TAIL_CLEAN * self.patience:
            return False
        needed = TAIL_ANSWERS * self.patience
        if self.answers >= needed and len(self.late) <= TAIL_SHARE / 2 * self.answers:
            return False
        return None

    def restart(self) -> None:
        """The limit changed: what comes next is measured afresh."""
        self.answers, self.late = 0, []


class TableLimit:
    """One ladder's limit on open duplicate sets, between 1 and ``tables``."""

    def __init__(self, ladder: str, tables: int, target_ms: float, tail_ms: float = 0.0) -> None:
        self.ladder = ladder
        self.tables = tables
        self.target_ms = target_ms  # 0: no limit but ``tables``
        self.tail_ms = tail_ms  # 0: no limit by the tail
        self.tail = TailWindow()
        self.limit = self._first()
        metrics.LADDER_TABLE_LIMIT.labels(ladder).set(self.limit)

    def _first(self) -> int:
        return self.tables if self.target_ms <= 0 else min(self.tables, START)

    def stand_by(self) -> None:
        """Another replica matchmakes the ladder: this one starts afresh if it takes
        over, and shows ``tables`` meanwhile, so that the lowest over the replicas (a
        process group's gauge: ``multiprocess_mode="livemin"``) is the holder's."""
        self.limit = self._first()
        self.tail = TailWindow()
        metrics.LADDER_TABLE_LIMIT.labels(self.ladder).set(self.tables)

    def after_tick(self, paces: Sequence[Pace], open_sets: int) -> int:
        """The limit for the next tick, given the replicas' paces since the last one
        (this replica's and those the others published) and the sets open now;
        returns it."""
        if self.target_ms <= 0:
            return self.limit
        verdicts = [v for v in (p.slow(self.target_ms) for p in paces) if v is not None]
        tail: bool | None = None
        if self.tail_ms > 0:
            if open_sets > self.limit:  # still draining from above the limit since a cut
                self.tail.restart()  # what they answer is not this limit's tail
                return self.limit
            self.tail.add(paces)
            tail = self.tail.verdict() if self.tail.answers else None
            if tail is False and self.limit >= self.tail.cut_from:
                self.tail.patience = 1  # where the tail was too long, it is short now
        if not verdicts and tail is None:
            return self.limit
        if any(verdicts) or tail:
            if open_sets <= self.limit:  # the last cut has taken effect: cut again
                cut = max(1, min(self.limit - 1, int(open_sets * CUT)))
                if tail and cut < self.limit:  # this limit's tail was too long
                    self.tail.cut_from = self.limit
                    self.tail.patience = min(TAIL_PATIENCE, self.tail.patience * 2)
                self.limit = cut
                self.tail.restart()
        elif (
            self.limit < self.tables
            and open_sets >= self.limit
            and (tail is False or not self.tail.reported)
        ):
            # The limit holds the ladder back and answers keep time (their tail as well,
            # or none ever reported to judge it by): one more.
            self.limit += 1
            self.tail.restart()
        metrics.LADDER_TABLE_LIMIT.labels(self.ladder).set(self.limit)
        return self.limit
