"""The archive: finished games, their seats, ended tournaments.

Revision ID: 0001_archive
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_archive"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "archived_games",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("game_type", sa.String(32), nullable=False),
        sa.Column("players", sa.SmallInteger, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("private", sa.Boolean, nullable=False),
        sa.Column("tournament", sa.String(64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("returns", sa.Text, nullable=False),
        sa.Column("codec", sa.String(8), nullable=False),
        sa.Column("record", sa.LargeBinary, nullable=False),
    )
    op.create_index("archived_games_finished_at", "archived_games", ["finished_at", "game_id"])
    op.create_index(
        "archived_games_type_finished_at", "archived_games", ["game_type", "finished_at", "game_id"]
    )
    op.create_index("archived_games_tournament", "archived_games", ["tournament"])
    op.create_table(
        "archived_seats",
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
    )
    op.create_index("archived_seats_name", "archived_seats", ["name", "game_id"])
    op.create_index("archived_seats_level", "archived_seats", ["level", "game_id"])
    op.create_table(
        "archived_tournaments",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("codec", sa.String(8), nullable=False),
        sa.Column("record", sa.LargeBinary, nullable=False),
    )
    op.create_index("archived_tournaments_ended_at", "archived_tournaments", ["ended_at"])


def downgrade() -> None:
    op.drop_table("archived_tournaments")
    op.drop_table("archived_seats")
    op.drop_table("archived_games")
