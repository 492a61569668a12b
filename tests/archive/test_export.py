"""Export: `GET /v1/export` streams the archive's games as NDJSON, one a line in the
format of docs/export.md, filtered by game, date, player and tournament, and
`gamehost export` prints the same lines. A real server with a SQLite archive."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request

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
        wait_until(
            lambda: len(client.list_games(status=pb.FINISHED)) == 2, 120, "both games archived"
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
