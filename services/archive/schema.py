"""The archive's tables (SQLAlchemy Core) and the database's one ``metadata``. Alembic
migrations (``migrations/``) make them; a test checks that the head migration makes
exactly the tables on ``metadata``.

    archived_games        one row per finished game: what ListGames filters on, and
                          the compressed compact record (services.archive.codec)
    archived_seats        one row per seat: who played it (name, kind, bot level, account) and
                          when the game finished, so a search by name or level reads
                          the newest games in order from an index
    archived_tournaments  one row per ended tournament: its stored state and log,
                          compressed; its report and standings are rebuilt from them

The ladder's tables live in the same database and on the same ``metadata``
(``sql.metadata``), defined by their owner: ``services/ladder/schema.py``. Neither wing
reads the other's tables: the ladder reads archived returns through
``archive.finished_returns``.
"""

from __future__ import annotations

import sqlalchemy as sa

from services.archive.sql import metadata

games = sa.Table(
    "archived_games",
    metadata,
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("game_type", sa.String(32), nullable=False),
    sa.Column("players", sa.SmallInteger, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    # The final one, as ListGames shows it (0006 fills it in for older rows).
    sa.Column("version", sa.Integer, nullable=False, server_default="0"),
    sa.Column("private", sa.Boolean, nullable=False),
    # admitted spectators: listed and exported only if so (0007_archived_spectators)
    sa.Column("spectators", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("tournament", sa.String(64), nullable=True),
    # The game's deal (the first of GameMeta.deal_games) and its games' count: listed
    # and exported once all of them are here (0009_archived_deals)
    sa.Column("deal", sa.String(32), nullable=True),
    sa.Column("deal_size", sa.SmallInteger, nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("returns", sa.Text, nullable=False),  # JSON list, one per seat
    sa.Column("codec", sa.String(8), nullable=False),
    sa.Column("record", sa.LargeBinary, nullable=False),
    sa.Index("archived_games_finished_at", "finished_at", "game_id"),
    sa.Index("archived_games_type_finished_at", "game_type", "finished_at", "game_id"),
    sa.Index("archived_games_tournament", "tournament"),
    sa.Index("archived_games_deal", "deal"),
)

seats = sa.Table(
    "archived_seats",
    metadata,
    sa.Column(
        "game_id",
        sa.String(32),
        sa.ForeignKey("archived_games.game_id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("seat", sa.SmallInteger, primary_key=True),
    sa.Column("name", sa.String(128), nullable=False),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("level", sa.String(32), nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),  # the game's
    sa.Column("account", sa.String(64), nullable=True),  # the seat's account (None: none)
    sa.Index("archived_seats_name", "name", "finished_at", "game_id"),
    sa.Index("archived_seats_account", "account", "finished_at", "game_id"),
    sa.Index("archived_seats_level", "level", "finished_at", "game_id"),
)

tournaments = sa.Table(
    "archived_tournaments",
    metadata,
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("codec", sa.String(8), nullable=False),
    sa.Column("record", sa.LargeBinary, nullable=False),
    sa.Index("archived_tournaments_ended_at", "ended_at"),
)
