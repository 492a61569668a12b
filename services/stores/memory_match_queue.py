"""The in-memory store's quick play queues (``match_queue.MatchQueue``): one process,
so each call is atomic as it stands."""

from __future__ import annotations

import time

from services.stores.match_queue import MatchQueue, Poll, Polled, Queued, Ticket


class MemoryMatchQueue(MatchQueue):
    _mq_tickets: dict[str, Ticket]  # account -> its ticket, in queue order per queue
    _mq_matching: dict[str, str]  # account -> the match that took it
    _mq_plans: dict[str, str]  # match id -> plan
    _mq_answers: dict[str, tuple[str, float]]  # account -> (answer, until)

    def _mq(self) -> None:
        if not hasattr(self, "_mq_tickets"):
            self._mq_tickets, self._mq_matching, self._mq_plans, self._mq_answers = {}, {}, {}, {}

    async def enqueue(self, ticket: Ticket, per_queue: int, total: int) -> Queued:
        self._mq()
        if ticket.account in self._mq_tickets or ticket.account in self._mq_matching:
            return Queued.ALREADY
        if sum(t.queue == ticket.queue for t in self._mq_tickets.values()) >= per_queue:
            return Queued.QUEUE_FULL
        if len(self._mq_tickets) >= total:
            return Queued.ALL_FULL
        self._mq_tickets[ticket.account] = ticket
        self._mq_answers.pop(ticket.account, None)
        return Queued.OK

    async def leave_queue(self, account: str) -> str:
        self._mq()
        ticket = self._mq_tickets.pop(account, None)
        return "" if ticket is None else ticket.queue

    async def poll_queue(self, account: str, now: float) -> Poll:
        self._mq()
        answer, until = self._mq_answers.pop(account, ("", 0.0))
        if answer and until >= time.time():
            return Poll(Polled.MATCHED, answer)
        ticket = self._mq_tickets.get(account)
        if ticket is not None:
            self._mq_tickets[account] = Ticket(
                ticket.account, ticket.queue, ticket.ticket, ticket.mu, ticket.since, now
            )
            return Poll(Polled.WAITING)
        return Poll(Polled.MATCHING if account in self._mq_matching else Polled.GONE)

    async def queue_tickets(self, queue: str) -> list[Ticket]:
        self._mq()
        found = [t for t in self._mq_tickets.values() if t.queue == queue]
        return sorted(found, key=lambda t: (t.since, t.account))

    async def queue_names(self) -> list[str]:
        self._mq()
        return sorted({t.queue for t in self._mq_tickets.values()})

    async def take_match(self, match_id: str, plan: str, tickets: list[Ticket]) -> bool:
        self._mq()
        queued = self._mq_tickets
        if any(t.account not in queued or queued[t.account].ticket != t.ticket for t in tickets):
            return False
        for t in tickets:
            del queued[t.account]
            self._mq_matching[t.account] = match_id
        self._mq_plans[match_id] = plan
        return True

    async def open_matches(self) -> dict[str, str]:
        self._mq()
        return dict(self._mq_plans)

    async def answer_match(self, match_id: str, answers: dict[str, str], ttl: float) -> None:
        self._mq()
        if self._mq_plans.pop(match_id, None) is None:
            return
        for account, answer in answers.items():
            self._mq_answers[account] = (answer, time.time() + ttl)
            self._mq_matching.pop(account, None)
