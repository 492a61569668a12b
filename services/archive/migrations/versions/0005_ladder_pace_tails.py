"""The ladder's paces count their answers' tail: how many answers each replica's
runners reported at its last tick, and the bot of each that ran past
``--ladder-tail-ms``, so the matchmaking replica keeps every replica's slowest answers
quick, not only the median (services/ladder/admission.py; docs/ladder.md, "Pacing").

Revision ID: 0005_ladder_pace_tails
Revises: 0004_ladder_paces
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_ladder_pace_tails"
down_revision = "0004_ladder_paces"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ladder_paces") as table:  # SQLite alters by copying
        table.add_column(sa.Column("answers", sa.Integer, nullable=False, server_default="0"))
        table.add_column(sa.Column("late", sa.Text, nullable=False, server_default="[]"))


def downgrade() -> None:
    with op.batch_alter_table("ladder_paces") as table:
        table.drop_column("late")
        table.drop_column("answers")
