"""An embedded server (in-memory store) whose archive cannot be reached when a game
ends tells nobody the game is FINISHED: the finishing bot move is refused and put off
like any failed bot turn, the game reads as running meanwhile, and it finishes (in the
archive first) once the archive answers again. A real server process and a real
PostgreSQL archive, closed to connections for a while."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
import sqlalchemy as sa

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from services.archive.archive import Archive
from tests.archive.conftest import POSTGRES_URL
from tests.procs import Replica, wait_until

pytestmark = pytest.mark.procs

REFUSED = "the archive did not take its finish"  # the server's log line


def _allow_connections(database: str, allow: bool) -> None:
    """Open or close the database to new connections (closing ends the open ones)."""
    with psycopg.connect(POSTGRES_URL, autocommit=True, connect_timeout=5) as admin:
        admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS {str(allow).lower()}')
        if not allow:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (database,),
            )


def test_a_finish_the_archive_cannot_take_is_not_shown(postgres_url, tmp_path):
    Archive.open(postgres_url, create=True).close()
    database = sa.make_url(postgres_url).database
    server = Replica(tmp_path / "serve.log", ["--bot-workers", "1", "--archive", postgres_url])
    try:
        server.start().wait_serving()
        _allow_connections(database, False)
        with Client(server.target) as client:
            seats = [pb.SeatSpec(kind=pb.BOT, bot_level="random")] * 2
            game_id = client.create_game("cite", seats, seed=5).game_id

            def ended_or_refused() -> bool:
                return REFUSED in server.output() or client.state(game_id).status == pb.FINISHED

            wait_until(ended_or_refused, 120, "the bots to play the game to its end")
            held = client.state(game_id)
            assert held.status == pb.IN_PROGRESS, "told FINISHED with no archive to keep it"
            assert held.to_move.kind == pb.Actor.SEAT  # the last bot move is still due

            _allow_connections(database, True)  # the bot turn's backoff retries it
            wait_until(lambda: client.state(game_id).status == pb.FINISHED, 120, "the finish")
            final = client.state(game_id)
        assert final.version > held.version
        archive = Archive.open(postgres_url)
        try:
            archived = asyncio.run(archive.game(game_id))
        finally:
            archive.close()
        assert archived is not None and archived.snapshot.version == final.version
    finally:
        server.kill_group()
        _allow_connections(database, True)  # the fixture drops it afterwards
