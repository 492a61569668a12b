"""The replicas' paces, shared through the archive (``ladder_paces``): every replica
publishes how its answers kept time at each tick, and reads the other replicas' newest,
so the one that matchmakes paces the ladder by every replica's bots and event loop,
not only its own (``admission``; docs/ladder.md, "Pacing").

One row per ladder and replica, overwritten at each tick. A report counts once: the
board remembers the time of each replica's last one it took. Reports older than
``FRESH`` seconds are not taken (a replica that stopped), and rows older than
``FORGET`` seconds are deleted by whoever publishes next. Times are the replicas' Unix
clocks, which a deployment keeps within a second or so (as the lease's)."""

from __future__ import annotations

import json

import sqlalchemy as sa

from services.archive.schema import ladder_paces
from services.archive.sql import upsert
from services.ladder.admission import Pace

FRESH = 3.0  # seconds a report stays worth taking: a few ticks
FORGET = 60.0  # seconds after which a replica's row is deleted


class PaceBoard:
    """One replica's side of the board (its engine is the archive's)."""

    def __init__(self, engine: sa.Engine, replica: str) -> None:
        self.engine = engine
        self.replica = replica
        self._taken: dict[tuple[str, str], float] = {}  # (ladder, replica) -> its last report

    def exchange(self, ladder: str, mine: Pace, now: float) -> list[Pace]:
        """Publish this replica's pace for ``ladder``; the other replicas' reports not
        taken before and at most FRESH seconds old."""
        row = {
            "ladder": ladder,
            "replica": self.replica,
            "reported_at": now,
            "busy": mine.busy,
            "lag_ms": mine.lag_ms,
            "round_trips": json.dumps([round(ms, 3) for ms in mine.round_trips]),
            "answers": mine.answers,
            "late": json.dumps(list(mine.late)),
        }
        with self.engine.begin() as connection:
            upsert(connection, ladder_paces, row)
            connection.execute(
                sa.delete(ladder_paces).where(
                    ladder_paces.c.ladder == ladder, ladder_paces.c.reported_at < now - FORGET
                )
            )
            rows = connection.execute(
                sa.select(ladder_paces).where(
                    ladder_paces.c.ladder == ladder,
                    ladder_paces.c.replica != self.replica,
                    ladder_paces.c.reported_at >= now - FRESH,
                )
            ).all()
        others = []
        for other in rows:
            key = (ladder, other.replica)
            if self._taken.get(key, -1.0) >= other.reported_at:
                continue  # counted at an earlier tick
            self._taken[key] = other.reported_at
            trips = tuple(float(ms) for ms in json.loads(other.round_trips))
            late = tuple(str(bot) for bot in json.loads(other.late))
            others.append(Pace(other.lag_ms, trips, other.busy, other.answers, late))
        for key in [k for k, at in self._taken.items() if at < now - FORGET]:
            del self._taken[key]
        return others
