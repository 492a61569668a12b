"""The service's internal times, in seconds, each named for what it bounds.

These pace sweeps, polls and retries between the service's own parts; they are not
operators' settings (those are ``gamehost serve``'s, services/settings.py). Classes
keep a short attribute for each time they use (``BotRunner.SWEEP``), which tests may
shorten; the value lives here. The leases' times (BotRunner.LEASE, the workers',
the archiver's, the ladder matchmaker's) stay with their lease mechanisms."""

from __future__ import annotations

# Bot turns in a replica (services/bots/bot_runner.py).
BOT_TURN_SWEEP_SECONDS = 0.25  # how often every replica looks for due bot turns
BOT_TURN_STORE_RETRY_SECONDS = 0.5  # the bot-turn sweeper's pause after a store fault
BOT_SEARCH_QUEUED_LOOK_SECONDS = 0.2  # how often a queued search looks whether it started
BOT_FAILURE_FIRST_BACKOFF_SECONDS = 0.5  # a failing turn's first backoff (then doubled)
BOT_FAILURE_MAX_BACKOFF_SECONDS = 60.0  # the most a failing turn's backoff grows to

# Bot turns on Celery workers (workers/executor.py, workers/tasks.py).
CELERY_TURN_WAITING_AFTER_SECONDS = 2.0  # unstarted this long: reported waiting for capacity
# A dispatched turn no worker has started is dispatched again after this (a worker may
# have died between taking it and marking it started; a duplicate is harmless). A next
# turn a worker dispatched itself is left to the workers as long.
CELERY_TURN_REDISPATCH_SECONDS = 15.0
CELERY_TURN_POLL_SECONDS = 0.15  # how often a replica looks whether a worker started a turn
# Pauses between tries of a worker's store call that met a fault: after a failover the
# kept store's first call may still reach the old primary and fail, and a task that gave
# up there would wait for a replica to dispatch its turn again.
WORKER_STORE_RETRY_PAUSES_SECONDS = (0.2, 0.5, 1.0, 2.0)

# Tournaments (services/tournament/runner.py).
TOURNAMENT_SWEEP_SECONDS = 0.25  # how often a running tournament is looked at
TOURNAMENT_STORE_RETRY_SECONDS = 0.5  # the tournament sweeper's pause after a store fault

# Connected ladder bots (services/ladder/sessions.py).
LADDER_GAMES_POLL_SECONDS = 0.5  # between looks at a connected bot's games
LADDER_CONNECTION_HEARTBEAT_SECONDS = 3.0  # between a connection's heartbeats
LADDER_RUNNER_PRESENCE_SECONDS = 15.0  # a runner not heard of for this long is gone
LADDER_KEY_CACHE_SECONDS = 2.0  # an answer's key -> bot lookup is reused this long
LADDER_MOVES_FLUSH_SECONDS = 1.0  # between writes of the moves a replica counted
LADDER_STALL_SECONDS = 30.0  # a connection whose client takes no directive this long closes

# An account's event stream (services/accounts/events.py).
PLAYER_EVENTS_POLL_SECONDS = 1.0  # between reads of its log (another replica's writes)
PLAYER_GAMES_POLL_SECONDS = 2.0  # between looks for the account's live games

# The archiver (services/archive/archiver.py).
ARCHIVER_IDLE_SECONDS = 1.0  # the pause between sweeps of an empty outbox
