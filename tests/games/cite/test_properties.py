"""Thousands of random Cité games, checking the rule book's invariants after every action."""

from __future__ import annotations

import random

import pytest

from games.base import CHANCE, TERMINAL
from games.cite import rules as R
from games.cite.engine import Cite, CiteState
from tests.games.cite.helpers import count_cards

GAMES_PER_PLAYER_COUNT = 600  # x 5 player counts = 3000 games
# A turn has at most: roll, levy, 7 store actions, 6 draws, 5 deals, 6 resolutions and one
# spoils choice; the round limit then bounds the game.
MAX_PLIES_PER_TURN = 1 + 1 + 7 + 6 + 5 + 6 + 1


def check_invariants(state: CiteState, before: CiteState) -> None:
    for values in state.gauges:
        assert all(R.GAUGE_MIN <= v <= R.GAUGE_MAX for v in values), values
    assert state.card_total() == R.DECK_SIZE
    assert count_cards(state) == R.DECK_SIZE
    assert all(n >= 0 for n in state.deck) and all(n >= 0 for n in state.discard)
    assert all(0 <= s <= R.GRANARY_SLOTS for s in state.granary if s != R.NO_STRUCTURE)
    assert all(0 <= s <= R.OUTPOST_SLOTS for s in state.outpost if s != R.NO_STRUCTURE)
    # A fallen city never stands again, and standing cities are never at a fall condition.
    for seat in range(state.n):
        assert before.standing[seat] or not state.standing[seat]
        if state.standing[seat]:
            g = state.gauges[seat]
            assert 0 < g[R.CIVILIANS] < R.GAUGE_MAX and g[R.ARMY] < R.GAUGE_MAX
    actor = state.current_player()
    if actor == TERMINAL:
        assert state.legal_actions() == [] and state.chance_outcomes() == []
        return
    assert sum(state.standing) >= 2
    if state.phase not in (R.RESOLVE, R.WAR_SPOILS):  # it may fall on its own card
        assert state.standing[state.turn]
    if actor == CHANCE:
        outcomes = state.chance_outcomes()
        assert outcomes and sum(p for _, p in outcomes) == pytest.approx(1.0)
        assert state.legal_actions() == []
    else:
        assert state.standing[actor]
        legal = state.legal_actions()
        assert legal and len(set(legal)) == len(legal)
    # A fallen city may hold its card only until it comes up in this turn's resolution.
    for seat in range(state.n):
        if not state.standing[seat] and state.hand[seat] != R.NO_CARD:
            assert seat in state.resolve_order
    if state.turn != before.turn or state.round != before.round:
        # A new turn: the last one's cards are all gone, fallen cities' included.
        assert state.hand == [R.NO_CARD] * state.n and state.drawn == []
        assert state.round >= before.round


def play_game(players: int, seed: int, round_limit: int):
    rng = random.Random(seed)
    state = Cite.new_game(players, seed, options={"round_limit": round_limit})
    initial = state.clone()
    log: list[int] = []
    max_plies = round_limit * players * MAX_PLIES_PER_TURN
    while not state.is_terminal():
        assert len(log) < max_plies, "the game did not end"
        before = state.clone()
        if state.is_chance_node():
            action = state.sample_chance(rng)
        else:
            action = rng.choice(state.legal_actions())
        state.apply_action(action)
        log.append(action)
        check_invariants(state, before)
        assert CiteState.from_bytes(state.to_bytes()) == state
    return initial, log, state


# 3-6 players: minutes together on two cores, left to the full suite (`make test`).
@pytest.mark.parametrize(
    "players", [2, *(pytest.param(n, marks=pytest.mark.slow) for n in range(3, 7))]
)
def test_random_games_keep_the_invariants(players: int) -> None:
    ended_by_limit = 0
    for game in range(GAMES_PER_PLAYER_COUNT):
        seed = players * 100_000 + game
        # Every fourth game runs under a short round limit, so that ending is exercised too.
        round_limit = 1 + game % 8 if game % 4 == 0 else R.DEFAULT_ROUND_LIMIT
        initial, log, final = play_game(players, seed, round_limit)

        returns = final.returns()
        assert sum(returns) == pytest.approx(1.0) and all(r >= 0 for r in returns)
        winners = [s for s, r in enumerate(returns) if r > 0]
        assert winners == sorted(final.winners)
        assert all(r == pytest.approx(1 / len(winners)) for r in returns if r > 0)
        if final.round > final.round_limit:
            ended_by_limit += 1
            assert winners == [s for s in range(players) if final.standing[s]]
        else:
            # Ended by falls: one city left, or the last ones fell together.
            assert sum(final.standing) <= 1
            assert sum(final.standing) == 0 or winners == [final.standing.index(True)]

        assert Cite.replay(initial, log) == final
        assert CiteState.from_bytes(final.to_bytes()) == final
        assert CiteState.from_bytes(initial.to_bytes()) == initial
    assert ended_by_limit > 0
