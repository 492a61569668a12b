"""ListGames: live games from the store merged with finished games from the archive.

The merge (docs/archive.md, "ListGames"): the first page holds the matching games
the store has, newest first (live ones, plus finished ones when there is no
archive), then fills up with finished games from the archive, newest finished
first; later pages come from the archive alone. With an archive, a finished game
is listed from the archive once it is there, so it never appears twice; one the
archiver has not copied yet is listed from the store at the head of the archive's
part (it is the newest finished), so it never vanishes during the hand-off. The
store is looked through its newest ``STORE_SCAN`` games. A finished game whose deal
still runs elsewhere (``access.log_public``) is not listed until every game of the
deal is over, from the store or the archive alike.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from services.archive.archive import (
    LAST_SECOND,
    Archive,
    ArchivedSummary,
    BadPageToken,
    GameQuery,
)
from services.errors import InvalidArgument
from services.kinds import GameStatus
from services.limits import access
from services.stores import Snapshot

STORE_SCAN = 1000  # the store's newest games looked through for the first page
MAX_PAGE = 1000
_ARCHIVE_PAGE = "A"  # a page token: the archive's pages, from its start or its token after


@dataclass(frozen=True)
class ListQuery(GameQuery):
    status: str = ""  # GameStatus value; "": any


def _matches(snapshot: Snapshot, query: ListQuery) -> bool:
    meta = snapshot.info
    if not access.open_to_anyone(meta):
        return False  # listed only where anyone may read it
    if query.status and snapshot.status != query.status:
        return False
    if query.finished_after is not None or query.finished_before is not None:
        # As the archive bounds it: by its finish time (none: live, or finished before
        # the store kept one, so listed once archived).
        finished_at = meta.finished_at if snapshot.status == GameStatus.FINISHED else 0.0
        if not finished_at:
            return False
        if query.finished_after is not None and finished_at < query.finished_after:
            return False
        if query.finished_before is not None and finished_at >= query.finished_before:
            return False
    if query.game_type and meta.game_type != query.game_type:
        return False
    if query.tournament and meta.tournament_name != query.tournament:
        return False
    if query.player and not any(s.name == query.player for s in meta.seats):
        return False
    if query.account and not any(s.account == query.account for s in meta.seats):
        return False
    return not query.bot_level or any(s.is_bot and s.level == query.bot_level for s in meta.seats)


def _filtered(query: ListQuery) -> bool:
    return any(
        (
            query.status,
            query.game_type,
            query.player,
            query.account,
            query.tournament,
            query.bot_level,
            query.finished_after is not None,
            query.finished_before is not None,
        )
    )


async def list_games(
    store_games: Callable[[int], Awaitable[list[Snapshot]]],
    archive: Archive | None,
    query: ListQuery,
    all_over: Callable[[Sequence[str]], Awaitable[bool]],
) -> tuple[list[Snapshot | ArchivedSummary], str]:
    """One page of games and the next page's token ("" on the last page).
    ``all_over``: whether some games are all over (``GameHost.all_over``)."""
    for name in ("finished_after", "finished_before"):
        bound = getattr(query, name)
        if bound is not None and not 0 <= bound <= LAST_SECOND:
            raise InvalidArgument(
                f"{name} {bound} is out of range: send Unix seconds from 0 to {LAST_SECOND}",
                field=name,
            )
    size = min(max(query.page_size, 1), MAX_PAGE)
    found: list[Snapshot | ArchivedSummary] = []
    archive_token = ""
    if query.page_token:
        if archive is None or not query.page_token.startswith(_ARCHIVE_PAGE):
            raise InvalidArgument(
                "page_token is not one this server sent: send next_page_token as received",
                field="page_token",
            )
        archive_token = query.page_token[len(_ARCHIVE_PAGE) :]
    else:
        # Unfiltered, the store's newest games mostly match (finished ones are skipped
        # when the archive lists them): a few pages' worth is looked through.
        scan = STORE_SCAN if _filtered(query) else min(STORE_SCAN, 4 * size)
        scanned = await store_games(scan)
        found = [
            s
            for s in scanned
            if _matches(s, query)
            and (s.status != GameStatus.FINISHED or await access.log_public(s, all_over))
        ]
        if archive is not None:
            found = await _unless_archived(found, archive)
        found = found[:size]
    if archive is None or query.status == GameStatus.IN_PROGRESS:
        return found, ""
    if len(found) == size:
        return found, _ARCHIVE_PAGE  # the archive's pages follow
    try:
        archived, next_token = await archive.find_games(
            GameQuery(
                game_type=query.game_type,
                player=query.player,
                account=query.account,
                tournament=query.tournament,
                bot_level=query.bot_level,
                finished_after=query.finished_after,
                finished_before=query.finished_before,
                page_size=size - len(found),
                page_token=archive_token,
            )
        )
    except BadPageToken as exc:
        raise InvalidArgument(str(exc), field="page_token") from None
    listed = {g.game_id for g in found}  # archived since the store was read: once
    archived = [g for g in archived if g.game_id not in listed]
    return [*found, *archived], _ARCHIVE_PAGE + next_token if next_token else ""


async def _unless_archived(games: list[Snapshot], archive: Archive) -> list[Snapshot]:
    """The live games, then the finished ones the archive does not hold yet (the
    archiver copies them in a moment): those would be the archive's newest."""
    finished = [g.game_id for g in games if g.status == GameStatus.FINISHED]
    archived = await archive.held(finished) if finished else set()
    live = [g for g in games if g.status != GameStatus.FINISHED]
    return live + [
        g for g in games if g.status == GameStatus.FINISHED and g.game_id not in archived
    ]
