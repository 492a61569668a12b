"""Ratings for everyone (docs/accounts.md, "Ratings"): the ladder's ``ladder_ratings``
becomes the accounts' ``ratings`` (every bot's and house level's row kept), with a
``kind`` per row (human, bot, house), and ``rating_changes`` holds each rated game's
seats: the rating before and after.

Down again: humans' ratings and every rating change go (an older server rates bots
alone), and the table is the ladder's ``ladder_ratings`` again.

Revision ID: 0012_ratings
Revises: 0011_challenges
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_ratings"
down_revision = "0011_challenges"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.rename_table("ladder_ratings", "ratings")
    with op.batch_alter_table("ratings") as batch:
        batch.add_column(sa.Column("kind", sa.String(8), nullable=False, server_default="bot"))
    op.execute("UPDATE ratings SET kind = 'house' WHERE level <> ''")
    op.create_table(
        "rating_changes",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.SmallInteger, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("ladder", sa.String(48), nullable=False),
        sa.Column("returned", sa.Float, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("rated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("rating_changes_name", "rating_changes", ["name", "rated_at"])


def downgrade() -> None:
    op.drop_index("rating_changes_name", table_name="rating_changes")
    op.drop_table("rating_changes")
    op.execute("DELETE FROM ratings WHERE kind = 'human'")
    with op.batch_alter_table("ratings") as batch:
        batch.drop_column("kind")
    op.rename_table("ratings", "ladder_ratings")
