"""``gamehost worker``'s settings, each defined once: type, default, help, flag and
environment variable (``GAMEHOST_WORKER_`` and the name in capitals). Its parser and the
flag table in docs/cli.md (``python -m workers.settings --markdown``) come from here, by
the same generator as ``serve``'s (services/settings.py)."""

from __future__ import annotations

import sys

from pydantic_settings import BaseSettings, SettingsConfigDict

from services.settings import (
    markdown_table,
    redis_sentinel_field,
    redis_service_field,
    setting,
)

__all__ = ["WorkerSettings"]


class WorkerSettings(BaseSettings):
    """Everything ``gamehost worker`` may be told: its flag is the name with dashes."""

    model_config = SettingsConfigDict(env_prefix="GAMEHOST_WORKER_", extra="forbid")

    broker: str | None = setting(
        None,
        "Celery broker, redis:// or redis+sentinel://h:p,.../NAME[/db] "
        "(default: $GAMEHOST_CELERY_BROKER)",
        "URL",
    )
    # The same Sentinel set as the serving replicas' (docs/reliability.md).
    redis_sentinel: str | None = redis_sentinel_field()
    redis_service: str | None = redis_service_field()
    concurrency: int | None = setting(None, "worker processes (default: CPUs)")
    loglevel: str = setting("INFO", "Celery's log level")
    hostname: str | None = setting(None, "worker node name (default: celery@HOST)")
    metrics_port: int | None = setting(None, "serve the worker's Prometheus metrics on this port")
    metrics_host: str = setting("0.0.0.0", "address for --metrics-port")


if __name__ == "__main__":
    if sys.argv[1:] != ["--markdown"]:
        sys.exit("usage: python -m workers.settings --markdown")
    sys.stdout.write(markdown_table(WorkerSettings))
