"""A hint cannot depend on what its seat cannot see (the bots' fairness test, through
the hint service): two stored games whose true states differ only in cards the seat
to move cannot see, with the same seed and version, hand the search the same bytes
and get the same hint, on both stores and the real local pool."""

from __future__ import annotations

import pytest

from services.bots.bot_runner import Analysis, BotRunner, LocalPoolExecutor
from services.bots.bot_turns import BotJob
from services.bots.hints import HintLimits, HintService
from services.kinds import SeatKind
from services.play.host import GameHost
from services.stores import NewGame
from services.watch import events as ev
from tests.bots.test_fairness import TWINS

LEVEL = "mcts:trees=2,iterations=60,depth=10"


class RecordingPool(LocalPoolExecutor):
    """The local pool, keeping each job it was handed (the search's whole input)."""

    def __init__(self) -> None:
        super().__init__(workers=2)
        self.jobs: list[BotJob] = []

    async def analyse(self, job: BotJob) -> Analysis:
        self.jobs.append(job)
        return await super().analyse(job)


async def _stored_game(store, game_id: str, state, seed: int, version: int) -> None:
    """A game in progress at ``version`` whose true state is ``state``, all seats human."""
    meta = {
        "game_type": state.info.name,
        "players": state.n,
        "options": {},
        "seats": [{"kind": SeatKind.HUMAN, "level": "", "name": ""} for _ in range(state.n)],
        "seed": seed,
        "created": 0.0,
        "private": False,
        "spectators": True,
        "invites": {},
    }
    status = "in_progress"
    await store.create(
        NewGame(game_id, meta, state.to_bytes(), version, status, [ev.created_event(state)])
    )


@pytest.mark.parametrize("game", sorted(TWINS))
async def test_a_hint_sees_only_the_seats_observation(store, game):
    a, b, seat = TWINS[game]()
    assert a.to_bytes() != b.to_bytes() and a.observation(seat) == b.observation(seat)
    executor = RecordingPool()
    runner = BotRunner(store, executor)
    host = GameHost(store, runner)
    service = HintService(host, executor, HintLimits(rate=0))
    try:
        answers = []
        for index, twin in enumerate((a, b)):
            game_id = f"{index:032x}"
            await _stored_game(store, game_id, twin, seed=4242, version=9)
            _, token = await host.join_game(game_id, seat, "")
            answers.append(await service.hint(game_id, token, LEVEL))
        first, second = executor.jobs
        assert first.state == second.state  # the search's input: identical bytes
        assert (first.seed, first.version, first.seat) == (second.seed, 9, seat)
        assert answers[0].top and answers[0].iterations == 120
        assert answers[0].action == answers[1].action
        assert answers[0].top == answers[1].top  # the same visits and win shares
    finally:
        await runner.close()


async def test_a_hint_survives_one_pool_restart_and_then_answers_unavailable():
    """A search process that dies under a hint: the pool is replaced and the hint
    searched again; a pool that keeps dying answers UNAVAILABLE, not INTERNAL."""
    from services.bots import bot_pool
    from services.bots.bot_turns import seat_job
    from services.errors import Unavailable
    from services.stores import Snapshot

    a, _, seat = TWINS["cite"]()
    meta = {"game_type": "cite", "seed": 5}
    job = seat_job(Snapshot("0" * 32, meta, b"", 3, "in_progress", {}), a, 3, seat, LEVEL)
    executor = LocalPoolExecutor(workers=1)
    real_search = executor.pool.search
    failures = {"left": 1}

    async def flaky(job, trees, **options):
        if failures["left"]:
            failures["left"] -= 1
            raise bot_pool.PoolRestarted()
        return await real_search(job, trees, **options)

    executor.pool.search = flaky
    try:
        first = await executor.analyse(job)
        assert first.trees == 2 and first.stats["iterations"] == 120
        failures["left"] = 2
        with pytest.raises(Unavailable):
            await executor.analyse(job)
        failures["left"] = 0
        assert (await executor.analyse(job)).action == first.action
    finally:
        await executor.close()
