"""A Celery worker killed with -9 in the middle of a tournament's table costs nothing:
another worker takes the turn over when its lease runs out, and the tournament ends
with the report of an uninterrupted in-memory run, every table played by one game,
none lost and none counted twice."""

from __future__ import annotations

import json
import uuid

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from services.server import ServerConfig, ServerThread
from tests.faults.harness import busy
from tests.procs import Replica, Worker, wait_until

GAMES = 4


def definition() -> pb.TournamentDefinition:
    # A small search (a few tens of ms a move) keeps the worker busy often enough to
    # be caught mid-search, and the whole tournament short.
    entrants = [("search", "mcts:iterations=40,trees=1"), ("greedy", "greedy")]
    return pb.TournamentDefinition(
        name="worker-killed",
        game_type="cite",
        players=2,
        entrants=[pb.TournamentEntrant(name=n, level=level) for n, level in entrants],
        format="round-robin",
        games=GAMES,
        seed=21,
        parallel=2,
    )


def in_memory_report() -> dict:
    config = ServerConfig(port=0, bot_workers=1)
    with ServerThread(config) as server, Client(server.target) as client:
        client.create_tournament(definition())
        for _ in client.watch_tournament("worker-killed"):
            pass  # the stream ends with the tournament
        final = client.tournament("worker-killed")
    assert final.status == pb.TOURNAMENT_FINISHED
    return json.loads(final.report_json)


def test_a_worker_killed_mid_table_leaves_the_report_unchanged(
    tmp_path, own_redis, broker, control
):
    queue = f"fault-{uuid.uuid4().hex[:8]}"
    replica = Replica(
        tmp_path / "replica.log",
        ["--redis", own_redis.url, "--celery", "--celery-broker", broker],
        {"GAMEHOST_CELERY_QUEUE": queue},
    ).start()
    workers = [Worker(tmp_path / f"worker-{i}.log", broker, queue) for i in range(2)]
    for worker in workers:
        worker.args += ["--loglevel", "INFO"]  # busy() reads the task lines
    first, second = workers
    try:
        first.start()
        replica.wait_serving()
        first.wait_ready(control)
        with Client(replica.target, timeout=10) as client:
            client.create_tournament(definition())

            def mid_table() -> bool:
                progress = client.tournament("worker-killed").progress
                return 1 <= progress.finished_games < GAMES and busy(first)

            wait_until(mid_table, 120, "a worker mid-search after a first table")
            first.kill_group()  # kill -9 of the worker and its pool children
            assert client.tournament("worker-killed").status == pb.TOURNAMENT_RUNNING
            second.start().wait_ready(control)
            wait_until(
                lambda: client.tournament("worker-killed").status == pb.TOURNAMENT_FINISHED,
                120,
                "the tournament to finish on the second worker",
            )
            final = client.tournament("worker-killed")
            games = client.list_games(limit=1000)
        assert "succeeded" in second.output()  # the replacement really played
        report = json.loads(final.report_json)
        assert report["games"] == GAMES and final.progress.finished_games == GAMES
        game_ids = [table.game_id for table in final.tables]
        assert len(set(game_ids)) == GAMES and all(table.finished for table in final.tables)
        # Every game on the store is a table of the tournament: none lost, none extra.
        assert sorted(g.game_id for g in games) == sorted(game_ids)
        assert all(g.status == pb.FINISHED for g in games)
        assert report == in_memory_report()
    finally:
        for worker in workers:
            worker.kill_group()
        replica.kill_group()
