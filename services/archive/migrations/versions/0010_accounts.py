"""Accounts (services/accounts; docs/accounts.md): one table of players, human or bot,
with the key. Every registered bot becomes an account of kind bot with its key's hash;
``ladder_bots`` keeps its ladder state and its ratings stay where they are.

Down again: the bots get their keys back in ``ladder_bots``; human accounts are dropped
(an older server knows none).

Revision ID: 0010_accounts
Revises: 0009_archived_deals
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0010_accounts"
down_revision = "0009_archived_deals"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("folded", sa.String(64), nullable=False, unique=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked", sa.Boolean, nullable=False),
        sa.Column("seat_secret", sa.String(64), nullable=False),
    )
    op.create_index("accounts_owner", "accounts", ["owner", "created_at"])
    # Bot names were unique as written; two that differ only in case keep the first
    # in the folded name space (the other's key stops working: see docs/accounts.md).
    op.execute(
        """
        INSERT INTO accounts
            (name, folded, kind, key_hash, owner, created_at, revoked, seat_secret)
        SELECT b.name, lower(b.name), 'bot', b.key_hash, b.owner, b.created_at,
               b.status = 'revoked', ''
        FROM ladder_bots AS b
        WHERE NOT EXISTS (
            SELECT 1 FROM ladder_bots AS o
            WHERE lower(o.name) = lower(b.name) AND o.name < b.name
        )
        """
    )
    connection = op.get_bind()
    table = sa.table("accounts", sa.column("name"), sa.column("seat_secret"))
    for (name,) in connection.execute(sa.select(table.c.name)).all():
        secret = secrets.token_hex(32)
        connection.execute(sa.update(table).where(table.c.name == name).values(seat_secret=secret))
    with op.batch_alter_table("ladder_bots") as batch:  # SQLite: a unique column
        batch.drop_column("key_hash")
    # Archived seats name their account; older games were played by guests and bots.
    op.add_column("archived_seats", sa.Column("account", sa.String(64), nullable=True))
    op.create_index(
        "archived_seats_account", "archived_seats", ["account", "finished_at", "game_id"]
    )


def downgrade() -> None:
    op.drop_index("archived_seats_account", table_name="archived_seats")
    with op.batch_alter_table("archived_seats") as batch:
        batch.drop_column("account")
    with op.batch_alter_table("ladder_bots") as batch:
        batch.add_column(sa.Column("key_hash", sa.String(64), nullable=True))
    # A bot whose account was lost in the fold gets a key nobody holds (its own name's
    # placeholder): it stays listed and its key stays unknown.
    op.execute(
        """
        UPDATE ladder_bots SET key_hash = COALESCE(
            (SELECT a.key_hash FROM accounts AS a WHERE a.name = ladder_bots.name),
            'lost:' || ladder_bots.name)
        """
    )
    with op.batch_alter_table("ladder_bots") as batch:
        batch.alter_column("key_hash", existing_type=sa.String(64), nullable=False)
        batch.create_unique_constraint("ladder_bots_key_hash_key", ["key_hash"])
    op.drop_index("accounts_owner", table_name="accounts")
    op.drop_table("accounts")
