"""One player's games as news: the per-account feed that a ladder bot's connection
(ConnectBot, ``services.ladder.sessions``) and an account's event stream (WatchPlayer,
``services.accounts.events``) both run.

Each game the account plays gets a feeder (``Feeds``) that watches the game with the
account's seat token (the same watch a client gets, through the watch hub) and tells
``START``, then a ``TURN`` whenever the seat is to move at a version not yet told,
then ``END`` (``seat_news``). How the account's games are found, and what each caller
makes of the news, are the callers' own."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any

from services.errors import PermissionDenied, Unauthenticated
from services.kinds import EventKind, SeatControl
from services.play.host import GameHost
from services.play.reading import GameView
from services.stores import Snapshot
from services.turns import clock

START, TURN, END = "start", "turn", "end"


@dataclass(frozen=True)
class SeatNews:
    """One piece of news of a seat's game."""

    kind: str  # START, TURN or END
    game_id: str
    snapshot: Snapshot | None = None  # START: the game as loaded; TURN: the position
    view: GameView | None = None  # TURN: the game as the seat sees it
    legal: list[tuple[int, str]] = field(default_factory=list)  # TURN: (id, notation)
    seconds_left: float | None = None  # TURN: on the seat's clock (None: no clock runs)
    returns: list[float] = field(default_factory=list)  # END: every seat's, in order
    lost: bool = False  # END: the seat is no longer the player's (handed over for good)

    @property
    def version(self) -> int:
        return self.snapshot.version if self.snapshot is not None else 0


async def seat_news(host: GameHost, game_id: str, token: str, seat: int) -> AsyncIterator[SeatNews]:
    """``game_id``'s news for ``seat`` (held by ``token``). A seat handed to the fallback
    level for good is no longer the player's: nothing when it was handed over already,
    else an END that is ``lost`` (the game goes on without the player). Any other error
    (the store is down) ends the feed with it: the caller feeds the game again."""
    snapshot = await host.load(game_id)
    if snapshot.info.seats[seat].control == SeatControl.HANDED_OVER:
        return
    yield SeatNews(START, game_id, snapshot=snapshot)
    asked = -1
    try:
        async for event, data in host.reading.watch(game_id, token, 0):
            if data["kind"] == EventKind.FINISHED:
                yield SeatNews(END, game_id, returns=list(data.get("returns", [])))
                return
            if data.get("legal") and data["version"] > asked:
                turn = await _turn(host, game_id, token, seat, event.event_id, data["legal"])
                if turn is not None:
                    asked = turn.version
                    yield turn
    except (PermissionDenied, Unauthenticated):
        yield SeatNews(END, game_id, lost=True)


async def _turn(
    host: GameHost,
    game_id: str,
    token: str,
    seat: int,
    event_id: int,
    legal: list[tuple[int, str]],
) -> SeatNews | None:
    """The TURN for the watched event ``event_id``, whose ``legal`` actions the watch
    has listed. The watch just found that event the newest and kept its position: no
    store read (else the position read is later, and lists its own)."""
    view = await host.view_at(game_id, token, event_id)
    if view.over or view.to_move != seat:
        return None
    snapshot = view.snapshot
    if snapshot.last_event_id != event_id:
        legal = view.legal_actions
    left = clock.seconds_left(snapshot.info, snapshot.version, time.time())
    return SeatNews(TURN, game_id, snapshot=snapshot, view=view, legal=legal, seconds_left=left)


def fed_to_the_end(feeder: asyncio.Task) -> bool:
    """A finished feeder that told the game's end (or lost the seat for good)."""
    return not feeder.cancelled() and feeder.exception() is None and bool(feeder.result())


class Feeds:
    """An account's feeders, one per game it plays (``feed(game_id, seat)``: True once
    the game's end was told, False when it broke off before)."""

    def __init__(self, feed: Callable[[str, int], Coroutine[Any, Any, bool]]) -> None:
        self._feed = feed
        self._tasks: dict[str, asyncio.Task] = {}

    def follow(self, playing: Mapping[str, int]) -> None:
        """Feed every game of ``playing`` (game id -> the account's seat) not fed yet.
        A feed that broke off (the store was down) is fed again, from a fresh watch; one
        fed to its end is kept until its game leaves ``playing`` (never fed again)."""
        for game_id in [g for g, task in self._tasks.items() if task.done()]:
            if game_id not in playing or not fed_to_the_end(self._tasks[game_id]):
                del self._tasks[game_id]
        for game_id, seat in playing.items():
            if game_id not in self._tasks:
                self._tasks[game_id] = asyncio.create_task(self._feed(game_id, seat))

    async def close(self) -> None:
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        self._tasks.clear()
