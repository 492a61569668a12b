"""The ladder's protobuf messages (``gamehost.v1``) and the standings' text table."""

from __future__ import annotations

import time

from gamehost.v1 import gamehost_pb2 as pb
from services.ladder.accounts import BotAccount
from services.ladder.ledger import SeatHistory, StandingRow
from services.ladder.model import BotStatus
from services.ladder.sessions import Answered, Directive

_STATUS = {
    BotStatus.VALIDATING: pb.BOT_VALIDATING,
    BotStatus.ACTIVE: pb.BOT_ACTIVE,
    BotStatus.PAUSED: pb.BOT_PAUSED,
    BotStatus.REVOKED: pb.BOT_REVOKED,
}


def bot_info(account: BotAccount, now: float | None = None) -> pb.BotInfo:
    game, _, players = account.ladder.partition(":")
    return pb.BotInfo(
        bot=account.name,
        game_type=game,
        players=int(players),
        status=_STATUS[BotStatus(account.status)],
        reason=account.reason,
        games=account.games,
        moves=account.moves,
        faults=pb.BotFaults(**account.faults),
        faults_in_row=account.faults_in_row,
        connected=account.connected(time.time() if now is None else now),
        created_at=account.created_at,
    )


def standing(row: StandingRow) -> pb.LadderStanding:
    return pb.LadderStanding(
        bot=row.bot,
        level=row.level,
        games=row.games,
        mu=row.mu,
        sigma=row.sigma,
        ordinal=row.ordinal,
        win_share=row.win_share,
        ci_low=row.ci_low,
        ci_high=row.ci_high,
    )


def bot_game(game: SeatHistory) -> pb.BotGame:
    message = pb.BotGame(
        game_id=game.game_id,
        finished_at=game.finished_at,
        seat=game.seat,
        returned=game.returned,
        validation=game.mu is None,
        opponents=list(game.opponents),
    )
    if game.mu is not None and game.sigma is not None:
        message.mu, message.sigma = game.mu, game.sigma
        message.ordinal = game.mu - 3 * game.sigma
    return message


def standings_text(rows: list[StandingRow]) -> str:
    """The standings as a table, best first (``gamehost ladder`` prints it)."""
    lines = [
        f"{'#':>3}  {'bot':24} {'level':10} {'games':>6} {'mu':>7} {'sigma':>6} "
        f"{'ordinal':>8} {'win share':>9}  95% interval"
    ]
    for rank, row in enumerate(rows, 1):
        lines.append(
            f"{rank:>3}  {row.bot:24} {row.level or '-':10} {row.games:>6} {row.mu:>7.2f} "
            f"{row.sigma:>6.2f} {row.ordinal:>8.2f} {row.win_share:>9.3f}  "
            f"[{row.ci_low:.3f}, {row.ci_high:.3f}]"
        )
    return "\n".join(lines)


_KIND = {
    "welcome": pb.BotDirective.WELCOME,
    "start": pb.BotDirective.START,
    "act": pb.BotDirective.ACT,
    "end": pb.BotDirective.END,
    "paused": pb.BotDirective.PAUSED,
}
_OUTCOME = {
    "played": pb.BotReplyResponse.PLAYED,
    "fallback": pb.BotReplyResponse.FALLBACK,
    "stale": pb.BotReplyResponse.STALE,
}


def directive(d: Directive) -> pb.BotDirective:
    return pb.BotDirective(
        kind=_KIND[d.kind],
        line=d.line,
        game_id=d.game_id,
        version=d.version,
        ms_left=d.ms_left,
        bot=d.bot,
        message=d.message,
    )


def answered(a: Answered) -> pb.BotReplyResponse:
    return pb.BotReplyResponse(
        outcome=_OUTCOME[a.outcome],
        fault=a.fault,
        notation=a.notation,
        version=a.version,
        paused=a.paused,
        message=a.message,
    )
