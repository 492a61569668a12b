"""Who plays whom: a queue's tickets into groups of close rating. Pure, so the rule is
tested alone.

The oldest ticket leads. The others within a window of its rating join it, nearest
first; the window widens with the leader's wait, from ``NEAR`` to ``FAR`` mu at the
end of the wait. A full group plays at once; once the leader has waited the whole
wait, the group plays with what it has and house levels or registered bots take the
other seats."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from services.stores.match_queue import Ticket

NEAR = 2.0  # mu: the window at the start of a wait
FAR = 10.0  # mu: the window once the whole wait is over


@dataclass(frozen=True)
class Group:
    tickets: tuple[Ticket, ...]
    bots: int  # seats left for house levels


def window(waited: float, wait: float) -> float:
    share = min(1.0, waited / wait) if wait > 0 else 1.0
    return NEAR + (FAR - NEAR) * share


def groups(tickets: Sequence[Ticket], players: int, wait: float, now: float) -> list[Group]:
    """The groups to seat now, oldest leaders first; the tickets left wait on."""
    left = sorted(tickets, key=lambda t: (t.since, t.account))
    found = []
    while left:
        leader, others = left[0], left[1:]
        waited = now - leader.since
        near = [t for t in others if abs(t.mu - leader.mu) <= window(waited, wait)]
        near.sort(key=lambda t: (abs(t.mu - leader.mu), t.since, t.account))
        chosen = (leader, *near[: players - 1])
        if len(chosen) == players or waited >= wait:
            found.append(Group(chosen, players - len(chosen)))
            left = [t for t in left if t not in chosen]
        else:
            left = others  # this leader waits on; the next may find its group
    return found


def nearest_levels(
    mu: float, levels: dict[str, float], seats: int, once: Collection[str] = ()
) -> list[str]:
    """``seats`` of ``levels`` (name -> its mu on the game's scale: house levels and
    registered bots) nearest ``mu``: each once while there are enough, then the
    nearest again, but for those in ``once`` (a bot plays one seat)."""
    ranked = sorted(levels, key=lambda level: (abs(levels[level] - mu), level))
    chosen = ranked[:seats]
    again = [level for level in ranked if level not in once]
    if again:
        chosen += [again[i % len(again)] for i in range(seats - len(chosen))]
    return chosen
