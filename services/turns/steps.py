"""Applying one action to a stored game: the single write path for people, bots
and workers alike.

The action is applied, then every chance node that follows is resolved from the
game's secret seed (an RNG per ply, so results do not depend on who computes
them), and the whole step is committed with one compare-and-set.

A deal-stream game (``GameMeta.deal_stream``: duplicate tournament tables) draws
its chance outcomes by occurrence instead of by ply: the n-th chance node of one
kind (the same set of possible outcomes: a dice roll, a draw from a deck of the
same make-up) gets the n-th draw of that kind from the seed. Tables of one deal
then roll the same dice and draw the same cards in whatever seat order and
however many plies their players take (``Luck`` counts the draws; the store keeps
the counts with the state).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from games import State
from services import metrics
from services.kinds import EventKind, GameStatus
from services.stores import Commit, CommitOutcome, CommitResult, GameLog, Snapshot
from services.stores.records import GameMeta, state_from
from services.turns import clock, seat_control
from services.watch import events as ev


def chance_rng(seed: int, ply: int) -> random.Random:
    return random.Random(f"{seed}:chance:{ply}")


@dataclass
class Luck:
    """Chance draws so far per kind of chance node, for a deal-stream game."""

    counts: dict[str, int] = field(default_factory=dict)

    @classmethod
    def loads(cls, text: str) -> Luck:
        return cls(json.loads(text) if text else {})

    def dumps(self) -> str:
        return json.dumps(self.counts, sort_keys=True, separators=(",", ":"))

    def rng(self, seed: int, state: State) -> random.Random:
        """The rng of this chance node's draw: the next one of its kind."""
        outcomes = ",".join(str(a) for a, _ in sorted(state.chance_outcomes()))
        kind = hashlib.sha256(outcomes.encode()).hexdigest()[:12]
        n = self.counts.get(kind, 0)
        self.counts[kind] = n + 1
        return random.Random(f"{seed}:deal:{kind}:{n}")


def bot_rng(seed: int, version: int, seat: int) -> random.Random:
    return random.Random(f"{seed}:bot:{version}:{seat}")


def load_state(snapshot: Snapshot) -> State:
    return state_from(snapshot.info.game_type, snapshot.state)


def replayed(
    game_type: str,
    initial: bytes,
    actions: Iterable[int],
    each: Callable[[State], None] | None = None,
) -> State:
    """The position after ``actions`` from ``initial`` (every replay of a record
    goes through it); ``each`` sees every position on the way, the initial one first."""
    state = state_from(game_type, initial)
    if each is not None:
        each(state)
    for action in actions:
        state.apply_unchecked(action)
        if each is not None:
            each(state)
    return state


def resolve_chance(
    state: State, seed: int, version: int, log: list[dict[str, Any]], luck: Luck | None = None
) -> int:
    """Play out chance nodes from the seed (by occurrence with ``luck``, which counts
    them; by ply otherwise); append their events; return the new version."""
    while state.is_chance_node():
        rng = chance_rng(seed, version) if luck is None else luck.rng(seed, state)
        action = state.sample_chance(rng)
        version += 1
        event = ev.action_event(state, action, version)
        state.apply_unchecked(action)
        log.append(ev.followed_by(event, state))
    if state.is_terminal():
        log.append(ev.finished_event(state, version))
    return version


def creation_log(
    state: State, seed: int, luck: Luck | None = None
) -> tuple[list[dict[str, Any]], int]:
    """A new game's first events and its version: the set-up's chance outcomes (played
    on ``state``), then the created event, whose version is the one CreateGame answers
    (one number) and which is the newest event then, then the end if set-up ended it."""
    initial = state.clone()
    log: list[dict[str, Any]] = []
    version = resolve_chance(state, seed, 0, log, luck)
    done = [e for e in log if e["kind"] == EventKind.FINISHED]
    log = [e for e in log if e["kind"] != EventKind.FINISHED]
    log += [ev.created_event(initial, version, state.current_player()), *done]
    return log, version


def status_of(state: State) -> str:
    return GameStatus.FINISHED if state.is_terminal() else GameStatus.IN_PROGRESS


def finished_meta(meta: GameMeta, now: float) -> GameMeta:
    """``meta`` as the commit that finishes the game at ``now`` writes it: the finish time
    is decided once, there, and kept with the game, so the store's listing, the archive's
    copy and every read after show the same instant. Kept to the microsecond, as the
    archive keeps times. Not part of the state: a replay of the log is the same."""
    return dataclasses.replace(meta, finished_at=round(now, 6))


@dataclass(frozen=True)
class Step:
    """One action plus the chance outcomes after it, ready to commit."""

    events: list[dict[str, Any]]
    version: int
    state: State
    luck: str | None = None  # a deal-stream game's new draw counts (None: other games)


def play(
    state: State,
    action: int,
    seed: int,
    version: int,
    luck: Luck | None = None,
    declining: frozenset[int] = frozenset(),
) -> Step:
    """Apply ``action`` (checked) to ``state`` in place and resolve the chance after it
    (``luck``: a deal-stream game's draw counts, updated here; ``play_on`` reads them); then
    answer "decline" for each seat in ``declining`` an offer waits on, in the same write."""
    event = ev.action_event(state, action, version + 1)
    state.apply_action(action)
    log = [ev.followed_by(event, state)]
    new_version = resolve_chance(state, seed, version + 1, log, luck)
    while not state.is_terminal() and state.current_player() in declining:
        decline = state.decline_offer_action()
        if decline is None:
            break
        event = ev.action_event(state, decline, new_version + 1)
        state.apply_action(decline)
        log.append(ev.followed_by(event, state))
        new_version = resolve_chance(state, seed, new_version + 1, log, luck)
    return Step(log, new_version, state, None if luck is None else luck.dumps())


def play_on(snapshot: Snapshot, state: State, action: int) -> Step:
    """``play`` ``action`` on a stored game (``state``: its state, changed in place) with
    what the game holds: its seed and version, its chance-draw counts (a deal-stream
    game) and the seats that decline every domestic offer (SetSeatOptions)."""
    meta = snapshot.info
    luck = Luck.loads(snapshot.luck) if meta.deal_stream else None
    declining = frozenset(i for i, seat in enumerate(meta.seats) if seat.decline_offers)
    return play(state, action, meta.seed, snapshot.version, luck, declining)


def written_snapshot(snapshot: Snapshot, step: Step, committed: CommitResult) -> Snapshot | None:
    """The game as the applied commit of ``step`` onto ``snapshot`` wrote it, known without
    reading it back (``state`` left empty: the caller holds ``step.state``); None when
    the write changed what the caller cannot know (a timed game's seat handed over)."""
    changes: dict[str, Any] = {}
    if committed.meta is not None:
        changes["meta"] = committed.meta  # a timed game's clock, moved on by the write
    elif snapshot.info.timer is not None:
        return None
    return snapshot.replaced(
        state=b"",
        version=step.version,
        status=status_of(step.state),
        request_result=None,
        last_event_id=committed.event_ids[-1],
        luck=snapshot.luck if step.luck is None else step.luck,
        **changes,
    )


async def commit_step(
    store: GameLog,
    snapshot: Snapshot,
    step: Step,
    request_key: str | None = None,
    request_result: dict[str, Any] | None = None,
    keep_bot_lease: float = 0.0,
    timed_out: bool = False,
    turn_request: bool = False,
) -> CommitResult:
    """Commit ``step``; a bot to move next is scheduled in the same write, due now or,
    with ``keep_bot_lease``, leased that long to the caller, who goes on to play it.

    In a timed game the same write moves the clock on (``services.turns.clock``) and puts a
    human seat's deadline in the schedule; ``timed_out``: the step is a fallback move
    for a seat out of time, which after too many in a row hands the seat to the
    fallback bot for good (its token revoked) in this write too. ``turn_request``:
    ``request_key`` is a turn's (a bot's move), kept only until the next turn's
    (``stores.Commit``)."""
    now = time.time()
    meta, tokens = snapshot.info, None
    if meta.timer is not None:
        meta, tokens = _move_clock(snapshot, step, now, timed_out)
    if step.state.is_terminal():
        meta = finished_meta(meta, now)
    due_in = clock.due_in(meta, step.state, step.version, now, keep_bot_lease)
    stored = meta.to_dict() if meta is not snapshot.info else None
    result = await store.write(
        Commit(
            game_id=snapshot.game_id,
            expected_version=snapshot.version,
            new_version=step.version,
            state=step.state.to_bytes(),
            status=status_of(step.state),
            events=step.events,
            request_key=request_key,
            request_result=request_result,
            bot_due_in=due_in,
            luck=step.luck,
            meta=stored,
            tokens=tokens,
            turn_request=turn_request,
        )
    )
    if result.outcome is CommitOutcome.STALE:
        metrics.CAS_CONFLICTS.inc()
    elif result.outcome is CommitOutcome.APPLIED and stored is not None and tokens is None:
        # What the write stored, so the caller may keep the position without reading it
        # back (``written_snapshot``); a seat handed over changed its tokens too: not kept.
        result = dataclasses.replace(result, meta=stored)
    return result


async def abandon(store: GameLog, game_id: str, why: str) -> bool:
    """End an unfinished game where it stands (a cancelled tournament's table): status
    FINISHED, no returns, a ``finished`` event with reason ``abandoned``, and out of the
    turn schedule, in one compare-and-set. The version moves on by one, so a turn decided
    at the old version (a bot's search, a client's action) is stale and never applied;
    a running clock stops with it. Retried on a race; True once the game is over
    (whoever ended it), False when it is gone."""
    while True:
        snapshot = await store.load(game_id)
        if snapshot is None:
            return False
        if snapshot.status == GameStatus.FINISHED:
            return True
        version = snapshot.version + 1
        result = await store.write(
            Commit(
                game_id=game_id,
                expected_version=snapshot.version,
                new_version=version,
                state=snapshot.state,
                status=GameStatus.FINISHED,
                events=[ev.abandoned_event(version, why)],
                bot_due_in=None,
                meta=finished_meta(snapshot.info, time.time()).to_dict(),
            )
        )
        if result.outcome is CommitOutcome.APPLIED:
            return True
        if result.outcome is CommitOutcome.NOT_FOUND:
            return False
        metrics.CAS_CONFLICTS.inc()  # a move got there first: end the game after it


def _move_clock(
    snapshot: Snapshot, step: Step, now: float, timed_out: bool
) -> tuple[GameMeta, dict[int, tuple[str, str]] | None]:
    """The metadata after ``step`` in a timed game (and a token change when a seat out
    of time is handed over); marks the step's last event with the running clock."""
    seat = step.events[0]["seat"]
    meta = clock.charge(snapshot.info, seat, now, timed_out)
    tokens = None
    if timed_out and not step.state.is_terminal() and clock.out_of_chances(meta, seat):
        timer = meta.timer
        assert timer is not None
        to_move = step.state.current_player()
        meta, event = seat_control.hand_to_fallback(
            meta, seat, timer.fallback, step.version, to_move
        )
        step.events.append(event)
        tokens = {seat: (snapshot.tokens.get(seat, ""), seat_control.BOT_TOKEN)}
    meta = clock.restart(meta, step.state, step.version, now, moved=True)
    running = clock.running(meta, step.version)
    if running is not None:
        step.events[-1]["clock"] = running
    return meta, tokens
