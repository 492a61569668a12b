"""Runs tournaments unattended: every replica sweeps the store's schedule of running
tournaments (like the bot-turn schedule: claimed with a lease, due again when a
replica dies), and each sweep of one tournament

1. records the result of every table whose game has finished (set-if-absent per
   table, so a result is counted once whoever notices it first),
2. starts tables in schedule order up to ``parallel`` at a time (a swiss round only
   once the rounds before it are complete), and
3. finishes the tournament when every table has its result.

A cancelled tournament stays in the schedule until a sweep has ended every table game
it may have started (``steps.abandon``: FINISHED, reason abandoned, its queued bot turns
dropped), so a cancel holds whichever replica dies, and whenever.

Tables are ordinary games created through ``GameHost.create_game``: bot seats are
played by the bot runner (local pool or Celery) like any game's, and a table of
bots keeps its deal as its seed, so an all-bot tournament replays exactly. An
external seat's move time limit is the table's own turn timer (``services.turns.clock``:
the fallback level plays a move for a seat out of time, marked as a timeout, and
never takes the seat over), swept by every replica's bot runner like any game's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any, Protocol

from games import State
from services import times
from services.bots.bot_runner import cancel_all
from services.errors import AlreadyExists, NotFound
from services.kinds import EventKind, GameStatus, SeatKind
from services.limits.access import hash_token
from services.play.host import GameHost, SeatSpec
from services.stores import (
    Deployment,
    GameLog,
    Lease,
    Leases,
    Snapshot,
    TournamentSnapshot,
    TournamentStore,
)
from services.stores.leases import TOURNAMENTS
from services.sweeps import Wake
from services.tournament import records
from services.tournament.bounds import TournamentBounds
from services.tournament.model import Definition, Table, TableResult
from services.tournament.records import TournamentEventKind, TournamentStatus
from services.tournament.report import report_json, standings
from services.tournament.schedule import round_count, schedule_round, total_tables
from services.turns import clock, steps
from services.watch import events as ev

log = logging.getLogger(__name__)


class TableStore(GameLog, TournamentStore, Leases, Deployment, Protocol):
    """What the runner uses: tournaments, their table games, the seeds' secret."""


SWISS = "swiss"
GAME_LOST = "its game was deleted before it finished (expired, or by hand)"


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


PACE_WINDOW = 10  # the pace is taken over the last this many table ends


def seconds_left(created: float, ends: list[float], total: int, parallel: int, now: float) -> float:
    """The time left at the observed pace: the mean time between the last
    ``PACE_WINDOW`` table ends (after the first end alone: its time from the start
    over the tables run at once), times the tables left, less the time since the last
    end. Recent ends only, so a stop (every replica down a while) soon stops counting.
    0 before the first end and after the last."""
    done = len(ends)
    if not done or done >= total:
        return 0.0
    ends = sorted(ends)
    if done == 1:
        per_table = (ends[0] - created) / max(1, min(parallel, total))
    else:
        recent = ends[-(PACE_WINDOW + 1) :]
        per_table = (recent[-1] - recent[0]) / (len(recent) - 1)
    return max(0.0, per_table * (total - done) - max(0.0, now - ends[-1]))


def progress(
    snapshot: TournamentSnapshot,
    defn: Definition,
    recording: dict[int, dict[str, Any]] | None = None,
    now: float | None = None,
) -> dict[str, Any]:
    """Games finished and failed of the total, tables running, time elapsed and the
    time left (``recording``: results being written now, counted as already there).
    Progress only: it depends on the clock, so no report ever holds it."""
    now = time.time() if now is None else now
    results = {**snapshot.results, **(recording or {})}
    failed = sum(1 for r in results.values() if r.get("error"))
    total = total_tables(defn)
    created = snapshot.record.get("created", now)
    ends = [r.get("finished_at", created) for r in results.values()]
    running = snapshot.status == TournamentStatus.RUNNING
    elapsed = (now if running else max(ends, default=created)) - created
    left = seconds_left(created, ends, total, defn.parallel, now) if running else 0.0
    return {
        "finished_games": len(results) - failed,
        "failed_games": failed,
        "total_games": total,
        "running_tables": sum(1 for i in snapshot.tables if i not in results) if running else 0,
        "elapsed_seconds": max(0.0, elapsed),
        "estimated_seconds_left": left,
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
    SWEEP = times.TOURNAMENT_SWEEP_SECONDS
    STORE_RETRY = times.TOURNAMENT_STORE_RETRY_SECONDS
    MAX_AT_ONCE = 16  # tournaments one replica sweeps at a time

    def __init__(
        self, store: TableStore, host: GameHost, bounds: TournamentBounds | None = None
    ) -> None:
        self._store = store
        self._host = host
        self._bounds = bounds or TournamentBounds()
        self._sweeper: asyncio.Task | None = None
        self._active: dict[str, asyncio.Task] = {}
        self._held: dict[str, Lease] = {}  # tournament -> this runner's lease on its sweep
        self._wake = Wake()
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
                    for lease in await self._store.claim(TOURNAMENTS, room, self.LEASE):
                        if lease.job not in self._active:
                            self._held[lease.job] = lease
                            self._active[lease.job] = asyncio.get_running_loop().create_task(
                                self._advance_and_release(lease.job)
                            )
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the store is down: try again shortly, never stop
                log.warning("tournament sweep failed: %s: %s", type(exc).__name__, exc)
                timeout = self.STORE_RETRY
            await self._wake.clear_and_wait(timeout)

    async def _advance_and_release(self, name: str) -> None:
        try:
            await self.advance(name)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the lease runs out and a sweep (maybe elsewhere) retries
            log.warning("tournament %s: sweep failed: %s: %s", name, type(exc).__name__, exc)
            return
        finally:
            lease = self._held.pop(name, None)
        if lease is not None:
            with contextlib.suppress(Exception):
                await self._store.renew(lease, self.SWEEP)

    async def _renew(self, name: str, seconds: float) -> None:
        """Hold the tournament ``seconds`` more, if this runner's sweep holds it."""
        lease = self._held.get(name)
        if lease is not None:
            renewed = await self._store.renew(lease, seconds)
            if renewed is None:
                del self._held[name]  # lost: its sweep goes on, writing set-if-absent only
            else:
                self._held[name] = renewed

    # ------------------------------------------------------------------ one sweep
    async def advance(self, name: str) -> None:
        snapshot = await self._store.load_tournament(name)
        if snapshot is None:
            return
        if snapshot.status == TournamentStatus.CANCELLED:
            await self.stop_tables(snapshot)
            await self._store.unschedule_tournament(name)  # every table game has ended
            return
        if snapshot.status != TournamentStatus.RUNNING:
            return
        defn = records.definition_of(snapshot)
        results = {i: records.result_from(d) for i, d in snapshot.results.items()}
        for index in sorted(snapshot.tables):
            if index in results:
                continue
            started = snapshot.tables[index]
            table = records.table_from(started["table"])
            game = await self._table_game(started["game_id"])
            if game is None:
                # Deleted before its end (expired, or by hand): the table failed. It
                # counts as an error, never in the standings; the tournament goes on.
                log.warning("tournament %s: table %d's game is gone", name, index)
                lost = TableResult(table, (), started["game_id"], error=GAME_LOST)
                if await self._record(snapshot, defn, lost):
                    results[index] = lost
            elif game.status == GameStatus.FINISHED:
                state = steps.load_state(game)
                if not state.is_terminal():
                    continue  # abandoned by a cancel this sweep started before: no result
                result = await self._result(defn, table, game, state)
                if await self._record(snapshot, defn, result):
                    results[index] = result
        if len(results) > len(snapshot.results):
            snapshot = await self._store.load_tournament(name) or snapshot
        running = sum(1 for i in snapshot.tables if i not in results)
        at_once = self._bounds.tables_at_once(defn)
        for table in schedulable_tables(defn, results):
            if running >= at_once:
                break
            if table.index in snapshot.tables:
                continue
            await self.start_table(snapshot, defn, table)
            await self._renew(name, self.LEASE)  # still ours
            running += 1
        if len(results) >= total_tables(defn):
            await self._finish(name, defn)

    async def _result(
        self, defn: Definition, table: Table, game: Snapshot, state: State
    ) -> TableResult:
        returns = tuple(state.returns())
        timeouts: tuple[int, ...] = (0,) * defn.players
        if defn.move_time_limit > 0:  # only timed tables have timeouts (marked in the log)
            timeouts = _timeouts_of(await self._log(game), defn.players)
        return TableResult(table, returns, game.game_id, timeouts)

    async def _log(self, game: Snapshot) -> list[dict[str, Any]]:
        return [e.data async for e in self._host.reading.logged(game)]

    async def _table_game(self, game_id: str) -> Snapshot | None:
        """A table's game, from the store or (finished, archived and forgotten by the
        store moments after its end) from the archive; None when it is in neither."""
        try:
            return await self._host.load(game_id)
        except NotFound:
            return None

    async def _record(
        self, snapshot: TournamentSnapshot, defn: Definition, result: TableResult
    ) -> bool:
        """Record one table's result once, with a table-finished and a standings event."""
        index = result.table.index
        ordered = [records.result_from(snapshot.results[i]) for i in sorted(snapshot.results)]
        ordered = sorted([*ordered, result], key=lambda r: r.table.index)
        report = report_json(defn, standings(defn, ordered))
        data = records.result_json(result, time.time())
        after = progress(snapshot, defn, {index: data})
        table_event = {
            "kind": TournamentEventKind.TABLE_FINISHED,
            "table": self._table_event(defn, result.table, result.game_id),
            "returns": list(result.returns),
            "timeouts": list(result.timeouts),
            "progress": after,
        }
        if result.error:
            table_event["error"] = result.error
        standings_event = {
            "kind": TournamentEventKind.STANDINGS_UPDATED,
            "standings": report["standings"],
            "progress": after,
        }
        return await self._store.finish_table(
            snapshot.name, index, data, [table_event, standings_event]
        )

    @staticmethod
    def _table_event(defn: Definition, table: Table, game_id: str) -> dict[str, Any]:
        return {
            **records.table_json(table),
            "entrants": [defn.entrants[e].name for e in table.seats],
            "game_id": game_id,
        }

    async def start_table(
        self, snapshot: TournamentSnapshot, defn: Definition, table: Table
    ) -> str:
        """Create the table's game under its own id (or find it, when another replica
        or an earlier sweep that died created it first), then record the table as
        started: whoever wins that record, it names the one game."""
        secret = await self._store.secret()
        game_id = records.table_game_id(secret, snapshot, table.index)
        deal_games: list[str] = []  # a duplicate group's P tables, at consecutive indices
        if defn.duplicate:
            group = range(table.group * defn.players, (table.group + 1) * defn.players)
            deal_games = [records.table_game_id(secret, snapshot, i) for i in group]
        seats = []
        for entrant_index in table.seats:
            entrant = defn.entrants[entrant_index]
            if entrant.level:
                seats.append(SeatSpec(SeatKind.BOT, entrant.level, entrant.name))
            else:
                seats.append(SeatSpec(SeatKind.HUMAN, name=entrant.name))
        try:
            view = await self._host.create_game(
                defn.game,
                seats,
                dict(defn.options),
                seed=table.deal,
                tournament={"name": defn.name, "round": table.round, "table": table.index},
                deal_key=f"tournament:{defn.name}:deal:{table.deal}",
                deal_stream=defn.duplicate,
                deal_games=deal_games,
                game_id=game_id,
                timer=_timer(defn),
            )
            snapshot_version, to_move = view.snapshot.version, view.state.current_player()
        except AlreadyExists:
            game = await self._store.load(game_id)
            if game is None:  # gone again at once (expired): the next sweep sees to it
                return game_id
            snapshot_version, to_move = game.version, steps.load_state(game).current_player()
        for seat, entrant_index in enumerate(table.seats):
            entrant = defn.entrants[entrant_index]
            if not entrant.level:
                # Set-if-absent: a seat the first creator claimed stays as it was.
                token = records.seat_token(secret, defn.name, entrant.name, game_id, seat)
                joined = ev.joined_event(seat, entrant.name, snapshot_version, to_move)
                await self._store.claim_seat(game_id, seat, hash_token(token), joined)
        event = {
            "kind": TournamentEventKind.TABLE_STARTED,
            "table": self._table_event(defn, table, game_id),
        }
        record = {"game_id": game_id, "table": records.table_json(table)}
        if not await self._store.start_table(defn.name, table.index, record, [event]):
            # Another replica recorded it first, with the same game: nothing is left over.
            log.info("tournament %s: table %d was started elsewhere", defn.name, table.index)
        now = await self._store.load_tournament(defn.name)
        if now is None or now.status == TournamentStatus.CANCELLED:
            # Cancelled while this game was being made. A cancel's sweep that looked before
            # the game existed missed it; this look comes after it existed, so it is seen.
            await self._abandon(game_id, defn.name)
        return game_id

    async def stop_tables(self, snapshot: TournamentSnapshot) -> None:
        """End every table game of a cancelled tournament that is still being played:
        the started tables without a result, and the next tables a sweep racing the
        cancel may have made a game for (their ids are known before they exist)."""
        defn = records.definition_of(snapshot)
        results = {i: records.result_from(d) for i, d in snapshot.results.items()}
        game_ids = [t["game_id"] for i, t in sorted(snapshot.tables.items()) if i not in results]
        secret = await self._store.secret()
        unstarted = [t for t in schedulable_tables(defn, results) if t.index not in snapshot.tables]
        for table in unstarted[: self._bounds.tables_at_once(defn)]:
            game_ids.append(records.table_game_id(secret, snapshot, table.index))
        for game_id in game_ids:
            await self._abandon(game_id, snapshot.name)

    async def _abandon(self, game_id: str, name: str) -> None:
        if await steps.abandon(self._store, game_id, f"tournament {name} was cancelled"):
            self._host.runner.drop_turn(game_id)  # this replica's search stops now

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
