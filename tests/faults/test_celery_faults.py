"""Bot turns on Celery workers heal themselves: with no worker alive, GetState says
the bot waits for capacity; a worker killed mid-search while another is alive
costs a lease (the workers heartbeat it), not the broker's visibility timeout."""

from __future__ import annotations

import time
import uuid

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from tests.faults.harness import SEARCHING_BOT, Ledger, busy, time_to_move, version
from tests.procs import Replica, Worker, wait_until

# A dead worker's turn comes back after a lease (its figure is printed; target 30 s), not
# the broker's visibility timeout (an hour): time_to_move's 60 s wait tells them apart.


def bot_status(target: str, game_id: str) -> int:
    with Client(target, timeout=3) as client:
        return client.state(game_id).bot_status


def test_worker_killed_mid_search_other_worker_resumes(tmp_path, own_redis, broker, control):
    queue = f"fault-{uuid.uuid4().hex[:8]}"
    env = {"GAMEHOST_CELERY_QUEUE": queue}
    replica = Replica(
        tmp_path / "replica.log",
        ["--redis", own_redis.url, "--celery", "--celery-broker", broker],
        env,
    ).start()
    workers: list[Worker] = []
    try:
        replica.wait_serving()
        with Client(replica.target, timeout=10) as client:
            game_id = client.create_game("cite", [SEARCHING_BOT] * 2, seed=8).game_id
        # No worker alive: the turn waits for capacity, and GetState says so.
        wait_until(
            lambda: bot_status(replica.target, game_id) == pb.BOT_WAITING_FOR_CAPACITY,
            15,
            "GetState to say the bot waits for capacity",
        )
        for index in range(2):
            worker = Worker(tmp_path / f"worker-{index}.log", broker, queue, concurrency=1)
            worker.args += ["--loglevel", "INFO"]
            workers.append(worker.start())
        for worker in workers:
            worker.wait_ready(control)
        at = version(replica.target, game_id)
        time_to_move(replica.target, game_id, at, timeout=30)
        assert bot_status(replica.target, game_id) in (pb.BOT_THINKING, pb.BOT_STATUS_UNSPECIFIED)
        ledger = Ledger([replica.target])
        ledger.play(3)

        victim = wait_until(
            lambda: next((w for w in workers if busy(w)), None), 30, "a worker mid-search"
        )
        at = version(replica.target, game_id)
        victim.kill_group()  # the whole worker, its pool children too
        killed = time.monotonic()
        ledger.play(3)
        resumed = time_to_move(replica.target, game_id, at, timeout=60, started=killed)
        print(f"\nresume after a worker's kill -9: {resumed:.2f} s")
        ledger.check(replica.target)
    finally:
        for worker in workers:
            worker.kill_group()
        replica.kill_group()
