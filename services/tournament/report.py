"""Standings from finished tables: points, win shares with intervals, ratings, crosstable.

Ratings are openskill's Plackett-Luce model, updated on each table's finishing order
(a higher return finishes ahead; equal returns, such as a shared win, are ties), table by
table in index order, so the standings are the same whatever order the results came in.
A win share's 95% interval is Wilson's over games; with duplicate deals it is a normal
interval over deals, each deal counting as the entrant's mean result on it.

Rows are best first: by ordinal (mu - 3 sigma), then points, then name.
"""

from __future__ import annotations

import csv
import pathlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from services.tournament.intervals import over_deals, wilson
from services.tournament.model import Definition, TableResult
from services.tournament.ratings import new_rating, rate_game

_DIGITS = 6  # JSON and CSV figures are rounded, so the printed line is stable and short


@dataclass(frozen=True)
class Standing:
    entrant: str
    level: str | None
    games: int
    points: float  # the sum of returns
    win_share: float  # points per game; with duplicate, the mean over deals of the deal means
    ci_low: float
    ci_high: float
    mu: float
    sigma: float
    ordinal: float  # mu - 3 sigma: the rating, conservatively


@dataclass(frozen=True)
class Pairwise:
    """How ``entrant`` finished against ``opponent`` at the tables both sat at."""

    entrant: str
    opponent: str
    games: int
    score: float  # 1 per table finished ahead of the opponent, 0.5 per tie, 0 behind

    @property
    def share(self) -> float:
        return self.score / self.games if self.games else 0.0


@dataclass(frozen=True)
class Report:
    rows: tuple[Standing, ...]  # best first
    seat_win_share: tuple[float, ...]  # mean return of each seat position: seat bias
    crosstable: tuple[Pairwise, ...]  # every ordered pair that met, rows' order
    timeouts: int  # moves a fallback level played for an external seat, in all
    games: int  # finished tables (failed ones not counted)
    duplicate: bool = False  # intervals are over deals
    errors: int = 0  # failed tables: their game was lost before its end; left out of the rest


def standings(defn: Definition, results: Sequence[TableResult]) -> Report:
    """The report of the finished tables ``results`` (any order; each table at most
    once); failed tables count as errors and nothing else."""
    ordered = sorted(results, key=lambda r: r.table.index)
    _check_results(defn, ordered)
    errors = sum(1 for r in ordered if r.error)
    ordered = [r for r in ordered if not r.error]
    n, p = len(defn.entrants), defn.players
    games = [0] * n
    points = [0.0] * n
    by_deal: list[dict[int, list[float]]] = [{} for _ in range(n)]
    seat_points = [0.0] * p
    pair_games: dict[tuple[int, int], int] = {}
    pair_score: dict[tuple[int, int], float] = {}
    ratings = [new_rating(e.name) for e in defn.entrants]
    timeouts = 0
    for result in ordered:
        seats, returns = result.table.seats, result.returns
        timeouts += sum(result.timeouts)
        for seat, (entrant, value) in enumerate(zip(seats, returns, strict=True)):
            games[entrant] += 1
            points[entrant] += value
            seat_points[seat] += value
            by_deal[entrant].setdefault(result.table.group, []).append(value)
            for other, theirs in zip(seats, returns, strict=True):
                if other != entrant:
                    key = (entrant, other)
                    pair_games[key] = pair_games.get(key, 0) + 1
                    pair_score[key] = pair_score.get(key, 0.0) + _versus(value, theirs)
        rated = rate_game([ratings[e] for e in seats], returns)
        for entrant, rating in zip(seats, rated, strict=True):
            ratings[entrant] = rating
    rows = []
    for i, entrant in enumerate(defn.entrants):
        if defn.duplicate:
            means = [sum(v) / len(v) for v in by_deal[i].values()]
            share = sum(means) / len(means) if means else 0.0
            low, high = over_deals(means)
        else:
            share = points[i] / games[i] if games[i] else 0.0
            low, high = wilson(points[i], games[i])
        rating = ratings[i]
        rows.append(
            Standing(
                entrant=entrant.name,
                level=entrant.level,
                games=games[i],
                points=points[i],
                win_share=share,
                ci_low=low,
                ci_high=high,
                mu=rating.mu,
                sigma=rating.sigma,
                ordinal=rating.ordinal(),
            )
        )
    rows.sort(key=lambda r: (-r.ordinal, -r.points, r.entrant))
    index = {e.name: i for i, e in enumerate(defn.entrants)}
    crosstable = tuple(
        Pairwise(a.entrant, b.entrant, pair_games[key], pair_score[key])
        for a in rows
        for b in rows
        if (key := (index[a.entrant], index[b.entrant])) in pair_games
    )
    finished = len(ordered)
    seat_share = tuple(s / finished if finished else 0.0 for s in seat_points)
    return Report(tuple(rows), seat_share, crosstable, timeouts, finished, defn.duplicate, errors)


def report_json(defn: Definition, report: Report) -> dict[str, Any]:
    """The command line's last line: the issue's fields, then ``errors`` (failed
    tables). Nothing that depends on time or on who played it: a rerun prints it again."""
    return {
        "tournament": defn.name,
        "game": defn.game,
        "players": defn.players,
        "format": defn.format,
        "seed": defn.seed,
        "games": report.games,
        "standings": [
            {
                "entrant": row.entrant,
                "level": row.level,
                "games": row.games,
                "points": _round(row.points),
                "win_share": _round(row.win_share),
                "ci_low": _round(row.ci_low),
                "ci_high": _round(row.ci_high),
                "mu": _round(row.mu),
                "sigma": _round(row.sigma),
                "ordinal": _round(row.ordinal),
            }
            for row in report.rows
        ],
        "seat_win_share": [_round(s) for s in report.seat_win_share],
        "timeouts": report.timeouts,
        "errors": report.errors,
    }


def standings_table(report: Report) -> str:
    """The standings as a text table, with the seat shares, timeouts and errors under it."""
    interval = "95% CI (deals)" if report.duplicate else "95% CI"
    header = ("#", "entrant", "level", "games", "points", "win share", interval)
    header += ("mu", "sigma", "ordinal")
    cells = [header]
    for k, row in enumerate(report.rows, 1):
        cells.append(
            (
                str(k),
                row.entrant,
                row.level if row.level is not None else "(external)",
                str(row.games),
                f"{row.points:g}",
                f"{100 * row.win_share:.1f}%",
                f"[{100 * row.ci_low:.1f}, {100 * row.ci_high:.1f}]",
                f"{row.mu:.2f}",
                f"{row.sigma:.2f}",
                f"{row.ordinal:.2f}",
            )
        )
    widths = [max(len(line[i]) for line in cells) for i in range(len(header))]
    left = {1, 2}  # names read best left-aligned, figures right-aligned
    lines = []
    for k, line in enumerate(cells):
        lines.append(
            "  ".join(
                c.ljust(w) if i in left else c.rjust(w)
                for i, (c, w) in enumerate(zip(line, widths, strict=True))
            ).rstrip()
        )
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    seats = "  ".join(f"{s}: {100 * v:.1f}%" for s, v in enumerate(report.seat_win_share))
    lines.append(f"seat win share  {seats}")
    lines.append(f"games {report.games}  timeouts {report.timeouts}  errors {report.errors}")
    return "\n".join(lines)


def game_line(result: TableResult, defn: Definition) -> dict[str, Any]:
    """One line of ``games.jsonl``: the table, who sat in each seat, the deal, the
    outcome (a failed table: no returns, and ``error`` says why)."""
    table = result.table
    line = {
        "table": table.index,
        "round": table.round,
        "group": table.group,
        "deal": table.deal,
        "seats": [defn.entrants[e].name for e in table.seats],
        "returns": list(result.returns),
        "game_id": result.game_id,
        "timeouts": list(result.timeouts) or [0] * len(table.seats),
    }
    if result.error:
        line["error"] = result.error
    return line


def write_csvs(
    report: Report,
    results: Sequence[TableResult],
    defn: Definition,
    directory: str | pathlib.Path,
) -> None:
    """``standings.csv`` (rows best first, with each entrant's timeouts from ``results``)
    and ``crosstable.csv`` (row entrant's score share against each column entrant; empty
    where they never met) in ``directory``, created if missing."""
    out = pathlib.Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    index = {e.name: i for i, e in enumerate(defn.entrants)}
    timeouts = [0] * len(defn.entrants)
    for result in results:
        for entrant, count in zip(result.table.seats, result.timeouts, strict=False):
            timeouts[entrant] += count
    fields = ("entrant", "level", "games", "points", "win_share", "ci_low", "ci_high")
    fields += ("mu", "sigma", "ordinal", "timeouts")
    with (out / "standings.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(fields)
        for row in report.rows:
            writer.writerow(
                [row.entrant, row.level or "", row.games]
                + [_round(getattr(row, name)) for name in fields[3:10]]
                + [timeouts[index[row.entrant]]]
            )
    names = [row.entrant for row in report.rows]
    cells = {(c.entrant, c.opponent): c for c in report.crosstable}
    with (out / "crosstable.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["entrant", *names])
        for a in names:
            writer.writerow(
                [a] + [_round(cells[a, b].share) if (a, b) in cells else "" for b in names]
            )


def _versus(mine: float, theirs: float) -> float:
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def _round(value: float) -> float:
    return round(float(value), _DIGITS) + 0.0  # + 0.0 turns -0.0 into 0.0


def _check_results(defn: Definition, ordered: Sequence[TableResult]) -> None:
    n, p = len(defn.entrants), defn.players
    last = None
    for result in ordered:
        table = result.table
        if table.index == last:
            raise ValueError(f"table {table.index} has two results")
        last = table.index
        if len(table.seats) != p or len(set(table.seats)) != p:
            raise ValueError(f"table {table.index}: {p} different entrants must sit at it")
        if not all(0 <= e < n for e in table.seats):
            raise ValueError(f"table {table.index}: an entrant index is out of range")
        if len(result.returns) != (0 if result.error else p):
            raise ValueError(f"table {table.index}: {p} returns expected (none if it failed)")
        if result.timeouts and len(result.timeouts) != p:
            raise ValueError(f"table {table.index}: timeouts are per seat ({p} expected)")
