"""Bot turns searched in the embedded local pool record the same phases as on Celery
workers: queue and search per tree, commit per decision (hints record none)."""

from __future__ import annotations

from prometheus_client import REGISTRY

from gamehost.v1 import gamehost_pb2 as pb
from tests.procs import wait_until

PHASES = ("queue", "search", "commit")
LEVEL = "mcts:trees=2,iterations=8"


def phase_counts(level: str) -> dict[str, float]:
    return {
        phase: REGISTRY.get_sample_value(
            "gamehost_bot_turn_phase_seconds_count",
            {"phase": phase, "game": "cite", "level": level},
        )
        or 0.0
        for phase in PHASES
    }


def test_local_pool_bot_turns_record_every_phase(client):
    before = phase_counts(LEVEL)  # earlier tests of this process may have used the level
    game = client.create_game("cite", [f"bot:{LEVEL}", "bot:random", "bot:random"], seed=3)
    level = client.state(game.game_id).seats[0].bot_level
    assert level == LEVEL  # the label the samples carry
    for _ in client.watch(game.game_id):
        pass  # the stream ends with the game
    record = client.record(game.game_id)
    decisions = sum(
        1 for e in record.entries if e.actor.kind == pb.Actor.SEAT and e.actor.seat == 0
    )
    assert decisions > 0
    trees = 2 * decisions
    expected = {"queue": trees, "search": trees, "commit": decisions}

    def grown() -> dict[str, float]:
        now = phase_counts(level)
        return {phase: now[phase] - before[phase] for phase in PHASES}

    # The last commit's sample lands just after its event is published.
    wait_until(lambda: grown()["commit"] >= decisions, 10, "the last commit's sample")
    assert grown() == expected
