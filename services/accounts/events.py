"""One event stream per account (WatchPlayer; HTTP GET /v1/me/events): docs/accounts.md.

A stream follows the account's games with the per-account feed ConnectBot runs too
(``services.accounts.feed``): every ``GAMES_POLL`` seconds it finds the account's live
games (the store's listing, by the seats' account) and the games whose start its log
told and whose end not yet, and feeds each with the account's seat token. Each piece
of news is written to the account's log (``event_log``) at most once, whichever
replica's stream found it first; the stream sends the log: the events after the
resumption point first, then each new one (woken at once by a write on this replica,
within ``POLL`` seconds by another replica's). So a client that reconnects, to any
replica, gets what was logged since the last event it saw, and nothing twice."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from services import times
from services.accounts.accounts import Account
from services.accounts.event_log import KEEP, EventLog, LoggedEvent
from services.accounts.feed import END, START, Feeds, seat_news
from services.accounts.service import AccountService
from services.archive.listing import ListQuery
from services.errors import InvalidArgument, NotFound, ResourceExhausted
from services.kinds import GameStatus
from services.limits import access
from services.play.host import GameHost
from services.stores import Snapshot
from services.sweeps import Wake

log = logging.getLogger(__name__)

STARTED, YOUR_TURN, FINISHED = "PLAYER_GAME_STARTED", "PLAYER_YOUR_TURN", "PLAYER_GAME_FINISHED"
# A stream follows at most so many of the account's live games (the store's listing),
# and so many whose start was told and whose end not yet.
LIVE_GAMES = 100
# Streams one account may hold open on one replica: each polls for its games and feeds
# them, so a client opening streams in a loop is refused, not served without end.
STREAMS_PER_ACCOUNT = 8


class PlayerEvents:
    POLL = times.PLAYER_EVENTS_POLL_SECONDS
    GAMES_POLL = times.PLAYER_GAMES_POLL_SECONDS

    def __init__(self, host: GameHost, accounts: AccountService) -> None:
        self.host = host
        self.accounts = accounts
        self.log = EventLog(accounts.accounts.engine)
        self._wakes: dict[str, set[Wake]] = {}  # account -> its streams on this replica

    def wake(self, account: str) -> None:
        """The account's log grew here: its streams here read it now."""
        for wake in self._wakes.get(account, ()):
            wake.set()

    async def add(self, account: str, data: dict[str, Any]) -> int:
        seq = await asyncio.to_thread(self.log.add, account, data)
        self.wake(account)
        return seq

    async def started(self, account: str, game_id: str, game_type: str, seat: int) -> None:
        """Tell ``account`` the game's start now (once: its stream's feed finds it too)."""
        data = {"kind": STARTED, "game_id": game_id, "game_type": game_type, "seat": seat}
        if await asyncio.to_thread(self.log.started, account, game_id, seat, data):
            self.wake(account)

    async def watch(self, key: str, after: int) -> AsyncIterator[LoggedEvent]:
        """The key's account's events numbered above ``after``, then each new one."""
        account = await self.accounts.authenticate(key)
        name = account.name
        newest = await asyncio.to_thread(self.log.newest, name)
        if after > newest:
            raise InvalidArgument(
                f"after_event_id {after} is past account {name}'s newest event {newest}: "
                "resume from an event id the server sent",
                field="after_event_id",
            )
        streams = self._wakes.setdefault(name, set())
        if len(streams) >= STREAMS_PER_ACCOUNT:
            raise ResourceExhausted(
                f"account {name} has {len(streams)} event streams open on this server, the "
                f"most it may: close one (resume it later with after_event_id) first"
            )
        wake = Wake()
        streams.add(wake)
        feeds = Feeds(lambda game_id, seat: self._feed(account, game_id, seat))
        last, look = after, 0.0
        loop = asyncio.get_running_loop()
        try:
            await asyncio.to_thread(self.log.forget_old, name)
            while True:
                if loop.time() >= look:
                    try:
                        feeds.follow(await self._playing(name))
                    except Exception as exc:  # the store or archive is down: look again
                        log.info("games of %s not read: %s: %s", name, type(exc).__name__, exc)
                    look = loop.time() + self.GAMES_POLL
                for event in await asyncio.to_thread(self.log.after, name, last, KEEP):
                    last = event.seq
                    yield event
                await wake.wait_and_clear(min(self.POLL, max(0.0, look - loop.time())))
        finally:
            waking = self._wakes.get(name, set())
            waking.discard(wake)
            if not waking:
                self._wakes.pop(name, None)
            await feeds.close()

    async def _playing(self, name: str) -> dict[str, int]:
        """The games to feed: live ones with a seat of the account (game id -> seat), and
        those whose start was told and whose end not yet (finished since, or private)."""
        games, _ = await self.host.list_games(
            ListQuery(account=name, status=GameStatus.IN_PROGRESS, page_size=LIVE_GAMES)
        )
        playing = await asyncio.to_thread(self.log.open_games, name, LIVE_GAMES)
        for game in games:
            if isinstance(game, Snapshot):
                seats = game.info.seats
                seat = next((i for i, s in enumerate(seats) if s.account == name), None)
                if seat is not None:
                    playing.setdefault(game.game_id, seat)
        return playing

    async def _rating_change(self, game_id: str, name: str, rated: bool) -> float | None:
        """What the finished game did to the account's ordinal: 0 for a game not rated;
        None while a rated one is not archived yet (it is rated in the transaction that
        archives it, so its change is known once the archive holds it)."""
        archive = self.host.archive
        if not rated or archive is None:
            return 0.0
        if not await archive.held([game_id]):
            return None
        change = await self.accounts.rating_change(game_id, name)
        return 0.0 if change is None else change.ordinal_change

    async def _feed(self, account: Account, game_id: str, seat: int) -> bool:
        """One game's news for the account, into its log: True once its end is told."""
        name = account.name
        token = access.account_seat_token(account.seat_secret, game_id, seat)
        game_type, rated = "", False
        try:
            async with contextlib.aclosing(seat_news(self.host, game_id, token, seat)) as news:
                async for item in news:
                    about = {"game_id": game_id, "game_type": game_type, "seat": seat}
                    if item.kind == START:
                        game_type = about["game_type"] = item.snapshot.info.game_type
                        rated = item.snapshot.info.rated
                        told = await asyncio.to_thread(
                            self.log.started, name, game_id, seat, {"kind": STARTED, **about}
                        )
                    elif item.kind == END:
                        data = None
                        if not item.lost:
                            change = await self._rating_change(game_id, name, rated)
                            if change is None:
                                return False  # not rated yet: told at the next look
                            data = _finished(about, seat, item.returns, change)
                        told = await asyncio.to_thread(self.log.finished, name, game_id, data)
                    else:
                        data = {"kind": YOUR_TURN, **about, "version": item.version}
                        if item.seconds_left is not None:
                            data["seconds_left"] = max(0.0, item.seconds_left)
                        told = await asyncio.to_thread(
                            self.log.turn, name, game_id, item.version, data
                        )
                    if told:
                        self.wake(name)
                    if item.kind == END:
                        return True
            # Handed over for good before it was fed: fed no more.
            await asyncio.to_thread(self.log.finished, name, game_id, None)
            return True
        except asyncio.CancelledError:
            raise
        except NotFound:  # the game is gone (expired): fed no more
            await asyncio.to_thread(self.log.finished, name, game_id, None)
            return True
        except Exception as exc:  # the store is down: the next look feeds it again
            log.info("events of %s in %s: %s: %s", name, game_id, type(exc).__name__, exc)
        return False


def _finished(
    about: dict[str, Any], seat: int, returns: list[float], rating_change: float
) -> dict[str, Any]:
    """A GAME_FINISHED event: the returns, and the change of the account's ordinal in a
    rated game (0 in one not rated)."""
    mine = returns[seat] if 0 <= seat < len(returns) else 0.0
    return {
        "kind": FINISHED,
        **about,
        "returns": list(returns),
        "your_return": mine,
        "rating_change": rating_change,
    }
