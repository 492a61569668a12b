"""The SQL archive's reads and writes: finished games and ended tournaments in,
records and searches out. SQLAlchemy Core on a thread (the engine is synchronous),
so the event loop keeps serving meanwhile."""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from services.archive import codec, database
from services.archive.codec import ArchivedGame
from services.archive.schema import games, seats, tournaments
from services.archive.sql import insert_new, insert_or_ignore
from services.kinds import GAME_ID, EventKind
from services.limits import access
from services.stores import Snapshot, StoredEvent, TournamentSnapshot

# Runs in the transaction that archives a game, once per game (the accounts' ratings:
# ``services.accounts.ratings.rate_archived``); the archive knows no other wing's tables.
ArchivedHook = Callable[[sa.Connection, Snapshot, list[float]], None]

_CACHED_GAMES = 256  # decoded games kept per replica: a replay is read many times
# The times SQL datetimes (and Python's) hold, in Unix seconds: 0001-01-01T00:00:00Z
# to 9999-12-31T23:59:59Z. A time filter outside them cannot be queried.
FIRST_SECOND = -62135596800
LAST_SECOND = 253402300799


def _utc(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds, dt.UTC)


def finished_returns() -> sa.Subquery:
    """Each archived game's id and returns (a JSON list, one per seat): what a wing that
    joins its own rows to archived games in SQL reads (the ladder rates from it), so it
    never knows the archive's tables."""
    return sa.select(games.c.game_id, games.c.returns).subquery("archived")


@dataclass(frozen=True)
class GameQuery:
    """ListGames' filters over the archive (empty: any)."""

    game_type: str = ""
    player: str = ""  # a seat's name (an account's or a guest's)
    account: str = ""  # a seat's account (docs/accounts.md): never a guest's name
    tournament: str = ""
    bot_level: str = ""  # some seat is a bot of this level
    # Only these games (a select of game ids: a ladder participant's, services.ladder)
    only_games: sa.Select | None = None
    finished_after: float | None = None  # Unix seconds, inclusive
    finished_before: float | None = None  # Unix seconds, exclusive
    page_size: int = 50
    page_token: str = ""


@dataclass(frozen=True)
class ArchivedSummary:
    """One archived game as ListGames and export list it."""

    game_id: str
    game_type: str
    players: int
    status: str
    version: int  # the final one
    finished_at: float
    tournament: str
    seats: list[dict[str, str]]  # name, kind, level; an account's seat: account, account_kind
    returns: list[float]


class BadPageToken(ValueError):
    """A page token this archive did not hand out."""


def _page_token(finished_at: dt.datetime, game_id: str) -> str:
    raw = f"{finished_at.timestamp():.6f}|{game_id}".encode()
    return base64.urlsafe_b64encode(raw).decode()


def _parse_page_token(token: str) -> tuple[dt.datetime, str]:
    try:
        at, game_id = base64.urlsafe_b64decode(token.encode()).decode().split("|")
        if not GAME_ID.fullmatch(game_id):  # no forged text reaches the query
            raise ValueError(game_id)
        return _utc(float(at)), game_id
    except Exception:
        raise BadPageToken(
            "page_token is not one this server sent: send next_page_token as received"
        ) from None


def _before_token(
    finished_at: sa.ColumnElement, game_id: sa.ColumnElement, token: str
) -> sa.ColumnElement[bool]:
    """Rows after the page that ``token`` ends, in newest-first order."""
    at, last_id = _parse_page_token(token)
    return sa.or_(finished_at < at, sa.and_(finished_at == at, game_id < last_id))


def _deal_over() -> sa.ColumnElement[bool]:
    """A game that played no shared deal, or whose deal's games are all archived."""
    sibling = games.alias("sibling")
    archived = sa.select(sa.func.count()).where(sibling.c.deal == games.c.deal).scalar_subquery()
    return sa.or_(games.c.deal.is_(None), archived >= games.c.deal_size)


def _seat_of(row: sa.Row) -> dict[str, str]:
    """An archived seat as listings and the export show it; an account's seat names it
    (its kind is the seat's)."""
    seat = {"name": row.name, "kind": row.kind, "level": row.level}
    if row.account:
        seat.update(account=row.account, account_kind=row.kind)
    return seat


def _seats_of_account(account: str) -> sa.Select:
    return sa.select(seats.c.game_id).where(seats.c.account == account)


def _seats_with_level(level: str) -> sa.Select:
    return sa.select(seats.c.game_id).where(seats.c.kind == "bot", seats.c.level == level)


class Archive:
    def __init__(self, engine: sa.Engine, codec_name: str = codec.ZSTD) -> None:
        self.engine = engine
        self.codec = codec_name
        self._cache: OrderedDict[str, ArchivedGame] = OrderedDict()
        self.on_archived: list[ArchivedHook] = []  # the server adds the ratings' hook

    @classmethod
    def open(cls, url: str, *, create: bool = False) -> Archive:
        """The archive at ``url``; raises ``SchemaBehind`` unless its schema is current
        (with ``create``, an archive with no schema yet, or an older one, is upgraded;
        without, a SQLite file that does not exist is ``ArchiveMissing``, not made)."""
        engine = database.make_engine(url, create=create)
        if create:
            database.upgrade(engine)
        try:
            database.check_schema(engine, url)
        except BaseException:
            engine.dispose()
            raise
        return cls(engine)

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------------ games
    async def put_game(
        self,
        snapshot: Snapshot,
        events: list[StoredEvent],
        requests: dict[str, dict[str, Any]] | None = None,
    ) -> bool:
        """Archive a finished game (its complete log, its clients' request results);
        False if it was already there."""
        return await asyncio.to_thread(self._put_game, snapshot, events, requests)

    def _put_game(
        self,
        snapshot: Snapshot,
        events: list[StoredEvent],
        requests: dict[str, dict[str, Any]] | None = None,
    ) -> bool:
        record = codec.encode(snapshot, events, requests)
        meta = snapshot.info
        returns = next(
            (e.data["returns"] for e in reversed(events) if e.data["kind"] == EventKind.FINISHED),
            [],
        )
        # The finishing commit's time (steps.finished_meta); a game finished before
        # the store kept one gets the time it is archived.
        finished_at = _utc(meta.finished_at) if meta.finished_at else dt.datetime.now(dt.UTC)
        row = {
            "game_id": snapshot.game_id,
            "game_type": meta.game_type,
            "players": meta.players,
            "status": snapshot.status,
            "version": snapshot.version,
            "private": meta.private,
            "spectators": meta.spectators,
            "tournament": meta.tournament_name or None,
            "deal": min(meta.deal_games) if meta.deal_games else None,
            "deal_size": len(meta.deal_games) or None,
            "created_at": _utc(meta.created),
            "finished_at": finished_at,
            "returns": json.dumps(returns),
            "codec": self.codec,
            "record": codec.pack(record, self.codec),
        }
        seat_rows = [
            {
                "game_id": snapshot.game_id,
                "seat": index,
                "name": seat.name,
                "kind": str(seat.shown_kind),
                "level": seat.level,
                "finished_at": finished_at,
                "account": seat.account or None,
            }
            for index, seat in enumerate(meta.seats)
        ]
        with self.engine.begin() as connection:
            inserted = insert_new(connection, games, row)
            if inserted and seat_rows:
                connection.execute(insert_or_ignore(connection, seats), seat_rows)
            if inserted:
                for hook in self.on_archived:
                    hook(connection, snapshot, returns)
        return bool(inserted)

    async def played(self, account: str) -> int:
        """How many archived games had a seat of ``account``."""
        count = sa.select(sa.func.count(sa.distinct(seats.c.game_id))).where(
            seats.c.account == account
        )
        return await asyncio.to_thread(self._scalar, count)

    def _scalar(self, statement: sa.Select) -> int:
        with self.engine.connect() as connection:
            return connection.execute(statement).scalar_one()

    async def game(self, game_id: str, cache: bool = True) -> ArchivedGame | None:
        """A game as archived (snapshot and log), None if it is not. ``cache``: keep it
        among the recently read (an export reading everything once does not)."""
        cached = self._cache.get(game_id)
        if cached is not None:
            self._cache.move_to_end(game_id)
            return cached
        found = await asyncio.to_thread(self._game, game_id)
        if found is not None and cache:
            self._cache[game_id] = found
            while len(self._cache) > _CACHED_GAMES:
                self._cache.popitem(last=False)
        return found

    def _game(self, game_id: str) -> ArchivedGame | None:
        with self.engine.connect() as connection:
            row = connection.execute(
                sa.select(games.c.codec, games.c.record).where(games.c.game_id == game_id)
            ).first()
        if row is None:
            return None
        return codec.decode(game_id, codec.unpack(row.record, row.codec))

    async def held(self, game_ids: list[str]) -> set[str]:
        """Those of ``game_ids`` the archive holds."""
        return await asyncio.to_thread(self._held, game_ids)

    def _held(self, game_ids: list[str]) -> set[str]:
        with self.engine.connect() as connection:
            found = connection.execute(
                sa.select(games.c.game_id).where(games.c.game_id.in_(game_ids))
            ).scalars()
            return set(found)

    @staticmethod
    def _by_seat(query: GameQuery, where: list, columns: tuple, limit: int) -> sa.Select:
        """A search by a seat's name (or else its bot level) walks that seat index
        newest first: its rows carry the finish time, so the page's games are the
        index's first rows, each looked up once. A game where the name (or level)
        holds several seats appears once (grouped by game)."""
        if query.player:
            on = [seats.c.name == query.player]
            if query.bot_level:  # both: the name leads, the level is a condition on the game
                on.append(games.c.game_id.in_(_seats_with_level(query.bot_level)))
        else:
            on = [seats.c.kind == "bot", seats.c.level == query.bot_level]
        if query.page_token:
            on.append(_before_token(seats.c.finished_at, seats.c.game_id, query.page_token))
        return (
            sa.select(*columns)
            .select_from(seats.join(games, games.c.game_id == seats.c.game_id))
            .where(*on, *where)
            # games' primary key in the grouping lets its other columns be selected
            .group_by(seats.c.finished_at, seats.c.game_id, games.c.game_id)
            .order_by(seats.c.finished_at.desc(), seats.c.game_id.desc())
            .limit(limit)
        )

    async def find_games(self, query: GameQuery) -> tuple[list[ArchivedSummary], str]:
        """Archived games open to anyone (``access.open_to_anyone``) matching ``query``,
        newest first, and the token of the next page ("" when this is the last). A game
        of a shared deal is held back until every game of the deal is here (all over:
        ``access.log_public``)."""
        return await asyncio.to_thread(self._find_games, query)

    def _find_games(self, query: GameQuery) -> tuple[list[ArchivedSummary], str]:
        size = min(max(query.page_size, 1), 1000)
        where = [games.c[name].is_(value) for name, value in access.OPEN_TO_ANYONE.items()]
        where.append(_deal_over())
        if query.game_type:
            where.append(games.c.game_type == query.game_type)
        if query.tournament:
            where.append(games.c.tournament == query.tournament)
        if query.only_games is not None:
            where.append(games.c.game_id.in_(query.only_games))
        if query.account:
            where.append(games.c.game_id.in_(_seats_of_account(query.account)))
        if query.finished_after is not None:
            where.append(games.c.finished_at >= _utc(query.finished_after))
        if query.finished_before is not None:
            where.append(games.c.finished_at < _utc(query.finished_before))
        columns = (
            games.c.game_id,
            games.c.game_type,
            games.c.players,
            games.c.status,
            games.c.version,
            games.c.tournament,
            games.c.finished_at,
            games.c.returns,
        )
        if query.player or query.bot_level:
            select = self._by_seat(query, where, columns, size + 1)
        else:
            if query.page_token:
                where.append(_before_token(games.c.finished_at, games.c.game_id, query.page_token))
            select = (
                sa.select(*columns)
                .where(*where)
                .order_by(games.c.finished_at.desc(), games.c.game_id.desc())
                .limit(size + 1)
            )
        # One statement: the page (and one game more, for the token) with its seats.
        page_q = select.subquery("page")
        with_seats = (
            sa.select(page_q, seats.c.name, seats.c.kind, seats.c.level, seats.c.account)
            .select_from(page_q.outerjoin(seats, seats.c.game_id == page_q.c.game_id))
            .order_by(page_q.c.finished_at.desc(), page_q.c.game_id.desc(), seats.c.seat)
        )
        rows: dict[str, Any] = {}  # game id -> its row, newest first
        seated: dict[str, list[dict[str, str]]] = {}
        with self.engine.connect() as connection:
            for r in connection.execute(with_seats):
                if r.game_id not in rows:
                    rows[r.game_id], seated[r.game_id] = r, []
                if r.name is not None:
                    seated[r.game_id].append(_seat_of(r))
        page = list(rows.values())[:size]
        found = [
            ArchivedSummary(
                r.game_id,
                r.game_type,
                r.players,
                r.status,
                r.version,
                _aware(r.finished_at).timestamp(),
                r.tournament or "",
                seated[r.game_id],
                json.loads(r.returns),
            )
            for r in page
        ]
        token = (
            _page_token(_aware(page[-1].finished_at), page[-1].game_id) if len(rows) > size else ""
        )
        return found, token

    # ------------------------------------------------------------------ tournaments
    async def put_tournament(self, snapshot: TournamentSnapshot, events: list[StoredEvent]) -> bool:
        return await asyncio.to_thread(self._put_tournament, snapshot, events)

    def _put_tournament(self, snapshot: TournamentSnapshot, events: list[StoredEvent]) -> bool:
        record = {
            "format": codec.FORMAT,
            "record": snapshot.record,
            "status": snapshot.status,
            "tables": {str(k): v for k, v in snapshot.tables.items()},
            "results": {str(k): v for k, v in snapshot.results.items()},
            "entrants": snapshot.entrants,
            "events": [e.data for e in events],
        }
        row = {
            "name": snapshot.name,
            "status": snapshot.status,
            "created_at": _utc(snapshot.record.get("created", 0.0)),
            "ended_at": dt.datetime.now(dt.UTC),
            "codec": self.codec,
            "record": codec.pack(record, self.codec),
        }
        with self.engine.begin() as connection:
            return insert_new(connection, tournaments, row)

    async def tournament(self, name: str) -> tuple[TournamentSnapshot, list[StoredEvent]] | None:
        return await asyncio.to_thread(self._tournament, name)

    def _tournament(self, name: str) -> tuple[TournamentSnapshot, list[StoredEvent]] | None:
        with self.engine.connect() as connection:
            row = connection.execute(
                sa.select(tournaments.c.codec, tournaments.c.record).where(
                    tournaments.c.name == name
                )
            ).first()
        if row is None:
            return None
        data = codec.unpack(row.record, row.codec)
        events = [StoredEvent(i + 1, e) for i, e in enumerate(data["events"])]
        snapshot = TournamentSnapshot(
            name=name,
            record=data["record"],
            status=data["status"],
            tables={int(k): v for k, v in data["tables"].items()},
            results={int(k): v for k, v in data["results"].items()},
            entrants=data["entrants"],
            last_event_id=len(events),
        )
        return snapshot, events

    async def tournament_names(self, limit: int) -> list[str]:
        return await asyncio.to_thread(self._tournament_names, limit)

    def _tournament_names(self, limit: int) -> list[str]:
        with self.engine.connect() as connection:
            return list(
                connection.execute(
                    sa.select(tournaments.c.name)
                    .order_by(tournaments.c.ended_at.desc())
                    .limit(limit)
                ).scalars()
            )


def _aware(at: dt.datetime) -> dt.datetime:
    """SQLite hands back naive datetimes (stored as UTC)."""
    return at if at.tzinfo is not None else at.replace(tzinfo=dt.UTC)
