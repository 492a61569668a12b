"""The positions this replica committed, or read as a game's newest, kept for the fast
paths: SubmitAction commits on one without a store read (the commit still compares
versions, so a stale one only costs a retry on a fresh read), and a watched event that
is still the newest gets its view and legal actions from one."""

from __future__ import annotations

from collections import OrderedDict

from games import State
from services.stores import Snapshot

KEPT_GAMES = 4096  # positions kept (least recently used first out)


class RecentPositions:
    def __init__(self, most: int = KEPT_GAMES) -> None:
        self._most = most
        self._kept: OrderedDict[str, tuple[Snapshot, State]] = OrderedDict()

    def keep(self, snapshot: Snapshot, state: State) -> None:
        self._kept[snapshot.game_id] = (snapshot, state)
        self._kept.move_to_end(snapshot.game_id)
        while len(self._kept) > self._most:
            self._kept.popitem(last=False)

    def at(self, game_id: str, event_id: int) -> tuple[Snapshot, State] | None:
        """The position kept for ``game_id`` if it is the one at event ``event_id``."""
        kept = self._kept.get(game_id)
        return kept if kept is not None and kept[0].last_event_id == event_id else None

    def take(self, game_id: str) -> tuple[Snapshot, State] | None:
        """The position kept for ``game_id``, no longer kept (a submission uses it once:
        what it commits is kept again)."""
        return self._kept.pop(game_id, None)
