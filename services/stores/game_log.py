"""A game's record and event log, and the one atomic write that moves it on (``write``)."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Protocol

from services.stores.base import Commit, CommitResult, NewGame, Snapshot, StoredEvent


class GameLog(Protocol):
    """Async storage of games. Implementations must make ``commit`` and
    ``claim_seat`` atomic, also across processes sharing the store."""

    @abstractmethod
    async def create(self, game: NewGame) -> list[int]:
        """Store a new game with its first events; returns their event ids. Raises
        ``GameExists`` (and changes nothing) if the id is taken, also by a game
        archived and forgotten whose tombstone is still kept."""

    @abstractmethod
    async def load(self, game_id: str, request_key: str | None = None) -> Snapshot | None:
        """The game's current snapshot, or None. With ``request_key``, also the
        result recorded for that request, if it was applied."""

    async def commit(self, *fields: Any, **named: Any) -> CommitResult:
        """``write(Commit(*fields, **named))``: a commit with its fields spelled out."""
        return await self.write(Commit(*fields, **named))

    @abstractmethod
    async def write(self, commit: Commit) -> CommitResult:
        """If the stored version equals ``commit.expected_version`` (and its
        ``request_key`` was never applied): write the state, set the version, append the
        events, record the request result and schedule the next bot turn, all at once
        (the fields: ``Commit``)."""

    @abstractmethod
    async def request_results(self, game_id: str) -> dict[str, dict[str, Any]]:
        """Every client request of the game the store still remembers: request key ->
        its result (an archiver keeps them with the game, so a retry is answered the
        same once the store has forgotten the game)."""

    @abstractmethod
    async def claim_seat(
        self,
        game_id: str,
        seat: int,
        token_hash: str,
        event: dict[str, Any],
        version: int | None = None,
        name: str = "",
        account: str = "",
    ) -> bool:
        """Atomically give a free seat its token hash (and log ``event``); False if taken
        (or no such game). With ``version``: ``GameMoved`` if the game is past it. With
        ``name``: the seat is named so in the metadata ``load`` reads while the token
        holds it (``records.with_joined_names``), without moving the version; with
        ``account`` ("kind:name"), the seat belongs to that account the same way."""

    @abstractmethod
    async def events(self, game_id: str, after: int = 0, limit: int = 1000) -> list[StoredEvent]:
        """Logged events with an id greater than ``after`` (0 = from the start)."""

    @abstractmethod
    async def wait_events(self, game_id: str, after: int, timeout: float) -> list[StoredEvent]:
        """Like ``events`` but waits up to ``timeout`` seconds for at least one."""

    @abstractmethod
    async def list_games(self, limit: int = 100) -> list[Snapshot]:
        """Newest games first."""
