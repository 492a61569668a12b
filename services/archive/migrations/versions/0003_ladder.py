"""The ladder: bot accounts, ratings, ladder games and their seats, the matchmaker's
lease (services/ladder; docs/ladder.md).

Revision ID: 0003_ladder
Revises: 0002_seats_in_finish_order
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_ladder"
down_revision = "0002_seats_in_finish_order"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ladder_bots",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("ladder", sa.String(48), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("faults_in_row", sa.Integer, nullable=False),
        sa.Column("late", sa.Integer, nullable=False),
        sa.Column("garbage", sa.Integer, nullable=False),
        sa.Column("illegal", sa.Integer, nullable=False),
        sa.Column("missing", sa.Integer, nullable=False),
        sa.Column("session", sa.String(32), nullable=False),
        sa.Column("slots", sa.SmallInteger, nullable=False),
        sa.Column("connected_until", sa.Float, nullable=False),
    )
    op.create_index("ladder_bots_ladder", "ladder_bots", ["ladder", "status"])
    op.create_table(
        "ladder_ratings",
        sa.Column("ladder", sa.String(48), primary_key=True),
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("level", sa.String(32), nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("points", sa.Float, nullable=False),
    )
    op.create_table(
        "ladder_games",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("ladder", sa.String(48), nullable=False),
        sa.Column("set_id", sa.String(32), nullable=False),
        sa.Column("rotation", sa.SmallInteger, nullable=False),
        sa.Column("deal", sa.BigInteger, nullable=False),
        sa.Column("validation", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ladder_games_status", "ladder_games", ["status", "ladder"])
    op.create_index("ladder_games_set", "ladder_games", ["set_id"])
    op.create_table(
        "ladder_seats",
        sa.Column(
            "game_id",
            sa.String(32),
            sa.ForeignKey("ladder_games.game_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.SmallInteger, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("level", sa.String(32), nullable=False),
        sa.Column("returned", sa.Float, nullable=True),
        sa.Column("mu", sa.Float, nullable=True),
        sa.Column("sigma", sa.Float, nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ladder_seats_name", "ladder_seats", ["name", "finished_at"])
    op.create_table(
        "ladder_leases",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("holder", sa.String(64), nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("ladder_leases")
    op.drop_table("ladder_seats")
    op.drop_table("ladder_games")
    op.drop_table("ladder_ratings")
    op.drop_table("ladder_bots")
