"""A server's bounds on one tournament: tables at once, games in all and entrants
(``gamehost serve --max-tournament-tables/--max-tournament-games/--max-tournament-entrants``;
why these defaults: docs/operations.md, "Tournament bounds")."""

from __future__ import annotations

from dataclasses import dataclass

from services.errors import InvalidArgument
from services.tournament.model import Definition

# A quarter of the 64 games whose bot turns one replica plays at once (BotRunner), so
# one tournament at its bound leaves three quarters of a replica's bots to other games.
DEFAULT_MAX_TABLES = 16
DEFAULT_MAX_GAMES = 1000  # 10x the published 100-game tournament (about 11 h on 2 cores)
DEFAULT_MAX_ENTRANTS = 64


@dataclass(frozen=True)
class TournamentBounds:
    """0 turns a bound off."""

    max_tables: int = DEFAULT_MAX_TABLES  # tables played at once (``parallel``)
    max_games: int = DEFAULT_MAX_GAMES  # tables in all (``games``)
    max_entrants: int = DEFAULT_MAX_ENTRANTS

    def check(self, defn: Definition) -> None:
        """INVALID_ARGUMENT, naming the bound and its flag, for a definition over one."""
        _check("parallel", defn.parallel, self.max_tables, "tables at once", "tables")
        _check("games", defn.games, self.max_games, "games", "games")
        entrants = len(defn.entrants)
        _check("entrants", entrants, self.max_entrants, "entrants", "entrants")

    def tables_at_once(self, defn: Definition) -> int:
        """The tables a sweep keeps running: ``parallel`` (0: 1), within the bound (a
        tournament stored before the bound was lowered obeys it too)."""
        wanted = max(1, defn.parallel)
        return min(wanted, self.max_tables) if self.max_tables > 0 else wanted


def _check(field: str, value: int, bound: int, what: str, flag: str) -> None:
    if bound > 0 and value > bound:
        raise InvalidArgument(
            f"{field} {value} is over this server's bound of {bound} {what} "
            f"(gamehost serve --max-tournament-{flag})"
        )
