"""The ladder's vocabulary: a ladder's name (``cite:2``), a bot's name and status, the
fault kinds, and the settings ``gamehost serve --ladder ...`` gives."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from games import game_names, get_game
from services.accounts.accounts import check_name
from services.errors import InvalidArgument
from services.settings import ServerSettings

FALLBACK = "random"  # plays a move a bot did not play (late, garbage, illegal, missing)
VALIDATION_OPPONENT = "random"  # Kaggle's rule: a new bot first plays this level once


def _default(name: str) -> Any:
    """A ``--ladder-*`` flag's default, from its one definition (services/settings.py)."""
    return ServerSettings.model_fields[name].default


class BotStatus(StrEnum):
    VALIDATING = "validating"  # registered (or back after a pause): its validation game next
    ACTIVE = "active"  # rated: in the matchmaking
    PAUSED = "paused"  # faults in a row, or a failed validation: ``reason`` says which
    REVOKED = "revoked"  # its key no longer works


class Fault(StrEnum):
    """Why a bot's move was played by the fallback level (each is counted)."""

    LATE = "late"  # no answer within ms_left
    GARBAGE = "garbage"  # a line that is not {"id": N}
    ILLEGAL = "illegal"  # an id that is not among the legal ones
    MISSING = "missing"  # the process died or closed its output before answering


@dataclass(frozen=True, order=True)
class LadderSpec:
    """One ladder: a game and its player count."""

    game: str
    players: int

    @property
    def name(self) -> str:
        return f"{self.game}:{self.players}"

    @classmethod
    def parse(cls, text: str, field: str = "ladder") -> LadderSpec:
        """``GAME:PLAYERS`` (``cite:2``); InvalidArgument saying what is wrong."""
        game, _, players = text.partition(":")
        if game not in game_names():
            raise InvalidArgument(
                f"{text!r}: unknown game {game!r}; known: {', '.join(sorted(game_names()))}",
                field=field,
            )
        info = get_game(game).info
        if not players.isdigit() or not info.min_players <= int(players) <= info.max_players:
            raise InvalidArgument(
                f"{text!r}: {game} takes {info.min_players}-{info.max_players} players; "
                f"write it {game}:N",
                field=field,
            )
        return cls(game, int(players))


def check_bot_name(name: str) -> str:
    """A bot's name: an account's name (``services.accounts.accounts.check_name``)."""
    return check_name(name, "a bot name")


@dataclass(frozen=True)
class LadderConfig:
    """``gamehost serve --ladder cite:2 --ladder-house random,greedy,mcts-fast ...``."""

    ladders: tuple[LadderSpec, ...] = ()
    house: tuple[str, ...] = tuple(_default("ladder_house").split(","))
    move_seconds: float = _default("ladder_move_seconds")  # a bot's time per move
    max_faults: int = _default("ladder_max_faults")  # faults in a row that pause a bot
    tables: int = _default("ladder_tables")  # duplicate sets being played at once, per ladder
    house_tables: int = _default("ladder_house_tables")  # of those, among house levels alone
    # Duplicate sets one bot plays at once, at most (its runner asks for up to this many).
    bot_concurrency: int = _default("ladder_bot_concurrency")
    # Games a bot may begin in 24 hours (a set is as many games as players); 0: no cap.
    daily_games: int = _default("ladder_bot_daily_games")
    exploration: float = 0.2  # the chance an opponent is drawn at random, not by rating
    registrations_per_hour: int = _default("ladder_registrations")  # per client
    # Per bot key, all replicas, bursts of 5x: answers that played nothing (stale, or for
    # a game not its own). Answers in time are never limited (docs/bot-protocol.md).
    stale_answers_per_second: float = 10.0
    connects_per_second: float = 0.5  # per bot key (ConnectBot), bursts of 5, all replicas

    def spec(self, ladder: str) -> LadderSpec | None:
        return next((s for s in self.ladders if s.name == ladder), None)

    def check(self) -> LadderConfig:
        """Every house level exists; raises ValueError saying which does not."""
        from bots.levels import get_level

        for level in self.house:
            get_level(level)  # ValueError names the known ones
        if self.move_seconds <= 0 or self.max_faults < 1 or self.tables < 1:
            raise ValueError(
                "--ladder-move-seconds must be > 0, --ladder-max-faults and "
                "--ladder-tables at least 1"
            )
        if self.house_tables < 0:
            raise ValueError("--ladder-house-tables must be 0 or more")
        if self.bot_concurrency < 1:
            raise ValueError("--ladder-bot-concurrency must be at least 1")
        if self.daily_games < 0:
            raise ValueError("--ladder-bot-daily-games must be 0 (no cap) or more")
        return self
