"""An embedded server (in-memory store) whose archive cannot be reached when a game
ends tells nobody the game is FINISHED: a player's finishing move is answered
UNAVAILABLE and the same request applied once when retried later; a finishing bot move
is put off like any failed bot turn. The game reads as running meanwhile, and finishes
(in the archive first) once the archive answers again. A real server process and a
real PostgreSQL archive, closed to connections for a while."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
import sqlalchemy as sa

from gamehost import Client
from gamehost.errors import GameError
from gamehost.v1 import gamehost_pb2 as pb
from loadtest import counter_game
from services.archive import database
from services.archive.archive import Archive
from services.archive.schema import games
from tests.fixtures.databases import POSTGRES_URL
from tests.procs import Replica, wait_until

pytestmark = pytest.mark.procs

REFUSED = "the archive did not take its finish"  # the server's log line
COUNTER = {"GAMEHOST_EXTRA_GAMES": counter_game.COUNTER}  # 2 moves


def _allow_connections(name: str, allow: bool) -> None:
    """Open or close database ``name`` to new connections (closing ends the open ones)."""
    with psycopg.connect(POSTGRES_URL, autocommit=True, connect_timeout=5) as admin:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {str(allow).lower()}')
        if not allow:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )


def test_a_finish_the_archive_cannot_take_is_not_shown(postgres_url, tmp_path):
    Archive.open(postgres_url, create=True).close()
    name = sa.make_url(postgres_url).database
    server = Replica(tmp_path / "serve.log", ["--bot-workers", "1", "--archive", postgres_url])
    try:
        server.start().wait_serving()
        _allow_connections(name, False)
        with Client(server.target) as client:
            seats = [pb.SeatSpec(kind=pb.BOT, bot_level="random")] * 2
            game_id = client.create_game("cite", seats, seed=5).game_id

            def ended_or_refused() -> bool:
                return REFUSED in server.output() or client.state(game_id).status == pb.FINISHED

            wait_until(ended_or_refused, 120, "the bots to play the game to its end")
            held = client.state(game_id)
            assert held.status == pb.IN_PROGRESS, "told FINISHED with no archive to keep it"
            assert held.to_move.kind == pb.Actor.SEAT  # the last bot move is still due

            _allow_connections(name, True)  # the bot turn's backoff retries it
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
        _allow_connections(name, True)  # the fixture drops it afterwards


def test_a_finishing_move_the_archive_cannot_take_is_unavailable(postgres_url, tmp_path):
    Archive.open(postgres_url, create=True).close()
    name = sa.make_url(postgres_url).database
    flags = ["--bot-workers", "1", "--archive", postgres_url]
    server = Replica(tmp_path / "serve.log", flags, COUNTER)
    try:
        server.start().wait_serving()
        with Client(server.target, retries=0) as client:
            game_id = client.create_game("counter", ["human"] * 2, {"moves": 2}).game_id
            tokens = [client.join(game_id, seat).token for seat in (0, 1)]
            client.submit(game_id, tokens[0], "inc", request_id="first")
            before = client.state(game_id)

            _allow_connections(name, False)
            with pytest.raises(GameError) as refused:
                client.submit(game_id, tokens[1], "inc", request_id="last")
            assert refused.value.code.name == "UNAVAILABLE"
            assert "retry with the same request_id" in refused.value.details
            assert client.state(game_id) == before  # nothing changed

            _allow_connections(name, True)
            applied = client.submit(game_id, tokens[1], "inc", request_id="last")
            again = client.submit(game_id, tokens[1], "inc", request_id="last")
            final = client.state(game_id)
        assert (applied.duplicate, again.duplicate) == (False, True)
        assert applied.version == again.version == final.version == before.version + 1
        assert final.status == pb.FINISHED
        engine = database.make_engine(postgres_url)  # the row alone: this process has no counter
        try:
            with engine.connect() as connection:
                row = sa.select(games.c.status).where(games.c.game_id == game_id)
                assert connection.execute(row).scalar_one() == "finished"
        finally:
            engine.dispose()
    finally:
        server.kill_group()
        _allow_connections(name, True)
