"""A bot's decision cannot depend on what its seat cannot see.

For each game with hidden information, two true states that differ only in
cards the bot's seat cannot see (same ``observation(seat)``): the service's
input to the bot (``determinize(seat, rng)`` with the service's rng) is the same
bytes, the bot's choice is the same, and even a search handed the true states
directly (it determinizes again per tree) returns the same statistics.
"""

from __future__ import annotations

import pytest

from bots import choose_action, get_level, search_tree
from games.catan import rules as KR
from games.cite import rules as CR
from services.turns.steps import bot_rng
from tests.bots.positions import first_found

LEVELS = ("mcts-fast", "mcts-strong")


def _cite_twins():
    """Seat to move resolves its card; another seat's card is one it cannot see."""

    def found(state):
        s = state.actor
        return (
            state.phase == CR.RESOLVE
            and len(state.legal_actions()) > 1
            and any(_cite_hidden(state, s, t) for t in range(state.n))
        )

    a = first_found("cite", 4, found)
    seat = a.actor
    t = next(t for t in range(a.n) if _cite_hidden(a, seat, t))
    b = a.clone()
    mine = b.hand[t]
    other = next(c for c in range(CR.NUM_CARDS) if c != mine and b.deck[c])
    b.hand[t] = other
    b.deck[other] -= 1
    b.deck[mine] += 1
    return a, b, seat


def _cite_hidden(state, seat: int, t: int) -> bool:
    return t != seat and seat != state.turn and state.hand[t] != CR.NO_CARD


def _catan_twins():
    """Seat to move has a choice; another seat holds an old development card."""

    def holder(state, seat):
        for t in range(state.n):
            b = 5 * t
            if t != seat and any(state.dev[b + k] > state.dev_new[b + k] for k in range(5)):
                return t
        return None

    def found(state):
        seat = state.actor
        return (
            state.phase == KR.MAIN
            and len([a for a in state.legal_actions() if a < KR.OFFER_BASE]) > 2
            and holder(state, seat) is not None
        )

    a = first_found("catan", 4, found)
    seat = a.actor
    t = holder(a, seat)
    b = a.clone()
    base = 5 * t
    held = next(k for k in range(5) if b.dev[base + k] > b.dev_new[base + k])
    swap = next(k for k in range(5) if k != held and b.deck[k])
    b.dev[base + held] -= 1
    b.dev[base + swap] += 1
    b.deck[swap] -= 1
    b.deck[held] += 1
    return a, b, seat


TWINS = {"cite": _cite_twins, "catan": _catan_twins}


@pytest.mark.parametrize("game", sorted(TWINS))
def test_twins_differ_only_in_what_the_seat_cannot_see(game):
    a, b, seat = TWINS[game]()
    assert a.to_bytes() != b.to_bytes()
    assert a.observation(seat) == b.observation(seat)
    assert a.current_player() == seat


@pytest.mark.slow  # whole games of searching bots, twice each
@pytest.mark.parametrize("game", sorted(TWINS))
def test_the_bot_receives_the_same_input_and_plays_the_same(game):
    a, b, seat = TWINS[game]()
    for version in (3, 17):
        view_a = a.determinize(seat, bot_rng(1234, version, seat))
        view_b = b.determinize(seat, bot_rng(1234, version, seat))
        assert view_a.to_bytes() == view_b.to_bytes()
        levels = LEVELS if version == 3 else LEVELS[:1]  # mcts-strong once: it is slow
        for level in levels:
            assert choose_action(view_a, seat, level, 99) == choose_action(view_b, seat, level, 99)


@pytest.mark.parametrize("game", sorted(TWINS))
def test_a_tree_given_the_true_state_still_sees_only_the_observation(game):
    a, b, seat = TWINS[game]()
    for tree in range(3):
        stats_a = search_tree(a, seat, get_level("mcts-fast"), 7, tree)
        stats_b = search_tree(b, seat, get_level("mcts-fast"), 7, tree)
        assert stats_a["iterations"] > 0
        assert (stats_a["visits"], stats_a["values"]) == (stats_b["visits"], stats_b["values"])


def test_each_tree_samples_its_own_hidden_cards():
    a, _, seat = _cite_twins()
    from bots.search import tree_rng

    worlds = {a.determinize(seat, tree_rng(7, tree)).to_bytes() for tree in range(8)}
    assert len(worlds) > 1
