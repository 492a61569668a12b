"""The push path's floor on this stack: the counter game served by a bare grpc.aio server.

    .venv/bin/python benchmarks/studies/push_floor.py PORT [REDIS_URL KEY_PREFIX]

benchmarks/studies/peer_server.py's ``floor`` server (``--servers floor``): the same
gamehost.v1 API, uvloop and protobuf as ``gamehost serve``, and nothing else. It
answers CreateGame, JoinGame, SubmitAction and WatchGame for the counter game only, in
a dict, with no interceptors, metrics, request checks, tokens worth the name, store,
engine or views. Asked for ``cite``, it plays the counter with Cité's message count
as peer_server.py measures it: 33 moves a game, and a chance event after 0.74 of
the moves (3.7 stream messages a move, with the created and joined events). What peer_server.py's load generator gets from it is what one
Python process on grpc.aio can do with this push flow (one SubmitAction and one
stream message per seat per move): gamehost's own work comes on top of it. Listens on
127.0.0.1 only.

With a Redis URL (peer_server.py's ``floor-redis``), every event goes through Redis
first (``RedisFloor``): what a store shared by replicas adds to a move, at the least.
Its keys are under KEY_PREFIX; a finished game's are deleted.
"""

from __future__ import annotations

import asyncio
import sys
import uuid

import grpc

from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc

# Cité as the load generator sees it: moves a game, chance events a move.
CITE_MOVES, CITE_CHANCE = 33, 0.74


class _Game:
    def __init__(self, limit: int, chance: float = 0.0) -> None:
        self.limit = limit
        self.chance = chance
        self.owed = 0.0  # chance events due (a fraction of one each move)
        self.n = 0
        self.events: list[pb.GameEvent] = []
        self.changed = asyncio.Event()

    def to_move(self) -> pb.Actor:
        if self.n >= self.limit:
            return pb.Actor(kind=pb.Actor.NOBODY)
        return pb.Actor(kind=pb.Actor.SEAT, seat=self.n % 2)

    def append(self, event: pb.GameEvent) -> None:
        event.event_id = len(self.events) + 1
        self.events.append(event)
        self.changed.set()
        self.changed = asyncio.Event()


class Floor(pb_grpc.GameHostServicer):
    def __init__(self) -> None:
        self.games: dict[str, _Game] = {}

    async def CreateGame(self, request, context):
        game_id = uuid.uuid4().hex
        if request.game_type == "cite":
            game = _Game(CITE_MOVES, CITE_CHANCE)
        else:
            game = _Game(int(request.options.get("moves", "500")))
        self.games[game_id] = game
        await self.publish(
            game_id, game, [pb.GameEvent(kind=pb.GAME_CREATED, to_move=game.to_move())]
        )
        return pb.CreateGameResponse(game_id=game_id)

    async def JoinGame(self, request, context):
        game = self.games[request.game_id]
        actor = pb.Actor(kind=pb.Actor.SEAT, seat=request.seat)
        joined = pb.GameEvent(kind=pb.SEAT_JOINED, actor=actor, to_move=game.to_move())
        await self.publish(request.game_id, game, [joined])
        return pb.JoinGameResponse(
            game_id=request.game_id, seat=request.seat, token=str(request.seat)
        )

    async def publish(self, game_id: str, game: _Game, events: list[pb.GameEvent]) -> None:
        """Make a game's new events seen by its streams (here: at once, in memory)."""
        for event in events:
            game.append(event)

    async def SubmitAction(self, request, context):
        game = self.games[request.game_id]
        seat = int(request.token)
        if request.expected_version != game.n or game.n >= game.limit or seat != game.n % 2:
            await context.abort(grpc.StatusCode.ABORTED, "stale")
        game.n += 1
        actor = pb.Actor(kind=pb.Actor.SEAT, seat=seat)
        event = pb.GameEvent(kind=pb.ACTION, version=game.n, actor=actor, notation="inc")
        event.to_move.CopyFrom(game.to_move())
        events = [event]
        game.owed += game.chance
        if game.owed >= 1 and game.n < game.limit:
            game.owed -= 1
            chance = pb.Actor(kind=pb.Actor.CHANCE)
            events.append(
                pb.GameEvent(kind=pb.ACTION, version=game.n, actor=chance, to_move=game.to_move())
            )
        if game.n >= game.limit:
            events.append(
                pb.GameEvent(kind=pb.GAME_FINISHED, version=game.n, to_move=game.to_move())
            )
            del self.games[request.game_id]
        await self.publish(request.game_id, game, events)
        return pb.SubmitActionResponse(version=game.n, notation="inc")

    async def WatchGame(self, request, context):
        game = self.games[request.game_id]
        seat = int(request.token)
        sent = 0
        while True:
            while sent < len(game.events):
                event = game.events[sent]
                sent += 1
                newest = sent == len(game.events)
                if newest and event.to_move.kind == pb.Actor.SEAT and event.to_move.seat == seat:
                    mine = pb.GameEvent()
                    mine.CopyFrom(event)
                    mine.legal_actions.add(id=0, notation="inc")
                    event = mine
                yield event
                if event.kind == pb.GAME_FINISHED:
                    return
            await game.changed.wait()


# One move's write, as a store shared by replicas makes it: compare the version and
# set the new one, and append the move's events to the game's stream, in one script.
_MOVE = """
if (redis.call('HGET', KEYS[1], 'version') or '0') ~= ARGV[1] then return -1 end
redis.call('HSET', KEYS[1], 'version', ARGV[2])
for i = 3, #ARGV do redis.call('XADD', KEYS[2], '*', 'e', ARGV[i]) end
return tonumber(ARGV[2])
"""


class RedisFloor(Floor):
    """The floor with Redis under it, the least a store shared by replicas needs: each
    move is one compare-and-set script that also appends its events to the game's
    Redis stream, and the streams are fed only from Redis, by one XREAD over every
    followed game (as gamehost's watch hub reads), woken with CLIENT UNBLOCK when a game
    is added. A finished game's keys are deleted once its end is read."""

    def __init__(self, url: str, prefix: str) -> None:
        super().__init__()
        import redis.asyncio as aioredis

        self.redis = aioredis.Redis.from_url(url)
        self.reader = aioredis.Redis.from_url(url)  # blocked in XREAD: a connection of its own
        self.prefix = prefix
        self.move = self.redis.register_script(_MOVE)
        self.following: dict[bytes, tuple[_Game, bytes]] = {}  # stream -> game, last id read
        self.added = asyncio.Event()
        self.reader_id: int | None = None
        self.reads = 0
        self.blocked = False

    def keys(self, game_id: str) -> tuple[str, str]:
        return f"{self.prefix}:{game_id}:game", f"{self.prefix}:{game_id}:events"

    async def publish(self, game_id: str, game: _Game, events: list[pb.GameEvent]) -> None:
        state, stream = self.keys(game_id)
        if events[0].kind == pb.GAME_CREATED:
            self.following[stream.encode()] = (game, b"0-0")
            self.added.set()
            await self.redis.xadd(stream, {"e": events[0].SerializeToString()})
            await self.wake()
            return
        if events[0].kind == pb.SEAT_JOINED:
            await self.redis.xadd(stream, {"e": events[0].SerializeToString()})
            return
        version = events[0].version
        written = await self.move(
            keys=[state, stream],
            args=[version - 1, version, *(e.SerializeToString() for e in events)],
        )
        if written != version:
            raise RuntimeError(f"stale write of game {game_id}")  # one writer: never

    async def wake(self) -> None:
        """End a blocked XREAD so that it follows the new game (as the hub's reader)."""
        reads = self.reads
        for _ in range(5):
            if not self.blocked or self.reads != reads or self.reader_id is None:
                return
            if await self.redis.client_unblock(self.reader_id):
                return
            await asyncio.sleep(0.001)  # the XREAD may still be on its way to Redis

    async def read(self) -> None:
        self.reader_id = int(await self.reader.client_id())
        while True:
            if not self.following:
                await self.added.wait()
                self.added.clear()
                continue
            streams = {key: last for key, (_, last) in self.following.items()}
            self.blocked = True
            self.reads += 1
            try:
                reply = await self.reader.xread(streams, count=1000, block=1000)
            finally:
                self.blocked = False
            for key, entries in reply or []:
                game, _ = self.following[key]
                for _, fields in entries:
                    game.append(pb.GameEvent.FromString(fields[b"e"]))
                self.following[key] = (game, entries[-1][0])
                if game.events[-1].kind == pb.GAME_FINISHED:
                    del self.following[key]
                    await self.redis.delete(key, key.replace(b":events", b":game"))


async def serve(port: int, redis_url: str | None = None, prefix: str = "") -> None:
    server = grpc.aio.server()
    floor = Floor() if redis_url is None else RedisFloor(redis_url, prefix)
    reading = asyncio.create_task(floor.read()) if isinstance(floor, RedisFloor) else None
    pb_grpc.add_GameHostServicer_to_server(floor, server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print(f"floor serving on 127.0.0.1:{port}", flush=True)
    try:
        await server.wait_for_termination()
    finally:
        if reading is not None:
            reading.cancel()


def main() -> None:
    import uvloop

    # As gamehost serve runs: asyncio.Runner on a uvloop loop (services.server.run).
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(serve(int(sys.argv[1]), *sys.argv[2:4]))


if __name__ == "__main__":
    main()
