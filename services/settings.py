"""``gamehost serve``'s settings, each defined once: type, default, help, flag and
environment variable. From this one model come ``serve``'s argparse flags, the settings
the children of ``--processes N`` receive (one JSON document, not a command line rebuilt
flag by flag), and the flag table in docs/cli.md (``python -m services.settings
--markdown``; tests/test_serve_settings_model.py keeps the page in step). Those a serving
process takes as given are ``ServeOptions``, which ``ServerConfig`` (services/server.py)
extends. The same generator makes ``worker``'s flags and table (workers/settings.py),
and ``db``, ``store`` and ``export`` take their ``--archive`` and ``--redis-prefix`` from
here (workers/cli.py).

A setting is read from, strongest first: its flag, its environment variable
(``GAMEHOST_`` and the name in capitals, e.g. ``GAMEHOST_HTTP_PORT``), its default.
Only pydantic is imported here: the client's ``gamehost`` command finds this module
through the server's entry point when a server command runs, and nothing else."""

from __future__ import annotations

import argparse
import sys
import types
from typing import Any, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = [
    "CHILD_SETTINGS_ENV",
    "ServerSettings",
    "add_arguments",
    "from_arguments",
    "markdown_table",
    "setting",
]

ENV_PREFIX = "GAMEHOST_"
# The children of ``serve --processes N`` read their whole settings, as the parent
# validated them, from this one environment variable (JSON).
CHILD_SETTINGS_ENV = "GAMEHOST_SERVE_SETTINGS"

DAY = 86400.0


def setting(
    default: Any, help: str, metavar: str | None = None, *, repeatable: bool = False
) -> Any:
    """A field with its flag's help and metavar (``repeatable``: the flag may be given
    again, each time adding one value)."""
    extra: dict[str, Any] = {"metavar": metavar, "repeatable": repeatable}
    if isinstance(default, list):
        return Field(
            default_factory=lambda: list(default), description=help, json_schema_extra=extra
        )
    return Field(default, description=help, json_schema_extra=extra)


# Settings ``serve`` shares with ``worker`` (the Sentinel set), each defined here once.
# (``db``, ``export`` and ``store`` take theirs from ServerSettings' fields.)
def redis_sentinel_field() -> Any:
    return setting(
        None,
        "find the Redis primary through these sentinels, and follow their promotions",
        "HOST:PORT[,HOST:PORT...]",
    )


def redis_service_field() -> Any:
    return setting(None, "the primary's name in Sentinel (with --redis-sentinel)", "NAME")


class ServeOptions(BaseModel):
    """The settings a serving process takes as ``serve`` was given them. ``ServerConfig``
    (services/server.py) is these and what ``serve`` resolves from the rest."""

    model_config = ConfigDict(extra="forbid")

    host: str = setting("127.0.0.1", "address to listen on")
    port: int = setting(50051, "gRPC port to listen on (0: any free port)")
    redis_prefix: str = setting("gamehost", "Redis key prefix")
    bot_workers: int | None = setting(None, "local bot processes (default: CPUs)")
    metrics_port: int | None = setting(None, "serve Prometheus metrics on this port")
    max_search_iterations: int = setting(
        100_000,
        "cap on one bot decision's search, trees x iterations (0: none; default 100000)",
        "N",
    )
    # Limits and access control (docs/operations.md: Limits and access).
    finished_retention: float = setting(
        7 * DAY, "keep finished games this long (default 7 days)", "SECONDS"
    )
    idle_expiry: float = setting(
        30 * DAY, "delete unfinished games idle this long (default 30 days)", "SECONDS"
    )
    request_ttl: float = setting(
        DAY, "remember request ids for retries this long (default 1 day)", "SECONDS"
    )
    rate_limit: float = setting(
        200.0,
        "requests a second per client, across replicas; 0: off (default 200)",
        "PER_SECOND",
    )
    rate_burst: float = setting(
        1000.0, "requests in one burst: at most N in any N/rate seconds (1000)"
    )
    failed_auth_rate: float = setting(
        5.0,
        "wrong tokens a second per client, across replicas, before refusing (default 5)",
        "PER_SECOND",
    )
    failed_auth_burst: float | None = setting(
        None,
        "wrong tokens in one burst: at most N in any N/rate seconds (default 4 x the rate)",
        "N",
    )
    anonymous_exports: int = setting(
        2,
        "exports a minute per client address without an API key; 0: no limit (default 2)",
        "PER_MINUTE",
    )
    live_games_per_client: int = setting(
        1000, "unfinished games one key/address may own; 0: no cap (1000)", "N"
    )
    max_hint_iterations: int = setting(
        24_000,
        "refuse hint levels searching more, trees x iterations; 0: no cap (24000)",
        "N",
    )
    max_hint_seconds: float = setting(
        20.0,
        "refuse hint levels with a longer time budget, trees x seconds; 0: no cap (20)",
        "SECONDS",
    )
    hint_rate: float = setting(
        0.5, "hints a second per game, across replicas; 0: off (default 0.5)", "PER_SECOND"
    )
    hint_burst: float = setting(5.0, "hints in one burst (5)")
    tls_cert: str | None = setting(None, "serve TLS with this certificate", "PEM")
    tls_key: str | None = setting(None, "the certificate's private key", "PEM")
    # One tournament's bounds (docs/operations.md: Tournament bounds).
    max_tournament_tables: int = setting(
        16,
        "refuse tournaments playing more tables at once (parallel); 0: no bound (16)",
        "N",
    )
    max_tournament_games: int = setting(
        1000, "refuse tournaments of more games in all; 0: no bound (1000)", "N"
    )
    max_tournament_entrants: int = setting(
        64, "refuse tournaments of more entrants; 0: no bound (64)", "N"
    )
    # The browser-facing HTTP/JSON API and web client (docs/http-api.md).
    http_port: int | None = setting(
        None, "serve the HTTP/JSON API and the web client on this port (default: off)", "N"
    )
    http_web_dir: str | None = setting(
        None, "the web client's files, served at / (default: the repository's web/)", "DIR"
    )


class ServerSettings(BaseSettings, ServeOptions):
    """Everything ``gamehost serve`` may be told. The flag of a field is its name with
    dashes (``http_port``: ``--http-port``); docs/cli.md lists them all."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="forbid")

    redis: str | None = setting(
        None,
        "Redis URL: redis://, redis+sentinel://h:p,.../NAME[/db] or redis+cluster://h:p,... "
        "(default: in-memory store)",
        "URL",
    )
    redis_sentinel: str | None = redis_sentinel_field()
    redis_service: str | None = redis_service_field()
    redis_cluster: str | None = setting(
        None,
        "a Redis Cluster from these startup nodes: redis://h:p[,h:p...] (or rediss://)",
        "URL",
    )
    redis_min_replicas: int = setting(
        0,
        "acknowledge a write only once N replicas hold it (WAIT N); else UNAVAILABLE (0)",
        "N",
    )
    redis_wait_timeout: float = setting(
        1.0, "how long a write waits for --redis-min-replicas replicas (default 1)", "SECONDS"
    )
    processes: int = setting(
        1, "serving processes sharing the port (SO_REUSEPORT); more than 1 needs --redis"
    )
    celery: bool = setting(False, "bot turns go to Celery workers (needs --redis)")
    api_keys: str | None = setting(
        None, "require an API key (metadata x-api-key) to create games", "FILE"
    )
    http_cors_origin: list[str] = setting(
        [],
        "let pages from ORIGIN call the HTTP API (repeatable; '*': any); default: none",
        "ORIGIN",
        repeatable=True,
    )
    celery_broker: str | None = setting(
        None, "Celery broker (default: $GAMEHOST_CELERY_BROKER or --redis)", "URL"
    )
    archive: str | None = setting(
        None,
        "the SQL archive of finished games: postgresql://... or sqlite:///FILE; "
        "'none': off (default: SQLite in $GAMEHOST_DATA_DIR, else ~/.local/share/gamehost)",
        "URL",
    )
    # The ladder (docs/ladder.md): off unless --ladder is given.
    ladder: list[str] = setting(
        [],
        "run a ladder of this game and player count, e.g. cite:2 (repeatable)",
        "GAME:PLAYERS",
        repeatable=True,
    )
    ladder_house: str = setting(
        "random,greedy,mcts-fast",
        "house levels rated on every ladder, comma-separated (random,greedy,mcts-fast)",
        "LEVELS",
    )
    ladder_move_seconds: float = setting(
        5.0, "a ladder bot's time per move; then the fallback level plays it (5)", "SECONDS"
    )
    ladder_max_faults: int = setting(
        10, "late, garbage, illegal or missing moves in a row that pause a bot (10)", "K"
    )
    ladder_tables: int = setting(16, "duplicate sets played at once per ladder (16)", "N")
    ladder_registrations: int = setting(
        10,
        "bot registrations an hour per client (API key, else address); 0: no limit (10)",
        "N",
    )
    ladder_house_tables: int = setting(
        1,
        "of those, sets among house levels alone, which keep their ratings current (1)",
        "N",
    )
    ladder_bot_concurrency: int = setting(
        16,
        "duplicate sets one bot plays at once, at most: a runner's `bot run "
        "--concurrency` asks for up to this many (16)",
        "N",
    )
    ladder_bot_daily_games: int = setting(
        0,
        "games one bot may begin in 24 hours (a set is as many games as players); 0: no cap (0)",
        "N",
    )
    # Quick play (docs/accounts.md, "Quick play"): on with an archive (accounts live there).
    quick_play_wait: float = setting(
        20.0,
        "quick play: seconds to find accounts of close rating before house levels (or ladder "
        "bots) fill the empty seats (20)",
        "SECONDS",
    )
    quick_play_queue: int = setting(
        1000, "quick play: accounts one queue (game and player count) holds at most (1000)", "N"
    )
    quick_play_queues: int = setting(
        5000, "quick play: accounts all queues together hold at most (5000)", "N"
    )
    quick_play_house: str = setting(
        "random,greedy,mcts-fast",
        "quick play: house levels that fill empty seats, comma-separated; with --ladder, "
        "--ladder-house's (random,greedy,mcts-fast)",
        "LEVELS",
    )
    quick_play_move_seconds: float = setting(
        60.0,
        "quick play: a seat's time per move; the random level plays a late one, and the "
        "seat for good after 3 in a row (60)",
        "SECONDS",
    )
    quick_play_calls: int = setting(
        60,
        "quick play: queue calls (Matchmake, LeaveQueue) a minute per client, all replicas; "
        "0: no limit (60)",
        "N",
    )


Settings = TypeVar("Settings", bound=BaseSettings)


def flag(name: str) -> str:
    """The command-line flag of the field ``name``."""
    return "--" + name.replace("_", "-")


def env_var(name: str, model: type[BaseSettings] = ServerSettings) -> str:
    """The environment variable of the field ``name`` of ``model``."""
    return str(model.model_config.get("env_prefix", "")) + name.upper()


def value_type(info: FieldInfo) -> type:
    """The type of one value of a field: ``int | None`` and ``list[int]`` give int."""
    annotation = info.annotation
    if get_origin(annotation) in (Union, types.UnionType):
        annotation = next(a for a in get_args(annotation) if a is not type(None))
    if get_origin(annotation) is list:
        annotation = get_args(annotation)[0]
    assert isinstance(annotation, type)
    return annotation


def _extra(info: FieldInfo) -> dict[str, Any]:
    extra = info.json_schema_extra
    assert isinstance(extra, dict)
    return extra


def add_arguments(
    parser: argparse.ArgumentParser,
    model: type[BaseModel] = ServerSettings,
    only: tuple[str, ...] | None = None,
) -> None:
    """Give ``parser`` a flag for every setting of ``model`` (or those named in ``only``).
    A flag not given leaves no attribute, so the environment and the defaults fill in
    behind the flags (``from_arguments``)."""
    for name, info in model.model_fields.items():
        if only is not None and name not in only:
            continue
        kind = value_type(info)
        extra = _extra(info)
        options: dict[str, Any] = {"dest": name, "default": argparse.SUPPRESS}
        options["help"] = info.description
        if kind is bool:
            parser.add_argument(flag(name), action="store_true", **options)
            continue
        options["type"] = kind
        if extra["metavar"]:
            options["metavar"] = extra["metavar"]
        if extra["repeatable"]:
            options["action"] = "append"
        parser.add_argument(flag(name), **options)


def from_arguments(
    args: argparse.Namespace,
    model: type[Settings] = ServerSettings,  # type: ignore[assignment]
) -> Settings:
    """The settings the flags in ``args`` give, over the environment and the defaults;
    ValueError saying which setting is wrong (a bad environment variable)."""
    given = {name: getattr(args, name) for name in model.model_fields if name in args}
    try:
        return model(**given)
    except ValidationError as exc:
        problems = "; ".join(
            f"{env_var(str(error['loc'][0]), model)}: {error['msg']}" for error in exc.errors()
        )
        raise ValueError(problems) from None


def _default_text(info: FieldInfo) -> str:
    default = info.get_default(call_default_factory=True)
    if default is None or default == []:
        return ""
    return f"`{default}`"


def markdown_table(model: type[BaseSettings] = ServerSettings) -> str:
    """docs/cli.md's table of the flags of ``model`` (``serve``'s by default)."""
    lines = ["| flag | environment | default | meaning |", "|---|---|---|---|"]
    for name, info in model.model_fields.items():
        metavar = _extra(info)["metavar"]
        shown = flag(name) + (f" {metavar}" if metavar else "")
        if value_type(info) is not bool and not metavar:
            shown += f" {name.upper()}"
        meaning = (info.description or "").replace("|", "\\|")
        lines.append(
            f"| `{shown}` | `{env_var(name, model)}` | {_default_text(info)} | {meaning} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] != ["--markdown"]:
        sys.exit("usage: python -m services.settings --markdown")
    sys.stdout.write(markdown_table())
