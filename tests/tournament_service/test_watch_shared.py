"""Many WatchTournament streams on one replica on Redis share the replica's one watch
reader (services.watch.hub), as WatchGame streams do: they do not take a pooled Redis
connection each. A Redis of the test's own, so its client list holds only this
replica's connections."""

from __future__ import annotations

import asyncio

import grpc
import redis

from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from services.server import ServerConfig, ServerThread
from services.stores.redis_store import watch_client_name
from tests.procs import RedisServer, wait_until
from tests.tournament_service.test_api import definition

STREAMS = 60


def connections(port: int) -> list[dict]:
    client = redis.Redis(port=port)
    try:
        me = client.client_id()
        return [c for c in client.client_list() if int(c["id"]) != me]
    finally:
        client.close()


async def test_many_tournament_streams_share_one_redis_connection(tmp_path):
    own = RedisServer(tmp_path / "redis").start()
    config = ServerConfig(port=0, redis_url=own.url, bot_workers=1, rate_limit=0)
    try:
        with ServerThread(config) as server:
            externals = [("me", ""), ("you", "")]  # nobody moves: it keeps running
            async with grpc.aio.insecure_channel(server.target) as channel:
                stub = pb_grpc.GameHostStub(channel)
                await stub.CreateTournament(
                    pb.CreateTournamentRequest(definition=definition("watched", entrants=externals))
                )
                streams = [
                    stub.WatchTournament(pb.WatchTournamentRequest(name="watched"))
                    for _ in range(STREAMS)
                ]
                firsts = await asyncio.gather(*(s.read() for s in streams))
                assert all(e.kind == pb.TournamentEvent.TABLE_STARTED for e in firsts)
                hub = server.running.host.hub
                wait_until(lambda: hub.subscribers == STREAMS, 10, "every stream subscribed")
                assert hub.games == 1  # one feed for the tournament, however many streams
                open_now = connections(own.port)
                reader = watch_client_name(config.redis_prefix)
                watchers = [c for c in open_now if c.get("name") == reader]
                assert len(watchers) == 1
                # Only that one waits in a blocking read; the rest are the pool the calls
                # share, idle. (How many the pool opened depends on how many of the
                # streams' first reads overlapped: a busy machine overlaps more.)
                blocked = [c for c in open_now if "b" in c["flags"]]
                assert [c.get("name") for c in blocked] == [reader], open_now
                await stub.CancelTournament(pb.CancelTournamentRequest(name="watched"))
                for stream in streams:  # each reads on to the end of its stream
                    kinds = []
                    while (event := await stream.read()) is not grpc.aio.EOF:
                        kinds.append(event.kind)
                    assert kinds[-1] == pb.TournamentEvent.TOURNAMENT_CANCELLED
            wait_until(lambda: hub.subscribers == 0, 10, "the streams to let go")
    finally:
        own.stop()
