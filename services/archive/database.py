"""Where the archive lives and the shape it is in: the URL (PostgreSQL, or the
embedded SQLite file under the data directory), the engine, and the migrations
(Alembic, shipped in ``services/archive/migrations``)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

MIGRATIONS = Path(__file__).with_name("migrations")
OFF = "none"  # ``--archive none``


class SchemaBehind(RuntimeError):
    """The archive's schema is not the one this server needs."""


class ArchiveMissing(SchemaBehind):
    """Raised when an archive opened to read (not to create) is a SQLite file that does
    not exist: reading never makes one."""


def data_dir() -> Path:
    """Where the embedded archive lives: $GAMEHOST_DATA_DIR, else
    $XDG_DATA_HOME/gamehost, else ~/.local/share/gamehost."""
    if os.environ.get("GAMEHOST_DATA_DIR"):
        return Path(os.environ["GAMEHOST_DATA_DIR"])
    base = os.environ.get("XDG_DATA_HOME")
    if not base:
        try:
            base = Path.home() / ".local" / "share"
        except RuntimeError:  # a user with no home (a container's numeric user)
            base = Path.cwd() / ".local" / "share"
    return Path(base) / "gamehost"


def default_url() -> str:
    """The embedded archive: a SQLite file in the data directory."""
    return f"sqlite:///{data_dir() / 'archive.sqlite3'}"


def sqlalchemy_url(url: str) -> str:
    """``postgresql://`` (and ``postgres://``) through psycopg 3; others as given."""
    for scheme in ("postgresql://", "postgres://"):
        if url.startswith(scheme):
            return "postgresql+psycopg://" + url[len(scheme) :]
    return url


def sqlite_file(url: str) -> Path | None:
    """A SQLite archive's file, absolute: SQLite reads the path after ``sqlite:///``
    from the current directory (``sqlite:////srv/a.sqlite3`` is ``/srv/a.sqlite3``).
    None for other databases and ``:memory:``."""
    parsed = sa.make_url(sqlalchemy_url(url))
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database).absolute()


def describe(url: str) -> str:
    """The archive's URL as an error shows it: no password, and a SQLite file's
    absolute path."""
    shown = sa.make_url(sqlalchemy_url(url)).render_as_string(hide_password=True)
    path = sqlite_file(url)
    return shown if path is None or shown.endswith(f"///{path}") else f"{shown} (file {path})"


def _missing(url: str, path: Path) -> ArchiveMissing:
    given = sa.make_url(url).database or ""
    if not given.startswith("/") and Path("/", Path(given).parts[0]).exists():
        return ArchiveMissing(
            f"no archive at {path}: three slashes ({url}) make a path relative to the "
            f"current directory; for the absolute path /{given} write four: "
            f"sqlite:////{given} (reading never creates an archive)"
        )
    return ArchiveMissing(
        f"no archive at {path}: reading never creates one; run "
        f"`gamehost db upgrade --archive {url}` first to make it"
    )


def make_engine(url: str, *, create: bool = True) -> sa.Engine:
    """An engine for the archive at ``url``. Without ``create`` a SQLite file must
    exist (``ArchiveMissing`` names it) and is opened without creating it (SQLite's
    ``mode=rw``), nor the folders on its path."""
    path = sqlite_file(url)
    url = sqlalchemy_url(url)
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if path is not None and create:
            path.parent.mkdir(parents=True, exist_ok=True)
        elif path is not None:
            if not path.is_file():
                raise _missing(url, path)
            # A URI filename, so SQLite refuses to create the file (were it removed now).
            file = f"file:{urllib.parse.quote(str(path))}"
            parsed = parsed.set(database=file).update_query_dict({"mode": "rw", "uri": "true"})
        engine = sa.create_engine(parsed, connect_args={"timeout": 30})

        @sa.event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection, _record) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")  # readers never wait on the archiver
            cursor.close()

        return engine
    return sa.create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5)


def _config(connection: sa.Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def current_revision(engine: sa.Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


_MIGRATION_LOCK = 0x6761_6D65  # "game": replicas upgrading at once take turns


@contextlib.contextmanager
def _file_lock(engine: sa.Engine) -> Iterator[None]:
    """For a SQLite file: processes upgrading it at once take turns (a lock file)."""
    database = engine.url.database if engine.dialect.name == "sqlite" else None
    if not database or database == ":memory:":
        yield
        return
    with open(f"{database}.migrate-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def upgrade(engine: sa.Engine, revision: str = "head") -> str | None:
    """Migrate to ``revision``; returns the revision it was at (None: no schema)."""
    with _file_lock(engine), engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Several replicas may run `gamehost db upgrade` at start: one migrates, the
            # others wait, then find the schema current and do nothing.
            connection.execute(sa.text(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK})"))
        before = MigrationContext.configure(connection).get_current_revision()
        command.upgrade(_config(connection), revision)
        return before


def downgrade(engine: sa.Engine, revision: str = "base") -> None:
    with engine.begin() as connection:
        command.downgrade(_config(connection), revision)


def check_schema(engine: sa.Engine, url: str) -> None:
    """Raise ``SchemaBehind`` unless the archive is at the head migration."""
    current, head = current_revision(engine), head_revision()
    if current == head:
        return
    where = current or "empty (no schema yet)"
    raise SchemaBehind(
        f"the archive at {describe(url)} is at schema {where}, this server needs {head}: "
        f"run `gamehost db upgrade --archive {url}` first (or serve with --archive none)"
    )
