"""Tournament calls, independent of gRPC: create (or resume by name), read, list,
watch, join as an external entrant, and cancel. The runner does the playing; these
only read and write the store. Failures are ``services.errors`` exceptions."""

from __future__ import annotations

import contextlib
import hmac
import json
import re
import secrets
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from bots.levels import get_level
from games import GameError, game_names, get_game
from games.base import quote_input
from services.archive.archive import Archive
from services.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    Unauthenticated,
)
from services.play.host import hash_token
from services.stores import (
    Deployment,
    StoredEvent,
    TournamentLog,
    TournamentSnapshot,
    TournamentStore,
)
from services.tournament import records
from services.tournament.bounds import TournamentBounds
from services.tournament.model import Definition
from services.tournament.records import ENDING, TournamentEventKind, TournamentStatus
from services.tournament.report import (
    game_line,
    report_json,
    standings,
    standings_table,
    write_csvs,
)
from services.tournament.runner import TournamentRunner, progress
from services.tournament.schedule import validate
from services.turns import clock
from services.watch.hub import WatchHub

_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")


class TournamentSide(TournamentStore, Deployment, Protocol):
    """What the service uses: the tournaments, and the seeds' secret."""


@dataclass(frozen=True)
class TournamentView:
    """A tournament with its report, as GetTournament answers it."""

    snapshot: TournamentSnapshot
    definition: Definition
    progress: dict[str, Any]
    report: dict[str, Any]  # report_json: the CLI's last line
    standings_text: str
    crosstable: str  # crosstable.csv
    exports: dict[str, str]  # file name -> contents (write_csvs), when asked for


def check_definition(defn: Definition) -> None:
    """INVALID_ARGUMENT for anything the schedule, the game or a level refuses."""
    if not _NAME.fullmatch(defn.name):
        raise InvalidArgument(
            f"tournament name {quote_input(defn.name)}: use 1-64 letters, digits, '.', '_' or '-'"
        )
    if defn.game not in game_names():
        raise InvalidArgument(
            f"unknown game type {quote_input(defn.game)}; choose one of: {', '.join(game_names())}"
        )
    game = get_game(defn.game)
    try:
        game.check_players(defn.players)
        game.parse_options(dict(defn.options))
    except GameError as exc:
        raise InvalidArgument(str(exc)) from None
    for entrant in defn.entrants:
        if entrant.level:
            try:
                get_level(entrant.level)
            except ValueError as exc:
                raise InvalidArgument(f"entrant {quote_input(entrant.name)}: {exc}") from None
    try:
        get_level(defn.fallback_level or "random")
    except ValueError as exc:
        raise InvalidArgument(f"fallback level: {exc}") from None
    if not (defn.move_time_limit == 0 or 0 < defn.move_time_limit <= clock.MAX_MOVE_SECONDS):
        raise InvalidArgument(
            f"move_time_limit must be 0 (none) or more seconds, at most {clock.MAX_MOVE_SECONDS:g}"
        )
    try:
        validate(defn)
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None


def _canonical(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True)


class TournamentService:
    def __init__(
        self,
        store: TournamentSide,
        runner: TournamentRunner,
        hub: WatchHub,
        bounds: TournamentBounds | None = None,
        archive: Archive | None = None,
    ) -> None:
        self.store = store
        self.archive = archive  # ended tournaments the store has forgotten are read from it
        self.runner = runner
        self.hub = hub  # the replica's shared event reader, WatchGame's too
        self.bounds = bounds or TournamentBounds()

    async def create(self, defn: Definition) -> TournamentView:
        """A new tournament; the same definition under an existing name is that
        tournament (a rerun resumes it), another definition is ALREADY_EXISTS."""
        self.bounds.check(defn)  # first: a huge definition is refused before any work
        check_definition(defn)
        record = {"definition": defn.to_dict(), "created": time.time()}
        created = await self.store.create_tournament(
            defn.name, record, TournamentStatus.RUNNING, []
        )
        if not created:
            existing = await self._load(defn.name)
            if _canonical(existing.record["definition"]) != _canonical(defn.to_dict()):
                raise AlreadyExists(
                    f"a tournament named {defn.name} exists with another definition: "
                    "choose another name, or repeat its definition to resume it"
                )
        self.runner.kick()
        return await self.get(defn.name)

    async def _load(self, name: str) -> TournamentSnapshot:
        return (await self._load_any(name))[0]

    async def _load_any(self, name: str) -> tuple[TournamentSnapshot, list[StoredEvent] | None]:
        """The tournament, from the store or else the archive (then with its whole log)."""
        if not _NAME.fullmatch(name or ""):
            raise InvalidArgument(
                f"malformed tournament name {quote_input(name)}: "
                "1-64 letters, digits, '.', '_' or '-'"
            )
        snapshot = await self.store.load_tournament(name)
        if snapshot is not None:
            return snapshot, None
        archived = await self.archive.tournament(name) if self.archive is not None else None
        if archived is None:
            raise NotFound(f"no tournament {name}")
        return archived

    async def get(self, name: str, include_exports: bool = False) -> TournamentView:
        snapshot = await self._load(name)
        defn = records.definition_of(snapshot)
        results = records.ordered_results(snapshot)
        report = standings(defn, results)
        files = self._exports(report, results, defn)  # the crosstable comes from here too
        return TournamentView(
            snapshot,
            defn,
            progress(snapshot, defn),
            report_json(defn, report),
            standings_table(report),
            files.get("crosstable.csv", ""),
            files if include_exports else {},
        )

    @staticmethod
    def _exports(report: Any, results: list, defn: Definition) -> dict[str, str]:
        """The report's files: what ``write_csvs`` writes, read back as text, and
        games.jsonl (one ``game_line`` per finished table, in table order)."""
        with tempfile.TemporaryDirectory(prefix="tournament-") as directory:
            write_csvs(report, results, defn, directory)
            files = {p.name: p.read_text() for p in sorted(Path(directory).iterdir())}
        files["games.jsonl"] = "".join(json.dumps(game_line(r, defn)) + "\n" for r in results)
        return files

    async def list(self, limit: int) -> list[TournamentView]:
        """The store's tournaments, newest first, then ended ones only the archive has."""
        limit = min(max(limit, 1), 1000) if limit else 100
        names = await self.store.list_tournaments(limit)
        if self.archive is not None and len(names) < limit:
            archived = await self.archive.tournament_names(limit)
            names += [n for n in archived if n not in names][: limit - len(names)]
        found = []
        for name in names:
            snapshot = await self.store.load_tournament(name)
            if snapshot is None and self.archive is not None:
                archived_one = await self.archive.tournament(name)
                snapshot = archived_one[0] if archived_one is not None else None
            if snapshot is not None:
                defn = records.definition_of(snapshot)
                found.append(
                    TournamentView(snapshot, defn, progress(snapshot, defn), {}, "", "", {})
                )
        return found

    async def cancel(self, name: str) -> TournamentView:
        """Start no more tables and end the running ones' games (abandoned). The status
        change keeps the tournament in the sweep schedule, so if this replica dies
        before the games are ended, another replica's sweep ends them."""
        snapshot = await self._load(name)
        event = {"kind": TournamentEventKind.CANCELLED}
        cancelled = TournamentStatus.CANCELLED
        if not await self.store.set_tournament_status(name, cancelled, [event], keep_swept=True):
            raise FailedPrecondition(f"tournament {name} is {snapshot.status}, not running")
        await self.runner.advance(name)  # ends the table games now, as any sweep would
        return await self.get(name)

    # ------------------------------------------------------------------ external entrants
    async def join(self, name: str, entrant: str) -> str:
        snapshot = await self._load(name)
        defn = records.definition_of(snapshot)
        declared = {e.name: e for e in defn.entrants}
        if entrant not in declared:
            raise InvalidArgument(
                f"tournament {name} has no entrant {quote_input(entrant)}; "
                f"its entrants: {', '.join(declared)}"
            )
        if declared[entrant].level:
            raise FailedPrecondition(
                f"entrant {entrant} is a bot ({declared[entrant].level}); join an external entrant"
            )
        token = secrets.token_urlsafe(24)
        if not await self.store.claim_entrant(name, entrant, hash_token(token)):
            raise AlreadyExists(f"entrant {entrant} of tournament {name} has already joined")
        return token

    @staticmethod
    def _entrant_of(snapshot: TournamentSnapshot, token: str) -> str | None:
        if not token:
            return None
        digest = hash_token(token)
        for name, stored in snapshot.entrants.items():
            if hmac.compare_digest(stored, digest):
                return name
        raise Unauthenticated(f"the entrant token is not valid for tournament {snapshot.name}")

    async def seats(self, name: str, token: str) -> list[dict[str, Any]]:
        """Every table seating the token's entrant: game id, seat and seat token."""
        snapshot = await self._load(name)
        entrant = self._entrant_of(snapshot, token)
        if entrant is None:
            raise Unauthenticated("this call needs an entrant token: get one from JoinTournament")
        secret = await self.store.secret()
        defn = records.definition_of(snapshot)
        found = []
        for index in sorted(snapshot.tables):
            started = snapshot.tables[index]
            seats = started["table"]["seats"]
            for seat, entrant_index in enumerate(seats):
                if defn.entrants[entrant_index].name == entrant:
                    found.append(
                        {
                            "table": index,
                            "game_id": started["game_id"],
                            "seat": seat,
                            "seat_token": records.seat_token(
                                secret, name, entrant, started["game_id"], seat
                            ),
                            "finished": index in snapshot.results,
                        }
                    )
        return found

    # ------------------------------------------------------------------ watching
    async def watch(
        self, name: str, after: int, token: str = ""
    ) -> AsyncIterator[tuple[StoredEvent, dict[str, Any]]]:
        """Events after ``after``; ends after the tournament's last (finished or
        cancelled). With an entrant token, a started table that seats the entrant
        carries ``seat`` and ``seat_token``."""
        snapshot, archived_log = await self._load_any(name)
        entrant = self._entrant_of(snapshot, token)
        running = snapshot.status == TournamentStatus.RUNNING
        if after > snapshot.last_event_id:
            if not running:
                return  # resumed past the end: nothing more will come
            raise InvalidArgument(
                f"after_event_id {after} is past this tournament's newest event "
                f"{snapshot.last_event_id}: resume from an event id the server sent"
            )
        secret = await self.store.secret() if entrant else b""
        async with contextlib.AsyncExitStack() as stack:
            if running:  # live: through the replica's one shared reader (watch_hub)
                source = TournamentLog(name)
                events: AsyncIterator[StoredEvent] = await stack.enter_async_context(
                    self.hub.subscribe(source, after, snapshot.last_event_id)
                )
            elif archived_log is not None:  # from the archive
                events = _after(archived_log, after)
            else:
                events = self._logged(name, after)  # a replay: the log is complete
            async for event in events:
                data = dict(event.data)
                if entrant and data["kind"] == TournamentEventKind.TABLE_STARTED:
                    table = data["table"]
                    with contextlib.suppress(ValueError):
                        seat = table["entrants"].index(entrant)
                        data["seat"] = seat
                        data["seat_token"] = records.seat_token(
                            secret, name, entrant, table["game_id"], seat
                        )
                yield event, data
                if data["kind"] in ENDING:
                    return

    async def _logged(self, name: str, after: int) -> AsyncIterator[StoredEvent]:
        """The stored log after ``after``, page by page, up to its current end."""
        while batch := await self.store.tournament_events(name, after):
            for event in batch:
                yield event
            after = batch[-1].event_id


async def _after(log: list[StoredEvent], after: int) -> AsyncIterator[StoredEvent]:
    for event in log:
        if event.event_id > after:
            yield event
