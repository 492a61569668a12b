"""The service metrics that the scrape tests cannot provoke on demand: a lost
compare-and-set, the latency of each Redis store call, and the bot-turn backlog."""

from __future__ import annotations

from prometheus_client import REGISTRY

from games import CHANCE
from services.kinds import GameStatus
from services.observe.store_metrics import probe_store
from services.stores import CommitOutcome, NewGame
from services.stores.leases import BOT_TURNS, turn_lease
from services.stores.memory import MemoryStore
from services.stores.redis_store import RedisStore
from services.turns import steps
from tests.stores.helpers import claim_jobs


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


class _Frozen:
    """A stand-in state: commit_step needs its bytes, whether it is over and who moves."""

    def current_player(self) -> int:
        return CHANCE  # no bot seat to schedule

    def to_bytes(self) -> bytes:
        return b"state"

    def is_terminal(self) -> bool:
        return False


async def test_a_lost_compare_and_set_is_counted():
    store = MemoryStore()
    await store.create(NewGame("g1", {"game_type": "cite"}, b"state", 1, GameStatus.IN_PROGRESS))
    snapshot = await store.load("g1")
    step = steps.Step(events=[{"type": "test"}], version=2, state=_Frozen())
    before = sample("gamehost_cas_conflicts_total")
    assert (await steps.commit_step(store, snapshot, step)).outcome is CommitOutcome.APPLIED
    assert sample("gamehost_cas_conflicts_total") == before
    # The same snapshot again: the game's version has moved on.
    assert (await steps.commit_step(store, snapshot, step)).outcome is CommitOutcome.STALE
    assert sample("gamehost_cas_conflicts_total") == before + 1


async def test_redis_store_calls_are_timed(redis_url, redis_prefix):
    store = RedisStore.from_url(redis_url, redis_prefix)
    try:
        before = sample("gamehost_redis_call_seconds_count", operation="load")
        assert await store.load("absent") is None
        assert sample("gamehost_redis_call_seconds_count", operation="load") == before + 1
        assert sample("gamehost_redis_call_seconds_count", operation="wait_events") == 0
    finally:
        await store.close()


async def test_the_probe_sets_the_bot_turn_backlog_gauges():
    store = MemoryStore()
    bot_turn = NewGame("g1", {"game_type": "cite"}, b"s", 0, GameStatus.IN_PROGRESS, bot_due_in=0)
    await store.create(bot_turn)
    await claim_jobs(store, BOT_TURNS, 1, 60)
    assert await store.renew(turn_lease("g1", 0), -30)  # due 30 s ago, nobody playing it
    await probe_store(store)
    assert sample("gamehost_pending_bot_turns") == 1
    assert 29 < sample("gamehost_oldest_pending_bot_turn_seconds") < 60
    await store.drop_bot_turn("g1")
    await probe_store(store)
    assert sample("gamehost_pending_bot_turns") == 0
    assert sample("gamehost_oldest_pending_bot_turn_seconds") == 0
