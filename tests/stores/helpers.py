"""Games and waits shared by the store protocols' contract tests (``test_<protocol>.py``)."""

from __future__ import annotations

from services.stores import CommitOutcome, NewGame


def new_game(game_id: str = "g1") -> NewGame:
    return NewGame(
        game_id=game_id,
        meta={"game_type": "cite", "players": 2, "seed": 42},
        state=b"state-0",
        version=0,
        status="in_progress",
        events=[{"kind": "created", "version": 0}],
    )


async def finish(store, game_id: str) -> None:
    result = await store.commit(game_id, 0, 1, b"end", "finished", [{"kind": "finished"}])
    assert result.outcome is CommitOutcome.APPLIED


def bot_game(game_id: str = "g1") -> NewGame:
    return NewGame(**{**new_game(game_id).__dict__, "bot_due_in": 0.0})


async def claim_jobs(store, schedule: str, limit: int, seconds: float) -> list[str]:
    """The jobs a claim of ``schedule`` leased (``Leases.claim``), their names alone."""
    return [lease.job for lease in await store.claim(schedule, limit, seconds)]
