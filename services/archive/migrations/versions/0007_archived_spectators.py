"""Archived games say whether they admitted spectators, so a listing and the export
hold only the games anyone may read (public, spectators admitted:
``services.limits.access.open_to_anyone``). Filled from each game's stored metadata.

Revision ID: 0007_archived_spectators
Revises: 0006_archived_game_version
"""

from __future__ import annotations

import sqlalchemy as sa
import zstandard
from alembic import op

from services.archive import codec
from services.stores.records import GameMeta

revision = "0007_archived_spectators"
down_revision = "0006_archived_game_version"
branch_labels = None
depends_on = None

_games = sa.table(
    "archived_games",
    sa.column("game_id", sa.String),
    sa.column("private", sa.Boolean),
    sa.column("spectators", sa.Boolean),
    sa.column("codec", sa.String),
    sa.column("record", sa.LargeBinary),
)


def _closed(row: sa.Row) -> bool:
    """Whether the archived game's metadata refused spectators (a record that cannot
    be read keeps the default: it was listed as public before, and still is)."""
    try:
        meta = GameMeta.from_dict(codec.unpack(row.record, row.codec)["meta"])
    except (ValueError, KeyError, TypeError, zstandard.ZstdError):
        return False
    return not meta.spectators


def upgrade() -> None:
    # Not in batch mode: SQLite would copy the table, and the copy's drop would delete
    # every seat row (ON DELETE CASCADE). It adds and drops a column in place.
    op.add_column(
        "archived_games",
        sa.Column("spectators", sa.Boolean, nullable=False, server_default=sa.true()),
    )
    connection = op.get_bind()
    # Only public games: a private one is closed to anyone without a token either way.
    public = sa.select(_games.c.game_id, _games.c.codec, _games.c.record).where(
        _games.c.private.is_(False)
    )
    closed = [
        row.game_id
        for row in connection.execute(public.execution_options(yield_per=500))
        if _closed(row)
    ]
    for start in range(0, len(closed), 500):
        connection.execute(
            _games.update()
            .where(_games.c.game_id.in_(closed[start : start + 500]))
            .values(spectators=False)
        )


def downgrade() -> None:
    op.drop_column("archived_games", "spectators")
