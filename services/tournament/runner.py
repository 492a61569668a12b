"""Runs tournaments unattended: every replica sweeps the store's schedule of running
tournaments (like the bot-turn schedule: claimed with a lease, due again when a
replica dies), and each sweep of one tournament

1. records the result of every table whose game has finished (set-if-absent per
   table, so a result is counted once whoever notices it first),
2. starts tables in schedule order up to ``parallel`` at a time (a swiss round only
   once the rounds before it are complete), and
3. finishes the tournament when every table has its result.

Tables are ordinary games created through ``GameHost.create_game``: bot seats are
played by the bot runner (local pool or Celery) like any game's, and a table of
bots keeps its deal as its seed, so an all-bot tournament replays exactly. An
external seat's move time limit is the table's own turn timer (``services.clock``:
the fallback level plays a move for a seat out of time, marked as a timeout, and
never takes the seat over), swept by every replica's bot runner like any game's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from services import clock, play
from services import events as ev
from services.access import hash_token
from services.bot_runner import cancel_all
from services.host import GameHost, SeatSpec
from services.kinds import EventKind, GameStatus, SeatKind
from services.stores import GameStore, Snapshot, TournamentSnapshot
from services.tournament import records
from services.tournament.model import Definition, Table, TableResult
from services.tournament.records import TournamentEventKind, TournamentStatus
from services.tournament.report import report_json, standings
from services.tournament.schedule import round_count, schedule_round, total_tables

log = logging.getLogger(__name__)

SWISS = "swiss"


def schedulable_tables(defn: Definition, results: dict[int, TableResult]) -> list[Table]:
    """Every table that can be scheduled now, in table order: all rounds, except that
    a swiss round waits for the results of every round before it (its pairing needs
    them; other formats' rounds do not depend on results)."""
    tables: list[Table] = []
    for round_ in range(round_count(defn)):
        if defn.format == SWISS:
            if any(t.index not in results for t in tables):
                break
            before = [results[t.index] for t in sorted(tables, key=lambda t: t.index)]
            tables.extend(schedule_round(defn, round_, before))
        else:
            tables.extend(schedule_round(defn, round_, []))
    return sorted(tables, key=lambda t: t.index)


def progress(
    snapshot: TournamentSnapshot, defn: Definition, also_finished: int | None = None
) -> dict[str, Any]:
    """Games finished of the total, and the time left at the pace so far (counting
    table ``also_finished`` as finished: its result is being recorded)."""
    done = set(snapshot.results) | ({also_finished} if also_finished is not None else set())
    finished = len(done)
    total = total_tables(defn)
    created = snapshot.record.get("created", time.time())
    if snapshot.status == TournamentStatus.RUNNING:
        elapsed = time.time() - created
    else:
        ends = [r.get("finished_at", created) for r in snapshot.results.values()]
        elapsed = max(ends, default=created) - created
    left = elapsed / finished * (total - finished) if finished else 0.0
    running = sum(1 for i in snapshot.tables if i not in done)
    return {
        "finished_games": finished,
        "total_games": total,
        "running_tables": running if snapshot.status == TournamentStatus.RUNNING else 0,
        "elapsed_seconds": max(0.0, elapsed),
        "estimated_seconds_left": max(0.0, left),
    }


def _timeouts_of(events: list[dict[str, Any]], players: int) -> tuple[int, ...]:
    counts = [0] * players
    for data in events:
        if data["kind"] == EventKind.ACTION and data.get("timeout"):
            counts[data["seat"]] += 1
    return tuple(counts)


def _timer(defn: Definition) -> clock.Timer | None:
    """An external seat's move time limit as its table's turn timer (the seat is never
    handed over: every timeout is one fallback move, counted)."""
    if defn.move_time_limit <= 0:
        return None
    return clock.Timer(defn.move_time_limit, 0.0, defn.fallback_level or "random", 0)


class TournamentRunner:
    LEASE = 3.0  # a claimed tournament is swept again by anyone this long after
    SWEEP = 0.25  # how often a running tournament is looked at
    STORE_RETRY = 0.5
    MAX_AT_ONCE = 16  # tournaments one replica sweeps at a time

    def __init__(self, store: GameStore, host: GameHost) -> None:
        self._store = store
        self._host = host
        self._sweeper: asyncio.Task | None = None
        self._active: dict[str, asyncio.Task] = {}
        self._wake = asyncio.Event()
        self._closing = False

    def start(self) -> None:
        if not self._closing and (self._sweeper is None or self._sweeper.done()):
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    def kick(self) -> None:
        """A tournament was created or changed: sweep now rather than at the next tick."""
        self.start()
        self._wake.set()

    async def _sweep(self) -> None:
        while not self._closing:
            timeout = self.SWEEP
            try:
                for name, task in list(self._active.items()):
                    if task.done():
                        del self._active[name]
                room = self.MAX_AT_ONCE - len(self._active)
                if room > 0:
                    for name in await self._store.claim_tournaments(room, self.LEASE):
                        if name not in self._active:
                            self._active[name] = asyncio.get_running_loop().create_task(
                                self._advance_and_release(name)
                            )
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the store is down: try again shortly, never stop
                log.warning("tournament sweep failed: %s: %s", type(exc).__name__, exc)
                timeout = self.STORE_RETRY
            self._wake.clear()
            woken = asyncio.ensure_future(self._wake.wait())
            try:
                await asyncio.wait({woken}, timeout=timeout)
            finally:
                woken.cancel()

    async def _advance_and_release(self, name: str) -> None:
        try:
            await self.advance(name)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the lease runs out and a sweep (maybe elsewhere) retries
            log.warning("tournament %s: sweep failed: %s: %s", name, type(exc).__name__, exc)
            return
        with contextlib.suppress(Exception):
            await self._store.renew_tournament(name, self.SWEEP)

    # ------------------------------------------------------------------ one sweep
    async def advance(self, name: str) -> None:
        snapshot = await self._store.load_tournament(name)
        if snapshot is None or snapshot.status != TournamentStatus.RUNNING:
            return
        defn = records.definition_of(snapshot)
        results = {i: records.result_from(d) for i, d in snapshot.results.items()}
        for index in sorted(snapshot.tables):
            if index in results:
                continue
            started = snapshot.tables[index]
            game = await self._store.load(started["game_id"])
            if game is None:
                log.warning("tournament %s: table %d's game is gone", name, index)
                continue
            if game.status == GameStatus.FINISHED:
                result = await self._result(defn, records.table_from(started["table"]), game)
                if await self._record(snapshot, defn, result):
                    results[index] = result
        if len(results) > len(snapshot.results):
            snapshot = await self._store.load_tournament(name) or snapshot
        running = sum(1 for i in snapshot.tables if i not in results)
        for table in schedulable_tables(defn, results):
            if running >= max(1, defn.parallel):
                break
            if table.index in snapshot.tables:
                continue
            await self._start(defn, table)
            await self._store.renew_tournament(name, self.LEASE)  # still ours
            running += 1
        if len(results) >= total_tables(defn):
            await self._finish(name, defn)

    async def _result(self, defn: Definition, table: Table, game: Snapshot) -> TableResult:
        returns = tuple(play.load_state(game).returns())
        timeouts: tuple[int, ...] = (0,) * defn.players
        if defn.move_time_limit > 0:  # only timed tables have timeouts (marked in the log)
            timeouts = _timeouts_of(await self._log(game.game_id), defn.players)
        return TableResult(table, returns, game.game_id, timeouts)

    async def _log(self, game_id: str) -> list[dict[str, Any]]:
        logged: list[dict[str, Any]] = []
        after = 0
        while batch := await self._store.events(game_id, after):
            logged.extend(e.data for e in batch)
            after = batch[-1].event_id
        return logged

    async def _record(
        self, snapshot: TournamentSnapshot, defn: Definition, result: TableResult
    ) -> bool:
        """Record one table's result once, with a table-finished and a standings event."""
        index = result.table.index
        ordered = [records.result_from(snapshot.results[i]) for i in sorted(snapshot.results)]
        ordered = sorted([*ordered, result], key=lambda r: r.table.index)
        report = report_json(defn, standings(defn, ordered))
        after = progress(snapshot, defn, also_finished=index)
        table_event = {
            "kind": TournamentEventKind.TABLE_FINISHED,
            "table": self._table_event(defn, result.table, result.game_id),
            "returns": list(result.returns),
            "timeouts": list(result.timeouts),
            "progress": after,
        }
        standings_event = {
            "kind": TournamentEventKind.STANDINGS_UPDATED,
            "standings": report["standings"],
            "progress": after,
        }
        return await self._store.finish_table(
            snapshot.name,
            index,
            records.result_json(result, time.time()),
            [table_event, standings_event],
        )

    @staticmethod
    def _table_event(defn: Definition, table: Table, game_id: str) -> dict[str, Any]:
        return {
            **records.table_json(table),
            "entrants": [defn.entrants[e].name for e in table.seats],
            "game_id": game_id,
        }

    async def _start(self, defn: Definition, table: Table) -> str:
        seats = []
        for entrant_index in table.seats:
            entrant = defn.entrants[entrant_index]
            if entrant.level:
                seats.append(SeatSpec(SeatKind.BOT, entrant.level, entrant.name))
            else:
                seats.append(SeatSpec(SeatKind.HUMAN, name=entrant.name))
        view = await self._host.create_game(
            defn.game,
            seats,
            dict(defn.options),
            seed=table.deal,
            tournament={"name": defn.name, "round": table.round, "table": table.index},
            deal_key=f"tournament:{defn.name}:deal:{table.deal}",
            deal_stream=defn.duplicate,
            timer=_timer(defn),
        )
        game_id = view.snapshot.game_id
        secret = await self._store.secret()
        for seat, entrant_index in enumerate(table.seats):
            entrant = defn.entrants[entrant_index]
            if not entrant.level:
                token = records.seat_token(secret, defn.name, entrant.name, game_id, seat)
                to_move = view.state.current_player()
                joined = ev.joined_event(seat, entrant.name, view.snapshot.version, to_move)
                await self._store.claim_seat(game_id, seat, hash_token(token), joined)
        event = {
            "kind": TournamentEventKind.TABLE_STARTED,
            "table": self._table_event(defn, table, game_id),
        }
        record = {"game_id": game_id, "table": records.table_json(table)}
        if not await self._store.start_table(defn.name, table.index, record, [event]):
            # Another replica started it first: this game is left over, unplayed by
            # anyone counted; the tournament uses the other one.
            log.info("tournament %s: table %d was started elsewhere", defn.name, table.index)
        return game_id

    async def _finish(self, name: str, defn: Definition) -> None:
        snapshot = await self._store.load_tournament(name)
        if snapshot is None:
            return
        report = report_json(defn, standings(defn, records.ordered_results(snapshot)))
        event = {
            "kind": TournamentEventKind.FINISHED,
            "standings": report["standings"],
            "progress": progress(snapshot, defn),
        }
        await self._store.set_tournament_status(name, TournamentStatus.FINISHED, [event])

    async def close(self) -> None:
        self._closing = True
        await cancel_all([*self._active.values(), self._sweeper])
        self._active.clear()
