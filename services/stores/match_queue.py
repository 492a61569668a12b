"""Quick play's queues (``services.matchmaking``): who waits for a game, the matches
being made, and each match's answer, in the store, so every replica sees them and a
matchmaker killed at any moment loses nobody."""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol


class Queued(StrEnum):
    """What ``enqueue`` did."""

    OK = "ok"
    ALREADY = "already"  # the account is in a queue (or being matched) already
    QUEUE_FULL = "queue_full"  # this queue holds its most
    ALL_FULL = "all_full"  # the queues together hold their most


class Polled(StrEnum):
    WAITING = "waiting"  # still queued (its wait renewed)
    MATCHING = "matching"  # taken into a match whose game is being made
    MATCHED = "matched"  # the answer is there (``Poll.answer``)
    GONE = "gone"  # in no queue: it left (or was dropped as stale)


@dataclass(frozen=True)
class Ticket:
    """One account's place in a queue."""

    account: str
    queue: str  # "GAME:PLAYERS"
    ticket: str  # unique per enqueue: a match names the tickets it takes
    mu: float  # the account's rating when it queued
    since: float  # Unix seconds it queued
    seen: float  # Unix seconds its call last polled


@dataclass(frozen=True)
class Poll:
    state: Polled
    answer: str = ""  # the match's answer for the account (JSON), once MATCHED


class MatchQueue(Protocol):
    @abstractmethod
    async def enqueue(self, ticket: Ticket, per_queue: int, total: int) -> Queued:
        """Put ``ticket`` at the back of its queue unless its account is queued or being
        matched already, or the queue holds ``per_queue`` or all queues ``total``."""

    @abstractmethod
    async def leave_queue(self, account: str) -> str:
        """Take the account out of its queue; the queue it left, "" when it was in none
        (a match that took it goes on)."""

    @abstractmethod
    async def poll_queue(self, account: str, now: float) -> Poll:
        """The account's state; a waiting one's ``seen`` is renewed, a matched one's
        answer is handed over (and forgotten)."""

    @abstractmethod
    async def queue_tickets(self, queue: str) -> list[Ticket]:
        """The tickets of ``queue``, oldest first."""

    @abstractmethod
    async def queue_names(self) -> list[str]:
        """The queues holding at least one ticket."""

    @abstractmethod
    async def take_match(self, match_id: str, plan: str, tickets: list[Ticket]) -> bool:
        """Take ``tickets`` out of their queue as match ``match_id`` (``plan``: JSON,
        what the matchmaker needs to make its game), all or none: False when one of
        them is no longer queued with that ticket."""

    @abstractmethod
    async def open_matches(self) -> dict[str, str]:
        """Matches taken whose answers are not out yet: match id -> plan."""

    @abstractmethod
    async def answer_match(self, match_id: str, answers: dict[str, str], ttl: float) -> None:
        """Give each account of the match its answer (kept ``ttl`` s for its call to
        poll) and close the match."""
