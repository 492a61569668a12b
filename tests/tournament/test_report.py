"""Standings: ratings, intervals, seat shares, crosstable, JSON and CSV, determinism."""

from __future__ import annotations

import csv
import json
import random
from dataclasses import replace

import pytest

from services.tournament.intervals import over_deals, wilson
from services.tournament.model import Definition, Entrant, TableResult
from services.tournament.report import (
    game_line,
    report_json,
    standings,
    standings_table,
    write_csvs,
)
from services.tournament.schedule import schedule_round
from tests.tournament.synthetic import definition, play

STANDING_FIELDS = {
    "entrant": str,
    "level": str,
    "games": int,
    "points": float,
    "win_share": float,
    "ci_low": float,
    "ci_high": float,
    "mu": float,
    "sigma": float,
    "ordinal": float,
}


@pytest.mark.parametrize("format", ["round-robin", "gauntlet", "swiss"])
def test_ratings_order_a_clearly_stronger_entrant_first(format):
    defn = definition(["weak", "strong", "middle", "weaker"], 2, format, rounds=6)
    results = play(defn, strength=[1.0, 9.0, 3.0, 0.5])
    rows = standings(defn, results).rows
    assert rows[0].entrant == "strong"
    assert rows[0].mu > max(r.mu for r in rows[1:])
    if format == "round-robin":  # equal games for all: the whole order shows
        assert [r.entrant for r in rows] == ["strong", "middle", "weak", "weaker"]


@pytest.mark.parametrize("format", ["round-robin", "swiss"])
def test_results_in_any_order_give_the_same_standings(format):
    defn = definition(5, 3, format, rounds=2, duplicate=True)
    results = play(defn, strength=[5, 1, 2, 3, 4])
    shuffled = list(results)
    random.Random(3).shuffle(shuffled)
    assert standings(defn, shuffled) == standings(defn, results)
    assert report_json(defn, standings(defn, shuffled)) == report_json(
        defn, standings(defn, results)
    )


def test_a_table_counted_twice_is_refused():
    defn = definition(3, 2, "round-robin")
    results = play(defn)
    with pytest.raises(ValueError, match="table 0 has two results"):
        standings(defn, [*results, results[0]])


def test_points_games_shares_and_wilson_intervals():
    defn = definition(["a", "b"], 2, "round-robin", rounds=5)  # 10 games
    results = [
        TableResult(t, (1.0, 0.0) if t.seats[0] == 0 else (0.0, 1.0), f"g{t.index}")
        for r in range(5)
        for t in schedule_round(defn, r, [])
    ]
    # a wins every game; one shared win
    first = results[0]
    results[0] = replace(first, returns=(0.5, 0.5))
    report = standings(defn, results)
    a, b = report.rows
    assert (a.entrant, a.games, a.points, a.win_share) == ("a", 10, 9.5, 0.95)
    assert (b.entrant, b.games, b.points) == ("b", 10, 0.5)
    assert (a.ci_low, a.ci_high) == wilson(9.5, 10)
    assert report.games == 10 and report.timeouts == 0
    assert sum(report.seat_win_share) == pytest.approx(1.0)
    assert a.ordinal == pytest.approx(a.mu - 3 * a.sigma)
    cells = {(c.entrant, c.opponent): c for c in report.crosstable}
    assert cells["a", "b"].games == 10 and cells["a", "b"].score == 9.5
    assert cells["b", "a"].score == 0.5 and cells["b", "a"].share == 0.05


def test_seat_win_share_shows_seat_bias():
    defn = definition(4, 2, "round-robin", rounds=2)
    results = [
        TableResult(t, (1.0, 0.0), f"g{t.index}")  # the first seat always wins
        for r in range(2)
        for t in schedule_round(defn, r, [])
    ]
    report = standings(defn, results)
    assert report.seat_win_share == (1.0, 0.0)
    assert {r.win_share for r in report.rows} == {0.5}  # seat balance cancels it


def test_shared_wins_are_rating_ties():
    defn = definition(["a", "b", "c"], 3, "round-robin")
    table = schedule_round(defn, 0, [])[0]
    a, b, c = (defn.entrants[e].name for e in table.seats)
    shared = {
        r.entrant: r for r in standings(defn, [TableResult(table, (0.5, 0.5, 0.0), "g")]).rows
    }
    assert shared[a].mu == shared[b].mu > shared[c].mu
    single = {
        r.entrant: r for r in standings(defn, [TableResult(table, (1.0, 0.0, 0.0), "g")]).rows
    }
    assert single[a].mu > single[b].mu == single[c].mu


def test_duplicate_intervals_are_taken_over_deals():
    defn = definition(["a", "b"], 2, "round-robin", rounds=6, duplicate=True)
    results = play(defn, strength=[3.0, 1.0])
    report = standings(defn, results)
    by_name = {r.entrant: r for r in report.rows}
    means = {}
    for r in results:
        for seat, e in enumerate(r.table.seats):
            means.setdefault(e, {}).setdefault(r.table.group, []).append(r.returns[seat])
    a_means = [sum(v) / len(v) for v in means[0].values()]
    assert len(a_means) == 6  # six deals of two games
    assert (by_name["a"].ci_low, by_name["a"].ci_high) == over_deals(a_means)
    assert by_name["a"].win_share == pytest.approx(sum(a_means) / 6)
    assert report.duplicate and "(deals)" in standings_table(report)


def test_over_deals_is_narrower_than_wilson_when_deals_decide_little():
    means = [0.5, 0.5, 0.5, 1.0] * 10
    low, high = over_deals(means)
    wlow, whigh = wilson(sum(means), len(means))
    assert high - low < whigh - wlow
    assert over_deals([1.0, 1.0]) == wilson(2.0, 2)  # no spread: Wilson's bound
    assert over_deals([]) == (0.0, 1.0)


def test_report_json_has_exactly_the_issues_fields_and_types():
    defn = definition(["a", "b", "c"], 3, "round-robin", rounds=2)
    defn = replace(defn, entrants=(*defn.entrants[:2], Entrant("c", None)))
    results = [replace(r, timeouts=(0, 1, 0)) for r in play(defn, strength=[3, 1, 1])]
    line = report_json(defn, standings(defn, results))
    assert list(line) == [
        "tournament",
        "game",
        "players",
        "format",
        "seed",
        "games",
        "standings",
        "seat_win_share",
        "timeouts",
        "errors",
    ]
    assert (line["tournament"], line["game"], line["format"]) == ("t", "cite", "round-robin")
    assert (line["players"], line["seed"], line["games"], line["timeouts"]) == (3, 7, 6, 6)
    assert all(type(line[k]) is int for k in ("players", "seed", "games", "timeouts", "errors"))
    assert line["errors"] == 0
    assert len(line["seat_win_share"]) == 3
    assert all(type(s) is float for s in line["seat_win_share"])
    assert len(line["standings"]) == 3
    for row in line["standings"]:
        assert list(row) == list(STANDING_FIELDS)
        for key, kind in STANDING_FIELDS.items():
            if key == "level" and row["entrant"] == "c":
                assert row[key] is None  # an external entrant
            else:
                assert type(row[key]) is kind, (key, row[key])
    assert json.loads(json.dumps(line)) == line  # plain JSON, one line
    assert "\n" not in json.dumps(line)


def test_the_same_tournament_prints_the_same_json_and_table():
    def run():
        defn = definition(4, 2, "swiss", rounds=3, duplicate=True)
        report = standings(defn, play(defn, strength=[1, 2, 3, 4]))
        return json.dumps(report_json(defn, report)), standings_table(report)

    assert run() == run()


def test_standings_table_lists_every_entrant_best_first():
    defn = definition(["low", "high", "mid"], 2, "round-robin", rounds=4)
    report = standings(defn, play(defn, strength=[1, 9, 3]))
    text = standings_table(report)
    body = text.splitlines()[2:5]
    assert [line.split()[1] for line in body] == [r.entrant for r in report.rows]
    assert "seat win share" in text and f"games {report.games}" in text


def test_write_csvs_and_game_lines(tmp_path):
    defn = definition(["a", "b", "c"], 2, "round-robin", rounds=1)
    results = [replace(r, timeouts=(2, 0)) for r in play(defn, strength=[5, 1, 1])]
    report = standings(defn, results)
    out = tmp_path / "out"
    write_csvs(report, results, defn, out)
    with (out / "standings.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [r["entrant"] for r in rows] == [r.entrant for r in report.rows]
    assert sum(int(r["timeouts"]) for r in rows) == report.timeouts == 12
    assert float(rows[0]["points"]) == report.rows[0].points
    with (out / "crosstable.csv").open() as f:
        grid = list(csv.reader(f))
    names = [r.entrant for r in report.rows]
    assert grid[0] == ["entrant", *names]
    for i, a in enumerate(names):
        assert grid[i + 1][0] == a and grid[i + 1][i + 1] == ""  # no one meets themselves
        for j, b in enumerate(names):
            if a != b:
                share = float(grid[i + 1][j + 1]) + float(grid[j + 1][i + 1])
                assert share == pytest.approx(1.0)
    line = game_line(results[0], defn)
    table = results[0].table
    assert line == {
        "table": table.index,
        "round": table.round,
        "group": table.group,
        "deal": table.deal,
        "seats": [defn.entrants[e].name for e in table.seats],
        "returns": list(results[0].returns),
        "game_id": results[0].game_id,
        "timeouts": [2, 0],
    }
    assert json.loads(json.dumps(line)) == line


def test_an_empty_tournament_reports_no_games():
    defn = definition(3, 2, "gauntlet")
    report = standings(defn, [])
    assert report.games == 0 and all(r.games == 0 for r in report.rows)
    assert report.seat_win_share == (0.0, 0.0)
    assert report_json(defn, report)["standings"][0]["ci_high"] == 1.0


def test_definition_json_round_trip():
    defn = Definition(
        name="cup",
        game="catan",
        players=4,
        entrants=(Entrant("s", "mcts-strong"), Entrant("f", "mcts-fast"), Entrant("me", None)),
        format="gauntlet",
        games=12,
        seed=2**63 + 5,
        duplicate=True,
        parallel=3,
        options=(("turn_limit", "300"), ("board", "beginner")),
        focus="me",
        move_time_limit=2.5,
        fallback_level="greedy",
    )
    text = json.dumps(defn.to_dict())
    assert Definition.from_dict(json.loads(text)) == defn
    assert defn.options == (("board", "beginner"), ("turn_limit", "300"))  # kept sorted
    assert replace(defn, options={"turn_limit": "300", "board": "beginner"}) == defn
    required = ("name", "game", "players", "entrants", "format", "games", "seed")
    minimal = {k: v for k, v in defn.to_dict().items() if k in required}
    back = Definition.from_dict(minimal)
    assert (back.duplicate, back.parallel, back.options, back.focus) == (False, 1, (), None)
    assert (back.move_time_limit, back.fallback_level) == (0.0, "random")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"games": "12"}, "'games' must be int"),
        ({"players": True}, "'players' must be int"),
        ({"duplicate": 1}, "'duplicate' must be bool"),
        ({"entrants": [{"name": "a"}]}, None),
        ({"entrants": ["a"]}, "each entrant must be an object"),
        ({"entrants": [{"level": "random"}]}, "missing field 'name'"),
        ({"options": {"turn_limit": 300}}, "options must map strings to strings"),
        ({"move_time_limit": "fast"}, "'move_time_limit' must be int or float"),
    ],
)
def test_definition_from_dict_checks_types(change, message):
    data = definition(3, 3, "round-robin").to_dict() | change
    if message is None:  # a missing level is an external entrant
        assert Definition.from_dict(data).entrants == (Entrant("a", None),)
        return
    with pytest.raises(ValueError, match=message):
        Definition.from_dict(data)
    with pytest.raises(ValueError, match="must be a JSON object"):
        Definition.from_dict([data])


def test_a_failed_table_is_an_error_and_nothing_else():
    defn = definition(["a", "b", "c"], 2, "round-robin", rounds=2)
    results = play(defn, strength=[5, 1, 1])
    lost = replace(results[2], returns=(), error="its game was deleted")
    with_error = standings(defn, [*results[:2], lost, *results[3:]])
    without = standings(defn, [*results[:2], *results[3:]])
    assert with_error.errors == 1 and without.errors == 0
    assert with_error.games == without.games == len(results) - 1
    assert with_error.rows == without.rows and with_error.crosstable == without.crosstable
    line = report_json(defn, with_error)
    assert line["errors"] == 1 and line["games"] == len(results) - 1
    assert "errors 1" in standings_table(with_error)
    assert game_line(lost, defn)["error"] == "its game was deleted"
    assert "error" not in game_line(results[0], defn)
    with pytest.raises(ValueError, match="returns"):
        standings(defn, [replace(results[0], error="lost")])  # a failed table has no returns


def test_a_swiss_round_pairs_past_a_failed_table():
    defn = definition(4, 2, "swiss", rounds=2)
    first = schedule_round(defn, 0, [])
    results = [TableResult(t, (1.0, 0.0), f"g{t.index}") for t in first]
    results[0] = replace(results[0], returns=(), error="lost")
    second = schedule_round(defn, 1, results)
    seated = sorted(e for t in second for e in t.seats)
    assert seated == sorted(e for t in first for e in t.seats)  # everyone plays on
