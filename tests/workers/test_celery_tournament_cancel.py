"""CancelTournament with bot turns on Celery: every running table game ends abandoned,
and once the worker has run (or skipped) every task it was given, none of them applied
a move after the end."""

from __future__ import annotations

from gamehost.v1 import gamehost_pb2 as pb
from tests.procs import wait_until
from tests.tournament_service.test_api import definition
from tests.tournament_service.test_cancel import (
    SEARCHING,
    assert_every_table_game_ended,
    started_tables,
)


def _worker_idle(app) -> bool:
    """No task running, reserved or scheduled on any worker of this run's queue."""
    inspect = app.control.inspect(timeout=1.0)
    for tasks in (inspect.active(), inspect.reserved(), inspect.scheduled()):
        if tasks is None or any(tasks.values()):
            return False
    return True


def test_a_cancel_ends_the_table_games_and_drops_their_celery_turns(
    celery_app, celery_server, celery_client
):
    celery_client.create_tournament(
        definition("celery-stopped", entrants=SEARCHING, games=4, parallel=4)
    )
    started_tables(celery_client, "celery-stopped", 4)
    assert celery_client.cancel_tournament("celery-stopped").status == pb.TOURNAMENT_CANCELLED
    wait_until(lambda: _worker_idle(celery_app), 120, "the worker to run out of tasks")
    assert_every_table_game_ended(celery_server, celery_client, "celery-stopped")
