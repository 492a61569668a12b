"""The archive as NDJSON: one finished game a line, the stable format of
docs/export.md (``gamehost export`` and ``GET /v1/export`` both write it)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from games import game_names
from services.archive.archive import FIRST_SECOND, LAST_SECOND, Archive, ArchivedSummary, GameQuery
from services.archive.codec import ArchivedGame
from services.errors import InvalidArgument
from services.kinds import EventKind

FORMAT = 1  # docs/export.md: fields are only ever added within one format
_PAGE = 200


class BadExportQuery(InvalidArgument):
    """A filter that cannot be used; the message says what to send, ``field`` which
    request field (ExportGamesRequest's name) it is about."""


@dataclass(frozen=True)
class ExportQuery:
    game_type: str = ""
    since: float | None = None  # Unix seconds: games finished at or after
    player: str = ""
    tournament: str = ""
    bot: str = ""  # a ladder participant (registered bot or house level)

    @classmethod
    def parse(cls, fields: Mapping[str, str]) -> ExportQuery:
        """From ``game``, ``since`` (an ISO 8601 date or time, UTC unless it says),
        ``player``, ``tournament`` and ``bot``, as the command line and the HTTP route
        take them."""
        game_type = fields.get("game", "")
        if game_type and game_type not in game_names():
            raise BadExportQuery(
                f"unknown game type {game_type!r}; choose one of: {', '.join(game_names())}",
                field="game_type",
            )
        since = None
        if fields.get("since"):
            try:
                at = dt.datetime.fromisoformat(fields["since"])
            except ValueError:
                raise BadExportQuery(
                    f"since {fields['since']!r} is not a date: send e.g. 2026-11-01 or "
                    "2026-11-01T12:00:00Z",
                    field="since",
                ) from None
            since = (at if at.tzinfo else at.replace(tzinfo=dt.UTC)).timestamp()
            if not FIRST_SECOND <= since <= LAST_SECOND:  # its UTC time has no SQL datetime
                raise BadExportQuery(
                    f"since {fields['since']!r} is out of range: its UTC time must lie "
                    "between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z",
                    field="since",
                )
        return cls(
            game_type,
            since,
            fields.get("player", ""),
            fields.get("tournament", ""),
            fields.get("bot", ""),
        )


def export_line(summary: ArchivedSummary, game: ArchivedGame) -> dict[str, Any]:
    """One game as its export line (a JSON object)."""
    return {
        "format": FORMAT,
        "game_id": summary.game_id,
        "game_type": summary.game_type,
        "players": summary.players,
        "finished_at": dt.datetime.fromtimestamp(summary.finished_at, dt.UTC)
        .isoformat()
        .replace("+00:00", "Z"),
        "tournament": summary.tournament or None,
        "seats": summary.seats,
        "returns": summary.returns,
        "entries": [
            {"seat": e.data["seat"], "action": e.data["action"], "notation": e.data["text"]}
            for e in game.events
            if e.data["kind"] == EventKind.ACTION
        ],
    }


async def export_lines(
    archive: Archive, query: ExportQuery, games_of: Callable[[str], sa.Select]
) -> AsyncIterator[str]:
    """Every matching public archived game, newest finished first, one line each.
    ``games_of``: the games of a ladder participant (``services.ladder.schema.games_of``),
    for ``query.bot``."""
    only_games = games_of(query.bot) if query.bot else None
    token = ""
    while True:
        page, token = await archive.find_games(
            GameQuery(
                game_type=query.game_type,
                player=query.player,
                tournament=query.tournament,
                only_games=only_games,
                finished_after=query.since,
                page_size=_PAGE,
                page_token=token,
            )
        )
        for summary in page:
            game = await archive.game(summary.game_id, cache=False)
            if game is not None:
                yield json.dumps(export_line(summary, game), separators=(",", ":")) + "\n"
        if not token:
            return
