"""The service's named constants: what a seat is, where a game stands, what a bot is
doing, what an event records (StrEnums, so stored JSON and Redis fields keep their
plain string values), and what a game id looks like."""

from __future__ import annotations

import re
from enum import StrEnum

# Every game id: 32 lowercase hex digits (``secrets.token_hex(16)``, or a tournament
# table's digest cut to that shape).
GAME_ID = re.compile(r"[0-9a-f]{32}")


class SeatKind(StrEnum):
    HUMAN = "human"
    BOT = "bot"


class GameStatus(StrEnum):
    IN_PROGRESS = "in_progress"
    FINISHED = "finished"


class FinishReason(StrEnum):
    """Why a finished game is over (its ``finished`` event's ``reason``)."""

    PLAYED_OUT = "played_out"  # played to its end: its returns say who won
    ABANDONED = "abandoned"  # ended where it stood (its tournament was cancelled): no returns


class BotStatus(StrEnum):
    """What the bot to move is doing (``GetState.bot_status``)."""

    THINKING = "thinking"
    WAITING = "waiting"  # no search capacity has taken its turn yet
    STARTED = "started"  # a Celery worker took the turn (and heartbeats its lease)


class EventKind(StrEnum):
    CREATED = "created"
    JOINED = "joined"
    ACTION = "action"
    FINISHED = "finished"
    SEAT_CHANGED = "seat_changed"  # who plays a seat changed (services.play.seating)


class SeatControl(StrEnum):
    """How a seat came to be played as it is now (``services.stores.records.Seat.control``)."""

    AS_CREATED = ""  # as created, or joined
    AWAY = "away"  # a bot plays while its player is away; the player's token holds
    HANDED_OVER = "handed_over"  # a bot plays it for good; the player's token is revoked
    ADDED = "added"  # a bot added to a free seat


class SeatChangeReason(StrEnum):
    BOT_ADDED = "bot_added"
    AWAY = "away"
    TAKEN_BACK = "taken_back"
    HANDED_OVER = "handed_over"
    TIMED_OUT = "timed_out"  # out of time max_timeouts times in a row
    JOINED = "joined"  # a person took a handed-over seat
    OPTIONS = "options"  # the seat's player changed its options (SetSeatOptions)
