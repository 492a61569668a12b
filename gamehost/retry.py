"""The one retry policy of the client and the server (which depends on the client
distribution), on tenacity: every backoff is one of these waits, and every retry loop a
``tenacity.Retrying`` (or ``AsyncRetrying``) over one of them.

- ``doubling(first, cap)``: first, 2*first, 4*first ... never more than ``cap``;
  with ``jitter``, each wait is drawn uniformly below that ("full jitter": clients that
  failed together do not retry together).
- ``pauses(*seconds)``: a fixed list of waits, the last one repeated.

A loop that keeps its own count of failures (a bot turn's, one per game; a runner's
reconnects, counted afresh after each welcome) reads its wait with ``nth_wait``."""

from __future__ import annotations

import tenacity
from tenacity.wait import wait_base


def doubling(first: float, cap: float, jitter: bool = False) -> wait_base:
    """Waits ``first`` doubling up to ``cap`` seconds (full jitter with ``jitter``)."""
    kind = tenacity.wait_random_exponential if jitter else tenacity.wait_exponential
    return kind(multiplier=first, max=cap)


def pauses(*seconds: float) -> wait_base:
    """The waits ``seconds`` in turn (the last one again after that)."""
    return tenacity.wait_chain(*(tenacity.wait_fixed(s) for s in seconds))


def nth_wait(wait: wait_base, failures: int) -> float:
    """The wait after the ``failures``-th failure in a row (1, 2, ...)."""
    state = tenacity.RetryCallState(retry_object=None, fn=None, args=(), kwargs={})  # type: ignore[arg-type]
    state.attempt_number = failures
    return wait(state)
