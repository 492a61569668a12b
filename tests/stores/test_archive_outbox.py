"""The archive outbox, on both stores: the commit that finishes a game puts it on
the outbox in the same write (once), an ended tournament likewise; entries are
claimed under a lease and due again when it runs out; expiry keeps what is not
archived yet."""

from __future__ import annotations

import pytest

from services.stores import CommitOutcome
from services.stores.leases import ARCHIVE
from services.stores.memory import MemoryStore
from services.stores.redis_store import RedisStore
from tests.stores.helpers import claim_jobs, new_game


@pytest.fixture
async def store(store):
    """Each store in turn (the suite's fixture), archiving as a server with an archive sets it."""
    await store.set_archiving(True)
    return store


async def _finish(store, game_id: str = "g1", version: int = 0):
    return await store.commit(
        game_id, version, version + 1, b"end", "finished", [{"kind": "finished"}]
    )


async def test_only_the_finishing_commit_puts_the_game_on_the_outbox(store):
    await store.create(new_game())
    await store.commit("g1", 0, 1, b"s1", "in_progress", [{"kind": "action"}])
    assert await claim_jobs(store, ARCHIVE, 10, 30) == []
    assert (await _finish(store, version=1)).outcome is CommitOutcome.APPLIED
    assert await store.archive_backlog() == 1
    assert await claim_jobs(store, ARCHIVE, 10, 30) == ["game:g1"]


async def test_a_refused_finishing_commit_puts_nothing(store):
    await store.create(new_game())
    assert (await _finish(store, version=5)).outcome is CommitOutcome.STALE
    assert await store.archive_backlog() == 0


async def test_a_later_write_to_a_finished_game_adds_no_second_entry(store):
    await store.create(new_game())
    await _finish(store)
    assert await claim_jobs(store, ARCHIVE, 10, 30) == ["game:g1"]
    await store.commit("g1", 1, 2, b"end", "finished", [{"kind": "seat_changed"}])
    assert await store.archive_backlog() == 1
    assert await claim_jobs(store, ARCHIVE, 10, 30) == []  # still leased: not due again


async def test_a_claimed_entry_is_due_again_when_its_lease_runs_out_until_acked(store):
    await store.create(new_game())
    await _finish(store)
    # A lease of 0: as if the claimer died and its lease ran out: due for the next one.
    assert await claim_jobs(store, ARCHIVE, 10, 0) == ["game:g1"]
    assert await claim_jobs(store, ARCHIVE, 10, 30) == ["game:g1"]
    assert await claim_jobs(store, ARCHIVE, 10, 30) == []  # leased to that claimer
    await store.ack_archive("game:g1")
    assert await store.archive_backlog() == 0
    assert await claim_jobs(store, ARCHIVE, 10, 0) == []


async def test_an_ended_tournament_goes_on_the_outbox(store):
    assert await store.create_tournament("t1", {"definition": {}}, "running", [])
    assert await store.archive_backlog() == 0
    assert await store.set_tournament_status("t1", "cancelled", [{"kind": "cancelled"}])
    assert await claim_jobs(store, ARCHIVE, 10, 30) == ["tournament:t1"]


async def test_expiry_keeps_what_is_not_archived_yet(store):
    await store.create(new_game())
    await _finish(store)
    assert await store.create_tournament("t1", {"definition": {}}, "running", [])
    assert await store.set_tournament_status("t1", "finished", [])
    assert await store.expire_games(0, 0) == []
    assert await store.expire_tournaments(0, 0) == []
    assert await store.load("g1") is not None
    await store.ack_archive("game:g1")
    await store.ack_archive("tournament:t1")
    assert await store.expire_games(0, 0) == ["g1"]
    assert await store.expire_tournaments(0, 0) == ["t1"]


async def test_without_an_archive_nothing_goes_on_the_outbox(redis_url, redis_prefix):
    for plain in (MemoryStore(), RedisStore.from_url(redis_url, prefix=redis_prefix)):
        try:
            # Another process (a Celery worker) writes through a store of its own: the
            # setting is the deployment's, kept in the store.
            other = RedisStore.from_url(redis_url, prefix=redis_prefix)
            await other.set_archiving(True)
            await other.close()
            await plain.set_archiving(False)
            await plain.create(new_game())
            await _finish(plain)
            assert await plain.create_tournament("t1", {"definition": {}}, "running", [])
            assert await plain.set_tournament_status("t1", "finished", [])
            assert await plain.archive_backlog() == 0
            assert await plain.expire_games(0, 0) == ["g1"]
        finally:
            await plain.close()


async def test_archiving_is_the_stores_setting_for_every_writer(redis_url, redis_prefix):
    server = RedisStore.from_url(redis_url, prefix=redis_prefix)
    worker = RedisStore.from_url(redis_url, prefix=redis_prefix)  # never told anything
    try:
        await server.set_archiving(True)
        await worker.create(new_game())
        await _finish(worker)
        assert await claim_jobs(server, ARCHIVE, 10, 30) == ["game:g1"]
        await server.set_archiving(False)  # off: the outbox goes too (nothing drains it)
        assert await server.archive_backlog() == 0
    finally:
        await server.close()
        await worker.close()
