"""``gamehost serve --processes 2`` with every setting away from its default: each child
serves with the settings the parent was given (its start line says which), so no flag
is lost in multi-process mode. The values come from the settings model: a new numeric
setting is covered by itself, and a new text setting fails here until given a value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.archive import database
from services.settings import ServerSettings, flag, value_type
from tests.certificates import self_signed
from tests.procs import ServiceProcess, free_port, wait_until

pytestmark = [pytest.mark.procs, pytest.mark.slow]

START_LINE = "serve settings: "
# Settings the parent uses itself and resolves for its children (workers/cli.py
# _serve_processes): each child serves alone, and the parent serves the group's metrics.
FOR_CHILDREN = {"processes": 1, "metrics_port": None}
# The store's other shapes: the parent folds them into one --redis URL; a test Redis is
# one server, so they keep their defaults here (tests/stores/test_redis_connect.py).
STORE_SHAPES = {"redis_sentinel", "redis_service", "redis_cluster", "redis_min_replicas"}


def _given(tmp_path: Path, redis_url: str, redis_prefix: str, port: int) -> dict:
    """A value for every setting, none of them its default."""
    cert, key = self_signed(tmp_path)
    keys = tmp_path / "api-keys"
    keys.write_text("settings-test-key-0123 alice\n")
    archive = f"sqlite:///{tmp_path / 'archive.db'}"
    engine = database.make_engine(archive)
    database.upgrade(engine)  # given an --archive, serve on Redis expects its schema made
    engine.dispose()
    (tmp_path / "web").mkdir()
    named = {
        "host": "0.0.0.0",
        "port": port,
        "redis": redis_url,
        "redis_prefix": redis_prefix,
        "processes": 2,
        "celery": True,
        "api_keys": str(keys),
        "tls_cert": cert,
        "tls_key": key,
        "metrics_port": free_port(),
        "http_port": free_port(),
        "http_web_dir": str(tmp_path / "web"),
        "http_cors_origin": ["https://a.example", "https://b.example"],
        "celery_broker": redis_url,
        "archive": archive,
        "ladder": ["cite:2"],
        "ladder_house": "random,greedy",
        "quick_play_house": "greedy,random",
    }
    given = {}
    for name, info in ServerSettings.model_fields.items():
        if name in STORE_SHAPES:
            continue
        if name in named:
            given[name] = named[name]
            continue
        kind = value_type(info)
        assert kind in (int, float), f"give {flag(name)} a value in this test"
        default = info.get_default()
        given[name] = kind((default or 0) + 3)
    assert all(v != ServerSettings.model_fields[n].get_default() for n, v in given.items())
    return given


def _flags(given: dict) -> list[str]:
    args = []
    for name, value in given.items():
        if value is True:
            args.append(flag(name))
        for one in value if isinstance(value, list) else [] if value is True else [value]:
            args += [flag(name), str(one)]
    return args


def _start_lines(output: str) -> list[dict]:
    return [
        json.loads(line.partition(START_LINE)[2])
        for line in output.splitlines()
        if START_LINE in line
    ]


def test_each_child_serves_with_every_setting(tmp_path, redis_url, redis_prefix):
    given = _given(tmp_path, redis_url, redis_prefix, free_port())
    # The ladder's bot turns go to Celery: its keys under the test's prefix, removed after.
    celery_keys = {"GAMEHOST_CELERY_KEY_PREFIX": f"{redis_prefix}:celery:"}
    server = ServiceProcess(["serve", *_flags(given)], tmp_path / "serve.log", celery_keys)

    def both_serve() -> bool:
        # Each child says its settings, then, once it has started, where it serves.
        serving = server.output().count(f"gamehost serving on 0.0.0.0:{given['port']} ")
        assert serving == 2 or server.alive(), f"serve exited:\n{server.output()}"
        return serving == 2

    try:
        server.start()
        wait_until(both_serve, 60, "both children to serve")
    finally:
        server.kill_group()
    expected = ServerSettings(**{**given, **FOR_CHILDREN}).model_dump(mode="json")
    first, second = _start_lines(server.output())
    assert first == expected
    assert second == expected
