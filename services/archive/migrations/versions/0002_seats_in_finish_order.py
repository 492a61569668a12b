"""Seats in finish order: each seat row carries its game's finish time, and the name
and level indexes lead with it, so a search by name or bot level reads the newest
games straight from the index instead of looking up every game the name played.

Revision ID: 0002_seats_in_finish_order
Revises: 0001_archive
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_seats_in_finish_order"
down_revision = "0001_archive"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "archived_seats", sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True)
    )
    op.execute(
        "UPDATE archived_seats SET finished_at = (SELECT g.finished_at FROM archived_games g"
        " WHERE g.game_id = archived_seats.game_id)"
    )
    with op.batch_alter_table("archived_seats") as batch:  # batch: SQLite rebuilds the table
        batch.alter_column("finished_at", existing_type=sa.DateTime(timezone=True), nullable=False)
        batch.drop_index("archived_seats_name")
        batch.drop_index("archived_seats_level")
        batch.create_index("archived_seats_name", ["name", "finished_at", "game_id"])
        batch.create_index("archived_seats_level", ["level", "finished_at", "game_id"])


def downgrade() -> None:
    with op.batch_alter_table("archived_seats") as batch:
        batch.drop_index("archived_seats_name")
        batch.drop_index("archived_seats_level")
        batch.drop_column("finished_at")
        batch.create_index("archived_seats_name", ["name", "game_id"])
        batch.create_index("archived_seats_level", ["level", "game_id"])
