"""Export: `GET /v1/export` streams the archive's games as NDJSON, one a line in the
format of docs/export.md, filtered by game, date, player and tournament, and
`gamehost export` prints the same lines. A real server with a SQLite archive; the
command's refusals on each database."""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from services.server import ServerConfig, ServerThread
from tests.procs import wait_until

FIELDS = {
    "format",
    "game_id",
    "game_type",
    "players",
    "finished_at",
    "tournament",
    "seats",
    "returns",
    "entries",
}


def _get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as reply:
            return reply.status, reply.headers["Content-Type"], reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


def test_export_over_http_and_the_command_line(tmp_path):
    archive_url = f"sqlite:///{tmp_path / 'archive.sqlite3'}"
    config = ServerConfig(
        port=0,
        http_port=0,
        bot_workers=1,
        archive_url=archive_url,
        archive_create=True,
        anonymous_exports=0,  # this test exports many times (the limit: test_shared_limits)
    )
    with ServerThread(config) as server, Client(server.target) as client:
        zed = client.create_game(
            "cite", [pb.SeatSpec(kind=pb.BOT, bot_level="random", name="Zed"), "bot:greedy"]
        ).game_id
        other = client.create_game("endeavor", ["bot:random", "bot:random", "bot:random"]).game_id
        # Seen finished is archived: the embedded store archives a finish before showing it.
        wait_until(
            lambda: sum(g.status == pb.FINISHED for g in client.list_games()) == 2,
            120,
            "both archived",
        )
        base = server.running.http_url + "/v1/export"
        status, content_type, body = _get(base)
        assert status == 200 and content_type == "application/x-ndjson"
        lines = [json.loads(line) for line in body.splitlines()]
        assert {line["game_id"] for line in lines} == {zed, other}
        for line in lines:
            assert set(line) == FIELDS and line["format"] == 1
            record = client.record(line["game_id"])
            assert line["game_type"] == record.game_type and line["players"] == record.players
            assert line["returns"] == list(record.returns)
            assert line["entries"] == [
                {
                    "seat": e.actor.seat if e.actor.kind == pb.Actor.SEAT else -1,
                    "action": e.action_id,
                    "notation": e.notation,
                }
                for e in record.entries
            ]
            assert line["finished_at"].endswith("Z") and line["tournament"] is None
        cite = next(line for line in lines if line["game_id"] == zed)
        assert cite["seats"] == [
            {"name": "Zed", "kind": "bot", "level": "random"},
            {"name": "greedy", "kind": "bot", "level": "greedy"},
        ]

        def ids(query: str) -> list[str]:
            status, _, body = _get(base + query)
            assert status == 200, body
            return [json.loads(line)["game_id"] for line in body.splitlines()]

        assert ids("?gameType=cite") == [zed] and ids("?game_type=cite") == [zed]
        assert ids("?player=Zed") == [zed]
        assert ids("?since=2000-01-01") != [] and ids("?since=2999-01-01") == []
        assert ids("?tournament=none-such") == []
        status, _, body = _get(base + "?since=yesterday")
        assert status == 400 and "INVALID_ARGUMENT" in body and "2026-11-01" in body
        status, _, body = _get(base + "?gameType=chess")
        assert status == 400 and "unknown game type" in body

        # The same lines over gRPC.
        assert list(client.export_games()) == body_all(base)
        assert [json.loads(x)["game_id"] for x in client.export_games(game_type="cite")] == [zed]

        printed = subprocess.run(
            [sys.executable, "-m", "gamehost.cli", "export", "--archive", archive_url],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        assert printed.splitlines() == body_all(base)
        only = subprocess.run(
            [sys.executable, "-m", "gamehost.cli", "export", "--archive", archive_url]
            + ["--game", "cite", "--player", "Zed", "--since", "2000-01-01"],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        assert [json.loads(line)["game_id"] for line in only.splitlines()] == [zed]


def body_all(base: str) -> list[str]:
    return _get(base)[2].splitlines()


def _export_command(*args: str, cwd, data_dir) -> subprocess.CompletedProcess:
    env = {**os.environ, "GAMEHOST_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [sys.executable, "-m", "gamehost.cli", "export", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
    )


def test_export_on_a_fresh_data_directory_names_the_file_and_creates_nothing(tmp_path):
    data_dir = tmp_path / "data"
    done = _export_command(cwd=tmp_path, data_dir=data_dir)
    assert done.returncode == 1 and done.stdout == ""
    assert f"no archive at {data_dir / 'archive.sqlite3'}" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_export_of_a_three_slash_url_names_the_resolved_file_and_suggests_four(tmp_path):
    meant = f"tmp/gamehost-{uuid.uuid4().hex}/archive.sqlite3"  # absolute was meant
    done = _export_command("--archive", f"sqlite:///{meant}", cwd=tmp_path, data_dir=tmp_path)
    assert done.returncode == 1
    assert f"no archive at {tmp_path / meant}" in done.stderr
    assert f"sqlite:////{meant}" in done.stderr
    assert list(tmp_path.iterdir()) == [] and not Path("/", meant).parent.exists()


def test_export_of_an_archive_with_no_schema_names_the_resolved_file(tmp_path):
    sqlite3.connect(tmp_path / "empty.sqlite3").close()  # a database with no tables
    done = _export_command("--archive", "sqlite:///empty.sqlite3", cwd=tmp_path, data_dir=tmp_path)
    assert done.returncode == 1
    assert f"(file {tmp_path / 'empty.sqlite3'}) is at schema empty" in done.stderr


def test_list_games_and_the_export_write_the_finish_time_in_one_form(tmp_path):
    """An RFC 3339 UTC string, the same instant in ListGames (gRPC's finished_time, the
    HTTP API's finishedTime) and in the export's finished_at; ListGames' deprecated
    finished_at (Unix seconds) still says the same."""
    config = ServerConfig(
        port=0,
        http_port=0,
        bot_workers=1,
        archive_url=f"sqlite:///{tmp_path / 'archive.sqlite3'}",
        archive_create=True,
    )
    with ServerThread(config) as server, Client(server.target) as client:
        game_id = client.create_game("cite", ["bot:random", "bot:random"]).game_id
        (summary,) = wait_until(
            lambda: client.list_games(status=pb.FINISHED), 120, "the game archived"
        )
        (line,) = [json.loads(x) for x in client.export_games()]
        status, _, body = _get(server.running.http_url + "/v1/games?status=FINISHED")
        assert status == 200, body
        (listed,) = json.loads(body)["games"]
    assert summary.game_id == line["game_id"] == listed["gameId"] == game_id
    exported = dt.datetime.fromisoformat(line["finished_at"])
    assert listed["finishedTime"].endswith("Z") and line["finished_at"].endswith("Z")
    assert dt.datetime.fromisoformat(listed["finishedTime"]) == exported
    assert summary.finished_time.ToDatetime(dt.UTC) == exported
    assert dt.datetime.fromtimestamp(summary.finished_at, dt.UTC) == exported


@pytest.mark.parametrize("since", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"])
def test_export_command_refuses_a_since_no_sql_datetime_holds(archive, archive_url, since):
    """A date whose UTC time is past what SQL datetimes hold is a usage error (exit 2)
    saying so, on either database, not a traceback from the query."""
    done = subprocess.run(
        [sys.executable, "-m", "gamehost.cli", "export", "--archive", archive_url]
        + ["--since", since],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"gamehost: since {since!r} is out of range"), done.stderr
