"""Hints searched on a real Celery worker: the same search as the worker's bot turns,
and the same answer as the local pool's."""

from __future__ import annotations

from gamehost.client import seat_of
from tests.workers.test_celery_bots import finish

LEVEL = "mcts:trees=2,iterations=30,depth=10"


def test_a_hint_on_celery_is_the_move_played_and_the_local_pools_hint(celery_client, client):
    seats = [f"bot:{LEVEL}", "bot:random"]
    on_celery = finish(celery_client, celery_client.create_game("cite", seats, seed=21).game_id)
    local = finish(client, client.create_game("cite", seats, seed=21).game_id)
    assert [(e.actor, e.action_id) for e in on_celery.entries] == [
        (e.actor, e.action_id) for e in local.entries
    ]
    searched = [e for e in on_celery.entries if seat_of(e.actor) == 0][:4]
    assert len(searched) == 4
    for entry in searched:
        remote = celery_client.hint(on_celery.game_id, level=LEVEL, version=entry.ply - 1)
        assert (remote.action_id, remote.trees, remote.iterations) == (entry.action_id, 2, 60)
        here = client.hint(local.game_id, level=LEVEL, version=entry.ply - 1)
        assert (here.action_id, list(here.top_actions)) == (
            remote.action_id,
            list(remote.top_actions),
        )
    # A level that does not search is decided on a worker too.
    chosen = next(e for e in on_celery.entries if seat_of(e.actor) == 1)
    remote = celery_client.hint(on_celery.game_id, level="random", version=chosen.ply - 1)
    assert (remote.action_id, remote.trees, list(remote.top_actions)) == (chosen.action_id, 0, [])
