"""How the service stores a tournament's pieces: tables and results as JSON, the
status and event kinds, and the seat tokens of external entrants (derived, never
stored)."""

from __future__ import annotations

import base64
import hashlib
import hmac
from enum import StrEnum
from typing import Any

from services.stores import TournamentSnapshot
from services.tournament.model import Definition, Table, TableResult


class TournamentStatus(StrEnum):
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class TournamentEventKind(StrEnum):
    TABLE_STARTED = "table_started"
    TABLE_FINISHED = "table_finished"
    STANDINGS_UPDATED = "standings_updated"
    FINISHED = "finished"
    CANCELLED = "cancelled"


ENDING = frozenset({TournamentEventKind.FINISHED, TournamentEventKind.CANCELLED})


def table_json(table: Table) -> dict[str, Any]:
    return {
        "index": table.index,
        "round": table.round,
        "seats": list(table.seats),
        "deal": table.deal,
        "group": table.group,
    }


def table_from(data: dict[str, Any]) -> Table:
    return Table(data["index"], data["round"], tuple(data["seats"]), data["deal"], data["group"])


def result_json(result: TableResult, finished_at: float) -> dict[str, Any]:
    data = {
        "table": table_json(result.table),
        "returns": list(result.returns),
        "game_id": result.game_id,
        "timeouts": list(result.timeouts),
        "finished_at": finished_at,  # progress only: never part of a report
    }
    if result.error:
        data["error"] = result.error
    return data


def result_from(data: dict[str, Any]) -> TableResult:
    return TableResult(
        table_from(data["table"]),
        tuple(data["returns"]),
        data["game_id"],
        tuple(data["timeouts"]),
        data.get("error", ""),
    )


def definition_of(snapshot: TournamentSnapshot) -> Definition:
    return Definition.from_dict(snapshot.record["definition"])


def ordered_results(snapshot: TournamentSnapshot) -> list[TableResult]:
    """Results folded in table order, whoever recorded them when: the one order that
    makes standings independent of replicas, workers and crashes."""
    return [result_from(snapshot.results[i]) for i in sorted(snapshot.results)]


def table_game_id(secret: bytes, snapshot: TournamentSnapshot, index: int) -> str:
    """The game id of table ``index``, the same on every replica (so racing replicas
    create one game, never an orphan) and new for a tournament created again under an
    expired one's name (its creation time is mixed in). Shaped like any game id."""
    created = repr(snapshot.record.get("created", 0.0))
    message = f"tournament-table:{snapshot.name}:{created}:{index}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:32]


def seat_token(secret: bytes, tournament: str, entrant: str, game_id: str, seat: int) -> str:
    """The seat token of an external entrant at one table, derived from the server
    secret: the runner claims the seat with its hash, and the entrant is told it on
    asking with its entrant token; the token itself is stored nowhere."""
    message = f"tournament-seat:{tournament}:{entrant}:{game_id}:{seat}".encode()
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode()
