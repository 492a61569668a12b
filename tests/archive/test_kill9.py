"""Exactly once: a serving process killed with SIGKILL in the middle of archiving
loses no finished game and doubles none, and Redis forgets each game only once it
is in SQL. Its leased outbox entries fall to the replicas started after it, which
race over the rest. Real processes, real Redis, real PostgreSQL."""

from __future__ import annotations

import secrets

import sqlalchemy as sa

from services.archive import database
from services.archive.archive import Archive
from services.archive.schema import games, seats
from services.archive.synthetic import finished_game
from services.stores import NewGame
from services.stores.redis_store import RedisStore
from tests.polling import eventually
from tests.procs import Replica, wait_until

GAMES = 800


async def _finish_games(store: RedisStore, count: int) -> dict[str, list]:
    """``count`` finished games in the store, each by one create and one finishing commit."""
    played = [finished_game("cite", 2, seed) for seed in range(5)]
    logs = {}
    for n in range(count):
        snapshot, events = played[n % len(played)]
        game_id = secrets.token_hex(16)
        first, rest = events[:1], events[1:]
        await store.create(
            NewGame(game_id, snapshot.meta, b"", 0, "in_progress", [e.data for e in first])
        )
        await store.commit(
            game_id, 0, snapshot.version, snapshot.state, "finished", [e.data for e in rest]
        )
        logs[game_id] = events
    return logs


def _count(engine: sa.Engine) -> int:
    with engine.connect() as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(games)).scalar_one()


async def test_kill9_mid_archive_loses_nothing_and_doubles_nothing(
    redis_url, redis_prefix, postgres_url, tmp_path
):
    Archive.open(postgres_url, create=True).close()
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    engine = database.make_engine(postgres_url)
    replicas: list[Replica] = []

    def replica(name: str) -> Replica:
        extra = ["--redis", redis_url, "--redis-prefix", redis_prefix, "--bot-workers", "1"]
        started = Replica(tmp_path / f"{name}.log", [*extra, "--archive", postgres_url])
        replicas.append(started)
        return started.start()

    try:
        await store.settle_layout()  # a new deployment, as the replicas' start would see
        await store.set_archiving(True)  # as the replicas will, before the games finish
        logs = await _finish_games(store, GAMES)
        assert await store.archive_backlog() == GAMES

        first = replica("first")
        wait_until(lambda: _count(engine) >= 20, 120, "the first replica to archive some")
        first.kill9()
        archived_then, left = _count(engine), await store.archive_backlog()
        assert left > 0 and archived_then < GAMES, "the kill came after the archiving"

        for name in ("second", "third"):  # two at once: they race over the outbox
            replica(name)

        async def drained() -> bool:
            assert all(r.alive() for r in replicas[1:]), "a replica died"
            return await store.archive_backlog() == 0

        # The first replica's leased entries wait out their lease (30 s), then go too.
        await eventually(drained, timeout=240, what="the outbox to be drained")

        with engine.connect() as connection:
            ids = set(connection.execute(sa.select(games.c.game_id)).scalars())
            seat_rows = connection.execute(sa.select(sa.func.count()).select_from(seats))
            assert seat_rows.scalar_one() == 2 * GAMES  # no seat written twice
        assert ids == set(logs)  # every game, once (the game id is the key)
        # Redis forgot each game only once it was in SQL: every one is there, none is
        # in the store, each has its tombstone.
        for game_id in logs:
            assert await store.load(game_id) is None
            assert (await store.tombstone(game_id)).status == "finished"
        archive = Archive(engine)
        for game_id in list(logs)[:: GAMES // 8]:
            archived = await archive.game(game_id)
            assert archived.events == logs[game_id]
            assert archived.snapshot.status == "finished" and archived.snapshot.state
    finally:
        for started in replicas:
            started.kill_group()
        engine.dispose()
        await store.close()
