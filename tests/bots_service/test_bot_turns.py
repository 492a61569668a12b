"""A bot's move is committed like any client's: duplicate and late deliveries of a
decision (as Celery may redeliver them) change nothing."""

from __future__ import annotations

import dataclasses

from services.bots import bot_turns
from services.bots.bot_runner import BotExecutor, BotRunner
from services.play.host import GameHost, SeatSpec
from services.stores import CommitOutcome
from services.stores.redis_store import RedisStore


class NobodyPlays(BotExecutor):
    """Hands bot turns to nobody, so the test makes the moves itself."""

    async def decide(self, turn, lease) -> None:
        return None


async def test_duplicate_and_late_bot_decisions_change_nothing(redis_url, redis_prefix):
    store = RedisStore.from_url(redis_url, redis_prefix)
    runner = BotRunner(store, NobodyPlays())
    host = GameHost(store, runner)
    try:
        created = await host.create_game("cite", [SeatSpec("bot", "random"), SeatSpec("human")], {})
        game_id = created.snapshot.game_id
        turn = bot_turns.prepare(await store.load(game_id))
        job = turn.job()
        action = turn.view.legal_actions()[0]

        first = await bot_turns.commit(store, job, action)
        assert first.outcome is CommitOutcome.APPLIED
        after = await store.load(game_id)
        assert after.version > job.version
        logged = len(await store.events(game_id))

        again = await bot_turns.commit(store, job, action)  # the same decision redelivered
        assert again.outcome is CommitOutcome.DUPLICATE
        late = dataclasses.replace(job, version=job.version - 1)  # a search of an older state
        assert (await bot_turns.commit(store, late, action)).outcome is CommitOutcome.STALE
        unchanged = await store.load(game_id)
        assert (unchanged.version, unchanged.state) == (after.version, after.state)
        assert len(await store.events(game_id)) == logged
    finally:
        await runner.close()
        await store.close()


async def test_the_bot_sees_a_determinization_not_the_true_state(redis_url, redis_prefix):
    store = RedisStore.from_url(redis_url, redis_prefix)
    runner = BotRunner(store, NobodyPlays())
    host = GameHost(store, runner)
    try:
        created = await host.create_game(
            "cite", [SeatSpec("bot", "random"), SeatSpec("human"), SeatSpec("human")], {}
        )
        snapshot = await store.load(created.snapshot.game_id)
        turn = bot_turns.prepare(snapshot)
        assert turn.view.observation(turn.seat) == turn.state.observation(turn.seat)
        assert turn.job().state == turn.view.to_bytes()
    finally:
        await runner.close()
        await store.close()
