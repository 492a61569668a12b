"""Finished games made without a server, for the archive's tests and benchmark: a
random game played through the service's own steps (``services.turns.steps``), so its log
is what the store would hold, event for event."""

from __future__ import annotations

import json
import random
import secrets
import time
from typing import Any

from games import get_game
from services.kinds import GameStatus, SeatKind
from services.stores import Snapshot, StoredEvent
from services.stores.records import GameMeta, Seat
from services.turns import steps


def _plain(data: Any) -> Any:
    return json.loads(json.dumps(data))  # as read back from a store: JSON types only


def finished_game(
    game_type: str, players: int, seed: int, names: list[str] | None = None
) -> tuple[Snapshot, list[StoredEvent]]:
    """A game of random bots played to its end: its final snapshot and whole log."""
    game = get_game(game_type)
    options = game.parse_options({})
    state = game.new_game(players, seed, options)
    log, version = steps.creation_log(state, seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        step = steps.play(state, rng.choice(state.legal_actions()), seed, version)
        log.extend(step.events)
        version = step.version
    names = names or [f"random-{i}" for i in range(players)]
    meta = GameMeta(
        game_type=game_type,
        players=players,
        options=options,
        seats=tuple(Seat(SeatKind.BOT, "random", n) for n in names),
        seed=seed,
        created=time.time(),
        creator=secrets.token_hex(32),
    )
    events = [StoredEvent(i + 1, _plain(e)) for i, e in enumerate(log)]
    snapshot = Snapshot(
        secrets.token_hex(16),
        _plain(meta.to_dict()),
        state.to_bytes(),
        version,
        GameStatus.FINISHED,
        {},
    )
    return snapshot, events
