"""The matchmaker's lease (services/ladder/lease.py) on SQLite and PostgreSQL: one
holder at a time, even when replicas ask at the same instant; a fenced write only by
the holder before expiry; a released or expired lease taken by the next to ask."""

from __future__ import annotations

import threading

from services.archive import database
from services.ladder import lease

NAME = "ladder:cite:2"


def test_one_holder_at_a_time(archive_url):
    engine = database.make_engine(archive_url)
    try:
        database.upgrade(engine)
        assert lease.acquire(engine, NAME, "first", 5.0, now=100.0)
        assert not lease.acquire(engine, NAME, "second", 5.0, now=101.0)
        assert lease.acquire(engine, NAME, "first", 5.0, now=102.0)  # renewed: to 107
        assert lease.holder_of(engine, NAME, now=106.0) == "first"
        assert not lease.acquire(engine, NAME, "second", 5.0, now=106.0)
        with engine.begin() as connection:
            assert not lease.fence(connection, NAME, "second", 5.0, now=106.0)
            assert lease.fence(connection, NAME, "first", 5.0, now=106.0)  # to 111
        assert lease.acquire(engine, NAME, "second", 5.0, now=111.5)  # expired: taken over
        with engine.begin() as connection:
            assert not lease.fence(connection, NAME, "first", 5.0, now=112.0)
        lease.release(engine, NAME, "second")
        assert lease.holder_of(engine, NAME, now=112.0) == ""
        assert lease.acquire(engine, NAME, "first", 5.0, now=112.0)
    finally:
        engine.dispose()


def _race(engine, name: str, replicas: list[str]) -> dict[str, bool]:
    """Every replica asks for the lease ``name`` at the same instant: who got it."""
    start = threading.Barrier(len(replicas))
    held: dict[str, bool] = {}

    def ask(replica: str) -> None:
        start.wait()
        held[replica] = lease.acquire(engine, name, replica, 5.0, now=100.0)

    threads = [threading.Thread(target=ask, args=(r,)) for r in replicas]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return held


def test_replicas_asking_at_once_get_one_holder(archive_url):
    engine = database.make_engine(archive_url)
    try:
        database.upgrade(engine)
        replicas = [f"replica{i}" for i in range(4)]
        for round_ in range(5):  # a fresh lease each round: the insert races, then updates
            name = f"{NAME}:{round_}"
            held = _race(engine, name, replicas)
            winners = [r for r, won in held.items() if won]
            assert len(winners) == 1, held
            assert lease.holder_of(engine, name, now=101.0) == winners[0]
            again = [lease.acquire(engine, name, r, 5.0, now=101.0) for r in replicas]
            assert again == [r == winners[0] for r in replicas]
    finally:
        engine.dispose()
