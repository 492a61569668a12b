"""Tournaments on the wire: gamehost.v1 messages to and from the service's data."""

from __future__ import annotations

import json
from typing import Any

from gamehost.v1 import gamehost_pb2 as pb
from services.errors import InvalidArgument
from services.tournament.model import Definition, Entrant
from services.tournament.records import TournamentEventKind, TournamentStatus
from services.tournament.service import TournamentView

_STATUS = {
    TournamentStatus.RUNNING: pb.TOURNAMENT_RUNNING,
    TournamentStatus.FINISHED: pb.TOURNAMENT_FINISHED,
    TournamentStatus.CANCELLED: pb.TOURNAMENT_CANCELLED,
}
_EVENT = {
    TournamentEventKind.TABLE_STARTED: pb.TournamentEvent.TABLE_STARTED,
    TournamentEventKind.TABLE_FINISHED: pb.TournamentEvent.TABLE_FINISHED,
    TournamentEventKind.STANDINGS_UPDATED: pb.TournamentEvent.STANDINGS_UPDATED,
    TournamentEventKind.FINISHED: pb.TournamentEvent.TOURNAMENT_FINISHED,
    TournamentEventKind.CANCELLED: pb.TournamentEvent.TOURNAMENT_CANCELLED,
}


def definition_from(message: pb.TournamentDefinition) -> Definition:
    # How many entrants a server takes is its bound (TournamentBounds), checked on create.
    if not message.entrants:
        raise InvalidArgument("a tournament needs entrants: list one per name")
    for i, entrant in enumerate(message.entrants):
        if not entrant.name:
            raise InvalidArgument(f"entrant {i} has no name")
    return Definition(
        name=message.name,
        game=message.game_type,
        players=message.players,
        entrants=tuple(Entrant(e.name, e.level or None) for e in message.entrants),
        format=message.format or "round-robin",
        games=message.games,
        seed=message.seed,
        duplicate=message.duplicate,
        parallel=message.parallel or 1,
        options=tuple(sorted(message.options.items())),
        focus=message.focus or None,
        move_time_limit=message.move_time_limit,
        fallback_level=message.fallback_level or "random",
    )


def definition_message(defn: Definition) -> pb.TournamentDefinition:
    return pb.TournamentDefinition(
        name=defn.name,
        game_type=defn.game,
        players=defn.players,
        entrants=[pb.TournamentEntrant(name=e.name, level=e.level or "") for e in defn.entrants],
        format=defn.format,
        games=defn.games,
        seed=defn.seed,
        duplicate=defn.duplicate,
        parallel=defn.parallel,
        options=dict(defn.options),
        focus=defn.focus or "",
        move_time_limit=defn.move_time_limit,
        fallback_level=defn.fallback_level,
    )


def standing_messages(rows: list[dict[str, Any]]) -> list[pb.Standing]:
    return [
        pb.Standing(
            entrant=row["entrant"],
            level=row["level"] or "",
            games=row["games"],
            points=row["points"],
            win_share=row["win_share"],
            ci_low=row["ci_low"],
            ci_high=row["ci_high"],
            mu=row["mu"],
            sigma=row["sigma"],
            ordinal=row["ordinal"],
        )
        for row in rows
    ]


def progress_message(progress: dict[str, Any]) -> pb.TournamentProgress:
    return pb.TournamentProgress(**progress)


def _table_message(view: TournamentView, index: int) -> pb.TournamentTable:
    started = view.snapshot.tables[index]
    table = started["table"]
    message = pb.TournamentTable(
        index=index,
        round=table["round"],
        seats=[view.definition.entrants[e].name for e in table["seats"]],
        deal=table["deal"],
        game_id=started["game_id"],
    )
    result = view.snapshot.results.get(index)
    if result is not None:
        message.finished = not result.get("error")
        message.error = result.get("error", "")
        message.returns.extend(result["returns"])
        message.timeouts.extend(result["timeouts"])
    return message


def tournament_message(view: TournamentView) -> pb.Tournament:
    report = view.report
    return pb.Tournament(
        definition=definition_message(view.definition),
        status=_STATUS[view.snapshot.status],
        progress=progress_message(view.progress),
        standings=standing_messages(report.get("standings", [])),
        seat_win_share=report.get("seat_win_share", []),
        timeouts=report.get("timeouts", 0),
        errors=report.get("errors", 0),
        crosstable_csv=view.crosstable,
        tables=[_table_message(view, i) for i in sorted(view.snapshot.tables)],
        report_json=json.dumps(report),
        standings_text=view.standings_text,
        exports=view.exports,
        last_event_id=view.snapshot.last_event_id,
    )


def summary_message(view: TournamentView) -> pb.TournamentSummary:
    return pb.TournamentSummary(
        name=view.snapshot.name,
        game_type=view.definition.game,
        status=_STATUS[view.snapshot.status],
        finished_games=view.progress["finished_games"],
        total_games=view.progress["total_games"],
        failed_games=view.progress["failed_games"],
    )


def event_message(event_id: int, data: dict[str, Any]) -> pb.TournamentEvent:
    message = pb.TournamentEvent(event_id=event_id, kind=_EVENT[data["kind"]])
    if "table" in data:
        table = data["table"]
        message.table.CopyFrom(
            pb.TournamentTable(
                index=table["index"],
                round=table["round"],
                seats=table["entrants"],
                deal=table["deal"],
                game_id=table["game_id"],
                finished=data["kind"] == TournamentEventKind.TABLE_FINISHED
                and not data.get("error"),
                returns=data.get("returns", []),
                timeouts=data.get("timeouts", []),
                error=data.get("error", ""),
            )
        )
    if "progress" in data:
        message.progress.CopyFrom(progress_message(data["progress"]))
    message.standings.extend(standing_messages(data.get("standings", [])))
    if "seat" in data:
        message.seat = data["seat"]
        message.seat_token = data["seat_token"]
    return message
