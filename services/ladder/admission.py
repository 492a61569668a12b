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

A tick is slow when either median passes ``--ladder-target-ms``:
- the round trips the bots' runners report (``BotReplyRequest.last_round_trip_ms``: an
  act's arrival to the answer played, less the program's own time), the figure bots
  feel, with every queue on the way in it: this server's, the wire's, the cores'. One
  value per bot per tick, so no one bot's reports move the median;
- the lateness of a timer on this replica's event loop (``LoopLag``), for a replica
  whose bots report nothing (other clients of BotReply).

Both are this replica's: bots served by other replicas report there.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics

from services import metrics

PROBE_SECONDS = 0.025  # how often the loop's lateness is sampled
CUT = 0.75  # the share of the limit kept after a late tick
MIN_SAMPLES = 5  # fewer lag samples than this in a tick (a short one) decide nothing
MIN_BOTS = 3  # fewer bots reporting round trips than this in a tick decide nothing


class RoundTrips:
    """The round trips bots' runners reported on this replica since the last take, per
    ladder: each bot's newest."""

    def __init__(self) -> None:
        self._newest: dict[str, dict[str, float]] = {}  # ladder -> bot -> milliseconds

    def report(self, ladder: str, bot: str, milliseconds: float) -> None:
        if 0 < milliseconds < 3_600_000:  # 0: the runner measured nothing (a first answer)
            self._newest.setdefault(ladder, {})[bot] = milliseconds

    def take(self, ladder: str) -> list[float]:
        """One value per bot of ``ladder`` that reported since the last take (ms)."""
        return list(self._newest.pop(ladder, {}).values())


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


class TableLimit:
    """One ladder's limit on open duplicate sets, between 1 and ``tables``."""

    def __init__(self, ladder: str, tables: int, target_ms: float) -> None:
        self.ladder = ladder
        self.tables = tables
        self.target_ms = target_ms  # 0: no limit but ``tables``
        self.limit = tables
        metrics.LADDER_TABLE_LIMIT.labels(ladder).set(self.limit)

    def after_tick(self, lags: list[float], round_trips: list[float], open_sets: int) -> int:
        """The limit for the next tick, given the loop's lateness samples (seconds) and
        the bots' reported round trips (milliseconds) since the last one, and the sets
        open now; returns it."""
        if self.target_ms <= 0:
            return self.limit
        slow = []
        if len(lags) >= MIN_SAMPLES:
            slow.append(statistics.median(lags) * 1000 > self.target_ms)
        if len(round_trips) >= MIN_BOTS:
            slow.append(statistics.median(round_trips) > self.target_ms)
        if not slow:
            return self.limit
        if any(slow):
            if open_sets <= self.limit:  # the last cut has taken effect: cut again
                self.limit = max(1, min(self.limit - 1, int(open_sets * CUT)))
        elif open_sets >= self.limit:  # the limit holds the ladder back: one more
            self.limit = min(self.tables, self.limit + 1)
        metrics.LADDER_TABLE_LIMIT.labels(self.ladder).set(self.limit)
        return self.limit
