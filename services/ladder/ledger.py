"""Ladder games, their seats and the ratings, in the archive (``ladder_games``,
``ladder_seats``, ``ladder_ratings``).

A ladder game is written here *before* it is made in the store (``pending``), marked
``playing`` once it exists, and ``rated`` once its result, read from the archive's
copy of the finished game, has moved the ratings (or ``failed``: lost before its end).
So a matchmaker that dies at any point leaves every game findable: the next one makes
a pending game (its id is fixed, so never twice) and rates a finished one once. Every
write the matchmaker makes here is fenced by its lease (``lease.fence``).

A quick-play game with a registered bot's seat is written here too, as ``quick``
(by the quick-play matchmaker, under its own lease, once the game is made and the
bot's seat claimed): its bot's runner is fed it like a ladder game, and the ladder's
matchmaker looks after it (an absent bot's seat goes to the fallback level, a lost
game fails), and marks it ``played`` once archived. It is rated by the archive's hook
(``services.accounts.ratings``), never here, and it is no duplicate set: the
standings and a bot's ladder history leave it out."""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import sqlalchemy as sa

from services.archive.archive import finished_returns
from services.archive.sql import insert_new
from services.ladder import lease
from services.ladder.schema import ladder_games, ladder_ratings, ladder_seats
from services.tournament.intervals import over_deals
from services.tournament.ratings import new_rating, rate_game, rating

PENDING, PLAYING, RATED, FAILED = "pending", "playing", "rated", "failed"
QUICK, PLAYED = "quick", "played"  # a quick-play game a bot plays; over (rated elsewhere)
OPEN = (PENDING, PLAYING, QUICK)
FED = (PLAYING, QUICK)  # the games a bot's runner is fed


@dataclass(frozen=True)
class LadderSeat:
    name: str
    level: str  # the house level it plays; "" for a registered bot

    @property
    def house(self) -> bool:
        return bool(self.level)


@dataclass(frozen=True)
class PlannedGame:
    game_id: str
    set_id: str
    rotation: int
    deal: int
    validation: bool
    seats: tuple[LadderSeat, ...]


@dataclass(frozen=True)
class OpenGame:
    game: PlannedGame
    status: str  # PENDING, PLAYING or QUICK
    created_at: float
    returns: list[float] | None  # from the archive, once the finished game is there


@dataclass(frozen=True)
class RatingRow:
    name: str
    level: str
    mu: float
    sigma: float
    games: int
    points: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class StandingRow:
    bot: str
    level: str
    games: int
    mu: float
    sigma: float
    ordinal: float
    win_share: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class SeatHistory:
    """One rated (or validation) game of a participant, newest first."""

    game_id: str
    ladder: str
    seat: int
    finished_at: float
    returned: float
    mu: float | None  # None: a validation game (not rated)
    sigma: float | None
    opponents: tuple[str, ...]


def _utc(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds, dt.UTC)


def _seconds(at: dt.datetime | None) -> float:
    if at is None:
        return 0.0
    return (at if at.tzinfo is not None else at.replace(tzinfo=dt.UTC)).timestamp()


class Ledger:
    def __init__(self, engine: sa.Engine, lease_seconds: float) -> None:
        self.engine = engine
        self.lease_seconds = lease_seconds

    def _fenced(self, connection: sa.Connection, ladder: str, holder: str, now: float) -> bool:
        return lease.fence(connection, lease_name(ladder), holder, self.lease_seconds, now)

    # ------------------------------------------------------------------ the matchmaker's
    def add(self, ladder: str, holder: str, planned: Sequence[PlannedGame], now: float) -> bool:
        """Write new games as pending (one set, or a validation game); False when the
        lease was lost (nothing written)."""
        with self.engine.begin() as connection:
            if not self._fenced(connection, ladder, holder, now):
                return False
            for game in planned:
                connection.execute(
                    sa.insert(ladder_games).values(
                        game_id=game.game_id,
                        ladder=ladder,
                        set_id=game.set_id,
                        rotation=game.rotation,
                        deal=game.deal,
                        validation=game.validation,
                        status=PENDING,
                        created_at=_utc(now),
                    )
                )
                connection.execute(
                    sa.insert(ladder_seats),
                    [
                        {"game_id": game.game_id, "seat": i, "name": s.name, "level": s.level}
                        for i, s in enumerate(game.seats)
                    ],
                )
        return True

    def add_quick(
        self,
        ladder: str,
        fencing: tuple[str, str, float],
        game_id: str,
        seats: Sequence[LadderSeat],
        now: float,
    ) -> bool:
        """Write a quick-play game a bot plays (once: a second call finds it written),
        fenced by the quick-play matchmaker's lease (``fencing``: its name, the holder
        and its seconds); False when that lease was lost (nothing written)."""
        name, holder, seconds = fencing
        with self.engine.begin() as connection:
            if not lease.fence(connection, name, holder, seconds, now):
                return False
            row = {
                "game_id": game_id,
                "ladder": ladder,
                "set_id": game_id,  # a set of its own
                "rotation": 0,
                "deal": 0,
                "validation": False,
                "status": QUICK,
                "created_at": _utc(now),
            }
            if insert_new(connection, ladder_games, row):
                connection.execute(
                    sa.insert(ladder_seats),
                    [
                        {"game_id": game_id, "seat": i, "name": s.name, "level": s.level}
                        for i, s in enumerate(seats)
                    ],
                )
        return True

    def open_games(self, ladder: str) -> list[OpenGame]:
        """Pending and playing games (quick-play ones too), oldest first, each with its
        archived returns once the archive has the finished game."""
        archived = finished_returns()
        query = (
            sa.select(
                ladder_games,
                archived.c.returns.label("archived_returns"),
                ladder_seats.c.seat,
                ladder_seats.c.name,
                ladder_seats.c.level,
            )
            .select_from(
                ladder_games.join(
                    ladder_seats, ladder_seats.c.game_id == ladder_games.c.game_id
                ).outerjoin(archived, archived.c.game_id == ladder_games.c.game_id)
            )
            .where(ladder_games.c.ladder == ladder, ladder_games.c.status.in_(OPEN))
            .order_by(ladder_games.c.created_at, ladder_games.c.game_id, ladder_seats.c.seat)
        )
        rows: dict[str, list[sa.Row]] = {}
        with self.engine.connect() as connection:
            for row in connection.execute(query):
                rows.setdefault(row.game_id, []).append(row)
        found = []
        for seated in rows.values():
            first = seated[0]
            game = PlannedGame(
                first.game_id,
                first.set_id,
                first.rotation,
                first.deal,
                first.validation,
                tuple(LadderSeat(r.name, r.level) for r in seated),
            )
            returns = json.loads(first.archived_returns) if first.archived_returns else None
            found.append(OpenGame(game, first.status, _seconds(first.created_at), returns))
        return found

    def set_status(
        self, ladder: str, holder: str, game_id: str, status: str, before: str, now: float
    ) -> bool:
        """Move a game from ``before`` to ``status`` (fenced); True if it moved."""
        with self.engine.begin() as connection:
            if not self._fenced(connection, ladder, holder, now):
                return False
            values: dict = {"status": status}
            if status == FAILED:
                values["finished_at"] = _utc(now)
            return bool(
                connection.execute(
                    sa.update(ladder_games)
                    .where(ladder_games.c.game_id == game_id, ladder_games.c.status == before)
                    .values(**values)
                ).rowcount
            )

    def rate(
        self, ladder: str, holder: str, game: PlannedGame, returns: Sequence[float], now: float
    ) -> bool:
        """Record a finished game's returns and, unless it is a validation game, move
        its seats' ratings (openskill Plackett-Luce), all in one fenced transaction;
        False when the lease was lost or the game was rated already."""
        names = [s.name for s in game.seats]
        with self.engine.begin() as connection:
            if not self._fenced(connection, ladder, holder, now):
                return False
            moved = connection.execute(
                sa.update(ladder_games)
                .where(ladder_games.c.game_id == game.game_id, ladder_games.c.status == PLAYING)
                .values(status=RATED, finished_at=_utc(now))
            ).rowcount
            if not moved:
                return False
            after: list[tuple[float | None, float | None]] = [(None, None)] * len(names)
            if not game.validation:
                current = {
                    r.name: r
                    for r in connection.execute(
                        sa.select(ladder_ratings).where(
                            ladder_ratings.c.ladder == ladder, ladder_ratings.c.name.in_(names)
                        )
                    )
                }
                before = [
                    rating(current[n].mu, current[n].sigma) if n in current else new_rating(n)
                    for n in names
                ]
                rated = rate_game(before, returns)
                for index, (seat, value, new) in enumerate(
                    zip(game.seats, returns, rated, strict=True)
                ):
                    name = seat.name
                    after[index] = (new.mu, new.sigma)
                    if name in current:
                        connection.execute(
                            sa.update(ladder_ratings)
                            .where(ladder_ratings.c.ladder == ladder, ladder_ratings.c.name == name)
                            .values(
                                mu=new.mu,
                                sigma=new.sigma,
                                games=ladder_ratings.c.games + 1,
                                points=ladder_ratings.c.points + value,
                            )
                        )
                    else:
                        connection.execute(
                            sa.insert(ladder_ratings).values(
                                ladder=ladder,
                                name=name,
                                level=seat.level,
                                kind="house" if seat.house else "bot",
                                mu=new.mu,
                                sigma=new.sigma,
                                games=1,
                                points=value,
                            )
                        )
            for index, value in enumerate(returns):
                mu, sigma = after[index]
                connection.execute(
                    sa.update(ladder_seats)
                    .where(ladder_seats.c.game_id == game.game_id, ladder_seats.c.seat == index)
                    .values(returned=value, mu=mu, sigma=sigma, finished_at=_utc(now))
                )
        return True

    # ------------------------------------------------------------------ reads
    def archived_returns(self, game_id: str) -> list[float] | None:
        """The returns of the archive's copy of a game (None: not archived)."""
        archived = finished_returns()
        with self.engine.connect() as connection:
            found = connection.execute(
                sa.select(archived.c.returns).where(archived.c.game_id == game_id)
            ).scalar()
        return None if found is None else json.loads(found)

    def ratings(self, ladder: str) -> dict[str, RatingRow]:
        with self.engine.connect() as connection:
            return {
                r.name: RatingRow(r.name, r.level, r.mu, r.sigma, r.games, r.points)
                for r in connection.execute(
                    sa.select(ladder_ratings).where(
                        ladder_ratings.c.ladder == ladder, ladder_ratings.c.kind != "human"
                    )
                )
            }

    def playing(self, names: Iterable[str]) -> dict[str, list[tuple[str, int, str]]]:
        """The games being played by each of ``names`` (quick-play ones too): name ->
        [(game id, seat, ladder)]."""
        names = list(names)
        found: dict[str, list[tuple[str, int, str]]] = defaultdict(list)
        if not names:
            return found
        query = (
            sa.select(
                ladder_seats.c.name,
                ladder_seats.c.game_id,
                ladder_seats.c.seat,
                ladder_games.c.ladder,
            )
            .select_from(
                ladder_seats.join(ladder_games, ladder_games.c.game_id == ladder_seats.c.game_id)
            )
            .where(ladder_seats.c.name.in_(names), ladder_games.c.status.in_(FED))
            .order_by(ladder_games.c.created_at, ladder_seats.c.game_id)
        )
        with self.engine.connect() as connection:
            for row in connection.execute(query):
                found[row.name].append((row.game_id, row.seat, row.ladder))
        return found

    def games_since(self, ladder: str, since: float) -> dict[str, int]:
        """The games (validation games aside) each bot of ``ladder`` was seated in from
        ``since`` (Unix seconds) on: name -> games."""
        query = (
            sa.select(ladder_seats.c.name, sa.func.count())
            .select_from(
                ladder_seats.join(ladder_games, ladder_games.c.game_id == ladder_seats.c.game_id)
            )
            .where(
                ladder_games.c.ladder == ladder,
                ladder_games.c.validation.is_(False),
                ladder_games.c.created_at >= _utc(since),
                ladder_seats.c.level == "",
            )
            .group_by(ladder_seats.c.name)
        )
        with self.engine.connect() as connection:
            return {name: games for name, games in connection.execute(query)}

    def seats_of(self, game_id: str, name: str) -> list[int]:
        """The seats ``name`` holds in ladder game ``game_id`` (none: not its game)."""
        with self.engine.connect() as connection:
            return list(
                connection.execute(
                    sa.select(ladder_seats.c.seat).where(
                        ladder_seats.c.game_id == game_id, ladder_seats.c.name == name
                    )
                ).scalars()
            )

    def standings(self, ladder: str, hidden: Iterable[str] = ()) -> list[StandingRow]:
        """Everyone rated on ``ladder`` (but ``hidden``: revoked bots), best ordinal
        first. The win share is the mean over duplicate sets of the participant's mean
        return in each; its 95% interval is over sets (``intervals.over_deals``)."""
        hidden = set(hidden)
        by_set = (
            sa.select(
                ladder_seats.c.name,
                ladder_games.c.set_id,
                sa.func.avg(ladder_seats.c.returned).label("mean"),
            )
            .select_from(
                ladder_seats.join(ladder_games, ladder_games.c.game_id == ladder_seats.c.game_id)
            )
            .where(
                ladder_games.c.ladder == ladder,
                ladder_games.c.status == RATED,
                ladder_games.c.validation.is_(False),
            )
            .group_by(ladder_seats.c.name, ladder_games.c.set_id)
        )
        means: dict[str, list[float]] = defaultdict(list)
        with self.engine.connect() as connection:
            for row in connection.execute(by_set):
                means[row.name].append(float(row.mean))
        rows = []
        for r in self.ratings(ladder).values():
            if r.name in hidden:
                continue
            shares = means.get(r.name, [])
            share = sum(shares) / len(shares) if shares else 0.0
            low, high = over_deals(shares)
            rows.append(
                StandingRow(r.name, r.level, r.games, r.mu, r.sigma, r.ordinal, share, low, high)
            )
        rows.sort(key=lambda s: (-s.ordinal, s.bot))
        return rows

    def history(self, name: str, limit: int) -> list[SeatHistory]:
        """``name``'s finished ladder games (rated and validation), newest first."""
        mine = (
            sa.select(ladder_seats, ladder_games.c.ladder)
            .select_from(
                ladder_seats.join(ladder_games, ladder_games.c.game_id == ladder_seats.c.game_id)
            )
            .where(ladder_seats.c.name == name, ladder_seats.c.finished_at.is_not(None))
            .order_by(ladder_seats.c.finished_at.desc(), ladder_seats.c.game_id.desc())
            .limit(limit)
        )
        with self.engine.connect() as connection:
            rows = list(connection.execute(mine))
            others: dict[str, list[str]] = defaultdict(list)
            if rows:
                for r in connection.execute(
                    sa.select(ladder_seats.c.game_id, ladder_seats.c.name)
                    .where(ladder_seats.c.game_id.in_([r.game_id for r in rows]))
                    .order_by(ladder_seats.c.game_id, ladder_seats.c.seat)
                ):
                    if r.name != name:
                        others[r.game_id].append(r.name)
        return [
            SeatHistory(
                r.game_id,
                r.ladder,
                r.seat,
                _seconds(r.finished_at),
                r.returned,
                r.mu,
                r.sigma,
                tuple(others[r.game_id]),
            )
            for r in rows
        ]

    def game_ids(self, name: str) -> list[str]:
        """Every finished ladder game ``name`` played (``gamehost export --bot``)."""
        with self.engine.connect() as connection:
            return list(
                connection.execute(
                    sa.select(ladder_seats.c.game_id)
                    .select_from(
                        ladder_seats.join(
                            ladder_games, ladder_games.c.game_id == ladder_seats.c.game_id
                        )
                    )
                    .where(ladder_seats.c.name == name, ladder_games.c.status == RATED)
                    .order_by(ladder_seats.c.finished_at.desc())
                ).scalars()
            )


def lease_name(ladder: str) -> str:
    return f"ladder:{ladder}"
