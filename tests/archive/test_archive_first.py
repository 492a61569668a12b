"""The embedded store archives a game's finish before anyone can see it (issue 57 §4):
``MemoryStore.archive_first``. While the archive takes the finish, readers still see the
game running and every other change of it waits; an archive that fails refuses the
commit and changes nothing, and the same commit retried once it answers is applied once.
A real MemoryStore and real archives (SQLite, PostgreSQL; one nobody listens on)."""

from __future__ import annotations

import asyncio
import secrets

import pytest

from services.archive import archiver, database
from services.archive.archive import Archive
from services.archive.synthetic import finished_game
from services.errors import Unavailable
from services.stores import Commit, CommitOutcome, NewGame, Snapshot, StoredEvent
from services.stores.memory import MemoryStore
from tests.procs import free_port

REQUEST = "client:finish-1"


async def _one_move_from_the_end(store: MemoryStore) -> tuple[Commit, list[StoredEvent]]:
    """A game stored with its first event; the commit that plays it to its end (a
    client's request), and the log that commit leaves."""
    snapshot, events = finished_game("cite", 2, 3)
    game_id = secrets.token_hex(16)
    first = [e.data for e in events[:1]]
    await store.create(NewGame(game_id, snapshot.meta, b"", 0, "in_progress", first))
    finish = Commit(
        game_id=game_id,
        expected_version=0,
        new_version=snapshot.version,
        state=snapshot.state,
        status="finished",
        events=[e.data for e in events[1:]],
        request_key=REQUEST,
        request_result={"version": snapshot.version},
    )
    return finish, events


async def test_the_finish_is_archived_before_it_is_seen_and_others_wait(archive):
    store = MemoryStore()
    await store.set_archiving(True)  # as a server with an archive does
    finish, events = await _one_move_from_the_end(store)
    game_id = finish.game_id
    entered, go_on = asyncio.Event(), asyncio.Event()
    while_archived: list[Snapshot | None] = []

    async def put(snapshot: Snapshot, log: list[StoredEvent], requests) -> bool:
        while_archived.append(await store.load(game_id))
        entered.set()
        await go_on.wait()
        return await archive.put_game(snapshot, log, requests)

    store.archive_first(put)
    finishing = asyncio.create_task(store.write(finish))
    await asyncio.wait_for(entered.wait(), 10)
    seen = await store.load(game_id)
    assert (seen.status, seen.version, seen.last_event_id) == ("in_progress", 0, 1)
    assert await store.events(game_id) == events[:1]
    # A rival move at the same version, sent while the finish is archived: it waits for
    # it (it runs before go_on wakes the archiving: asyncio runs ready tasks in order).
    rival = asyncio.create_task(store.write(Commit(game_id, 0, 1, b"x", "in_progress", [{}])))
    go_on.set()
    assert (await finishing).outcome is CommitOutcome.APPLIED
    assert (await rival).outcome is CommitOutcome.STALE  # decided after the finish

    assert [s.status for s in while_archived] == ["in_progress"]
    archived = await archive.game(game_id)
    assert archived is not None
    assert archived.snapshot.status == "finished"
    assert archived.snapshot.version == finish.new_version
    assert archived.events == await store.events(game_id) == events
    assert archived.requests == {REQUEST: finish.request_result}
    # The outbox's archiver finds it there and only forgets it from the store.
    assert await archiver.archive_once(store, archive) == 1
    assert await store.load(game_id) is None
    assert (await archive.game(game_id, cache=False)).events == events


async def test_an_unreachable_archive_refuses_the_finish_and_changes_nothing(archive):
    store = MemoryStore()
    await store.set_archiving(True)
    finish, events = await _one_move_from_the_end(store)
    nobody = Archive(database.make_engine(f"postgresql://postgres@127.0.0.1:{free_port()}/none"))
    store.archive_first(nobody.put_game)
    try:
        with pytest.raises(Unavailable, match="archive did not take the game's finish"):
            await store.write(finish)
    finally:
        nobody.close()
    seen = await store.load(finish.game_id, REQUEST)
    assert (seen.status, seen.version, seen.request_result) == ("in_progress", 0, None)
    assert await store.events(finish.game_id) == events[:1]
    assert await store.archive_backlog() == 0

    store.archive_first(archive.put_game)  # the archive answers again: the retry goes in
    assert (await store.write(finish)).outcome is CommitOutcome.APPLIED
    again = await store.write(finish)
    assert (again.outcome, again.request_result) == (
        CommitOutcome.DUPLICATE,
        finish.request_result,
    )
    archived = await archive.game(finish.game_id)
    assert archived is not None and archived.events == events
