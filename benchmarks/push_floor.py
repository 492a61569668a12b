"""The push path's floor on this stack: the counter game served by a bare grpc.aio server.

    .venv/bin/python benchmarks/push_floor.py PORT

benchmarks/peer_server.py's ``floor`` server (``--servers floor``): the same
gamehost.v1 API, uvloop and protobuf as ``gamehost serve``, and nothing else. It
answers CreateGame, JoinGame, SubmitAction and WatchGame for the counter game only, in
a dict, with no interceptors, metrics, request checks, tokens worth the name, store,
engine or views. Asked for ``cite``, it plays the counter with Cité's message count
as peer_server.py measures it: 33 moves a game, and a chance event after 0.74 of
the moves (3.7 stream messages a move, with the created and joined events). What peer_server.py's load generator gets from it is what one
Python process on grpc.aio can do with this push flow (one SubmitAction and one
stream message per seat per move): gamehost's own work comes on top of it. Listens on
127.0.0.1 only.
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
        game.append(pb.GameEvent(kind=pb.GAME_CREATED, to_move=game.to_move()))
        return pb.CreateGameResponse(game_id=game_id)

    async def JoinGame(self, request, context):
        game = self.games[request.game_id]
        actor = pb.Actor(kind=pb.Actor.SEAT, seat=request.seat)
        game.append(pb.GameEvent(kind=pb.SEAT_JOINED, actor=actor, to_move=game.to_move()))
        return pb.JoinGameResponse(
            game_id=request.game_id, seat=request.seat, token=str(request.seat)
        )

    async def SubmitAction(self, request, context):
        game = self.games[request.game_id]
        seat = int(request.token)
        if request.expected_version != game.n or game.n >= game.limit or seat != game.n % 2:
            await context.abort(grpc.StatusCode.ABORTED, "stale")
        game.n += 1
        actor = pb.Actor(kind=pb.Actor.SEAT, seat=seat)
        event = pb.GameEvent(kind=pb.ACTION, version=game.n, actor=actor, notation="inc")
        event.to_move.CopyFrom(game.to_move())
        game.append(event)
        game.owed += game.chance
        if game.owed >= 1 and game.n < game.limit:
            game.owed -= 1
            chance = pb.Actor(kind=pb.Actor.CHANCE)
            game.append(
                pb.GameEvent(kind=pb.ACTION, version=game.n, actor=chance, to_move=game.to_move())
            )
        if game.n >= game.limit:
            game.append(pb.GameEvent(kind=pb.GAME_FINISHED, version=game.n, to_move=game.to_move()))
            del self.games[request.game_id]
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


async def serve(port: int) -> None:
    server = grpc.aio.server()
    pb_grpc.add_GameHostServicer_to_server(Floor(), server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print(f"floor serving on 127.0.0.1:{port}", flush=True)
    await server.wait_for_termination()


def main() -> None:
    import uvloop

    # As gamehost serve runs: asyncio.Runner on a uvloop loop (services.server.run).
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(serve(int(sys.argv[1])))


if __name__ == "__main__":
    main()
