"""Root statistics: one tree's shape, budgets, JSON round trips, merging, the final pick."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from bots import LevelKind, best_action, get_level, merge_root_stats, search_tree
from games.cite import rules as CR
from tests.bots.positions import cite_resolve


def _position():
    return cite_resolve(CR.CIVIL_WAR, [5, 5, 5, 3, 5], [5, 5, 5, 5, 5])


def _search(level: str, seed: int, tree: int, state=None) -> dict:
    """Tree ``tree`` of ``level`` for seat 0, on the Cité position by default."""
    return search_tree(state or _position(), 0, get_level(level), seed, tree)


def test_one_tree_reports_json_able_root_statistics_within_its_budget():
    level = replace(get_level("mcts-fast"), iterations=50)
    stats = search_tree(_position(), 0, level, 1, 0)
    assert json.loads(json.dumps(stats)) == stats
    assert stats["iterations"] == 50
    assert sum(stats["visits"].values()) == 50
    assert set(stats["visits"]) == {str(CR.PLAY), str(CR.DISCARD)}
    assert stats["seconds"] >= 0
    for key, n in stats["visits"].items():
        assert 0.0 <= stats["values"][key] <= n


def test_search_tree_uses_the_levels_budget_and_is_reproducible():
    a = _search("mcts-fast", 5, 1)
    b = _search("mcts-fast", 5, 1)
    from bots import LEVELS

    assert a["iterations"] == LEVELS["mcts-fast"].iterations
    assert (a["visits"], a["values"]) == (b["visits"], b["values"])


def _tree(fields: str = "") -> tuple:
    """Root visits and values of one Cité tree of ``mcts:iterations=60`` plus ``fields``."""
    level = ",".join(["mcts:iterations=60", *filter(None, [fields])])
    one = _search(level, 5, 1)
    return one["visits"], one["values"]


def test_a_level_may_override_the_games_playouts_with_random_ones():
    # Cité's playouts are greedy on its heuristic; playout=random returns to random ones.
    assert _tree("playout=game") != _tree("playout=random")
    assert _tree("playout=game") == _tree()  # the game's playouts are the default


def test_policy_playouts_run_to_the_policy_depth_and_random_ones_to_the_depth():
    # Cité's playouts follow its policy, so policy_depth replaces depth for them.
    assert _tree("depth=4,policy_depth=200") == _tree("depth=200")
    assert _tree("depth=4,policy_depth=200") != _tree("depth=4")
    # Random playouts stay cut off at depth.
    random_playouts = "playout=random,depth=4"
    assert _tree(f"{random_playouts},policy_depth=200") == _tree(random_playouts)


def test_search_tree_refuses_levels_without_search():
    assert get_level("greedy").kind is LevelKind.GREEDY
    with pytest.raises(ValueError, match="does not search"):
        _search("greedy", 1, 0)


def test_a_forced_move_needs_no_search():
    state = cite_resolve(CR.ALLEGIANCE, [5, 5, 5, 5, 5], [5, 5, 5, 5, 5])
    stats = _search("mcts-strong", 1, 0, state)
    assert stats["visits"] == {str(CR.PLAY): 1} and stats["iterations"] == 0
    assert best_action(stats) == CR.PLAY


def test_merge_sums_per_action_and_accepts_int_or_str_keys():
    one = {"visits": {"1": 3, "2": 5}, "values": {"1": 2.0, "2": 1.0}, "iterations": 8}
    two = {"visits": {1: 4, 7: 1}, "values": {1: 3.5, 7: 1.0}, "iterations": 5, "seconds": 0.5}
    merged = merge_root_stats([one, json.loads(json.dumps(two))])
    assert merged["visits"] == {"1": 7, "2": 5, "7": 1}
    assert merged["values"] == {"1": 5.5, "2": 1.0, "7": 1.0}
    assert merged["iterations"] == 13 and merged["seconds"] == 0.5
    assert best_action(merged) == 1
    with pytest.raises(ValueError):
        merge_root_stats([])


def test_best_action_breaks_ties_by_value_then_lowest_id():
    assert best_action({"visits": {"4": 5, "9": 5}, "values": {"4": 1.0, "9": 2.0}}) == 9
    assert best_action({"visits": {"9": 5, "4": 5}, "values": {"4": 2.0, "9": 2.0}}) == 4


def test_trees_of_a_level_merge_to_choose_actions_pick():
    from bots import LEVELS, choose_action

    trees = LEVELS["mcts-fast"].trees
    merged = merge_root_stats(_search("mcts-fast", 21, t) for t in range(trees))
    assert best_action(merged) == choose_action(_position(), 0, "mcts-fast", 21)
