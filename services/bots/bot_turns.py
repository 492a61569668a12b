"""A bot's turn as data: what a bot may see (a determinization of its seat's
observation, never the true state) and the commit of its choice, shared by the
local process pool and the Celery workers.

The choice is committed through the same compare-and-set path as any client's
action, against the version the bot searched from, under a request key made of
that version: a duplicate or late delivery changes nothing. The store keeps a
game's newest turn key only (a later turn replaces it; an older turn is stale by
its version anyway), so bot request ids go with their turn.

A human seat whose turn clock ran out (``services.turns.clock``) is a turn too: its
fallback level plays one move for it, marked as a timeout, under the request key
``timeout:<version>``, through the same executors and the same commit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import bots
from games import State
from services.bots.jobs import BotJob
from services.kinds import GameStatus
from services.stores import CommitOutcome, CommitResult, GameLog, Snapshot
from services.turns import clock, steps


@dataclass(frozen=True)
class BotTurn:
    """A bot to move in a loaded game: the true state stays here, the bot gets ``view``."""

    snapshot: Snapshot
    state: State
    seat: int
    level: str
    seed: int
    view: State  # determinize(seat, rng): all the bot may see
    timeout: bool = False  # a fallback move for a human seat out of time

    @property
    def request_key(self) -> str:
        return turn_request_key(self.snapshot.version, self.timeout)

    def job(self) -> BotJob:
        return BotJob(
            game_id=self.snapshot.game_id,
            game_type=self.snapshot.info.game_type,
            version=self.snapshot.version,
            seat=self.seat,
            level=self.level,
            seed=self.seed,
            state=self.view.to_bytes(),
            timeout=self.timeout,
        )


def bot_request_key(version: int) -> str:
    """The request key of the bot move made at ``version``: a redelivered decision
    for the same version is a duplicate request."""
    return f"bot:{version}"


def timeout_request_key(version: int) -> str:
    """The request key of the fallback move for a human seat out of time at ``version``."""
    return f"timeout:{version}"


def turn_request_key(version: int, timeout: bool) -> str:
    return timeout_request_key(version) if timeout else bot_request_key(version)


def bot_seed(seed: int, version: int, seat: int) -> int:
    return steps.bot_rng(seed, version, seat).getrandbits(63)


def seat_job(snapshot: Snapshot, state: State, version: int, seat: int, level: str) -> BotJob:
    """The decision of ``seat`` at ``version`` of a game (``state``: the true state
    there), as a bot of ``level`` would get it: its own seed and its determinization
    of the seat's observation, both from the game's secret seed, the version and the
    seat. Bot turns and hints are built here alike, so a hint for a position is the
    move that level plays there."""
    seed = snapshot.info.seed
    return BotJob(
        game_id=snapshot.game_id,
        game_type=snapshot.info.game_type,
        version=version,
        seat=seat,
        level=level,
        seed=bot_seed(seed, version, seat),
        state=bot_view(state, seed, version, seat).to_bytes(),
    )


def bot_view(state: State, seed: int, version: int, seat: int) -> State:
    """All a bot (or a hint) deciding for ``seat`` at ``version`` may see: a
    determinization of the seat's observation, drawn from the game's seed."""
    return state.determinize(seat, steps.bot_rng(seed, version, seat))


def _due(snapshot: Snapshot, state: State, now: float | None) -> tuple[int, str, bool] | None:
    """(seat, level, timeout) of the turn due in ``state``: a bot seat's, or the fallback
    level's for a human seat out of time; None when neither is due (nor in a game that
    is over: an abandoned game's state still has someone to move)."""
    seat = state.current_player()
    if seat < 0 or snapshot.status == GameStatus.FINISHED:
        return None
    meta = snapshot.info
    if meta.seats[seat].is_bot:
        return seat, meta.seats[seat].level, False
    left = clock.seconds_left(meta, snapshot.version, time.time() if now is None else now)
    timer = meta.timer
    if left is None or left > 0 or timer is None:
        return None
    return seat, timer.fallback, True


def prepare(
    snapshot: Snapshot, now: float | None = None, state: State | None = None
) -> BotTurn | None:
    """The turn of the bot to move in ``snapshot`` or of the fallback level of a human
    seat out of time; None when neither is due. ``state``: the snapshot's state when
    the caller holds it already (it is not decoded again)."""
    state = steps.load_state(snapshot) if state is None else state
    due = _due(snapshot, state, now)
    if due is None:
        return None
    seat, level, timeout = due
    return _turn(snapshot, state, seat, level, timeout)


def _turn(snapshot: Snapshot, state: State, seat: int, level: str, timeout: bool) -> BotTurn:
    """``seat``'s turn at this version: its seed and its view come from the game's."""
    seed = snapshot.info.seed
    return BotTurn(
        snapshot=snapshot,
        state=state,
        seat=seat,
        level=level,
        seed=bot_seed(seed, snapshot.version, seat),
        view=bot_view(state, seed, snapshot.version, seat),
        timeout=timeout,
    )


def clock_wait(snapshot: Snapshot) -> float | None:
    """Seconds until the human seat to move runs out of time (None: no clock runs)."""
    if snapshot.status == GameStatus.FINISHED:
        return None
    return clock.seconds_left(snapshot.info, snapshot.version, time.time())


async def commit_turn(
    store: GameLog, turn: BotTurn, action: int, keep_bot_lease: float = 0.0
) -> CommitResult:
    """Commit ``action`` for a turn prepared in this process (compare-and-set); a bot
    to move next is scheduled in the same write (leased to the caller for
    ``keep_bot_lease`` s when it goes on to play it)."""
    result, _ = await _commit(
        store, turn.snapshot, turn.state, action, turn.timeout, keep_bot_lease
    )
    return result


async def commit_fallback(
    store: GameLog, snapshot: Snapshot, state: State, seat: int, level: str, why: str
) -> tuple[CommitResult, str]:
    """Play ``level``'s move for the human seat ``seat`` now, as a timeout, before its
    clock runs out (the ladder: a bot's answer that cannot be played); ``why`` is
    logged with it (``fault``). Under the clock's own request key, ``timeout:<version>``,
    so the seat gets one fallback move at that version, whoever plays it first. Only
    for levels decided in this process (no search trees: random, greedy). Returns the
    commit and the move's notation."""
    turn = _turn(snapshot, state, seat, level, timeout=True)
    action = bots.choose_action(turn.view, seat, level, turn.seed)
    result, step = await _commit(store, snapshot, state, action, True, 0.0, {"fault": why})
    return result, step.events[0]["text"]


async def _commit(
    store: GameLog,
    snapshot: Snapshot,
    state: State,
    action: int,
    timeout: bool,
    keep_bot_lease: float,
    marks: dict[str, str] | None = None,
) -> tuple[CommitResult, steps.Step]:
    step = steps.play_on(snapshot, state, action)
    if timeout:
        step.events[0]["timeout"] = True  # counted by tournaments; shown to everyone
        step.events[0].update(marks or {})
    result = {"version": step.version, "action": action, "notation": step.events[0]["text"]}
    key = turn_request_key(snapshot.version, timeout)
    committed = await steps.commit_step(
        store, snapshot, step, key, result, keep_bot_lease, timeout, turn_request=True
    )
    return committed, step


async def commit(
    store: GameLog, job: BotJob, action: int, keep_bot_lease: float = 0.0
) -> CommitResult:
    """Commit ``action`` for a job decided elsewhere: reload the game at ``job.version``."""
    result, _ = await commit_and_follow(store, job, action, keep_bot_lease, follow=False)
    return result


async def commit_and_follow(
    store: GameLog,
    job: BotJob,
    action: int,
    keep_bot_lease: float = 0.0,
    follow: bool = True,
) -> tuple[CommitResult, BotTurn | None]:
    """``commit``, and (``follow``) the turn due next when the commit applied: prepared
    from the state just written, without reading the game again, except where the write
    handed a timed-out seat over (its tokens changed, so the game is read back)."""
    snapshot = await store.load(job.game_id, turn_request_key(job.version, job.timeout))
    if snapshot is None:
        return CommitResult(CommitOutcome.NOT_FOUND), None
    if snapshot.request_result is not None:
        duplicate = CommitResult(
            CommitOutcome.DUPLICATE, snapshot.version, [], snapshot.request_result
        )
        return duplicate, None
    if snapshot.version != job.version:
        return CommitResult(CommitOutcome.STALE, snapshot.version), None
    state = steps.load_state(snapshot)
    due = _due(snapshot, state, None)
    if due is None or due[0] != job.seat or due[2] != job.timeout:
        return CommitResult(CommitOutcome.STALE, snapshot.version), None
    result, step = await _commit(store, snapshot, state, action, job.timeout, keep_bot_lease)
    if not follow or result.outcome is not CommitOutcome.APPLIED:
        return result, None
    written = steps.written_snapshot(snapshot, step, result)
    if written is None:
        written = await store.load(job.game_id)
        return result, prepare(written) if written is not None else None
    return result, prepare(written, state=step.state)
