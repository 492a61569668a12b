"""A search process killed (kill -9) under a hint, on a real server process: the pool
is replaced and the hint searched again; the caller gets its hint, not an error."""

from __future__ import annotations

import os
import signal
import threading

from gamehost import Client, GameError
from gamehost.client import seat_of
from tests.faults.test_bot_pool import pool_children
from tests.procs import wait_until

# One long tree: the kill lands while it searches.
LEVEL = "mcts:trees=1,iterations=8000,depth=30"


def test_a_hint_whose_search_process_dies_is_searched_again(replicas):
    (replica,) = replicas(1, "--bot-workers", "1", "--hint-rate", "0")
    with Client(replica.target, timeout=120) as client:
        game_id = client.create_game("cite", ["human", "human"]).game_id
        tokens = {s: client.join(game_id, s).token for s in (0, 1)}
        token = tokens[seat_of(client.state(game_id).to_move)]
        answers: list = []

        def ask() -> None:
            try:
                answers.append(client.hint(game_id, token, LEVEL))
            except GameError as exc:
                answers.append(exc)

        asking = threading.Thread(target=ask)
        asking.start()
        # No bot seats: the pool's first process exists once the hint's tree was sent.
        victims = wait_until(lambda: pool_children(replica.pid), 30, "the hint's search")
        assert not answers
        os.kill(min(victims), signal.SIGKILL)
        asking.join(timeout=120)
        (hint,) = answers
        assert not isinstance(hint, GameError), hint
        assert hint.iterations == 8000
        again = client.hint(game_id, token, LEVEL)
        assert (again.action_id, list(again.top_actions)) == (
            hint.action_id,
            list(hint.top_actions),
        )
    log = replica.output()
    assert "bot search pool broken" in log  # the kill broke the hint's search
    assert "Traceback" not in log, log[-3000:]
