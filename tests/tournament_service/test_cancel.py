"""CancelTournament ends play: every running table game is FINISHED, abandoned (the
record, the state and the GAME_FINISHED event say so), no bot turn is applied after
it and no action is taken; a cancel written by a replica that died before ending the
games is carried out by the next replica's sweep, with no client calling in; and a bot
turn being decided when its game is abandoned is dropped."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from gamehost import Client, GameError
from gamehost.v1 import gamehost_pb2 as pb
from services.bots.bot_runner import BotExecutor, BotRunner
from services.kinds import EventKind, FinishReason, GameStatus
from services.play.host import GameHost, SeatSpec
from services.server import ServerConfig, ServerThread
from services.stores.memory import MemoryStore
from services.tournament.records import TournamentEventKind
from services.turns import steps
from tests.procs import wait_until
from tests.tournament_service.test_api import definition

SEARCHING = [("a", "mcts-fast"), ("b", "mcts-fast")]  # tables that take a while


def started_tables(client: Client, name: str, count: int) -> list[pb.TournamentTable]:
    return wait_until(
        lambda: len(tables := client.tournament(name).tables) >= count and tables,
        120,
        f"{count} tables of {name} started",
    )


def assert_every_table_game_ended(server: ServerThread, client: Client, name: str) -> None:
    """Every table game of ``name`` is over; those without a result were abandoned where
    they stood (a table whose game played out just before the cancel may have no result
    yet: it ended on its own); no bot turn is pending or applied after the end."""
    store = server.running.store
    tables = client.tournament(name).tables
    abandoned = 0
    for table in tables:
        record = client.record(table.game_id)
        assert record.status == pb.FINISHED, table
        if table.finished or record.finish_reason == pb.PLAYED_OUT:
            assert sum(record.returns) == pytest.approx(1.0)
            continue
        abandoned += 1
        assert record.finish_reason == pb.ABANDONED and list(record.returns) == []
        state = client.state(table.game_id)
        assert state.status == pb.FINISHED and state.finish_reason == pb.ABANDONED
        assert state.to_move.kind == pb.Actor.NOBODY and not state.legal_actions
        assert server.call(store.bot_turn_due_in(table.game_id)) is None  # nothing queued
    assert abandoned, "no table game was running at the cancel"
    server.call(server.running.runner.idle())  # no decision left in flight here
    for table in tables:
        events = server.call(store.events(table.game_id))
        last = events[-1].data
        assert last["kind"] == EventKind.FINISHED  # nothing was applied after the end
        assert server.call(store.load(table.game_id)).version == last["version"]
        if last.get("reason") == FinishReason.ABANDONED:
            finished = list(client.watch(table.game_id))[-1]
            assert finished.kind == pb.GAME_FINISHED and finished.finish_reason == pb.ABANDONED


def test_a_cancel_ends_every_running_table_game(served):
    server, client = served
    client.create_tournament(definition("stopped", entrants=SEARCHING, games=4, parallel=4))
    started_tables(client, "stopped", 4)
    cancelled = client.cancel_tournament("stopped")
    assert cancelled.status == pb.TOURNAMENT_CANCELLED
    assert_every_table_game_ended(server, client, "stopped")
    events = list(client.watch_tournament("stopped"))
    assert events[-1].kind == pb.TournamentEvent.TOURNAMENT_CANCELLED
    with pytest.raises(GameError) as again:
        client.cancel_tournament("stopped")
    assert again.value.code == grpc.StatusCode.FAILED_PRECONDITION


def test_an_abandoned_table_takes_no_more_actions(memory_served):
    """Tables waiting on an external entrant (deterministic: nobody moves for it) are
    ended by the cancel; its seat token's move is then refused."""
    server, client = memory_served
    entrants = [("ext", ""), ("bot", "random")]
    client.create_tournament(definition("waiting", entrants=entrants, games=2, parallel=2))
    token = client.join_tournament("waiting", "ext")
    started_tables(client, "waiting", 2)
    seats = client.tournament_seats("waiting", token)
    client.cancel_tournament("waiting")
    assert_every_table_game_ended(server, client, "waiting")
    for seat in seats:
        with pytest.raises(GameError) as refused:
            client.submit(seat.game_id, seat.seat_token, 0)
        assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION
        assert "over" in refused.value.details


def test_a_cancel_whose_replica_died_is_carried_out_by_the_next_one(redis_url, redis_prefix):
    """The cancel's status is written and the replica dies before ending the games (the
    status written straight into the store, by no server): the next replica started on
    the store ends every table game with no client calling in."""
    config = ServerConfig(port=0, redis_url=redis_url, redis_prefix=redis_prefix, bot_workers=1)
    entrants = [("ext", ""), ("bot", "random")]
    with ServerThread(config) as first, Client(first.target) as client:
        client.create_tournament(definition("orphaned", entrants=entrants, games=2, parallel=2))
        tables = started_tables(client, "orphaned", 2)
        store = first.running.store
        first.call(first.running.tournaments.close())  # this replica sweeps no more
        cancel = [{"kind": TournamentEventKind.CANCELLED}]
        assert first.call(store.set_tournament_status("orphaned", "cancelled", cancel, True))
        for table in tables:
            assert first.call(store.load(table.game_id)).status == GameStatus.IN_PROGRESS
    with ServerThread(config) as second, Client(second.target) as client:
        store = second.running.store

        def games_over() -> bool:
            loaded = [second.call(store.load(t.game_id)) for t in tables]
            return all(s.status == GameStatus.FINISHED for s in loaded)

        wait_until(games_over, 60, "the next replica's sweep to end the table games")
        assert_every_table_game_ended(second, client, "orphaned")


class SearchesForever(BotExecutor):
    """A decision that never ends unless cancelled: a search queued or running."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def decide(self, turn, lease) -> int:
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        raise AssertionError("unreachable")


async def test_a_turn_being_decided_is_dropped_when_its_game_is_abandoned():
    """Abandoned by another replica (no call reaches this one): the runner's heartbeat
    finds the turn gone from the schedule and stops deciding it."""
    store = MemoryStore()
    executor = SearchesForever()
    runner = BotRunner(store, executor)
    host = GameHost(store, runner)
    try:
        bots = [SeatSpec("bot", "random"), SeatSpec("bot", "random")]
        created = await host.create_game("cite", bots, {})
        game_id = created.snapshot.game_id
        await asyncio.wait_for(executor.started.wait(), 60)
        assert await steps.abandon(store, game_id, "a test")
        await asyncio.wait_for(executor.cancelled.wait(), 60)
        await asyncio.wait_for(runner.idle(), 60)
        snapshot = await store.load(game_id)
        assert snapshot.status == GameStatus.FINISHED
        assert snapshot.version == created.snapshot.version + 1
        assert await store.bot_turn_due_in(game_id) is None
        assert await steps.abandon(store, game_id, "again")  # already over: nothing written
        assert (await store.load(game_id)).last_event_id == snapshot.last_event_id
    finally:
        await runner.close()
        await store.close()
