"""After the store was away, every held bot turn is due again at once (both stores)."""

from __future__ import annotations

from services.stores.leases import BOT_TURNS
from tests.stores.helpers import claim_jobs, new_game


async def test_lapsing_makes_every_held_turn_due_now(store):
    for game_id in ("g1", "g2", "g3"):
        await store.create(new_game(game_id))
        await store.commit(game_id, 0, 1, b"s1", "in_progress", [{"n": 1}], bot_due_in=0.0)
    assert sorted(await claim_jobs(store, BOT_TURNS, 2, 30)) == ["g1", "g2"]  # leased
    assert await claim_jobs(store, BOT_TURNS, 10, 30) == ["g3"]
    assert await claim_jobs(store, BOT_TURNS, 10, 30) == []
    await store.commit("g3", 1, 2, b"s2", "in_progress", [{"n": 2}])  # no bot due now
    assert await store.lapse(BOT_TURNS) == 2
    assert sorted(await claim_jobs(store, BOT_TURNS, 10, 30)) == ["g1", "g2"]
    assert await store.bot_turn_due_in("g3") is None
