"""Schedules: seat balance in every round, pair balance, focus, swiss pairing, duplicate
groups, determinism, and the errors of ``validate``."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import replace

import pytest

from services.tournament.model import Entrant, TableResult
from services.tournament.schedule import (
    deal_seed,
    placement_points,
    round_count,
    round_of_table,
    schedule_round,
    tables_per_round,
    total_tables,
    validate,
)
from tests.tournament.synthetic import definition, play

# (format, entrants, players): odd and even counts, byes in swiss, a full table.
SHAPES = [
    ("round-robin", 2, 2),
    ("round-robin", 3, 2),
    ("round-robin", 5, 2),
    ("round-robin", 5, 3),
    ("round-robin", 4, 4),
    ("round-robin", 6, 4),
    ("gauntlet", 3, 2),
    ("gauntlet", 5, 3),
    ("gauntlet", 4, 4),
    ("gauntlet", 7, 4),
    ("swiss", 4, 2),
    ("swiss", 5, 2),
    ("swiss", 7, 3),
    ("swiss", 9, 4),
]


def _tables(results):
    return [r.table for r in results]


@pytest.mark.parametrize("duplicate", [False, True])
@pytest.mark.parametrize(("format", "n", "p"), SHAPES)
def test_every_round_seats_each_entrant_in_each_position_equally_often(format, n, p, duplicate):
    defn = definition(n, p, format, rounds=3, duplicate=duplicate)
    tables = _tables(play(defn))
    assert len(tables) == total_tables(defn) == defn.games
    for round in range(round_count(defn)):
        seated = [t.seats for t in tables if t.round == round]
        counts = Counter((e, seat) for seats in seated for seat, e in enumerate(seats))
        for entrant in range(n):
            per_seat = {counts[entrant, seat] for seat in range(p)}
            assert len(per_seat) == 1, (round, entrant, [counts[entrant, s] for s in range(p)])


@pytest.mark.parametrize(("n", "p"), [(3, 2), (5, 2), (5, 3), (6, 4), (4, 4)])
def test_round_robin_meets_every_pair_equally_often(n, p):
    defn = definition(n, p, "round-robin", rounds=2)
    tables = _tables(play(defn))
    met = Counter(pair for t in tables for pair in itertools.combinations(sorted(t.seats), 2))
    assert set(met) == set(itertools.combinations(range(n), 2))
    assert len(set(met.values())) == 1
    # and everyone plays the same number of games
    assert len(set(Counter(e for t in tables for e in t.seats).values())) == 1


@pytest.mark.parametrize(("n", "p", "focus"), [(4, 2, None), (5, 3, "e3"), (7, 4, "e6")])
def test_gauntlet_seats_the_focus_at_every_table_against_the_whole_field(n, p, focus):
    defn = definition(n, p, "gauntlet", rounds=2, focus=focus)
    focus_index = int((focus or "e0")[1:])
    tables = _tables(play(defn))
    assert all(focus_index in t.seats for t in tables)
    field = Counter(e for t in tables for e in t.seats if e != focus_index)
    assert set(field) == set(range(n)) - {focus_index}
    assert len(set(field.values())) == 1


def _new_tables_possible(entrants: set[int], p: int, played: set[frozenset[int]]) -> bool:
    """Whether ``entrants`` split into tables of ``p`` none of which has played (brute force)."""
    if not entrants:
        return True
    head = min(entrants)
    for others in itertools.combinations(sorted(entrants - {head}), p - 1):
        lineup = frozenset((head, *others))
        if lineup not in played and _new_tables_possible(entrants - lineup, p, played):
            return True
    return False


def test_swiss_meets_every_pair_once_when_rounds_allow():
    # 4 entrants in pairs: 3 rounds, and every sequence of new pairings meets all 6 pairs.
    tables = _tables(play(definition(4, 2, "swiss", rounds=3), strength=[4, 3, 2, 1]))
    lineups = [frozenset(t.seats) for t in tables if t.seats[0] < t.seats[1]]
    assert len(lineups) == 6 == len(set(lineups))


@pytest.mark.parametrize(("n", "p", "rounds"), [(6, 2, 7), (8, 2, 9), (7, 3, 6), (9, 4, 5)])
def test_swiss_repeats_a_table_only_when_every_seating_of_the_round_must(n, p, rounds):
    defn = definition(n, p, "swiss", rounds=rounds)
    tables = _tables(play(defn, strength=range(n, 0, -1)))
    played: set[frozenset[int]] = set()
    repeats = 0
    for round in range(rounds):
        lineups = {frozenset(t.seats) for t in tables if t.round == round}
        seated = set().union(*lineups)
        if _new_tables_possible(seated, p, played):
            assert not lineups & played, round
        else:
            repeats += 1
        played |= lineups
    assert repeats < rounds  # the check above ran


def test_swiss_pairs_entrants_by_score():
    # Round 0 decides: at each first-round table of 2, the lower-numbered entrant wins.
    defn = definition(8, 2, "swiss", rounds=2)
    first = schedule_round(defn, 0, [])
    results = []
    for t in first:
        winner = min(t.seats)
        wins = {t.seats[s]: winner == t.seats[s] for s in range(2)}
        # the same lineup's other rotation: winner wins again, so 2-0 or 0-2
        results.append(TableResult(t, tuple(1.0 if wins[e] else 0.0 for e in t.seats), "g"))
    winners = {min(t.seats) for t in first}
    second = schedule_round(defn, 1, results)
    for t in second:
        assert (t.seats[0] in winners) == (t.seats[1] in winners), t
    # and with no earlier lineup again
    assert not {frozenset(t.seats) for t in second} & {frozenset(t.seats) for t in first}


def test_swiss_gives_byes_to_different_entrants():
    defn = definition(5, 2, "swiss", rounds=5)
    tables = _tables(play(defn, strength=[5, 4, 3, 2, 1]))
    sat_out = []
    for round in range(5):
        seated = {e for t in tables if t.round == round for e in t.seats}
        (bye,) = set(range(5)) - seated
        sat_out.append(bye)
    assert sorted(sat_out) == list(range(5))


def test_swiss_needs_the_earlier_rounds_results():
    defn = definition(4, 2, "swiss", rounds=2)
    results = play(definition(4, 2, "swiss", rounds=1))
    assert schedule_round(defn, 1, results)
    with pytest.raises(ValueError, match="needs the result of every table"):
        schedule_round(defn, 1, results[:-1])


def test_a_swiss_round_ignores_results_of_its_own_and_later_rounds():
    defn = definition(6, 3, "swiss", rounds=3)
    results = play(defn)
    earlier = [r for r in results if r.table.round < 1]
    assert schedule_round(defn, 1, earlier) == schedule_round(defn, 1, results)


@pytest.mark.parametrize(
    ("format", "n", "p"), [("round-robin", 4, 3), ("gauntlet", 5, 3), ("swiss", 7, 3)]
)
def test_duplicate_groups_share_one_deal_under_every_rotation(format, n, p):
    defn = definition(n, p, format, rounds=2, duplicate=True)
    tables = _tables(play(defn))
    groups: dict[int, list] = {}
    for t in tables:
        groups.setdefault(t.group, []).append(t)
    assert len(groups) == len(tables) // p
    deals = set()
    for members in groups.values():
        assert len(members) == p
        assert len({t.deal for t in members}) == 1
        deals.add(members[0].deal)
        first = members[0].seats
        rotations = {first[k:] + first[:k] for k in range(p)}
        assert {t.seats for t in members} == rotations
        assert len({t.round for t in members}) == 1
    assert len(deals) == len(groups)  # every group its own deal


def test_without_duplicate_every_table_has_its_own_deal():
    defn = definition(4, 3, "round-robin", rounds=2)
    tables = _tables(play(defn))
    assert [t.group for t in tables] == [t.index for t in tables]
    assert len({t.deal for t in tables}) == len(tables)
    assert all(t.deal == deal_seed(defn.seed, t.group) for t in tables)


@pytest.mark.parametrize(("format", "n", "p"), SHAPES)
def test_the_same_definition_gives_the_same_schedule(format, n, p):
    defn = definition(n, p, format, rounds=3)
    again = definition(n, p, format, rounds=3)
    first, second = _tables(play(defn)), _tables(play(again))
    assert first == second
    assert [t.index for t in first] == list(range(defn.games))
    other_seed = _tables(play(replace(defn, seed=defn.seed + 1)))
    assert [t.deal for t in other_seed] != [t.deal for t in first]


def test_round_robin_seating_orders_cycle_over_rounds():
    # 3 entrants at one table of 3: two cyclic orders, one per round, alternating.
    defn = definition(3, 3, "round-robin", rounds=4)
    tables = _tables(play(defn))
    follows = Counter((t.seats[s], t.seats[(s + 1) % 3]) for t in tables for s in range(3))
    assert len(set(follows.values())) == 1 and len(follows) == 6


def test_round_count_and_tables_per_round():
    assert tables_per_round(definition(5, 3, "round-robin")) == math.comb(5, 3) * 3
    assert tables_per_round(definition(5, 3, "gauntlet")) == math.comb(4, 2) * 3
    assert tables_per_round(definition(7, 3, "swiss")) == 2 * 3
    swiss = definition(7, 3, "swiss", rounds=4)
    assert round_count(swiss) == 4
    tables = _tables(play(swiss))
    assert all(round_of_table(swiss, t.index) == t.round for t in tables)


def test_placement_points_count_opponents_behind_and_half_the_ties():
    assert placement_points([1.0, 0.0, 0.0]) == [2.0, 0.5, 0.5]
    assert placement_points([0.5, 0.5, 0.0]) == [1.5, 1.5, 0.0]
    assert placement_points([0.0, 1.0]) == [0.0, 1.0]


def _bad(**changes):
    return replace(definition(4, 2, "round-robin"), **changes)


@pytest.mark.parametrize(
    ("defn", "message"),
    [
        (_bad(format="knockout"), "unknown format 'knockout'"),
        (_bad(game="chess"), "unknown game 'chess'"),
        (_bad(players=7, games=7), "cite takes 2 to 6 players per table, not 7"),
        (_bad(players=5, games=5), "5-player tables need at least 5 entrants, 4 given"),
        (_bad(entrants=(Entrant("a", "random"), Entrant("a", "greedy"))), "given twice"),
        (_bad(entrants=(Entrant("a,b", "random"), Entrant("c", "x"))), "','"),
        (_bad(entrants=(Entrant("", "random"), Entrant("c", "x"))), "non-empty"),
        (_bad(entrants=(Entrant("a", ""), Entrant("c", "x"))), "empty level"),
        (_bad(games=13), "multiples of 12 .*13 given"),
        (_bad(games=0), "multiples of 12"),
        (_bad(focus="e1"), "focus is for the gauntlet format only"),
        (_bad(format="gauntlet", games=6, focus="nobody"), "focus 'nobody' is not an entrant"),
        (_bad(format="swiss", games=5), "swiss .* multiples of 4 .*5 given"),
        (_bad(parallel=0), "parallel must be at least 1"),
        (_bad(seed=-1), "seed must be in"),
        (_bad(move_time_limit=-1.0), "move_time_limit"),
        (_bad(move_time_limit=float("nan")), "move_time_limit"),
        (_bad(fallback_level=""), "fallback_level"),
        (_bad(options=(("no_such", "1"),)), "unknown option"),
        (_bad(options=(("round_limit", "many"),)), "round_limit"),
        (_bad(name=""), "tournament name"),
    ],
)
def test_validate_says_what_is_wrong(defn, message):
    with pytest.raises(ValueError, match=message):
        validate(defn)


def test_validate_accepts_good_definitions_and_external_entrants():
    defn = definition(["a", "b", "c"], 3, "gauntlet", rounds=2, focus="c")
    validate(replace(defn, entrants=(*defn.entrants[:2], Entrant("c", None))))
    validate(_bad(options=(("round_limit", "20"),)))


def test_schedule_round_rejects_rounds_outside_the_tournament():
    defn = definition(4, 2, "round-robin", rounds=2)
    with pytest.raises(ValueError, match=r"round 2 is not in 0\.\.1"):
        schedule_round(defn, 2, [])
