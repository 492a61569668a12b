"""Ratings for everyone (docs/accounts.md, "Ratings"): every account and house level has
an openskill rating per game and player count, on the ladder's scale (the same model,
``services.tournament.ratings``, and the same table, ``schema.ratings``).

A game is rated when it was made rated (quick play, or CreateGame ``rated``) and every
seat is an account's or a house level's. It is rated in the transaction that archives
it (``rate_archived``, the archive's hook), so once: a game is archived once, and its
``rating_changes`` rows are its mark besides."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import sqlalchemy as sa

from services.accounts.schema import rating_changes, ratings
from services.archive.schema import games
from services.archive.sql import insert_or_ignore
from services.kinds import SeatControl
from services.limits import access
from services.stores import Snapshot
from services.stores.records import GameMeta
from services.tournament.ratings import new_rating, rate_game, rating


class RatingKind(StrEnum):
    HUMAN = "human"
    BOT = "bot"  # a bot account (registered with RegisterBot)
    HOUSE = "house"  # a house level, rated under its level's name


@dataclass(frozen=True)
class Participant:
    name: str
    level: str  # a house level; "" for an account
    kind: RatingKind


@dataclass(frozen=True)
class Rating:
    ladder: str  # "GAME:PLAYERS"
    name: str
    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def game_type(self) -> str:
        return self.ladder.partition(":")[0]

    @property
    def players(self) -> int:
        return int(self.ladder.partition(":")[2])


@dataclass(frozen=True)
class RatingChange:
    """One seat's rating move in one rated game."""

    game_id: str
    seat: int
    name: str
    ladder: str
    returned: float
    mu_before: float
    sigma_before: float
    mu: float
    sigma: float
    rated_at: float  # Unix seconds

    @property
    def ordinal_change(self) -> float:
        return (self.mu - 3 * self.sigma) - (self.mu_before - 3 * self.sigma_before)


@dataclass(frozen=True)
class RatingPoint:
    """An account's rating after one rated game: a point of its rating over time."""

    game_id: str
    rated_at: float  # Unix seconds
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


# The points GetAccount gives per game and player count: the newest rated games'.
HISTORY_POINTS = 100


def ladder_of(game_type: str, players: int) -> str:
    return f"{game_type}:{players}"


# A house level's seat: made so, or added to a free seat; a guest's seat handed to a bot
# stays a guest's.
_HOUSE_SEATS = (SeatControl.AS_CREATED, SeatControl.ADDED)


def participants(meta: GameMeta) -> list[Participant] | None:
    """Who a game's seats rate, in seat order; None when a seat is neither an
    account's nor a house level's (a guest's: the game is not rated)."""
    found = []
    for seat in meta.seats:
        if seat.account:
            kind = RatingKind.BOT if seat.account_kind == "bot" else RatingKind.HUMAN
            found.append(Participant(seat.account, "", kind))
        elif seat.is_bot and seat.control in _HOUSE_SEATS and not seat.runner:
            found.append(Participant(seat.level, seat.level, RatingKind.HOUSE))
        else:
            return None
    return found


def rate_archived(connection: sa.Connection, snapshot: Snapshot, returns: Sequence[float]) -> None:
    """The archive's hook, in the transaction that archives a finished game: rate it
    when it is a rated game (its seats' ratings move, each seat's change is kept)."""
    meta = snapshot.info
    seated = participants(meta) if meta.rated else None
    if not seated or len(returns) != len(seated):
        return
    ladder = ladder_of(meta.game_type, meta.players)
    names = sorted({p.name for p in seated})
    for p in seated:  # a newcomer's row first, so every row can be locked
        fresh = new_rating(p.name)
        row = {"ladder": ladder, "name": p.name, "level": p.level, "kind": str(p.kind)}
        row.update(mu=fresh.mu, sigma=fresh.sigma, games=0, points=0.0)
        connection.execute(insert_or_ignore(connection, ratings).values(row))
    current = {
        r.name: r
        for r in connection.execute(
            sa.select(ratings)
            .where(ratings.c.ladder == ladder, ratings.c.name.in_(names))
            .order_by(ratings.c.name)
            .with_for_update()  # PostgreSQL: another game's rating of the same row waits
        )
    }
    before = [rating(current[p.name].mu, current[p.name].sigma) for p in seated]
    after = rate_game(before, returns)
    now = dt.datetime.now(dt.UTC)
    rows = [
        {
            "game_id": snapshot.game_id,
            "seat": seat,
            "name": p.name,
            "ladder": ladder,
            "returned": float(value),
            "mu_before": old.mu,
            "sigma_before": old.sigma,
            "mu": new.mu,
            "sigma": new.sigma,
            "rated_at": now,
        }
        for seat, (p, value, old, new) in enumerate(
            zip(seated, returns, before, after, strict=True)
        )
    ]
    written = connection.execute(
        insert_or_ignore(connection, rating_changes).values(rows).returning(rating_changes.c.seat)
    ).all()
    if len(written) != len(rows):  # rated before (a replayed archive): nothing moves
        return
    moved: set[str] = set()
    for row in rows:
        if row["name"] in moved:  # a house level in several seats moves by its first
            continue
        moved.add(row["name"])
        connection.execute(
            sa.update(ratings)
            .where(ratings.c.ladder == ladder, ratings.c.name == row["name"])
            .values(
                mu=row["mu"],
                sigma=row["sigma"],
                games=ratings.c.games + 1,
                points=ratings.c.points + row["returned"],
            )
        )


def _seconds(at: dt.datetime) -> float:
    return (at if at.tzinfo is not None else at.replace(tzinfo=dt.UTC)).timestamp()


def rating_change(engine: sa.Engine, game_id: str, name: str) -> RatingChange | None:
    """The rating change of account (or house level) ``name`` in rated game
    ``game_id``: None when the game was not rated (yet) or ``name`` held no seat."""
    with engine.connect() as connection:
        row = connection.execute(
            sa.select(rating_changes)
            .where(rating_changes.c.game_id == game_id, rating_changes.c.name == name)
            .order_by(rating_changes.c.seat)
        ).first()
    if row is None:
        return None
    return RatingChange(
        row.game_id,
        row.seat,
        row.name,
        row.ladder,
        row.returned,
        row.mu_before,
        row.sigma_before,
        row.mu,
        row.sigma,
        _seconds(row.rated_at),
    )


def ratings_of(engine: sa.Engine, name: str) -> list[Rating]:
    """``name``'s ratings, one per game and player count it was rated in."""
    with engine.connect() as connection:
        rows = connection.execute(
            sa.select(ratings)
            .where(ratings.c.name == name, ratings.c.games > 0)
            .order_by(ratings.c.ladder)
        ).all()
    return [Rating(r.ladder, r.name, r.mu, r.sigma, r.games) for r in rows]


def ladder_ratings(engine: sa.Engine, ladder: str, names: Sequence[str]) -> dict[str, Rating]:
    """The ratings on ``ladder`` of ``names`` that have one (a newcomer has none)."""
    with engine.connect() as connection:
        rows = connection.execute(
            sa.select(ratings).where(ratings.c.ladder == ladder, ratings.c.name.in_(list(names)))
        ).all()
    return {r.name: Rating(r.ladder, r.name, r.mu, r.sigma, r.games) for r in rows}


def history_of(
    engine: sa.Engine, name: str, ladders: Sequence[str], limit: int = HISTORY_POINTS
) -> dict[str, list[RatingPoint]]:
    """``name``'s rating after each of its newest ``limit`` rated games on each of
    ``ladders``, oldest first (its first seat's row when it held several). A game not
    open to anyone (private, or no spectators) keeps its point without its id: bulk
    reads hold such games back (``access.open_to_anyone``)."""
    first = rating_changes.alias("first")
    first_seat = (
        sa.select(sa.func.min(first.c.seat))
        .where(first.c.game_id == rating_changes.c.game_id, first.c.name == name)
        .scalar_subquery()
    )
    is_open = sa.and_(*[games.c[f].is_(v) for f, v in access.OPEN_TO_ANYONE.items()])
    found: dict[str, list[RatingPoint]] = {}
    with engine.connect() as connection:
        for ladder in ladders:
            rows = connection.execute(
                sa.select(rating_changes, is_open.label("open"))
                .select_from(
                    rating_changes.outerjoin(games, games.c.game_id == rating_changes.c.game_id)
                )
                .where(
                    rating_changes.c.name == name,
                    rating_changes.c.ladder == ladder,
                    rating_changes.c.seat == first_seat,
                )
                .order_by(rating_changes.c.rated_at.desc(), rating_changes.c.game_id.desc())
                .limit(limit)
            ).all()
            found[ladder] = [
                RatingPoint(r.game_id if r.open else "", _seconds(r.rated_at), r.mu, r.sigma)
                for r in reversed(rows)
            ]
    return found
