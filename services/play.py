"""Applying one action to a stored game: the single write path for people, bots
and workers alike.

The action is applied, then every chance node that follows is resolved from the
game's secret seed (an RNG per ply, so results do not depend on who computes
them), and the whole step is committed with one compare-and-set.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from games import State, get_game
from services import events as ev
from services import metrics
from services.kinds import GameStatus, SeatKind
from services.stores import CommitOutcome, CommitResult, GameStore, Snapshot


def chance_rng(seed: int, ply: int) -> random.Random:
    return random.Random(f"{seed}:chance:{ply}")


def bot_rng(seed: int, version: int, seat: int) -> random.Random:
    return random.Random(f"{seed}:bot:{version}:{seat}")


def load_state(snapshot: Snapshot) -> State:
    return get_game(snapshot.meta["game_type"]).state_class.from_bytes(snapshot.state)


def resolve_chance(state: State, seed: int, version: int, log: list[dict[str, Any]]) -> int:
    """Play out chance nodes from the seed; append their events; return the new version."""
    while state.is_chance_node():
        action = state.sample_chance(chance_rng(seed, version))
        version += 1
        event = ev.action_event(state, action, version)
        state.apply_unchecked(action)
        log.append(ev.followed_by(event, state))
    if state.is_terminal():
        log.append(ev.finished_event(state, version))
    return version


def bot_to_move(meta: dict[str, Any], state: State) -> bool:
    """True when a bot seat is to move in ``state`` (its turn goes in the schedule)."""
    actor = state.current_player()
    return actor >= 0 and meta["seats"][actor]["kind"] == SeatKind.BOT


def status_of(state: State) -> str:
    return GameStatus.FINISHED if state.is_terminal() else GameStatus.IN_PROGRESS


@dataclass(frozen=True)
class Step:
    """One action plus the chance outcomes after it, ready to commit."""

    events: list[dict[str, Any]]
    version: int
    state: State


def play(state: State, action: int, seed: int, version: int) -> Step:
    """Apply ``action`` (checked) to ``state`` in place and resolve the chance after it."""
    event = ev.action_event(state, action, version + 1)
    state.apply_action(action)
    log = [ev.followed_by(event, state)]
    new_version = resolve_chance(state, seed, version + 1, log)
    return Step(log, new_version, state)


async def commit_step(
    store: GameStore,
    snapshot: Snapshot,
    step: Step,
    request_key: str | None = None,
    request_result: dict[str, Any] | None = None,
    keep_bot_lease: float = 0.0,
) -> CommitResult:
    """Commit ``step``; a bot to move next is scheduled in the same write, due now or,
    with ``keep_bot_lease``, leased that long to the caller, who goes on to play it."""
    due_in = keep_bot_lease if bot_to_move(snapshot.meta, step.state) else None
    result = await store.commit(
        snapshot.game_id,
        snapshot.version,
        step.version,
        step.state.to_bytes(),
        status_of(step.state),
        step.events,
        request_key,
        request_result,
        due_in,
    )
    if result.outcome is CommitOutcome.STALE:
        metrics.CAS_CONFLICTS.inc()
    return result
