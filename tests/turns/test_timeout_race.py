"""Two replicas that both find a seat out of time play its fallback move once: both
commit the same turn under ``timeout:<version>`` with a compare-and-set (each store)."""

from __future__ import annotations

import asyncio

import bots
from services.bots import bot_turns
from services.kinds import EventKind, SeatKind
from services.play.host import GameHost, SeatSpec
from services.stores import CommitOutcome
from services.turns import clock


class _NoRunner:
    """The bot runner of a replica that never sweeps: the test plays the turns."""

    def kick(self, game_id: str) -> None:
        return None


async def test_a_timeout_committed_by_two_replicas_at_once_is_played_once(store):
    host = GameHost(store, _NoRunner())  # type: ignore[arg-type]
    humans = [SeatSpec(SeatKind.HUMAN), SeatSpec(SeatKind.HUMAN)]
    view = await host.create_game("cite", humans, {}, seed=3, timer=clock.Timer(5.0))
    snapshot = await store.load(view.snapshot.game_id)
    deadline = clock.running(snapshot.meta, snapshot.version)["deadline"]
    assert bot_turns.prepare(snapshot, now=deadline - 1) is None  # not out of time yet
    turns = [bot_turns.prepare(snapshot, now=deadline + 1) for _ in range(2)]
    assert all(t is not None and t.timeout for t in turns)
    assert turns[0].request_key == f"timeout:{snapshot.version}"
    action = bots.choose_action(turns[0].view, turns[0].seat, turns[0].level, turns[0].seed)
    results = await asyncio.gather(*(bot_turns.commit_turn(store, t, action) for t in turns))
    outcomes = sorted(r.outcome.value for r in results)
    assert outcomes[0] == CommitOutcome.APPLIED.value
    assert outcomes[1] in (CommitOutcome.DUPLICATE.value, CommitOutcome.STALE.value)
    events = await store.events(snapshot.game_id)
    timed_out = [
        e.data for e in events if e.data["kind"] == EventKind.ACTION and e.data.get("timeout")
    ]
    assert len(timed_out) == 1 and timed_out[0]["version"] == snapshot.version + 1
    after = await store.load(snapshot.game_id)
    assert after.meta["clock"]["strikes"][turns[0].seat] == 1
    await host.hub.close()
