"""An account's event stream and challenges (docs/accounts.md): ``account_events``
(each account's newest events), ``account_feeds`` (what its stream told of each of its
games) and ``challenges``. Down again: the three tables go (an older server keeps no
event stream and no challenge).

Revision ID: 0011_challenges
Revises: 0010_accounts
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_challenges"
down_revision = "0010_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "account_events",
        sa.Column("account", sa.String(64), primary_key=True),
        sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
    )
    op.create_table(
        "account_feeds",
        sa.Column("account", sa.String(64), primary_key=True),
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("turn_version", sa.BigInteger, nullable=False),
        sa.Column("finished", sa.Boolean, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index("account_feeds_open", "account_feeds", ["account", "finished"])
    op.create_table(
        "challenges",
        sa.Column("challenge_id", sa.String(32), primary_key=True),
        sa.Column("challenger", sa.String(64), nullable=False),
        sa.Column("challenged", sa.String(64), nullable=False),
        sa.Column("game_type", sa.String(32), nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("challenges_challenger", "challenges", ["challenger", "state"])
    op.create_index("challenges_challenged", "challenges", ["challenged", "state"])


def downgrade() -> None:
    op.drop_index("challenges_challenged", table_name="challenges")
    op.drop_index("challenges_challenger", table_name="challenges")
    op.drop_table("challenges")
    op.drop_index("account_feeds_open", table_name="account_feeds")
    op.drop_table("account_feeds")
    op.drop_table("account_events")
