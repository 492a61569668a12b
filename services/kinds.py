"""The service's named constants: what a seat is, where a game stands, what a bot is
doing, and what an event records. StrEnums, so stored JSON and Redis fields keep their
plain string values."""

from __future__ import annotations

from enum import StrEnum


class SeatKind(StrEnum):
    HUMAN = "human"
    BOT = "bot"


class GameStatus(StrEnum):
    IN_PROGRESS = "in_progress"
    FINISHED = "finished"


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
