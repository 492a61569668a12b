"""Celery tasks: a bot turn fans out K root-parallel search trees as a chord whose
callback merges their root statistics and commits the chosen action.

The chain continues from the worker: after a commit, if a bot is to move next
(or the game moved on under a late search), the next bot turn is dispatched.
Nothing here blocks on another task's result.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import redis
from celery import chord

import bots
from services import bot_turns
from services.bot_runner import decide_without_search, search_tree, trees_of
from services.bot_turns import BotJob
from services.stores import CommitOutcome
from services.stores.redis_store import RedisStore
from workers.app import MAX_SEARCH_SECONDS, app

log = logging.getLogger(__name__)


_clients: dict[str, redis.Redis] = {}

# A turn whose search was lost (say, with its worker) may be dispatched again after
# this: longer than any search may run (time limits), short enough to resume soon.
DISPATCH_CLAIM_SECONDS = 3 * MAX_SEARCH_SECONDS


def claim_dispatch(store_url: str, prefix: str, game_id: str, version: int) -> bool:
    """True for the first caller, across every replica and worker, to dispatch a turn."""
    client = _clients.get(store_url)
    if client is None:
        client = _clients[store_url] = redis.Redis.from_url(store_url)
    key = f"{prefix}:{{{game_id}}}:dispatched:{version}"
    return bool(client.set(key, 1, nx=True, ex=DISPATCH_CLAIM_SECONDS))


def dispatch(job: BotJob, store_url: str, prefix: str) -> bool:
    """Start ``job`` on the workers unless someone already has; True if started."""
    if not claim_dispatch(store_url, prefix, job.game_id, job.version):
        return False
    payload = {"job": job.to_json(), "store_url": store_url, "prefix": prefix}
    trees = trees_of(job.level)
    if trees:
        chord(search.s(payload, tree) for tree in range(trees))(commit_search.s(payload))
    else:
        decide_and_commit.delay(payload)
    return True


@app.task(name="gamehost.search")
def search(payload: dict[str, Any], tree: int) -> dict:
    return search_tree(BotJob.from_json(payload["job"]), tree)


@app.task(name="gamehost.commit_search")
def commit_search(results: list[dict], payload: dict[str, Any]) -> str:
    action = bots.best_action(bots.merge_root_stats(results))
    return commit_after_search(payload, action)


@app.task(name="gamehost.decide_and_commit")
def decide_and_commit(payload: dict[str, Any]) -> str:
    action = decide_without_search(BotJob.from_json(payload["job"]))
    return commit_after_search(payload, action)


def commit_after_search(payload: dict[str, Any], action: int) -> str:
    """Commit a bot's chosen action and start the next bot turn; returns the outcome."""
    return asyncio.run(_commit_async(payload, action))


async def _commit_async(payload: dict[str, Any], action: int) -> str:
    job = BotJob.from_json(payload["job"])
    store = RedisStore.from_url(payload["store_url"], payload["prefix"])
    try:
        result = await bot_turns.commit(store, job, action)
        if result.outcome in (CommitOutcome.NOT_FOUND, CommitOutcome.DUPLICATE):
            return result.outcome.value  # a duplicate's first delivery carried the chain on
        # Applied, or the game moved on: whoever is to move now, if a bot, gets its turn.
        snapshot = await store.load(job.game_id)
        following = bot_turns.prepare(snapshot) if snapshot is not None else None
    finally:
        await store.close()
    if following is not None:
        dispatch(following.job(), payload["store_url"], payload["prefix"])
    return result.outcome.value
