"""Bot turns searched on a real Celery worker and committed from there."""

from __future__ import annotations

import asyncio

from gamehost.v1 import gamehost_pb2 as pb
from services import bot_turns
from services.stores import CommitOutcome
from services.stores.redis_store import RedisStore


def finish(client, game_id: str) -> pb.GameRecord:
    for _ in client.watch(game_id):
        pass  # the stream ends with the game
    return client.record(game_id)


def test_a_game_of_bots_runs_to_the_end_on_celery(celery_client):
    created = celery_client.create_game("cite", ["bot:random"] * 4, seed=11)
    record = finish(celery_client, created.game_id)
    assert record.status == pb.FINISHED
    assert sum(record.returns) == 1.0
    assert {e.seat for e in record.entries if e.seat >= 0} == {0, 1, 2, 3}


def test_celery_and_the_local_pool_play_the_same_game(celery_client, client):
    """Bots are deterministic given the game's seed, wherever they run."""
    on_celery = finish(
        celery_client, celery_client.create_game("cite", ["bot:random"] * 3, seed=5).game_id
    )
    local = finish(client, client.create_game("cite", ["bot:random"] * 3, seed=5).game_id)
    assert [(e.seat, e.action_id) for e in on_celery.entries] == [
        (e.seat, e.action_id) for e in local.entries
    ]


def test_duplicate_and_late_deliveries_change_nothing(celery_client, celery_server):
    from workers import tasks

    created = celery_client.create_game("cite", ["human", "bot:random"], seed=3)
    me = celery_client.join(created.game_id)
    state = celery_client.state(created.game_id, me.token)
    config = celery_server.config
    snapshot = asyncio.run(_load(config, created.game_id))
    # A commit task for seat 0 at the current version, delivered twice.
    job = bot_turns.BotJob(created.game_id, "cite", snapshot.version, 0, "random", 1, b"{}")
    payload = {"job": job.to_json(), "store_url": config.redis_url, "prefix": config.redis_prefix}
    action = state.legal_actions[0].id
    assert tasks.commit_after_search(payload, action) == CommitOutcome.APPLIED.value
    after = celery_client.state(created.game_id)
    assert after.version > state.version
    assert tasks.commit_after_search(payload, action) == CommitOutcome.DUPLICATE.value
    # A late search for a version the game has left is rejected too.
    late = {**payload, "job": {**payload["job"], "version": state.version - 1}}
    assert tasks.commit_after_search(late, action) == CommitOutcome.STALE.value
    assert celery_client.state(created.game_id).version == after.version


async def _load(config, game_id):
    store = RedisStore.from_url(config.redis_url, config.redis_prefix)
    try:
        return await store.load(game_id)
    finally:
        await store.close()
