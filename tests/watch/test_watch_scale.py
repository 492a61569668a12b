"""2,000 WatchGame streams on ONE replica (a `gamehost serve` subprocess on Redis):
every stream is served and sees its game's next event, other calls are answered
meanwhile, and nothing is left behind once the streams close. How fast: a figure of
benchmarks/watch_scale.py (GetState p99 with and without the streams), not asserted.

The streams are held by this test process (grpc.aio), the server runs in its own
process, so the load generator never shares the server's event loop or GIL.
"""

from __future__ import annotations

import asyncio

import grpc
import pytest
import redis
import tenacity

from gamehost import retry
from gamehost.client import _unavailable as unavailable
from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from services.stores.redis_store import watch_client_name
from tests.fixtures.metrics import scrape
from tests.polling import eventually
from tests.procs import Replica, free_port

STREAMS = 2000
GAMES = 50
IN_ONE_GAME = 500  # game 0's streams; the others share the remaining games evenly
CHANNELS = 8  # HTTP/2 connections the streams are spread over
SAMPLES = 300  # GetState calls made while the streams are open

pytestmark = [pytest.mark.procs, pytest.mark.slow]


async def get_states(stub, game_ids: list[str]) -> list[str]:
    """SAMPLES GetState calls over the games, one after another; the game ids answered."""
    answered = []
    for i in range(SAMPLES):
        state = await stub.GetState(
            pb.GetStateRequest(game_id=game_ids[i % len(game_ids)]), timeout=60
        )
        answered.append(state.game_id)
    return answered


def gauge(port: int, name: str) -> float:
    for line in scrape(port).splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no metric {name}")


class Watcher:
    """One open WatchGame stream and what it received. A stream answered UNAVAILABLE is
    opened again after the last event it saw, as the client library retries (its policy:
    gamehost/retry.py, its defaults: 5 more tries, waits from 0.1 s doubling to 2 s, full
    jitter): in the burst of 2,000 opens, on a machine the other tests keep busy, a call
    can wait out the replica's 5 s for one of its pooled Redis connections."""

    def __init__(self, stub, game_id: str, token: str) -> None:
        self.stub, self.game_id, self.token = stub, game_id, token
        self.events: list[pb.GameEvent] = []
        self.error: grpc.aio.AioRpcError | None = None
        self.call = self._open()
        self.task = asyncio.create_task(self._read())

    def _open(self):
        after = self.events[-1].event_id if self.events else 0
        return self.stub.WatchGame(
            pb.WatchGameRequest(game_id=self.game_id, token=self.token, after_event_id=after)
        )

    async def _follow(self) -> None:
        if self.call.done():  # ended UNAVAILABLE: the retry opens it again
            self.call = self._open()
        async for event in self.call:
            self.events.append(event)

    async def _read(self) -> None:
        retrying = tenacity.AsyncRetrying(
            stop=tenacity.stop_after_attempt(6),
            wait=retry.doubling(0.1, 2.0, jitter=True),
            retry=tenacity.retry_if_exception(unavailable),
            sleep=asyncio.sleep,
            reraise=True,
        )
        try:
            await retrying(self._follow)
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                self.error = exc

    def saw(self, event_id: int) -> bool:
        return any(e.event_id == event_id for e in self.events)


def watch_connections(redis_url: str, prefix: str) -> int:
    """The watch readers of this test's replica (other runs may share the Redis)."""
    client = redis.Redis.from_url(redis_url)
    try:
        return sum(1 for c in client.client_list() if c.get("name") == watch_client_name(prefix))
    finally:
        client.close()


@pytest.mark.parametrize("store", ["redis", "memory"])
async def test_two_thousand_streams_on_one_replica(tmp_path, redis_url, redis_prefix, store):
    metrics_port = free_port()
    on_redis = ["--redis", redis_url, "--redis-prefix", redis_prefix] if store == "redis" else []
    replica = Replica(
        tmp_path / "replica.log",
        # One client address opens 2,000 streams at once: the per-client rate limit is off.
        [*on_redis, "--bot-workers", "1", "--metrics-port", str(metrics_port), "--rate-limit", "0"],
    )
    baseline_watchers = watch_connections(redis_url, redis_prefix)
    # Separate connections: grpc would otherwise share one subchannel between them.
    channels = [
        grpc.aio.insecure_channel(replica.target, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(CHANNELS + 1)
    ]
    try:
        replica.start().wait_serving()
        control = pb_grpc.GameHostStub(channels[-1])
        games, tokens = [], []
        for i in range(GAMES):
            seats = [pb.SeatSpec(kind=pb.HUMAN), pb.SeatSpec(kind=pb.HUMAN)]
            created = await control.CreateGame(
                pb.CreateGameRequest(game_type="cite", seats=seats, seed=i)
            )
            joined = await control.JoinGame(pb.JoinGameRequest(game_id=created.game_id, seat=0))
            games.append(created.game_id)
            tokens.append(joined.token)

        # 500 streams on game 0, 1,500 over the 49 others; a quarter watch as seat 0.
        owners = [0] * IN_ONE_GAME + [1 + i % (GAMES - 1) for i in range(STREAMS - IN_ONE_GAME)]
        stubs = [pb_grpc.GameHostStub(c) for c in channels[:CHANNELS]]
        watchers = [
            Watcher(stubs[i % CHANNELS], games[g], tokens[g] if i % 4 == 0 else "")
            for i, g in enumerate(owners)
        ]
        newest = {
            g: (await control.GetState(pb.GetStateRequest(game_id=g))).last_event_id for g in games
        }
        # Each stream replays its game's log first: seeing the newest event means it is open.
        await eventually(
            lambda: all(w.saw(newest[w.game_id]) or w.error for w in watchers),
            60,
            lambda: (
                f"every stream to catch up ({sum(w.saw(newest[w.game_id]) for w in watchers)} did)"
            ),
        )
        assert [w.error for w in watchers if w.error] == []
        assert gauge(metrics_port, "gamehost_watch_streams") == STREAMS
        assert gauge(metrics_port, "gamehost_watch_games") == GAMES
        # On Redis: one reader connection (one XREAD) for all 2,000 streams.
        assert watch_connections(redis_url, redis_prefix) == baseline_watchers + (store == "redis")

        # Other calls are answered while the streams are open.
        expected = [games[i % len(games)] for i in range(SAMPLES)]
        assert await get_states(control, games) == expected

        # The next event of every game reaches every one of its streams.
        moved = {}
        for game_id, token in zip(games, tokens, strict=True):
            state = await control.GetState(pb.GetStateRequest(game_id=game_id, token=token))
            reply = await control.SubmitAction(
                pb.SubmitActionRequest(
                    game_id=game_id,
                    token=token,
                    action_id=state.legal_actions[0].id,
                    expected_version=state.version,
                )
            )
            moved[game_id] = reply.version
        await eventually(
            lambda: all(
                any(e.kind == pb.ACTION and e.version == moved[w.game_id] for e in w.events)
                for w in watchers
            ),
            30,
            lambda: "every stream to see its game's move",
        )
        assert [w.error for w in watchers if w.error] == []

        for watcher in watchers:
            watcher.call.cancel()
        await asyncio.gather(*(w.task for w in watchers), return_exceptions=True)
        # The replica lets go of everything: no subscriber, no feed, no reader connection.
        await eventually(
            lambda: (
                gauge(metrics_port, "gamehost_watch_streams") == 0
                and gauge(metrics_port, "gamehost_watch_games") == 0
                and watch_connections(redis_url, redis_prefix) == baseline_watchers
            ),
            30,
            lambda: "the replica to drop every stream and its reader",
        )
    finally:
        for channel in channels:
            await channel.close()
        replica.kill_group()
