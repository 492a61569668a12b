"""The ``Retention`` contract, both stores: finished and idle games expire (tournaments:
``test_tournament_store.py``)."""

from __future__ import annotations

from tests.polling import eventually
from tests.stores.helpers import finish, new_game


async def test_finished_games_expire_after_their_retention(store):
    await store.create(new_game("done"))
    await store.create(new_game("live"))
    await finish(store, "done")

    async def done_gone():
        await store.expire_games(finished_retention=0.2, idle_expiry=3600)
        return await store.load("done") is None

    await eventually(done_gone, 10, "the finished game to expire")
    assert await store.events("done") == []
    assert [g.game_id for g in await store.list_games()] == ["live"]
    assert (await store.load("live")).version == 0


async def test_idle_games_expire(store):
    await store.create(new_game("idle"))
    assert await store.expire_games(finished_retention=3600, idle_expiry=3600) == []

    async def idle_gone():
        return "idle" in await store.expire_games(finished_retention=3600, idle_expiry=0.2)

    await eventually(idle_gone, 10, "the idle game to expire")
    assert await store.load("idle") is None
    assert await store.list_games() == []
