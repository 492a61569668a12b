"""The lease: how one process at a time holds a job that every replica may run.

Every leased job follows this one contract: a game's bot turn (``BOT_TURNS``), a
tournament's sweep (``TOURNAMENTS``), an archive outbox entry (``ARCHIVE``), and a
ladder's matchmaking (the SQL implementation, ``services.ladder.lease``).

- **Job.** A name in a schedule: a game id, a tournament name, an outbox entry. A job
  is *due* when it is in the schedule and nobody holds it (its expiry is past).
- **Owner.** The process that claimed the job and holds its current token. The
  store keeps no owner's name for a scheduled job: the token stands for it, so a
  process without the current token is not the owner, whatever it calls itself.
- **Fencing token.** The number the store checks before it renews the lease or
  applies the owner's writes; a later grant of the job has another one. For a
  tournament or an outbox entry it is the grant's expiry on the store's clock
  (each claim and renewal gives a new one). For a bot turn it is the game's version:
  the commit that plays the turn compare-and-sets that version and moves the turn's
  entry itself, so the claimant reads the token with the game (``turn_lease``) and a
  Celery worker gets it in its job. For the SQL lease it is the holder's name while
  its row is unexpired, checked by ``fence`` in the write's own transaction.
- **Expiry.** On the store's clock, never the holder's (the SQL lease: the
  replicas' clocks, assumed NTP-close): once it is past, the next claim takes the
  job under a new token. (An expiry token repeats only when a job handed back or
  lapsed early is claimed again to expire in the very millisecond the earlier grant
  would have.)
- **Renew.** Push the expiry ``seconds`` from now (0: hand the job back, due at once;
  less: overdue). Refused (None) unless the token is still the current one and the
  job is still in the schedule; a refused renewal never puts a job back. A job is
  done when its own write takes it out of the schedule (a commit with no bot due, an
  outbox ``ack_archive``, a tournament's end or ``unschedule_tournament``).

A holder that lost its lease (it expired and was claimed again; its game moved on;
the job left the schedule) may finish what it is computing and may read; it may not
renew, and may not write as the owner: its renewals are refused, a bot turn's commit
at the old version is refused (STALE), and every other write a job makes is
set-if-absent or idempotent (a tournament's table and result, an archive insert and
its ack), so a second holder's duplicate changes nothing. A job whose holder died is due again at
its expiry, so nothing waits for the dead holder to call in.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import Protocol

BOT_TURNS = "botturns"  # games whose bot (or a seat's turn clock) is due
TOURNAMENTS = "tournamentsweep"  # running tournaments, due a sweep
ARCHIVE = "archive"  # the archive outbox's entries
SCHEDULES = (BOT_TURNS, TOURNAMENTS, ARCHIVE)


@dataclass(frozen=True)
class Lease:
    """One owner's hold on one job (the module doc's contract)."""

    schedule: str  # BOT_TURNS, TOURNAMENTS or ARCHIVE
    job: str
    token: int


def turn_lease(game_id: str, version: int) -> Lease:
    """The lease on a game's bot turn at ``version`` (its fencing token)."""
    return Lease(BOT_TURNS, game_id, version)


class Leases(Protocol):
    """Claim, renew and lapse leases on the jobs of a schedule: one implementation
    per store (the memory store's dicts, the Redis store's sorted sets, one set of
    Lua scripts for every schedule)."""

    @abstractmethod
    async def claim(self, schedule: str, limit: int, seconds: float) -> list[Lease]:
        """Up to ``limit`` due jobs of ``schedule``, most overdue first, each now held
        for ``seconds`` under a new token (a bot turn's: the grant's; its holder goes
        on with ``turn_lease`` once it read the game's version)."""

    @abstractmethod
    async def renew(self, lease: Lease, seconds: float) -> Lease | None:
        """Hold the job ``seconds`` from now, under the renewed lease (its new token),
        if ``lease`` is still the current one; None (and nothing changes) if not."""

    @abstractmethod
    async def lapse(self, schedule: str) -> int:
        """Make every held job of ``schedule`` due now; returns how many. After the
        store was away (a failover), a bot turn handed to a Celery worker or searched
        by a replica may have been lost with it: it is played again at once rather
        than at its expiry (a duplicate commit changes nothing)."""
