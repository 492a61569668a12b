"""STAND-IN (w15-tsvc) for the core's schedule: every group of ``players`` entrants
in turn, each under all seat rotations. Replaced by the core helper's file at merge."""

from __future__ import annotations

import itertools
import random

from services.tournament.model import Definition, Table, TableResult

FORMATS = ("round-robin", "gauntlet", "swiss")


def validate(defn: Definition) -> None:
    if defn.format not in FORMATS:
        raise ValueError(f"unknown format {defn.format!r}: choose one of {', '.join(FORMATS)}")
    if len(defn.entrants) < defn.players:
        raise ValueError(f"{defn.players} players need at least {defn.players} entrants")
    if defn.games < 1:
        raise ValueError("--games must be 1 or more")
    if defn.parallel < 1:
        raise ValueError("parallel must be 1 or more")
    names = [e.name for e in defn.entrants]
    if len(set(names)) != len(names):
        raise ValueError("entrant names must be unique")


def _groups(defn: Definition) -> list[tuple[int, ...]]:
    return list(itertools.combinations(range(len(defn.entrants)), defn.players))


def round_count(defn: Definition) -> int:
    return -(-defn.games // defn.players)


def total_tables(defn: Definition) -> int:
    return defn.games


def schedule_round(defn: Definition, round: int, results: list[TableResult]) -> list[Table]:
    groups = _groups(defn)
    group = groups[round % len(groups)]
    rng = random.Random(f"{defn.seed}:round:{round}")
    deal = rng.getrandbits(63)
    tables = []
    for r in range(defn.players):
        index = round * defn.players + r
        if index >= defn.games:
            break
        seats = group[r:] + group[:r]
        tables.append(Table(index, round, seats, deal if defn.duplicate else deal + r, round))
    return tables
