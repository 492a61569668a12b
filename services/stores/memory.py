"""The embedded store: everything in this process's memory (``gamehost serve`` default).

Atomicity comes from running every operation on one asyncio event loop without
awaiting in the middle of a change.
"""

from __future__ import annotations

import asyncio
import copy
import time
from dataclasses import dataclass, field
from typing import Any

from services.stores.base import (
    CommitOutcome,
    CommitResult,
    GameStore,
    NewGame,
    Snapshot,
    StoredEvent,
    event_id_key,
)


@dataclass
class _Game:
    meta: dict[str, Any]
    state: bytes
    version: int
    status: str
    tokens: dict[int, str] = field(default_factory=dict)
    requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    events: list[StoredEvent] = field(default_factory=list)
    changed: asyncio.Event | None = None
    bot_status: str = ""


class MemoryStore(GameStore):
    def __init__(self) -> None:
        self._games: dict[str, _Game] = {}
        self._seq = 0
        self._bot_due: dict[str, float] = {}  # game id -> monotonic time its bot turn is due

    def _schedule(self, game_id: str, due_in: float | None) -> None:
        if due_in is None:
            self._bot_due.pop(game_id, None)
        else:
            self._bot_due[game_id] = time.monotonic() + due_in

    def _append(self, game: _Game, events: list[dict[str, Any]]) -> list[str]:
        ids = []
        for data in events:
            self._seq += 1
            event_id = f"{self._seq}-0"
            game.events.append(StoredEvent(event_id, copy.deepcopy(data)))
            ids.append(event_id)
        if ids and game.changed is not None:
            game.changed.set()
            game.changed = None
        return ids

    async def create(self, game: NewGame) -> list[str]:
        if game.game_id in self._games:
            raise ValueError(f"game {game.game_id} exists")
        stored = _Game(copy.deepcopy(game.meta), game.state, game.version, game.status)
        self._games[game.game_id] = stored
        self._schedule(game.game_id, game.bot_due_in)
        return self._append(stored, game.events)

    def _snapshot(self, game_id: str, game: _Game, request_key: str | None) -> Snapshot:
        return Snapshot(
            game_id=game_id,
            meta=game.meta,  # read-only for callers; copied once when the game was stored
            state=game.state,
            version=game.version,
            status=game.status,
            tokens=dict(game.tokens),
            request_result=copy.deepcopy(game.requests.get(request_key)) if request_key else None,
            last_event_id=game.events[-1].event_id if game.events else "",
            bot_status=game.bot_status,
        )

    async def load(self, game_id: str, request_key: str | None = None) -> Snapshot | None:
        game = self._games.get(game_id)
        return None if game is None else self._snapshot(game_id, game, request_key)

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        new_version: int,
        state: bytes,
        status: str,
        events: list[dict[str, Any]],
        request_key: str | None = None,
        request_result: dict[str, Any] | None = None,
        bot_due_in: float | None = None,
    ) -> CommitResult:
        game = self._games.get(game_id)
        if game is None:
            return CommitResult(CommitOutcome.NOT_FOUND)
        if request_key and request_key in game.requests:
            return CommitResult(
                CommitOutcome.DUPLICATE, game.version, [], copy.deepcopy(game.requests[request_key])
            )
        if game.version != expected_version:
            return CommitResult(CommitOutcome.STALE, game.version)
        game.state, game.version, game.status = state, new_version, status
        if request_key:
            game.requests[request_key] = copy.deepcopy(request_result or {})
        self._schedule(game_id, bot_due_in)
        return CommitResult(CommitOutcome.APPLIED, new_version, self._append(game, events))

    async def claim_seat(
        self, game_id: str, seat: int, token_hash: str, event: dict[str, Any]
    ) -> bool:
        game = self._games.get(game_id)
        if game is None or seat in game.tokens:
            return False
        game.tokens[seat] = token_hash
        self._append(game, [event])
        return True

    async def events(self, game_id: str, after: str = "", limit: int = 1000) -> list[StoredEvent]:
        game = self._games.get(game_id)
        if game is None:
            return []
        start = event_id_key(after)
        return [e for e in game.events if event_id_key(e.event_id) > start][:limit]

    async def wait_events(self, game_id: str, after: str, timeout: float) -> list[StoredEvent]:
        found = await self.events(game_id, after)
        game = self._games.get(game_id)
        if found or game is None:
            return found
        if game.changed is None:
            game.changed = asyncio.Event()
        try:
            await asyncio.wait_for(game.changed.wait(), timeout)
        except TimeoutError:
            return []
        return await self.events(game_id, after)

    async def list_games(self, limit: int = 100) -> list[Snapshot]:
        newest = list(self._games.items())[::-1][:limit]
        return [self._snapshot(gid, game, None) for gid, game in newest]

    async def claim_bot_turns(self, limit: int, lease: float) -> list[str]:
        now = time.monotonic()
        due = sorted((at, gid) for gid, at in self._bot_due.items() if at <= now)[:limit]
        for _, game_id in due:
            self._bot_due[game_id] = now + lease
        return [game_id for _, game_id in due]

    async def renew_bot_turn(self, game_id: str, version: int, lease: float) -> bool:
        game = self._games.get(game_id)
        if game is None or game.version != version or game_id not in self._bot_due:
            return False
        self._bot_due[game_id] = time.monotonic() + lease
        return True

    async def drop_bot_turn(self, game_id: str) -> None:
        self._bot_due.pop(game_id, None)

    async def bot_turn_due_in(self, game_id: str) -> float | None:
        at = self._bot_due.get(game_id)
        return None if at is None else at - time.monotonic()

    async def set_bot_status(self, game_id: str, version: int, status: str) -> None:
        game = self._games.get(game_id)
        if game is not None:
            game.bot_status = f"{version}:{status}"

    async def close(self) -> None:
        self._games.clear()
        self._bot_due.clear()
