"""What the SubmitAction benchmarks (benchmarks/service_bench.py,
benchmarks/redis_topologies.py, benchmarks/studies/call_cpu.py) and the load test
(loadtest/) drive: offline scripts of Cité games, computed from each game's seed exactly
as the service plays them, the deployment's seed secret those seeds are mixed with, a
client playing those scripts, and the timing loops. One module, so no benchmark imports
another."""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import threading
import time
from collections.abc import Callable

import grpc
import redis.asyncio as aioredis

from gamehost import Client
from games import get_game
from loadtest.parts import ROOT
from services.limits import access
from services.stores.redis_store import RedisStore
from services.turns import steps


def script(seed: int) -> list[tuple[int, int, int]]:
    """The (seat, action, version) sequence of a 2-player Cité game with this seed,
    computed offline exactly as the service will (same seed-derived chance), so the
    timed loop sends nothing but SubmitAction calls."""
    state = get_game("cite").new_game(2, seed)
    version = steps.resolve_chance(state, seed, 0, [])
    moves = []
    while not state.is_terminal():
        seat, action = state.current_player(), state.legal_actions()[0]
        moves.append((seat, action, version))
        version = steps.play(state, action, seed, version).version
    return moves


def store_secret(redis_url: str, prefix: str) -> bytes:
    """The deployment's seed secret, read through the store as an operator's tool may:
    games with a person in them deal from the seed mixed with it."""

    async def read() -> bytes:
        client = aioredis.Redis.from_url(redis_url)
        try:
            return await RedisStore(client, prefix).secret()
        finally:
            await client.aclose()

    return asyncio.run(read())


# ---------------------------------------------------------------------- processes
def start_process(args: list[str], port: int) -> subprocess.Popen:
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        grpc.channel_ready_future(channel).result(timeout=60)
    return proc


# ---------------------------------------------------------------------- measurements
def latencies(
    call: Callable[[], object], seconds: float, before: Callable[[], object] | None = None
) -> list[float]:
    """Time ``call`` repeatedly for ``seconds`` (``before`` runs untimed before each)."""
    out = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        if before is not None:
            before()
        start = time.perf_counter()
        call()
        out.append(time.perf_counter() - start)
    return out


def throughput(
    make_worker: Callable[[], Callable[[], object]], clients: int, seconds: float
) -> float:
    workers = [make_worker() for _ in range(clients)]
    counts = [0] * clients
    barrier = threading.Barrier(clients + 1)
    stop = threading.Event()

    def run(i: int) -> None:
        barrier.wait()
        while not stop.is_set():
            workers[i]()
            counts[i] += 1

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    started = time.perf_counter()
    time.sleep(seconds)  # the measurement window itself, not synchronisation
    stop.set()
    for t in threads:
        t.join()
    return sum(counts) / (time.perf_counter() - started)


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] * 1000 if len(values) > 1 else 0.0


class ScriptedGames:
    """A client playing both seats of 2-player Cité games from precomputed scripts."""

    def __init__(self, target: str, seed: int, games: int, secret: bytes) -> None:
        self.client = Client(target)
        self._secret = secret
        self.games = [self._create(seed + i) for i in range(games)]
        self._seed = seed + games

    def _create(self, seed: int):
        game_id = self.client.create_game("cite", ["human", "human"], seed=seed).game_id
        tokens = [self.client.join(game_id).token for _ in range(2)]
        return game_id, tokens, script(access.mix_seed(self._secret, seed, game_id))

    def ready(self) -> None:
        """Outside any timing: make sure a game with moves left is at the front."""
        while not self.games or not self.games[0][2]:
            if self.games:
                self.games.pop(0)
            if not self.games:
                self.games.append(self._create(self._seed))
                self._seed += 1

    def submit(self) -> None:
        """Exactly one SubmitAction."""
        game_id, tokens, moves = self.games[0]
        seat, action, version = moves.pop(0)
        self.client.submit(game_id, tokens[seat], action, expected_version=version)

    def step(self) -> None:
        self.ready()
        self.submit()


def stop(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.wait(10)
