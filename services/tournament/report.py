"""STAND-IN (w15-tsvc) for the core's report: points and win shares, no ratings
(mu/sigma/ordinal 0). Replaced by the core helper's file at merge."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.tournament.model import Definition, TableResult


@dataclass(frozen=True)
class Report:
    rows: list[dict[str, Any]]
    seat_win_share: list[float]
    games: int
    timeouts: int


def standings(defn: Definition, results: list[TableResult]) -> Report:
    rows = [
        {"entrant": e.name, "level": e.level, "games": 0, "points": 0.0, "wins": 0.0}
        for e in defn.entrants
    ]
    seat_wins = [0.0] * defn.players
    timeouts = 0
    for result in results:
        best = max(result.returns)
        winners = [s for s, r in enumerate(result.returns) if r == best]
        for seat, entrant in enumerate(result.table.seats):
            row = rows[entrant]
            row["games"] += 1
            row["points"] += result.returns[seat]
            if seat in winners:
                row["wins"] += 1 / len(winners)
                seat_wins[seat] += 1 / len(winners)
        timeouts += sum(result.timeouts)
    out = []
    for row in rows:
        share = row["wins"] / row["games"] if row["games"] else 0.0
        out.append(
            {
                "entrant": row["entrant"],
                "level": row["level"],
                "games": row["games"],
                "points": row["points"],
                "win_share": share,
                "ci_low": share,
                "ci_high": share,
                "mu": 0.0,
                "sigma": 0.0,
                "ordinal": 0.0,
            }
        )
    out.sort(key=lambda r: (-r["points"], r["entrant"]))
    n = len(results)
    return Report(out, [w / n if n else 0.0 for w in seat_wins], n, timeouts)


def report_json(defn: Definition, report: Report) -> dict[str, Any]:
    return {
        "tournament": defn.name,
        "game": defn.game,
        "players": defn.players,
        "format": defn.format,
        "seed": defn.seed,
        "games": report.games,
        "standings": report.rows,
        "seat_win_share": report.seat_win_share,
        "timeouts": report.timeouts,
    }


def standings_table(report: Report) -> str:
    lines = [f"{'entrant':16} {'games':>5} {'points':>8} {'win':>6}"]
    for r in report.rows:
        lines.append(f"{r['entrant']:16} {r['games']:5d} {r['points']:8.2f} {r['win_share']:6.3f}")
    return "\n".join(lines)


def game_line(result: TableResult, defn: Definition) -> dict[str, Any]:
    return {
        "table": result.table.index,
        "seats": [defn.entrants[e].name for e in result.table.seats],
        "deal": result.table.deal,
        "returns": list(result.returns),
        "game_id": result.game_id,
    }


def write_csvs(
    report: Report, results: list[TableResult], defn: Definition, directory: str | Path
) -> None:
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "standings.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(report.rows[0]) if report.rows else ["entrant"])
        writer.writeheader()
        writer.writerows(report.rows)
    with (out / "crosstable.csv").open("w", newline="") as f:
        csv.writer(f).writerow(["entrant", *(e.name for e in defn.entrants)])
