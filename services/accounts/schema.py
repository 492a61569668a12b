"""The accounts table (SQLAlchemy Core), in the archive's database and on its one
``metadata``, so its Alembic migrations (``services/archive/migrations``) make it:

    accounts    one row per account, human or bot: its name as given and folded (the
                unique one), its kind, its key's hash, who created it and when, and
                whether its key was revoked, and the secret its seat tokens come from
"""

from __future__ import annotations

import sqlalchemy as sa

from services.archive.sql import metadata

accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("folded", sa.String(64), nullable=False, unique=True),  # name.casefold()
    sa.Column("kind", sa.String(8), nullable=False),  # AccountKind
    sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("owner", sa.String(64), nullable=False),  # the creating client (quotas' id)
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("revoked", sa.Boolean, nullable=False),  # its key no longer works
    # What its seat tokens are derived from (``access.account_seat_token``): the same
    # token on every device, and kept across a key's rotation.
    sa.Column("seat_secret", sa.String(64), nullable=False),
    sa.Index("accounts_owner", "owner", "created_at"),
)
