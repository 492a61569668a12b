"""Reads fall back to the archive: once Redis has forgotten everything (the test's
prefix deleted, as FLUSHDB would), a fresh replica on the same archive answers
GetRecord, GetState, WatchGame and GetTournament exactly as before, per viewer, and
ListGames finds the games by a seat's name, tournament and type, page by page.
Real Redis, real PostgreSQL, real servers."""

from __future__ import annotations

import time

import grpc
import psycopg
import pytest
import redis
import sqlalchemy as sa

from gamehost import Client, GameError
from gamehost.v1 import gamehost_pb2 as pb
from services.archive.archive import Archive
from services.server import ServerConfig, ServerThread
from tests.fixtures.databases import POSTGRES_URL
from tests.procs import wait_until
from tests.tournament_service.test_api import definition


def _config(redis_url: str, prefix: str, archive_url: str) -> ServerConfig:
    return ServerConfig(
        port=0, redis_url=redis_url, redis_prefix=prefix, bot_workers=1, archive_url=archive_url
    )


def _forget_everything(redis_url: str, prefix: str) -> None:
    """What FLUSHDB does to this deployment, without touching the shared Redis' others."""
    client = redis.Redis.from_url(redis_url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=500))
        client.delete(*keys)
        assert not list(client.scan_iter(match=f"{prefix}:*", count=500))
    finally:
        client.close()


def _answers(client: Client, game_id: str, token: str) -> tuple:
    """Everything a viewer reads of a finished game."""
    return (
        client.record(game_id, token, include_views=True),
        client.state(game_id, token),
        list(client.watch(game_id, token)),
    )


@pytest.fixture
def archive_db(postgres_url):
    Archive.open(postgres_url, create=True).close()
    return postgres_url


def test_a_fresh_replica_serves_every_archived_game_after_redis_forgot(
    redis_url, redis_prefix, archive_db
):
    with ServerThread(_config(redis_url, redis_prefix, archive_db)) as server:
        client = Client(server.target)
        bots = client.create_game(
            "cite",
            [pb.SeatSpec(kind=pb.BOT, bot_level="random", name=n) for n in ("Zed", "Yan")],
            seed=3,
        )
        people = client.create_game("endeavor", ["human:Ann", "bot:random", "bot:greedy"], seed=4)
        ann = client.join(people.game_id, 0, "Ann")
        client.hand_over(people.game_id, ann.token, "random")  # away: Ann's token holds
        client.create_tournament(definition("kept", games=2, parallel=2))
        games = {bots.game_id: [""], people.game_id: ["", ann.token]}

        def all_done() -> bool:
            finished = all(client.state(g).status == pb.FINISHED for g in games)
            ended = client.tournament("kept").status == pb.TOURNAMENT_FINISHED
            return finished and ended

        wait_until(all_done, 240, "the games and the tournament to finish")
        store = server.running.store
        wait_until(lambda: server.call(store.archive_backlog()) == 0, 60, "the archiver")
        before = {(g, t): _answers(client, g, t) for g, viewers in games.items() for t in viewers}
        tournament = client.tournament("kept", include_exports=True)
        tables = [t.game_id for t in tournament.tables]
        table_records = {g: client.record(g, "", include_views=True) for g in tables}
        client.close()

    _forget_everything(redis_url, redis_prefix)

    with ServerThread(_config(redis_url, redis_prefix, archive_db)) as fresh:
        client = Client(fresh.target)
        for (game_id, token), answers in before.items():
            assert _answers(client, game_id, token) == answers
        assert client.tournament("kept", include_exports=True) == tournament
        assert [t.name for t in client.list_tournaments()] == ["kept"]
        for game_id, record in table_records.items():
            assert client.record(game_id, "", include_views=True) == record
        # Hidden information and tokens keep their rules: a wrong token is refused.
        with pytest.raises(GameError) as refused:
            client.state(people.game_id, "not-a-token")
        assert refused.value.code == grpc.StatusCode.UNAUTHENTICATED

        # Found by name, by tournament, by type, and page by page.
        assert [g.game_id for g in client.list_games(player="Ann")] == [people.game_id]
        zed = client.list_games(player="Zed")
        assert [g.game_id for g in zed] == [bots.game_id]
        assert [s.name for s in zed[0].seats] == ["Zed", "Yan"]
        assert zed[0].status == pb.FINISHED and zed[0].finished_at > 0
        assert sorted(g.game_id for g in client.list_games(tournament="kept")) == sorted(tables)
        assert [g.game_id for g in client.list_games(game_type="endeavor")] == [people.game_id]
        assert client.list_games(status=pb.IN_PROGRESS) == []
        greedy = {g.game_id for g in client.list_games(bot_level="greedy")}
        assert greedy == {people.game_id, *tables}  # a greedy seat: Endeavor's, every table's
        now = time.time()
        assert {g.game_id for g in client.list_games(finished_after=int(now) - 3600)} == {
            *games,
            *tables,
        }
        assert client.list_games(finished_before=int(now) - 3600) == []
        paged, token = [], ""
        while True:
            page = client.list_games_page(page_size=1, page_token=token)
            paged += [g.game_id for g in page.games]
            token = page.next_page_token
            if not token:
                break
        assert sorted(paged) == sorted([*games, *tables])
        with pytest.raises(GameError) as bad:
            client.list_games_page(page_token="nonsense")
        assert bad.value.code == grpc.StatusCode.INVALID_ARGUMENT
        client.close()


def test_an_archive_that_does_not_answer_is_unavailable_not_internal(postgres_url):
    Archive.open(postgres_url, create=True).close()
    config = ServerConfig(port=0, bot_workers=1, archive_url=postgres_url)
    with ServerThread(config) as server, Client(server.target) as client:
        name = sa.make_url(postgres_url).database
        with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        with pytest.raises(GameError) as down:
            client.state("0" * 32)  # not in the store: the archive is asked
        assert down.value.code == grpc.StatusCode.UNAVAILABLE


def test_list_games_refuses_filters_it_cannot_use(tmp_path):
    config = ServerConfig(
        port=0,
        bot_workers=1,
        archive_url=f"sqlite:///{tmp_path / 'archive.sqlite3'}",
        archive_create=True,
    )
    with ServerThread(config) as server, Client(server.target) as client:
        for fields in (
            {"finished_after": 2**62},
            {"finished_before": -5},
            {"game_type": "chess"},
            {"page_token": "A" + "!" * 20},
        ):
            with pytest.raises(GameError) as refused:
                client.list_games_page(**fields)
            assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT, fields
        assert client.list_games(finished_after=1, finished_before=2**33) == []
