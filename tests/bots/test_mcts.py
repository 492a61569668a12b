"""UCT on small concrete positions: winning moves, losing moves, chance, budgets."""

from __future__ import annotations

import random

import pytest

from bots.heuristics import knowledge
from bots.mcts import shuffle, uct_search
from tests.bots.toy import ToyState, even

# Seat 0 picks 1 (a win for it now) or 2 (seat 1 then picks, and wins either way).
WIN_NOW = {
    "start": ("decide", 0, {1: "won", 2: "later"}),
    "later": ("decide", 1, {3: "lost", 4: "lost"}),
    "won": ("end", (1.0, 0.0, 0.0)),
    "lost": ("end", (0.0, 1.0, 0.0)),
}

# Three seats: seat 0 moves, then seat 1 chooses between a result good for it
# and one good for seat 0. Max^n: seat 1 takes its own best, so seat 0 must
# prefer the safe branch worth 0.4 over the bait worth 0.9 only if seat 1 allows it.
MAXN = {
    "start": ("decide", 0, {1: "safe", 2: "bait"}),
    "safe": ("end", (0.4, 0.3, 0.3)),
    "bait": ("decide", 1, {3: "good0", 4: "good1"}),
    "good0": ("end", (0.9, 0.05, 0.05)),
    "good1": ("end", (0.0, 0.8, 0.2)),
}

# A chance node with uneven probabilities under the only sensible decision.
CHANCE_SCRIPT = {
    "start": ("decide", 0, {1: "dice", 2: "end0"}),
    "dice": ("chance", {10: (0.7, "a"), 11: (0.2, "b"), 12: (0.1, "c")}),
    "a": ("decide", 1, {5: "end1", 6: "end1"}),
    "b": ("decide", 1, {5: "end1", 6: "end1"}),
    "c": ("decide", 1, {5: "end1", 6: "end1"}),
    "end0": ("end", (0.0, 1.0)),
    "end1": ("end", (1.0, 0.0)),
}


# Seat 0 picks 1 ("trap": seat 1 then wins with one move in ten) or 2 (a sure half).
# One playout per root edge: a random one misjudges the trap, a greedy one does not.
TRAP = {
    "start": ("decide", 0, {1: "trap", 2: "half"}),
    "trap": ("decide", 1, {3: "lost", **{a: "won" for a in range(4, 13)}}),
    "half": ("decide", 1, {13: "draw"}),
    "won": ("end", (1.0, 0.0)),
    "lost": ("end", (0.0, 1.0)),
    "draw": ("end", (0.5, 0.5)),
}


def search(state, iterations=400, seed=0, seconds=None, depth=10, c=0.7, playout_epsilon=None):
    return uct_search(
        state,
        even,
        lambda s: s.legal_actions(),
        random.Random(seed),
        iterations=iterations,
        seconds=seconds,
        depth=depth,
        c=c,
        playout_epsilon=playout_epsilon,
    )


def best(result) -> int:
    return max(result.visits, key=result.visits.get)


def test_uct_takes_an_immediate_win():
    for seed in range(5):
        result = search(ToyState(WIN_NOW, 3), seed=seed)
        assert best(result) == 1
        assert result.values[1] == pytest.approx(result.visits[1])  # won every time


def test_uct_avoids_an_immediate_loss_and_backs_up_each_seats_own_value():
    result = search(ToyState(MAXN, 3), iterations=2000)
    assert best(result) == 1
    # Under "bait" seat 1 learns to take its own win, so seat 0's mean there goes to ~0.
    assert result.values[2] / result.visits[2] < 0.3
    bait = dict(result.root.edges())[2]
    seat1 = {a: ch.visits for a, ch in bait.edges()}
    assert seat1[4] > seat1[3]


def test_chance_outcomes_are_visited_in_proportion_to_their_probabilities():
    result = search(ToyState(CHANCE_SCRIPT, 2), iterations=3000, c=0.1)
    dice = dict(result.root.edges())[1]
    counts = {o: ch.visits for o, ch in dice.outcomes.items()}
    total = sum(counts.values())
    assert total == dice.visits
    for outcome, p in ((10, 0.7), (11, 0.2), (12, 0.1)):
        assert counts[outcome] / total == pytest.approx(p, abs=0.04)


def test_iteration_budget_is_exact_and_every_iteration_visits_one_root_child():
    result = search(ToyState(WIN_NOW, 3), iterations=37)
    assert result.iterations == 37
    assert sum(result.visits.values()) == 37
    assert result.root.visits == 37


def test_time_budget_stops_the_search():
    result = search(ToyState(WIN_NOW, 3), iterations=None, seconds=0.05)
    assert result.iterations > 0
    # It returned with no iteration budget: the clock stopped it, once its time was up.
    assert result.seconds >= 0.05  # not timed: a lower bound, the budget was spent


def test_a_search_needs_a_budget_and_a_decision_root():
    with pytest.raises(ValueError):
        search(ToyState(WIN_NOW, 3), iterations=None, seconds=None)
    with pytest.raises(ValueError):
        search(ToyState(WIN_NOW, 3, node="won"))


@pytest.mark.parametrize("playout_epsilon", [None, 0.1])
def test_same_rng_same_tree(playout_epsilon):
    a = search(ToyState(MAXN, 3), iterations=300, seed=4, playout_epsilon=playout_epsilon)
    b = search(ToyState(MAXN, 3), iterations=300, seed=4, playout_epsilon=playout_epsilon)
    assert (a.visits, a.values) == (b.visits, b.values)


def test_greedy_playouts_play_each_seats_best_move_on_the_heuristic():
    for seed in range(10):
        result = search(ToyState(TRAP, 2), iterations=2, seed=seed, playout_epsilon=0.0)
        assert result.values == {1: 0.0, 2: 0.5}  # seat 1's playout took its win
    random_values = [search(ToyState(TRAP, 2), iterations=2, seed=s).values[1] for s in range(10)]
    assert max(random_values) == 1.0  # a random playout misses it (nine times in ten)


def test_cite_playouts_are_greedy_and_the_other_games_random():
    assert knowledge("cite").playout_epsilon == 0.1
    assert knowledge("catan").playout_epsilon is None
    assert knowledge("endeavor").playout_epsilon is None


def test_the_searchs_shuffle_is_randoms():
    """The search shuffles each node's actions with its own copy of ``Random.shuffle``
    (compiled, it runs as C): the same permutations from the same draws, so seeded
    decisions stay what they were."""
    for size in range(0, 70):
        for seed in range(5):
            ours, theirs = list(range(size)), list(range(size))
            mine, python = random.Random(seed), random.Random(seed)
            shuffle(ours, mine)
            python.shuffle(theirs)
            assert ours == theirs
            assert mine.random() == python.random()  # and they drew as much
