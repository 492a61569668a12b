"""The lease's SQL implementation: the contract of ``services.stores.leases`` (owner,
fencing token, renew, expiry) for a job whose writes are SQL, one row per named lease
in ``ladder_leases`` (name, holder, expires_at). The ladder's matchmaker holds one per
ladder; any other job that writes to the archive's database runs under one of its
own name with these four calls: ``acquire`` (claim, or renew as the holder),
``fence`` (renew inside the caller's write transaction), ``release`` and ``holder_of``.

- **Owner**: ``holder``, a name the process gives itself (a replica's id), kept in
  the row.
- **Fencing token**: the holder's name while its row is unexpired. Every write the
  job makes is fenced: in the same transaction it first calls ``fence``, which
  renews the lease only for that holder before its expiry, and writes nothing (rolls
  back) when that fails. The row lock the renewal takes (PostgreSQL) or the
  database's write lock (SQLite) makes a takeover and a fenced write take turns, so a
  holder that lost the lease (a long pause, a partition) writes nothing.
- **Renew**: ``acquire`` by the holder, or ``fence``; refused to anyone else until
  the row expires.
- **Expiry**: ``expires_at``, on the replicas' Unix clocks (``now``): replicas of one
  deployment are assumed to agree within a second or so (NTP), well under the lease's
  seconds. Once it is past, the next ``acquire`` takes the lease.

A process that restarts under the same holder name is the same owner: holder names
must be unique per live process (replica ids are)."""

from __future__ import annotations

import sqlalchemy as sa

from services.archive.sql import insert_new
from services.ladder.schema import ladder_leases


def acquire(engine: sa.Engine, name: str, holder: str, seconds: float, now: float) -> bool:
    """Take or renew the lease ``name`` for ``seconds``: True when ``holder`` holds it now."""
    with engine.begin() as connection:
        taken = connection.execute(
            sa.update(ladder_leases)
            .where(
                ladder_leases.c.name == name,
                sa.or_(ladder_leases.c.holder == holder, ladder_leases.c.expires_at < now),
            )
            .values(holder=holder, expires_at=now + seconds)
        ).rowcount
        if taken:
            return True
        row = {"name": name, "holder": holder, "expires_at": now + seconds}
        return insert_new(connection, ladder_leases, row)


def fence(connection: sa.Connection, name: str, holder: str, seconds: float, now: float) -> bool:
    """Within a transaction: renew the lease only if ``holder`` still holds it (and it
    has not expired). False: the caller must write nothing (roll back)."""
    return bool(
        connection.execute(
            sa.update(ladder_leases)
            .where(
                ladder_leases.c.name == name,
                ladder_leases.c.holder == holder,
                ladder_leases.c.expires_at >= now,
            )
            .values(expires_at=now + seconds)
        ).rowcount
    )


def release(engine: sa.Engine, name: str, holder: str) -> None:
    """Let the lease go at once (a clean stop): the next replica need not wait it out."""
    with engine.begin() as connection:
        connection.execute(
            sa.update(ladder_leases)
            .where(ladder_leases.c.name == name, ladder_leases.c.holder == holder)
            .values(expires_at=0.0)
        )


def holder_of(engine: sa.Engine, name: str, now: float) -> str:
    """Who holds the lease now ("" when nobody does)."""
    with engine.connect() as connection:
        row = connection.execute(
            sa.select(ladder_leases.c.holder, ladder_leases.c.expires_at).where(
                ladder_leases.c.name == name
            )
        ).first()
    return row.holder if row is not None and row.expires_at >= now else ""
