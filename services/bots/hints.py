"""Move hints: what a bot level would play for a seat, from that seat's observation
only, searched on the bot workers and never committed.

A hint's job is built as a bot turn's is (``bot_turns.seat_job``: the seed and the
determinization come from the game's secret seed, the version and the seat) and
decided by the same executor call (``BotExecutor.analyse``: the same trees under the
same cap), so a hint for a position and a level is the move that level plays there.

Who may ask: during a game, a seat (its token) for itself at the current position;
spectators may not. Once the game is over its whole log is public to whoever may
read the game (as in GetRecord: ``access.reader``), who may analyse any recorded
position, from the seat to move there.

Limits: a level over the hint budget is refused (INVALID_ARGUMENT), never weakened,
so a hint is always what its level plays; hints of one game are rate-limited, across
replicas on one Redis (RESOURCE_EXHAUSTED, saying when to retry).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from bots import LevelKind, get_level
from games import CHANCE, TERMINAL, State
from games.base import quote_input
from services.bots import bot_turns
from services.bots.bot_runner import BotExecutor
from services.errors import (
    Aborted,
    FailedPrecondition,
    InvalidArgument,
    PermissionDenied,
    ResourceExhausted,
)
from services.kinds import GameStatus
from services.limits import quotas
from services.play.host import GameHost
from services.stores import Snapshot
from services.turns import steps

DEFAULT_LEVEL = "mcts-fast"
TOP_ACTIONS = 5  # root actions a hint reports, most visited first


@dataclass(frozen=True)
class HintLimits:
    """A server's bounds on hints (``gamehost serve --max-hint-iterations`` ...)."""

    max_iterations: int = 24_000  # trees x iterations of one hint (mcts-strong: 6,000); 0: none
    max_seconds: float = 20.0  # trees x seconds of a level with a time budget; 0: none
    rate: float = 0.5  # hints a second per game (at most burst in any burst/rate s); 0: none
    burst: float = 5.0


@dataclass(frozen=True)
class RankedAction:
    action: int
    notation: str
    visits: int
    win_share: float  # the seat's mean return after the action, in [0, 1]


@dataclass(frozen=True)
class Hint:
    game_id: str
    version: int
    seat: int
    level: str
    action: int
    notation: str
    top: list[RankedAction]
    iterations: int
    trees: int


class HintService:
    def __init__(
        self,
        host: GameHost,
        executor: BotExecutor,
        limits: HintLimits,
        counters: quotas.MovingWindowRateLimiter | None = None,
    ) -> None:
        """``counters``: the server's rate-limit counters (None: the store's own)."""
        self._host = host
        self._executor = executor
        self.limits = limits
        self._rate = quotas.RateLimit(  # counted per game
            counters or quotas.counters_for(host.store),
            quotas.per_second(limits.rate, limits.burst, "hints"),
        )

    async def hint(
        self,
        game_id: str,
        token: str,
        level: str = "",
        version: int | None = None,
        seat: int | None = None,
    ) -> Hint:
        """The hint for ``seat`` at ``version`` (see the module docstring for who may
        ask what). Raises InvalidArgument (bad level, seat or version), NotFound,
        Unauthenticated, PermissionDenied (a spectator or another seat during a game),
        Aborted (an older version during a game), FailedPrecondition (the seat is not
        to move there) or ResourceExhausted (the game's hint rate); nothing changes."""
        level = level or DEFAULT_LEVEL
        self._check_level(level)
        snapshot = await self._host.load(game_id)
        viewer = self._host.viewer(snapshot, token)  # checks the token, if any
        await self._check_rate(game_id)
        seats = len(snapshot.info.seats)
        if seat is not None and not 0 <= seat < seats:
            raise InvalidArgument(f"seat {seat} does not exist: seats are 0-{seats - 1}")
        if version is not None and version > snapshot.version:
            raise InvalidArgument(
                f"version {version} is past game {game_id}'s newest version "
                f"{snapshot.version}: send a version from its record (RecordEntry.ply) or none"
            )
        if snapshot.status == GameStatus.FINISHED:
            at = snapshot.version if version is None else version
            state = await self._state_at(snapshot, token, at)
            seat = self._analysed_seat(state, at, seat)
        else:
            at, state = snapshot.version, steps.load_state(snapshot)
            seat = self._own_seat(snapshot, state, viewer, seat, version)
        if not await self._rate.hit(game_id):  # another hint took the last one meanwhile
            raise await self._over_rate(game_id)
        job = bot_turns.seat_job(snapshot, state, at, seat, level)
        analysis = await self._executor.analyse(job)
        top = _ranked(state, analysis.stats) if analysis.stats else []
        return Hint(
            game_id=game_id,
            version=at,
            seat=seat,
            level=level,
            action=analysis.action,
            notation=state.action_to_string(analysis.action),
            top=top,
            iterations=int(analysis.stats["iterations"]) if analysis.stats else 0,
            trees=analysis.trees,
        )

    # ------------------------------------------------------------------ checks
    def _check_level(self, level: str) -> None:
        try:
            spec = get_level(level)
        except ValueError as exc:
            raise InvalidArgument(str(exc)) from None
        if spec.kind is not LevelKind.MCTS:
            return
        cap, shown = self.limits.max_iterations, quote_input(level)
        if cap and spec.iterations is not None and spec.trees * spec.iterations > cap:
            raise InvalidArgument(
                f"level {shown} searches {spec.trees} trees x {spec.iterations} iterations = "
                f"{spec.trees * spec.iterations}; a hint on this server searches at most {cap} "
                f"(e.g. mcts:trees=2,iterations={cap // 2})"
            )
        seconds = self.limits.max_seconds
        if seconds and spec.seconds is not None and spec.trees * spec.seconds > seconds:
            raise InvalidArgument(
                f"level {shown} searches {spec.trees} trees x {spec.seconds:g} s; a hint on "
                f"this server searches at most {seconds:g} s in all"
            )

    async def _check_rate(self, game_id: str) -> None:
        """Refuse early, before any work, when the game has no hint left for now."""
        if not await self._rate.test(game_id):
            raise await self._over_rate(game_id)

    async def _over_rate(self, game_id: str) -> ResourceExhausted:
        wait = await self._rate.retry_in(game_id)
        return ResourceExhausted(
            f"hint rate limit: at most {self._rate.describe('hints')} per game; "
            f"retry in {wait:.1f} s"
        )

    @staticmethod
    def _own_seat(
        snapshot: Snapshot, state: State, viewer: int | None, seat: int | None, version: int | None
    ) -> int:
        """During a game: the caller's own seat, to move at the current version."""
        if viewer is None:
            raise PermissionDenied(
                f"game {snapshot.game_id} is in progress: only its seats get hints (send your "
                "seat token); anyone may analyse its positions once it is over"
            )
        if seat is not None and seat != viewer:
            raise PermissionDenied(
                f"your token is for seat {viewer}, not seat {seat}: during a game a seat "
                "gets hints for itself only"
            )
        if version is not None and version != snapshot.version:
            raise Aborted(
                f"stale version: you asked about {version} but the game is at "
                f"{snapshot.version}; during a game a hint is for the current position"
            )
        mover = state.current_player()
        if mover != viewer:
            raise FailedPrecondition(
                f"it is not your turn: {_mover_text(mover)}; ask for a hint when you are to move"
            )
        return viewer

    @staticmethod
    def _analysed_seat(state: State, version: int, seat: int | None) -> int:
        """After the game: the seat to move at ``version`` (the asked one must be it)."""
        mover = state.current_player()
        if mover < 0:
            raise FailedPrecondition(
                f"at version {version} {_mover_text(mover)}: analyse a version where a seat is "
                "to move (a RecordEntry whose to_move is a seat)"
            )
        if seat is not None and seat != mover:
            raise FailedPrecondition(
                f"seat {seat} is not to move at version {version}: seat {mover} is; a hint "
                "is for the seat to move"
            )
        return mover

    async def _state_at(self, snapshot: Snapshot, token: str, version: int) -> State:
        """The true state at ``version`` of a finished game, replayed from its record
        (complete and public once it and every game of its deal are over:
        ``access.log_public``)."""
        record = await self._host.reading.record(snapshot.game_id, token)
        actions = [e["action"] for e in record.entries if e["version"] <= version]
        if any(action < 0 for action in actions):  # only a running game hides actions
            raise FailedPrecondition(
                "positions are analysed once the game is over, and with it every game "
                "playing the same deal (a ladder set's rotations, a duplicate tournament "
                "group): ask again when they have ended"
            )
        # A long game's replay takes a while: off the event loop.
        game_type = snapshot.info.game_type
        return await asyncio.to_thread(steps.replayed, game_type, record.initial_state, actions)


def _mover_text(mover: int) -> str:
    if mover == TERMINAL:
        return "the game is over"
    if mover == CHANCE:
        return "chance acts"
    return f"seat {mover} is to move"


def _ranked(state: State, stats: dict[str, Any]) -> list[RankedAction]:
    """The most visited root actions, ordered as ``bots.best_action`` picks (visits,
    then mean value, then the lower id), so the first is the suggestion."""
    if not stats.get("iterations"):
        return []  # one legal action: nothing was searched, there is nothing to rank
    visits, values = stats["visits"], stats["values"]

    def mean(key: str) -> float:
        n = int(visits[key])
        return float(values.get(key, 0.0)) / n if n else 0.0

    order = sorted(visits, key=lambda k: (-int(visits[k]), -mean(k), int(k)))
    return [
        RankedAction(int(k), state.action_to_string(int(k)), int(visits[k]), mean(k))
        for k in order[:TOP_ACTIONS]
    ]
