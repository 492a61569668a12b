"""The ladder paces itself by fixed bounds (--ladder-tables, --ladder-bot-concurrency),
not by the replicas' measured answers: ``ladder_paces`` and its tail columns go
(docs/ladder.md, "Decisions"). A downgrade makes the table again, empty: its rows were
a few seconds' measurements, rewritten at every tick.

Revision ID: 0008_drop_ladder_paces
Revises: 0007_archived_spectators
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_drop_ladder_paces"
down_revision = "0007_archived_spectators"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_table("ladder_paces")


def downgrade() -> None:
    # The table as 0004_ladder_paces and 0005_ladder_pace_tails left it.
    op.create_table(
        "ladder_paces",
        sa.Column("ladder", sa.String(48), primary_key=True),
        sa.Column("replica", sa.String(64), primary_key=True),
        sa.Column("reported_at", sa.Float, nullable=False),
        sa.Column("busy", sa.Float, nullable=False),
        sa.Column("lag_ms", sa.Float, nullable=True),
        sa.Column("round_trips", sa.Text, nullable=False),
        sa.Column("answers", sa.Integer, nullable=False, server_default="0"),
        sa.Column("late", sa.Text, nullable=False, server_default="[]"),
    )
