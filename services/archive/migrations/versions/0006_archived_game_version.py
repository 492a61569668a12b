"""Archived games carry their final version, so ListGames shows a finished game's
version from the archive as it did from the store (not 0). Filled archives take it
from each game's record, which has always kept it.

Revision ID: 0006_archived_game_version
Revises: 0005_ladder_pace_tails
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from services.archive import codec

revision = "0006_archived_game_version"
down_revision = "0005_ladder_pace_tails"
branch_labels = None
depends_on = None

_games = sa.table(
    "archived_games",
    sa.column("game_id", sa.String),
    sa.column("codec", sa.String),
    sa.column("record", sa.LargeBinary),
    sa.column("version", sa.Integer),
)


def upgrade() -> None:
    # Not a batch (SQLite would copy the table, and dropping the old one would cascade
    # to archived_seats): a plain column with a default, filled in next.
    op.add_column(
        "archived_games",
        sa.Column("version", sa.Integer, nullable=False, server_default="0"),
    )
    connection = op.get_bind()
    select = sa.select(_games.c.game_id, _games.c.codec, _games.c.record)
    rows = connection.execute(select.execution_options(yield_per=500))
    versions = [
        {"id": row.game_id, "version": codec.unpack(row.record, row.codec)["version"]}
        for row in rows
    ]
    if versions:
        connection.execute(
            _games.update()
            .where(_games.c.game_id == sa.bindparam("id"))
            .values(version=sa.bindparam("version")),
            versions,
        )


def downgrade() -> None:
    op.drop_column("archived_games", "version")  # SQLite 3.35 and later drop it in place
