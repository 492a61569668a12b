"""The ladder's tables (SQLAlchemy Core; docs/ladder.md), in the archive's database and
on its one ``metadata``, so its Alembic migrations (``services/archive/migrations``)
make them too:

    ladder_bots           one row per registered bot (an account of kind bot:
                          ``services.accounts.schema``, which keeps its key): its ladder, its
                          status (and why), its moves and faults, and whether a runner
                          is connected (which session, how many sets at once, until when)
    ladder_ratings        the accounts' ``ratings`` table (``services.accounts.schema``),
                          which holds every participant's openskill rating
    ladder_games          one row per ladder game: its duplicate set, rotation and deal,
                          whether it is a validation game, and where it stands
    ladder_seats          one row per seat of a ladder game: who played it, the return,
                          and the rating after it (a bot's rating over time)
    ladder_leases         the matchmaker's lease per ladder: who holds it, until when
"""

from __future__ import annotations

import sqlalchemy as sa

from services.accounts.schema import ratings as ladder_ratings
from services.archive.sql import metadata

__all__ = [
    "games_of",
    "ladder_bots",
    "ladder_games",
    "ladder_leases",
    "ladder_ratings",
    "ladder_seats",
]

ladder_bots = sa.Table(
    "ladder_bots",
    metadata,
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("ladder", sa.String(48), nullable=False),  # "cite:2"
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("owner", sa.String(64), nullable=False),  # the registering client (quotas' id)
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("moves", sa.Integer, nullable=False),  # moves the bot made itself
    sa.Column("faults_in_row", sa.Integer, nullable=False),
    sa.Column("late", sa.Integer, nullable=False),
    sa.Column("garbage", sa.Integer, nullable=False),
    sa.Column("illegal", sa.Integer, nullable=False),
    sa.Column("missing", sa.Integer, nullable=False),
    sa.Column("session", sa.String(32), nullable=False),  # the connected runner's ("": none)
    sa.Column("slots", sa.SmallInteger, nullable=False),  # sets at once it takes
    sa.Column("connected_until", sa.Float, nullable=False),  # Unix seconds (0: never)
    sa.Index("ladder_bots_ladder", "ladder", "status"),
)

ladder_games = sa.Table(
    "ladder_games",
    metadata,
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("ladder", sa.String(48), nullable=False),
    sa.Column("set_id", sa.String(32), nullable=False),  # the duplicate set (one deal)
    sa.Column("rotation", sa.SmallInteger, nullable=False),
    sa.Column("deal", sa.BigInteger, nullable=False),  # the set's seed
    sa.Column("validation", sa.Boolean, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),  # pending, playing, rated, failed
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ladder_games_status", "status", "ladder"),
    sa.Index("ladder_games_set", "set_id"),
)

ladder_seats = sa.Table(
    "ladder_seats",
    metadata,
    sa.Column(
        "game_id",
        sa.String(32),
        sa.ForeignKey("ladder_games.game_id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("seat", sa.SmallInteger, primary_key=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("level", sa.String(32), nullable=False),  # a house level; "" for a bot
    sa.Column("returned", sa.Float, nullable=True),  # set once the game is rated
    sa.Column("mu", sa.Float, nullable=True),  # the rating after this game
    sa.Column("sigma", sa.Float, nullable=True),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ladder_seats_name", "name", "finished_at"),
)

ladder_leases = sa.Table(
    "ladder_leases",
    metadata,
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("holder", sa.String(64), nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),  # Unix seconds
)


def games_of(participant: str) -> sa.Select:
    """The ids of the ladder games ``participant`` (a bot or a house level) played: the
    archive's export keeps only these (``export_lines``' ``games_of``)."""
    return sa.select(ladder_seats.c.game_id).where(ladder_seats.c.name == participant)
