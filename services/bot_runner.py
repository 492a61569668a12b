"""Plays bot seats: whenever a game may have reached a bot's turn, the runner
loads it, gives the bot a determinization of that seat's observation (never the
true state), and commits the bot's choice through the same compare-and-set path
as any client, with the version it searched from.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from abc import ABC, abstractmethod
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import bots
from games import get_game
from services import play
from services.stores import GameStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BotRequest:
    game_type: str
    state: bytes  # a determinization for ``seat``, not the true state
    seat: int
    level: str
    seed: int


def decide(request: BotRequest) -> int:
    """Run one bot decision (in whatever process the executor chose)."""
    state = get_game(request.game_type).state_class.from_bytes(request.state)
    return bots.choose_action(state, request.seat, request.level, request.seed)


class BotExecutor(ABC):
    @abstractmethod
    async def decide(self, request: BotRequest) -> int: ...

    async def close(self) -> None:
        return None


class LocalPoolExecutor(BotExecutor):
    """The embedded default: bot searches in a local pool of processes."""

    def __init__(self, workers: int | None = None) -> None:
        # forkserver: safe to start from a process that already runs threads (gRPC).
        context = multiprocessing.get_context("forkserver")
        self._pool = ProcessPoolExecutor(max_workers=workers or os.cpu_count(), mp_context=context)

    async def decide(self, request: BotRequest) -> int:
        return await asyncio.get_running_loop().run_in_executor(self._pool, decide, request)

    async def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def bot_seed(seed: int, version: int, seat: int) -> int:
    return play.bot_rng(seed, version, seat).getrandbits(63)


class BotRunner:
    def __init__(self, store: GameStore, executor: BotExecutor) -> None:
        self._store = store
        self._executor = executor
        self._tasks: dict[str, asyncio.Task] = {}
        self._dirty: set[str] = set()

    def kick(self, game_id: str) -> None:
        """The game changed: make sure its bots (if any are to move) get to play."""
        self._dirty.add(game_id)
        task = self._tasks.get(game_id)
        if task is None or task.done():
            self._tasks[game_id] = asyncio.get_running_loop().create_task(self._run(game_id))

    async def _run(self, game_id: str) -> None:
        try:
            while game_id in self._dirty:
                self._dirty.discard(game_id)
                while await self._play_one(game_id):
                    pass
        except Exception:
            log.exception("bot runner for game %s stopped", game_id)
        finally:
            if self._tasks.get(game_id) is asyncio.current_task():
                del self._tasks[game_id]

    async def _play_one(self, game_id: str) -> bool:
        """One bot move if a bot is to move; False when none is."""
        snap = await self._store.load(game_id)
        if snap is None:
            return False
        state = play.load_state(snap)
        seat = state.current_player()
        if seat < 0 or snap.meta["seats"][seat]["kind"] != "bot":
            return False
        seed = snap.meta["seed"]
        view = state.determinize(seat, play.bot_rng(seed, snap.version, seat))
        request = BotRequest(
            snap.meta["game_type"],
            view.to_bytes(),
            seat,
            snap.meta["seats"][seat]["level"],
            bot_seed(seed, snap.version, seat),
        )
        action = await self._executor.decide(request)
        step = play.play(state, action, seed, snap.version)
        # A stale result just means the game moved on: loop and look again.
        await play.commit_step(self._store, snap, step, request_key=f"bot:{snap.version}")
        return True

    async def idle(self) -> None:
        """Wait until no bot task is running (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    async def close(self) -> None:
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        self._tasks.clear()
        await self._executor.close()
