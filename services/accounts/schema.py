"""The accounts table (SQLAlchemy Core), in the archive's database and on its one
``metadata``, so its Alembic migrations (``services/archive/migrations``) make it:

    accounts    one row per account, human or bot: its name as given and folded (the
                unique one), its kind, its key's hash, who created it and when, and
                whether its key was revoked, and the secret its seat tokens come from
    account_events  each account's newest events (its WatchPlayer stream), numbered
    account_feeds   what an account's stream has told of each of its games
    challenges      one row per challenge: who, what game, its state and its game
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

# An account's event stream (``services.accounts.events``; docs/accounts.md).
account_events = sa.Table(
    "account_events",
    metadata,
    sa.Column("account", sa.String(64), primary_key=True),
    sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),  # 1, 2, 3...
    sa.Column("at", sa.Float, nullable=False),  # Unix seconds
    sa.Column("data", sa.Text, nullable=False),  # the PlayerEvent's fields as JSON
)

# What an account's stream has told of each of its games, so that no replica tells it
# twice: its start (the row), its turns (up to turn_version) and its end.
account_feeds = sa.Table(
    "account_feeds",
    metadata,
    sa.Column("account", sa.String(64), primary_key=True),
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("turn_version", sa.BigInteger, nullable=False),  # -1: no turn told yet
    sa.Column("finished", sa.Boolean, nullable=False),  # its end told (or the seat lost)
    sa.Column("updated_at", sa.Float, nullable=False),  # Unix seconds
    sa.Index("account_feeds_open", "account", "finished"),
)

# Challenges between accounts (``services.accounts.challenges``).
challenges = sa.Table(
    "challenges",
    metadata,
    sa.Column("challenge_id", sa.String(32), primary_key=True),
    sa.Column("challenger", sa.String(64), nullable=False),
    sa.Column("challenged", sa.String(64), nullable=False),
    sa.Column("game_type", sa.String(32), nullable=False),
    sa.Column("options", sa.Text, nullable=False),  # JSON object of strings
    sa.Column("state", sa.String(16), nullable=False),  # pending, accepted, declined
    sa.Column("game_id", sa.String(32), nullable=False),  # "" until accepted
    sa.Column("created_at", sa.Float, nullable=False),  # Unix seconds
    sa.Column("expires_at", sa.Float, nullable=False),
    sa.Index("challenges_challenger", "challenger", "state"),
    sa.Index("challenges_challenged", "challenged", "state"),
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
