"""The archiver: moves each archive outbox entry from the store into SQL.

Every replica runs one. An entry is claimed with a lease (the bot-turn schedule's
kind), copied with INSERT ... ON CONFLICT DO NOTHING, and only then taken off the
outbox, so an archiver killed at any moment leaves its entries to whoever claims
them when the lease runs out, and a second copy is never written.

A game moves: once its row is committed (with its clients' request results), the
store forgets it (``forget_archived``: its keys go, a small tombstone stays for the
finished retention), so Redis holds live play only, and reads of the game, and
retries of its requests, are answered from the archive. The order is
what makes it safe: in SQL first, then out of the store; a kill between the two
leaves the entry, whose next archiver finds the row there and forgets the game."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from services import times
from services.archive.archive import Archive
from services.stores import (
    ArchiveOutbox,
    EventLogs,
    GameLog,
    Leases,
    Snapshot,
    StoredEvent,
    TournamentLog,
    TournamentStore,
)
from services.stores.base import ARCHIVE_GAME, ARCHIVE_TOURNAMENT
from services.stores.leases import ARCHIVE
from services.sweeps import Wake

log = logging.getLogger(__name__)

LEASE_SECONDS = 30.0  # an entry's archiver has this long before another may take it
TOMBSTONE_SECONDS = 7 * 86400.0  # the finished retention's default (--finished-retention)
BATCH = 50
IDLE_SECONDS = times.ARCHIVER_IDLE_SECONDS


class ArchivedStore(ArchiveOutbox, Leases, GameLog, TournamentStore, EventLogs, Protocol):
    """What the archiver uses: the outbox, its leases on the outbox's entries, and the
    games and tournaments they name."""


async def _whole_log(store: ArchivedStore, log_id: str | TournamentLog) -> list[StoredEvent]:
    events: list[StoredEvent] = []
    while batch := await store.log_events(log_id, events[-1].event_id if events else 0):
        events.extend(batch)
    return events


async def copy_game(
    store: ArchivedStore, archive: Archive, game_id: str
) -> tuple[Snapshot, list[StoredEvent]] | None:
    """The hand-off's first step: copy a game from the store into SQL (idempotently);
    the store still has it. Returns what was copied (None: the store has no such game)."""
    snapshot = await store.load(game_id)
    if snapshot is None:
        return None
    events = await _whole_log(store, game_id)
    requests = await store.request_results(game_id)
    await archive.put_game(snapshot, events, requests)  # committed (or there already)
    return snapshot, events


async def archive_entry(
    store: ArchivedStore, archive: Archive, entry: str, tombstone: float = TOMBSTONE_SECONDS
) -> None:
    """Copy one outbox entry into SQL (idempotently), forget a game the archive now
    holds (its tombstone kept ``tombstone`` seconds), then take the entry off the outbox."""
    kind, _, name = entry.partition(":")
    if kind == ARCHIVE_GAME:
        copied = await copy_game(store, archive, name)
        if copied is not None:
            snapshot, events = copied
            # Forgotten only as archived: the snapshot and the log read agree, and the
            # store's newest event is still theirs (checked by the store, atomically;
            # a store at the previous release's layout keeps it until retention).
            last = snapshot.last_event_id
            if (events[-1].event_id if events else 0) != last:
                log.warning("archive: game %s changed while archived; the store keeps it", name)
            else:
                await store.forget_archived(name, last, snapshot.info.game_type, tombstone)
        else:
            log.warning("archive: game %s is gone from the store; nothing to archive", name)
    elif kind == ARCHIVE_TOURNAMENT:
        tournament = await store.load_tournament(name)
        if tournament is not None:
            events = await _whole_log(store, TournamentLog(name))
            await archive.put_tournament(tournament, events)
        else:
            log.warning("archive: tournament %s is gone from the store", name)
    else:
        log.warning("archive: dropping an outbox entry of unknown kind: %r", entry)
    await store.ack_archive(entry)


async def archive_once(
    store: ArchivedStore,
    archive: Archive,
    lease: float = LEASE_SECONDS,
    tombstone: float = TOMBSTONE_SECONDS,
) -> int:
    """One sweep: claim due entries and archive each; returns how many were done."""
    done = 0
    for held in await store.claim(ARCHIVE, BATCH, lease):
        try:
            await archive_entry(store, archive, held.job, tombstone)
        except Exception:  # this entry only: it is tried again when its lease runs out
            log.warning("archive: %s failed; retrying after its lease", held.job, exc_info=True)
            continue
        done += 1
    return done


async def archive_forever(
    store: ArchivedStore,
    archive: Archive,
    tombstone: float = TOMBSTONE_SECONDS,
    wake: Wake | None = None,
    on_archived: Callable[[], None] | None = None,
) -> None:
    """Every replica's archiver; ``tombstone``: the finished retention. ``wake``: set when
    a game this replica follows has finished (a sweep at once, not within IDLE_SECONDS);
    ``on_archived``: called after a sweep that archived something (the ladder rates its
    games from the archive)."""
    wake = wake or Wake()
    while True:
        try:
            done = await archive_once(store, archive, tombstone=tombstone)
            if done and on_archived is not None:
                on_archived()
            if done == BATCH:
                continue  # more may be due: no pause
        except Exception:  # the store or the database may be down a while: try again
            log.warning("archive sweep failed; retrying", exc_info=True)
        await wake.wait_and_clear(IDLE_SECONDS)
