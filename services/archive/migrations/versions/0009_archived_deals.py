"""Archived games name their deal (the first id of its games, ``GameMeta.deal_games``)
and how many games play it, so a listing and the export hold a game back until every
game of its deal is archived (``services.limits.access.log_public``). Older games
played no shared deal that was recorded: they keep none.

Revision ID: 0009_archived_deals
Revises: 0008_drop_ladder_paces
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_archived_deals"
down_revision = "0008_drop_ladder_paces"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Not in batch mode (as 0007): SQLite adds the columns in place.
    op.add_column("archived_games", sa.Column("deal", sa.String(32), nullable=True))
    op.add_column("archived_games", sa.Column("deal_size", sa.SmallInteger, nullable=True))
    op.create_index("archived_games_deal", "archived_games", ["deal"])


def downgrade() -> None:
    op.drop_index("archived_games_deal", table_name="archived_games")
    op.drop_column("archived_games", "deal_size")
    op.drop_column("archived_games", "deal")
