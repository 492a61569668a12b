"""Prometheus metrics of the rules service (served by ``gamehost serve --metrics-port``)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

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
WATCH_STREAMS = Gauge("gamehost_watch_streams", "WatchGame streams following a live game")
WATCH_GAMES = Gauge("gamehost_watch_games", "Games the shared watch reader follows")
