"""The one retry policy (gamehost/retry.py) gives the waits each loop had by hand: the
bot runner's per-game backoff, the runner's reconnects, the tasks' store pauses, the
client's full jitter."""

from __future__ import annotations

import random

from gamehost import retry
from gamehost.runner import RECONNECT_SECONDS
from services.bots.bot_runner import _Failures
from workers.tasks import STORE_RETRY_PAUSES


def waits(wait, count: int) -> list[float]:
    return [retry.nth_wait(wait, n) for n in range(1, count + 1)]


def test_doubling_waits_are_capped():
    turns = [0.5, 1, 2, 4, 8, 16, 32, 60, 60]  # the bot runner's, per game
    assert waits(retry.doubling(_Failures.FIRST, _Failures.CAP), 9) == turns
    assert waits(retry.doubling(*RECONNECT_SECONDS), 7) == [0.5, 1, 2, 4, 8, 10, 10]


def test_pauses_come_in_turn_then_the_last_again():
    assert waits(retry.pauses(*STORE_RETRY_PAUSES), 5) == [0.2, 0.5, 1.0, 2.0, 2.0]


def test_full_jitter_draws_below_each_doubling():
    random.seed(7)
    drawn = waits(retry.doubling(0.1, 0.3, jitter=True), 200)
    caps = [min(0.3, 0.1 * 2 ** (n - 1)) for n in range(1, 201)]
    assert all(0 <= w <= cap for w, cap in zip(drawn, caps, strict=True))
    assert len(set(drawn)) == len(drawn)  # drawn, not fixed
