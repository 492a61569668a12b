"""Tournaments played without engines: each table's winner drawn from entrant strengths."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from services.tournament.model import Definition, Entrant, TableResult
from services.tournament.schedule import round_count, schedule_round, tables_per_round


def definition(
    entrants: int | Sequence[str],
    players: int,
    format: str = "round-robin",
    rounds: int = 1,
    game: str = "cite",
    **fields,
) -> Definition:
    """A definition of bot entrants with ``games`` set to ``rounds`` rounds' worth."""
    names = [f"e{i}" for i in range(entrants)] if isinstance(entrants, int) else list(entrants)
    probe = Definition(
        name="t",
        game=game,
        players=players,
        entrants=tuple(Entrant(n, "random") for n in names),
        format=format,
        games=1,
        seed=fields.pop("seed", 7),
        **fields,
    )
    return replace(probe, games=rounds * tables_per_round(probe))


def play(defn: Definition, strength: Sequence[float] | None = None) -> list[TableResult]:
    """Every table, round by round; a table's winner is drawn in proportion to strength."""
    weights = list(strength) if strength is not None else [1.0] * len(defn.entrants)
    results: list[TableResult] = []
    for round in range(round_count(defn)):
        for table in schedule_round(defn, round, results):
            rng = random.Random(f"winner:{table.index}")
            winner = rng.choices(range(defn.players), [weights[e] for e in table.seats])[0]
            returns = tuple(1.0 if s == winner else 0.0 for s in range(defn.players))
            results.append(TableResult(table, returns, f"game-{table.index}"))
    return results
