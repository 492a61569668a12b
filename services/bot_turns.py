"""A bot's turn as data: what a bot may see (a determinization of its seat's
observation, never the true state) and the commit of its choice, shared by the
local process pool and the Celery workers.

The choice is committed through the same compare-and-set path as any client's
action, against the version the bot searched from, under a request key made of
that version: a duplicate or late delivery changes nothing.
"""

from __future__ import annotations

import base64
from dataclasses import asdict, dataclass
from typing import Any

from services import play
from services.stores import CommitOutcome, CommitResult, GameStore, Snapshot


@dataclass(frozen=True)
class BotJob:
    game_id: str
    game_type: str
    version: int  # the version the bot searches from
    seat: int
    level: str
    seed: int  # the bot's own seed for this decision (derived from the game's secret seed)
    state: bytes  # determinize(seat, rng) of the true state

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["state"] = base64.b64encode(self.state).decode()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BotJob:
        return cls(**{**data, "state": base64.b64decode(data["state"])})


def bot_seed(seed: int, version: int, seat: int) -> int:
    return play.bot_rng(seed, version, seat).getrandbits(63)


def prepare(snapshot: Snapshot) -> BotJob | None:
    """The job for the bot to move in ``snapshot``, or None when no bot is to move."""
    state = play.load_state(snapshot)
    seat = state.current_player()
    if seat < 0 or snapshot.meta["seats"][seat]["kind"] != "bot":
        return None
    seed = snapshot.meta["seed"]
    view = state.determinize(seat, play.bot_rng(seed, snapshot.version, seat))
    return BotJob(
        game_id=snapshot.game_id,
        game_type=snapshot.meta["game_type"],
        version=snapshot.version,
        seat=seat,
        level=snapshot.meta["seats"][seat]["level"],
        seed=bot_seed(seed, snapshot.version, seat),
        state=view.to_bytes(),
    )


async def commit(store: GameStore, job: BotJob, action: int) -> CommitResult:
    """Apply the bot's ``action`` to the true state at ``job.version``, if still there."""
    request_key = f"bot:{job.version}"
    snapshot = await store.load(job.game_id, request_key)
    if snapshot is None:
        return CommitResult(CommitOutcome.NOT_FOUND)
    if snapshot.request_result is not None:
        return CommitResult(CommitOutcome.DUPLICATE, snapshot.version, [], snapshot.request_result)
    if snapshot.version != job.version:
        return CommitResult(CommitOutcome.STALE, snapshot.version)
    state = play.load_state(snapshot)
    step = play.play(state, action, snapshot.meta["seed"], snapshot.version)
    result = {"version": step.version, "action": action}
    return await play.commit_step(store, snapshot, step, request_key, result)
