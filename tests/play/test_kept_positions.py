"""A replica keeps the position it last wrote or read as a game's newest
(``GameHost.positions``): a watched event another replica wrote is read from the store
once, for its legal actions, and the seat's act on it (``view_at``, then
SubmitAction at that version) starts from that read. A kept position that went
stale costs a retry on a fresh read, never a move on an old position. On both
stores, with two replicas (two hosts; on Redis, two connections)."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from services.errors import Aborted
from services.kinds import SeatKind
from services.play.host import GameHost, SeatSpec
from services.stores.redis_store import RedisStore
from services.turns import clock


class _NoRunner:
    """Both seats are people: no bot turn to kick."""

    def kick(self, game_id: str) -> None:
        return None


class _CountedLoads:
    """Counts a store's game loads while it is switched on."""

    def __init__(self, store) -> None:
        self.count = 0
        self.on = False
        loading = store.load

        async def load(game_id, request_key=None):
            if self.on:
                self.count += 1
            return await loading(game_id, request_key)

        store.load = load


@contextlib.asynccontextmanager
async def _two_replicas(store, request):
    """Two hosts serving one store's games; the first counts its loads."""
    if isinstance(store, RedisStore):
        other = RedisStore.from_url(
            request.getfixturevalue("redis_url"), prefix=request.getfixturevalue("redis_prefix")
        )
    else:
        other = store  # the embedded store: replicas in one process share it
    first, second = GameHost(store, _NoRunner()), GameHost(other, _NoRunner())
    try:
        yield first, second
    finally:
        await first.hub.close()
        await second.hub.close()
        if other is not store:
            await other.close()


async def _moved_elsewhere(first: GameHost, second: GameHost, timer: clock.Timer | None = None):
    """A 2-player Cité game created on ``first``, whose newest move ``second`` wrote;
    the seat now to move and the tokens."""
    people = [SeatSpec(SeatKind.HUMAN), SeatSpec(SeatKind.HUMAN)]
    created = await first.create_game("cite", people, {}, seed=7, timer=timer)
    game_id = created.snapshot.game_id
    tokens = dict([await first.join_game(game_id, seat, "") for seat in (0, 1)])
    view = await second.get_state(game_id, tokens[0])
    mover = view.to_move
    mover_view = await second.get_state(game_id, tokens[mover])
    await second.submitting.submit_action(
        game_id,
        tokens[mover],
        expected_version=view.snapshot.version,
        action=mover_view.legal_actions[0][0],
    )
    after = await second.get_state(game_id, tokens[0])
    return game_id, after.to_move, tokens, after.snapshot


async def test_a_seat_acts_on_the_event_it_watched_with_one_store_read(store, request):
    async with _two_replicas(store, request) as (first, second):
        loads = _CountedLoads(store)
        game_id, seat, tokens, newest = await _moved_elsewhere(first, second)
        loads.on = True
        stream = first.reading.watch(game_id, tokens[seat], newest.last_event_id - 1)
        event, seen = await anext(stream)
        assert event.event_id == newest.last_event_id
        assert seen["legal"]
        assert loads.count == 2  # the stream's opening, then the newest event's position
        view = await first.view_at(game_id, tokens[seat], event.event_id)
        assert view.snapshot.version == newest.version and view.to_move == seat
        assert view.legal_actions == seen["legal"]
        action = seen["legal"][-1][0]
        done = await first.submitting.submit_action(
            game_id, tokens[seat], expected_version=newest.version, action=action
        )
        assert loads.count == 2  # the act and its commit started from the kept position
        assert not done.duplicate and done.version > newest.version
        stored = await second.get_state(game_id, tokens[seat])
        assert stored.snapshot.version == done.version
        await stream.aclose()


async def test_a_kept_position_another_replica_moved_past_is_refused_as_stale(store, request):
    async with _two_replicas(store, request) as (first, second):
        game_id, seat, tokens, newest = await _moved_elsewhere(first, second)
        stream = first.reading.watch(game_id, tokens[seat], newest.last_event_id - 1)
        _, seen = await anext(stream)  # the first replica keeps this position
        await stream.aclose()
        moved = await second.submitting.submit_action(
            game_id, tokens[seat], expected_version=newest.version, action=seen["legal"][0][0]
        )
        with pytest.raises(Aborted, match="stale version"):
            await first.submitting.submit_action(
                game_id, tokens[seat], expected_version=newest.version, action=seen["legal"][0][0]
            )
        after = await second.get_state(game_id, tokens[seat])
        assert after.snapshot.version == moved.version  # nothing applied twice
        # view_at an event the replica no longer holds reads the store: the newest.
        view = await first.view_at(game_id, tokens[seat], newest.last_event_id)
        assert view.snapshot.version == moved.version


async def test_a_timed_game_is_kept_with_the_clock_its_commit_wrote(store, request):
    """A timed game's commit moves its clock on (the ladder's games are all timed):
    the replica keeps the metadata it wrote, so the next seat's watched event, its act
    on it and that act's commit read nothing from the store."""
    async with (
        _two_replicas(store, request) as (first, second),
        contextlib.AsyncExitStack() as open_,
    ):
        loads = _CountedLoads(store)
        game_id, seat, tokens, newest = await _moved_elsewhere(
            first, second, clock.Timer(30.0, 0.0, "random", 0)
        )
        streams = [
            await open_.enter_async_context(
                contextlib.aclosing(
                    first.reading.watch(game_id, tokens[s], newest.last_event_id - 1)
                )
            )
            for s in (0, 1)
        ]
        for stream in streams:  # opened (a store read each), at the newest event
            event, _ = await anext(stream)
            assert event.event_id == newest.last_event_id
        view = await first.view_at(game_id, tokens[seat], newest.last_event_id)
        done = await first.submitting.submit_action(
            game_id, tokens[seat], expected_version=newest.version, action=view.legal_actions[0][0]
        )
        stored = await second.get_state(game_id, tokens[0])
        mover = stored.to_move
        loads.on = True
        event, seen = await anext(streams[mover])
        while event.event_id < stored.snapshot.last_event_id:  # to the newest event
            event, seen = await anext(streams[mover])
        assert seen["version"] == done.version and seen.get("legal")
        view = await first.view_at(game_id, tokens[mover], event.event_id)
        assert view.snapshot.version == stored.snapshot.version == done.version
        assert view.legal_actions == seen["legal"]
        # The kept clock is the one stored: the same deadline for the seat to move.
        assert view.snapshot.info.clock == stored.snapshot.info.clock
        assert view.snapshot.info.clock is not None and view.snapshot.info.clock.seat == mover
        moved = await first.submitting.submit_action(
            game_id, tokens[mover], expected_version=done.version, action=seen["legal"][0][0]
        )
        assert loads.count == 0  # the watch, the act and the commit: all from the kept position
        loads.on = False
        after = await second.get_state(game_id, tokens[mover])
        assert after.snapshot.version == moved.version and not moved.duplicate


async def test_a_commit_is_answered_before_its_event_reaches_this_replicas_watches(store, request):
    """On Redis a commit's event (the watch hub's blocked XREAD) and the commit's own
    reply come back at once, either first. The replica's watches get the event once
    the commit has its reply: the committer is answered first, and the next seat's
    legal actions come from the position the commit wrote, with no store read."""
    async with _two_replicas(store, request) as (first, second):
        loads = _CountedLoads(store)
        game_id, seat, tokens, newest = await _moved_elsewhere(first, second)
        async with contextlib.AsyncExitStack() as open_:
            streams = [
                await open_.enter_async_context(
                    contextlib.aclosing(
                        first.reading.watch(game_id, tokens[s], newest.last_event_id - 1)
                    )
                )
                for s in (0, 1)
            ]
            for stream in streams:
                event, _ = await anext(stream)
                assert event.event_id == newest.last_event_id
            view = await first.view_at(game_id, tokens[seat], newest.last_event_id)
            # Both streams wait for the move's event while it is committed.
            waiting = [asyncio.ensure_future(anext(stream)) for stream in streams]
            delivered = asyncio.gather(*waiting)
            held = asyncio.Event()  # the hub holds the event for the commit's reply
            replied = first.hub.commits.replied

            async def replied_and_tell(sources):
                if game_id in sources:
                    held.set()
                await replied(sources)

            first.hub.commits.replied = replied_and_tell
            writing = store.write

            async def reply_after_the_event(commit):
                # The commit's reply is handled once the hub has its event: held
                # for the reply, or else delivered to both streams.
                done = await writing(commit)
                holding = asyncio.ensure_future(held.wait())
                await asyncio.wait([holding, delivered], return_when=asyncio.FIRST_COMPLETED)
                holding.cancel()
                return done

            store.write = reply_after_the_event
            loads.on = True
            done = await first.submitting.submit_action(
                game_id,
                tokens[seat],
                expected_version=newest.version,
                action=view.legal_actions[0][0],
            )
            events = await delivered
            loads.on = False
            store.write = writing
            stored = await second.get_state(game_id, tokens[0])
            assert stored.snapshot.version == done.version
            event, seen = events[stored.to_move]
            assert event.event_id == stored.snapshot.last_event_id  # the move's one event
            assert seen["legal"] == stored.legal_actions
            assert loads.count == 0  # the legal actions came from the kept position
            assert held.is_set()
