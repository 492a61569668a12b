"""The archiver sweeps at once when woken (a game this replica follows has finished,
``Sessions``' feeds say so), not only every ``IDLE_SECONDS``, and says when it has
archived something (the ladder's matchmaker rates from the archive). On both stores and
both archives. The idle pause is set to an hour here, so only the wake can make it go."""

from __future__ import annotations

import asyncio
import random

from services.archive import archiver
from services.bots.bot_runner import BotExecutor, BotRunner
from services.play.host import GameHost, SeatSpec
from services.sweeps import Wake


class NobodyPlays(BotExecutor):
    async def decide(self, turn, lease) -> None:
        return None


async def _finished_game(host: GameHost) -> str:
    seats = [SeatSpec("human", name=f"p{i}") for i in range(2)]
    created = await host.create_game("cite", seats, {}, 7)
    game_id = created.snapshot.game_id
    tokens = [(await host.join_game(game_id, seat, f"p{seat}"))[1] for seat in range(2)]
    rng = random.Random(7)
    while not (view := await host.get_state(game_id, "")).over:
        token = tokens[view.to_move]
        legal = (await host.get_state(game_id, token)).legal_actions
        await host.submitting.submit_action(
            game_id, token, expected_version=view.snapshot.version, action=rng.choice(legal)[0]
        )
    return game_id


async def test_a_woken_archiver_archives_at_once_and_says_so(store, archive, monkeypatch):
    monkeypatch.setattr(archiver, "IDLE_SECONDS", 3600.0)
    await store.set_archiving(True)
    host = GameHost(store, BotRunner(store, NobodyPlays()), archive=archive)
    wake, archived = Wake(), asyncio.Event()
    sweeps = asyncio.create_task(
        archiver.archive_forever(store, archive, wake=wake, on_archived=archived.set)
    )
    try:
        game_id = await _finished_game(host)
        assert await store.archive_backlog() == 1  # the archiver sleeps: nothing new woke it
        assert not archived.is_set()
        wake.set()
        await asyncio.wait_for(archived.wait(), 60)  # a bound against a hang, not a timing
        assert await store.archive_backlog() == 0
        assert await store.load(game_id) is None  # in the archive now, forgotten here
        assert (await host.get_state(game_id, "")).over
    finally:
        sweeps.cancel()
        await asyncio.gather(sweeps, return_exceptions=True)


async def test_a_wake_set_while_nobody_waits_is_taken_by_the_next_wait():
    wake = Wake()
    wake.set()  # a kick during a sweep
    await asyncio.wait_for(wake.wait_and_clear(3600.0), 60)  # returns at once, kept for it
    waiting = asyncio.create_task(wake.wait_and_clear(3600.0))
    await asyncio.sleep(0)
    assert not waiting.done()  # taken: the next wait waits for the next kick
    wake.set()
    await asyncio.wait_for(waiting, 60)
