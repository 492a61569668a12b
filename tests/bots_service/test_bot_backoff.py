"""A failing bot turn backs off (exponentially, capped), is logged once per doubling
of its failure count without tracebacks, and is played once it stops failing."""

from __future__ import annotations

import asyncio
import logging

import bots
from services.bots.bot_runner import BotExecutor, BotRunner
from services.play.host import GameHost, SeatSpec
from services.stores.memory import MemoryStore


class FailsFirst(BotExecutor):
    def __init__(self, failures: int) -> None:
        self.calls = 0
        self.failures = failures

    async def decide(self, turn, lease) -> int:
        self.calls += 1
        if self.calls <= self.failures:
            raise RuntimeError("search crashed")
        return bots.choose_action(turn.view, turn.seat, turn.level, turn.seed)


async def test_a_failing_bot_turn_backs_off_then_plays(caplog):
    store = MemoryStore()
    executor = FailsFirst(failures=3)
    runner = BotRunner(store, executor)
    host = GameHost(store, runner)
    caplog.set_level(logging.WARNING, logger="services.bots.bot_runner")
    try:
        created = await host.create_game("cite", [SeatSpec("bot", "random"), SeatSpec("human")], {})
        game_id = created.snapshot.game_id
        loop = asyncio.get_running_loop()
        started = loop.time()
        while (await store.load(game_id)).version == created.snapshot.version:
            assert loop.time() - started < 60, "the bot never moved"  # a hang guard
            await asyncio.sleep(0.05)
        # Three failures: backoffs of 0.5 + 1 + 2 s before the fourth try succeeds.
        assert loop.time() - started >= 3.0
        assert executor.calls >= 4  # three failures, then the moves (a bot may move twice)
        lines = [r for r in caplog.records if "failed" in r.getMessage()]
        assert [r.getMessage().split("(")[1].split(" ")[0] for r in lines] == ["1", "2"]
        assert all(r.exc_info is None for r in caplog.records)
    finally:
        await runner.close()
        await store.close()
