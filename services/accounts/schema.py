"""The accounts table (SQLAlchemy Core), in the archive's database and on its one
``metadata``, so its Alembic migrations (``services/archive/migrations``) make it:

    accounts    one row per account, human or bot: its name as given and folded (the
                unique one), its kind, its key's hash, who created it and when, and
                whether its key was revoked, and the secret its seat tokens come from
    ratings     one row per participant (account or house level) and GAME:PLAYERS: its
                openskill rating, games and points (the ladder's too)
    rating_changes  one row per seat of a rated game: the rating before and after
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

# One rating per participant and game (``ladder``: "GAME:PLAYERS", as the ladder names
# it), on the one openskill scale: accounts (human or bot) and the house levels (named
# as their level). The ladder rates its games here too (``services.ladder.ledger``);
# migration 0011 made it from the ladder's ``ladder_ratings``, bots' rows kept.
ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column("ladder", sa.String(48), primary_key=True),  # "cite:2"
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("level", sa.String(32), nullable=False),  # a house level; "" for an account
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("points", sa.Float, nullable=False),
    # RatingKind: who is rated ("human", "bot": an account; "house": a house level).
    sa.Column("kind", sa.String(8), nullable=False, server_default="bot"),
)

# One row per seat of a rated game (quick play, or CreateGame rated), written in the
# transaction that archives the game: the game's first row is its once-only mark.
rating_changes = sa.Table(
    "rating_changes",
    metadata,
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("seat", sa.SmallInteger, primary_key=True),
    sa.Column("name", sa.String(64), nullable=False),  # the account, or a house level
    sa.Column("ladder", sa.String(48), nullable=False),
    sa.Column("returned", sa.Float, nullable=False),
    sa.Column("mu_before", sa.Float, nullable=False),
    sa.Column("sigma_before", sa.Float, nullable=False),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("rated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("rating_changes_name", "name", "rated_at"),
)
