"""Prometheus metrics of the rules service (served by ``gamehost serve --metrics-port``)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

GAMES_CREATED = Counter("gamehost_games_created_total", "Games created", ["game"])
ACTIONS = Counter("gamehost_actions_total", "Actions submitted by clients and applied", ["game"])
SUBMIT_SECONDS = Histogram(
    "gamehost_submit_seconds",
    "SubmitAction handling time (load, check, apply, commit)",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0),
)
BOT_DECISIONS = Counter("gamehost_bot_decisions_total", "Bot moves committed", ["game", "level"])
BOT_SECONDS = Histogram(
    "gamehost_bot_decision_seconds",
    "Time from a bot's turn being seen to its move being decided",
    ["level"],
    buckets=(0.001, 0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30),
)
RPC_ERRORS = Counter("gamehost_rpc_errors_total", "RPCs answered with an error", ["method", "code"])
BOT_POOL_RESTARTS = Counter(
    "gamehost_bot_pool_restarts", "Local bot search pools replaced after a child died"
)
BOT_TURN_FAILURES = Counter(
    "gamehost_bot_turn_failures", "Bot turns that failed and were retried after a backoff"
)
