"""A game a client was told is FINISHED survives a kill -9 of the server (issue 57 §4):
all-bot Cité games play on a real ``gamehost serve``, every finish a watcher sees is
noted, the server is killed with SIGKILL while games are still finishing, and a server
started again on the same archive (and store) must answer each of those games FINISHED
at the same version with the same returns. Run for the embedded default (in-memory
store, SQLite archive file) and for Redis + PostgreSQL.

``pytest -s`` prints each run's figures, the table of docs/reliability.md."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

import grpc
import pytest

from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from services.archive.archive import Archive
from tests.procs import Replica

pytestmark = pytest.mark.procs

GAMES = 300  # all-bot games created, each watched from its creation on
KILL_AFTER = 100  # the server is killed once this many were seen FINISHED


@dataclass(frozen=True)
class Finish:
    version: int
    returns: tuple[float, ...]


async def _watch(stub, game_id: str, seen: dict[str, Finish], on_finish: Callable[[], None]):
    """Note the game's finish if this client is told of it (the stream ends then, or
    with the server's death)."""
    try:
        async for event in stub.WatchGame(pb.WatchGameRequest(game_id=game_id)):
            if event.kind == pb.GAME_FINISHED:
                seen[game_id] = Finish(event.version, tuple(event.returns))
                on_finish()
                return
    except grpc.aio.AioRpcError as exc:
        assert exc.code() == grpc.StatusCode.UNAVAILABLE, exc  # the kill, nothing else


async def _play_then_kill(server: Replica) -> tuple[dict[str, Finish], int]:
    """Create and watch games until KILL_AFTER were seen finished, kill -9 the server at
    that moment; every finish a watcher was told of, and how many games were created."""
    seen: dict[str, Finish] = {}

    def on_finish() -> None:
        if len(seen) >= KILL_AFTER:
            server.kill9()  # games are finishing all the while: some just now

    seats = [pb.SeatSpec(kind=pb.BOT, bot_level="random")] * 2
    watches = []
    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = pb_grpc.GameHostStub(channel)
        for seed in range(GAMES):
            if not server.alive():
                break
            try:
                request = pb.CreateGameRequest(game_type="cite", seats=seats, seed=seed)
                game_id = (await stub.CreateGame(request, timeout=30)).game_id
            except grpc.aio.AioRpcError as exc:
                assert exc.code() == grpc.StatusCode.UNAVAILABLE, exc
                break
            watches.append(asyncio.create_task(_watch(stub, game_id, seen, on_finish)))
        await asyncio.gather(*watches)
    assert not server.alive(), f"only {len(seen)} of {len(watches)} games finished"
    return seen, len(watches)


async def _lost(server: Replica, seen: dict[str, Finish]) -> dict[str, str]:
    """Games seen finished that the restarted server does not answer the same way."""
    lost = {}
    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = pb_grpc.GameHostStub(channel)
        for game_id, finish in seen.items():
            try:
                state = await stub.GetState(pb.GetStateRequest(game_id=game_id), timeout=30)
            except grpc.aio.AioRpcError as exc:
                lost[game_id] = exc.code().name
                continue
            now = Finish(state.version, tuple(state.returns))
            if state.status != pb.FINISHED or now != finish:
                lost[game_id] = f"{pb.GameStatus.Name(state.status)} {now}, seen {finish}"
    return lost


@pytest.mark.parametrize("setup", ["embedded", "redis+postgres"])
async def test_games_seen_finished_survive_kill9(setup, request, tmp_path):
    if setup == "embedded":  # `gamehost serve` with no flags: memory, SQLite file
        flags, env = ["--bot-workers", "1"], {"GAMEHOST_DATA_DIR": str(tmp_path / "data")}
    else:
        redis_url = request.getfixturevalue("redis_url")
        prefix = request.getfixturevalue("redis_prefix")
        postgres_url = request.getfixturevalue("postgres_url")
        Archive.open(postgres_url, create=True).close()  # `gamehost db upgrade`
        flags = ["--bot-workers", "1", "--redis", redis_url, "--redis-prefix", prefix]
        flags, env = [*flags, "--archive", postgres_url], {}
    first = Replica(tmp_path / "first.log", flags, env).start()
    second = Replica(tmp_path / "second.log", flags, env)
    try:
        first.wait_serving()
        seen, created = await _play_then_kill(first)
        second.start().wait_serving()
        lost = await _lost(second, seen)
        print(f"\n{setup}: {created} games created, {len(seen)} seen FINISHED, {len(lost)} lost")
        shown = dict(list(lost.items())[:5])
        assert not lost, f"{len(lost)} of {len(seen)} games seen FINISHED are lost: {shown}..."
    finally:
        first.kill_group()
        second.kill_group()
