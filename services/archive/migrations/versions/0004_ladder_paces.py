"""The ladder's paces: one row per ladder and replica saying how its answers kept time
at its last tick, so the matchmaking replica paces the ladder by every replica's bots,
not only its own (services/ladder/paces.py; docs/ladder.md, "Pacing").

Revision ID: 0004_ladder_paces
Revises: 0003_ladder
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_ladder_paces"
down_revision = "0003_ladder"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ladder_paces",
        sa.Column("ladder", sa.String(48), primary_key=True),
        sa.Column("replica", sa.String(64), primary_key=True),
        sa.Column("reported_at", sa.Float, nullable=False),
        sa.Column("busy", sa.Float, nullable=False),
        sa.Column("lag_ms", sa.Float, nullable=True),
        sa.Column("round_trips", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("ladder_paces")
