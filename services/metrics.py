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

# --- Service gauges and histograms (issue 17). Gauges say how to combine the
# processes of one group in multiprocess mode (PROMETHEUS_MULTIPROC_DIR): values
# read from the shared store are the same in every process (max), per-process
# counts add up (sum); "live" drops the series of processes that have exited.

LIVE_GAMES = Gauge(
    "gamehost_live_games",
    "Games in progress in the store, by game type (sampled)",
    ["game"],
    multiprocess_mode="livemax",
)
OPEN_STREAMS = Gauge(
    "gamehost_open_streams",
    "Server-streaming RPCs (WatchGame) open on this process group",
    ["grpc_method"],
    multiprocess_mode="livesum",
)
PENDING_BOT_TURNS = Gauge(
    "gamehost_pending_bot_turns",
    "Bot turns in the store's schedule, not yet committed (sampled by the store probe)",
    multiprocess_mode="livemax",
)
OLDEST_PENDING_BOT_TURN_SECONDS = Gauge(
    "gamehost_oldest_pending_bot_turn_seconds",
    "Seconds the most overdue scheduled bot turn is past due (0: every turn is being played)",
    multiprocess_mode="livemax",
)
STORE_UP = Gauge(
    "gamehost_store_up",
    "1 when the game store answered its last probe, else 0",
    multiprocess_mode="livemin",
)
BOT_TURN_PHASE_SECONDS = Histogram(
    "gamehost_bot_turn_phase_seconds",
    "Bot-turn latency by phase: queue (waiting for a worker), search, commit",
    ["phase", "game", "level"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)


def observe_bot_turn_phase(
    phase: str, game: str, level: str, seconds: float, applied: bool = False
) -> None:
    """One phase of a bot turn, wherever it ran (a replica's pool or a Celery worker);
    ``applied``: a commit that applied, which also counts as a bot decision."""
    BOT_TURN_PHASE_SECONDS.labels(phase, game, level).observe(seconds)
    if applied:
        BOT_DECISIONS.labels(game, level).inc()


REDIS_CALL_SECONDS = Histogram(
    "gamehost_redis_call_seconds",
    "Latency of one game-store call on Redis (blocking reads excluded)",
    ["operation"],
    buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5),
)
CAS_CONFLICTS = Counter(
    "gamehost_cas_conflicts_total",
    "Commits refused because the game's version had moved on (compare-and-set lost)",
)
WATCH_STREAMS = Gauge(
    "gamehost_watch_streams", "WatchGame and WatchTournament streams following a live log"
)
WATCH_GAMES = Gauge("gamehost_watch_games", "Games and tournaments the shared watch reader follows")
BOT_POOL_RESTARTS = Counter(
    "gamehost_bot_pool_restarts", "Local bot search pools replaced after a child died"
)
BOT_TURN_FAILURES = Counter(
    "gamehost_bot_turn_failures", "Bot turns that failed and were retried after a backoff"
)

# --- The HTTP gateway (issue 18). Its calls also count in grpc_server_* under their RPC.
HTTP_RESPONSES = Counter(
    "gamehost_http_responses_total",
    "HTTP gateway answers, by route template and HTTP status",
    ["route", "status"],
)

# --- The ladder.
LADDER_ANSWER_SECONDS = Histogram(
    "gamehost_ladder_answer_seconds",
    "A protocol bot's answer on the server, from its arrival in the handler to its outcome "
    "(BotReply)",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
LADDER_OVERRULED_ANSWERS = Counter(
    "gamehost_ladder_overruled_answers_total",
    "A protocol bot's answers that reached the server before their act's clock ran out but "
    "lost to the clock's fallback move (a server fault: should stay 0)",
)
LADDER_STALLED_CONNECTIONS = Counter(
    "gamehost_ladder_stalled_connections_total",
    "ConnectBot streams closed because their client read nothing for "
    "Sessions.STALL_SECONDS (the stream's send did not complete)",
)
