"""The archive's tables (SQLAlchemy Core). Alembic migrations (``migrations/``) make
them; a test checks that the head migration makes exactly these.

    archived_games        one row per finished game: what ListGames filters on, and
                          the compressed compact record (services.archive.codec)
    archived_seats        one row per seat: who played it (name, kind, bot level) and
                          when the game finished, so a search by name or level reads
                          the newest games in order from an index
    archived_tournaments  one row per ended tournament: its stored state and log,
                          compressed; its report and standings are rebuilt from them

The ladder's tables (services/ladder; docs/ladder.md):

    ladder_bots           one row per registered bot: its key's hash, its ladder, its
                          status (and why), its moves and faults, and whether a runner
                          is connected (which session, how many sets at once, until when)
    ladder_ratings        one row per ladder and participant (bot or house level): the
                          openskill rating, games and points
    ladder_games          one row per ladder game: its duplicate set, rotation and deal,
                          whether it is a validation game, and where it stands
    ladder_seats          one row per seat of a ladder game: who played it, the return,
                          and the rating after it (a bot's rating over time)
    ladder_leases         the matchmaker's lease per ladder: who holds it, until when
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

games = sa.Table(
    "archived_games",
    metadata,
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("game_type", sa.String(32), nullable=False),
    sa.Column("players", sa.SmallInteger, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    # The final one, as ListGames shows it (0006 fills it in for older rows).
    sa.Column("version", sa.Integer, nullable=False, server_default="0"),
    sa.Column("private", sa.Boolean, nullable=False),
    # admitted spectators: listed and exported only if so (0007_archived_spectators)
    sa.Column("spectators", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("tournament", sa.String(64), nullable=True),
    # The game's deal (the first of GameMeta.deal_games) and its games' count: listed
    # and exported once all of them are here (0009_archived_deals)
    sa.Column("deal", sa.String(32), nullable=True),
    sa.Column("deal_size", sa.SmallInteger, nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("returns", sa.Text, nullable=False),  # JSON list, one per seat
    sa.Column("codec", sa.String(8), nullable=False),
    sa.Column("record", sa.LargeBinary, nullable=False),
    sa.Index("archived_games_finished_at", "finished_at", "game_id"),
    sa.Index("archived_games_type_finished_at", "game_type", "finished_at", "game_id"),
    sa.Index("archived_games_tournament", "tournament"),
    sa.Index("archived_games_deal", "deal"),
)

seats = sa.Table(
    "archived_seats",
    metadata,
    sa.Column(
        "game_id",
        sa.String(32),
        sa.ForeignKey("archived_games.game_id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("seat", sa.SmallInteger, primary_key=True),
    sa.Column("name", sa.String(128), nullable=False),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("level", sa.String(32), nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),  # the game's
    sa.Index("archived_seats_name", "name", "finished_at", "game_id"),
    sa.Index("archived_seats_level", "level", "finished_at", "game_id"),
)

tournaments = sa.Table(
    "archived_tournaments",
    metadata,
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("codec", sa.String(8), nullable=False),
    sa.Column("record", sa.LargeBinary, nullable=False),
    sa.Index("archived_tournaments_ended_at", "ended_at"),
)

ladder_bots = sa.Table(
    "ladder_bots",
    metadata,
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("ladder", sa.String(48), nullable=False),  # "cite:2"
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("owner", sa.String(64), nullable=False),  # the registering client (quotas' id)
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("moves", sa.Integer, nullable=False),  # moves the bot made itself
    sa.Column("faults_in_row", sa.Integer, nullable=False),
    sa.Column("late", sa.Integer, nullable=False),
    sa.Column("garbage", sa.Integer, nullable=False),
    sa.Column("illegal", sa.Integer, nullable=False),
    sa.Column("missing", sa.Integer, nullable=False),
    sa.Column("session", sa.String(32), nullable=False),  # the connected runner's ("": none)
    sa.Column("slots", sa.SmallInteger, nullable=False),  # sets at once it takes
    sa.Column("connected_until", sa.Float, nullable=False),  # Unix seconds (0: never)
    sa.Index("ladder_bots_ladder", "ladder", "status"),
)

ladder_ratings = sa.Table(
    "ladder_ratings",
    metadata,
    sa.Column("ladder", sa.String(48), primary_key=True),
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("level", sa.String(32), nullable=False),  # a house level; "" for a bot
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("points", sa.Float, nullable=False),
)

ladder_games = sa.Table(
    "ladder_games",
    metadata,
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("ladder", sa.String(48), nullable=False),
    sa.Column("set_id", sa.String(32), nullable=False),  # the duplicate set (one deal)
    sa.Column("rotation", sa.SmallInteger, nullable=False),
    sa.Column("deal", sa.BigInteger, nullable=False),  # the set's seed
    sa.Column("validation", sa.Boolean, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),  # pending, playing, rated, failed
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ladder_games_status", "status", "ladder"),
    sa.Index("ladder_games_set", "set_id"),
)

ladder_seats = sa.Table(
    "ladder_seats",
    metadata,
    sa.Column(
        "game_id",
        sa.String(32),
        sa.ForeignKey("ladder_games.game_id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("seat", sa.SmallInteger, primary_key=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("level", sa.String(32), nullable=False),  # a house level; "" for a bot
    sa.Column("returned", sa.Float, nullable=True),  # set once the game is rated
    sa.Column("mu", sa.Float, nullable=True),  # the rating after this game
    sa.Column("sigma", sa.Float, nullable=True),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ladder_seats_name", "name", "finished_at"),
)

ladder_leases = sa.Table(
    "ladder_leases",
    metadata,
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("holder", sa.String(64), nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),  # Unix seconds
)
