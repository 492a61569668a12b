"""Quick play across replicas (processes on one Redis and one PostgreSQL archive): kill
-9 the replica that holds the quick play lease while an account is queued, and the
other replica takes the queues over and matches it; none is lost."""

from __future__ import annotations

import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import redis
import sqlalchemy as sa

from gamehost import Client
from services.ladder.schema import ladder_leases
from services.matchmaking.matchmaker import LEASE
from tests.procs import Replica, wait_until


def test_a_killed_matchmaker_loses_no_queued_player(
    postgres_url, redis_url, redis_prefix, tmp_path
):
    upgrade = subprocess.run(
        [sys.executable, "-m", "gamehost.cli", "db", "upgrade", "--archive", postgres_url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert upgrade.returncode == 0, upgrade.stderr
    flags = ["--redis", redis_url, "--redis-prefix", redis_prefix, "--archive", postgres_url]
    flags += ["--bot-workers", "1", "--quick-play-wait", "120"]  # no house level fills
    replicas = [Replica(tmp_path / f"replica{i}.log", flags) for i in range(2)]
    engine = sa.create_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://"))
    queue = redis.Redis.from_url(redis_url)

    def holder_pid() -> int | None:
        with engine.connect() as connection:
            row = connection.execute(
                sa.select(ladder_leases.c.holder, ladder_leases.c.expires_at).where(
                    ladder_leases.c.name == LEASE
                )
            ).first()
        if row is None or row.expires_at < time.time():
            return None
        return int(row.holder.split("/")[1])

    try:
        for replica in replicas:
            replica.start()
        for replica in replicas:
            replica.wait_serving()
        pid = wait_until(holder_pid, 30, "a quick play lease holder")
        (killed,) = [r for r in replicas if r.pid == pid]
        (survivor,) = [r for r in replicas if r is not killed]
        with Client(survivor.target) as anyone, ThreadPoolExecutor(2) as pool:
            keys = {n: anyone.create_account(n).key for n in ("alice", "bob")}
            players = {n: Client(survivor.target, key=k) for n, k in keys.items()}
            alice = pool.submit(players["alice"].matchmake, "cite", 2)
            tickets = f"{redis_prefix}:{{mq}}:tickets"
            wait_until(lambda: queue.hexists(tickets, "alice"), 30, "alice queued")
            killed.kill9()  # the matchmaker dies with alice in the queue
            bob = pool.submit(players["bob"].matchmake, "cite", 2)
            answers = [alice.result(timeout=120), bob.result(timeout=120)]
            assert answers[0].game_id == answers[1].game_id
            assert sorted(a.seat for a in answers) == [0, 1] and answers[0].bots == 0
            assert holder_pid() == survivor.pid
            for client in players.values():
                client.close()
        assert survivor.alive()
    finally:
        queue.close()
        engine.dispose()
        for replica in replicas:
            replica.kill_group()
