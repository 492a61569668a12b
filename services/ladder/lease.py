"""The matchmaker's lease: one row per ladder in ``ladder_leases`` (holder, expiry).

A replica holds a ladder while it renews the row before it expires; when its holder
stops renewing (killed, cut off), the row expires and the next replica to try takes
it. Every write the matchmaker makes to ladder games and ratings is *fenced*: in the
same transaction it first renews the lease as its holder, so a replica that lost the
lease (a long pause, a partition) writes nothing. The row lock that renewal takes
(PostgreSQL) or the database's write lock (SQLite) makes a takeover and a fenced
write take turns.

Times are the replicas' Unix clocks: replicas of one deployment are assumed to agree
within a second or so (NTP), well under the lease's seconds."""

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
