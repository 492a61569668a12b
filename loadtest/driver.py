"""What the SubmitAction benchmark (benchmarks/service_bench.py) and the load test
(loadtest/) both drive: offline scripts of Cité games, computed from each game's seed
exactly as the service plays them, and the deployment's seed secret those seeds are
mixed with. One module, so neither imports the other."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from games import get_game
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
