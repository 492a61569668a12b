"""Every level plays whole games of every registered game; the level table is sane."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

import bots
from bots import LEVELS, choose_action, level_names
from bots.arena import play_game
from bots.heuristics import knowledge
from bots.levels import LevelKind, Playout, get_level
from games import CHANCE, game_names, get_game
from tests.bots.positions import after_decisions, random_until

GAMES = game_names()


def test_the_documented_levels_exist_with_search_budgets():
    assert level_names()[:4] == ["random", "greedy", "mcts-fast", "mcts-strong"]
    fast, strong = LEVELS["mcts-fast"], LEVELS["mcts-strong"]
    for level in (fast, strong):
        assert (
            level.kind is LevelKind.MCTS
            and level.trees >= 1
            and level.iterations
            and level.depth > 0
        )
    assert strong.trees * strong.iterations > fast.trees * fast.iterations
    # Only mcts-strong plays its policy playouts (Cité's) further than random ones.
    assert fast.policy_depth is None and strong.policy_depth > strong.depth
    assert LEVELS["random"].trees == LEVELS["greedy"].trees == 0


def test_unknown_levels_are_refused_and_custom_search_levels_parse():
    with pytest.raises(ValueError):
        get_level("grandmaster")
    with pytest.raises(ValueError):
        get_level("mcts:trees=2,width=3")
    custom = get_level("mcts:trees=3,iterations=50,depth=5")
    assert (custom.trees, custom.iterations, custom.depth) == (3, 50, 5)
    assert get_level("mcts:policy_depth=90").policy_depth == 90
    timed = get_level("mcts:seconds=0.1")
    assert timed.iterations is None and timed.seconds == 0.1
    assert get_level("mcts:playout=random").playout == "random"
    assert LEVELS["mcts-fast"].playout == LEVELS["mcts-strong"].playout == "game"
    with pytest.raises(ValueError, match="playout"):
        get_level("mcts:playout=smart")


@pytest.fixture
def small_budgets(monkeypatch):
    """The real levels with tiny iteration budgets, so whole games stay fast."""
    for name in ("mcts-fast", "mcts-strong"):
        monkeypatch.setitem(LEVELS, name, replace(LEVELS[name], iterations=6))


@pytest.mark.parametrize("game", GAMES)
def test_every_level_plays_whole_games(game, small_budgets):
    info = get_game(game).info
    names = level_names()
    for players in sorted({info.min_players, info.max_players}):
        for seed in range(2):
            levels = [names[(seed + k) % len(names)] for k in range(players)]
            options = {"turn_limit": 200} if game == "catan" else None
            result = play_game(game, levels, seed, options)
            assert sum(result.returns) == pytest.approx(1.0)
            assert all(result.decisions[s] > 0 for s in range(players))


def _mid_game(game: str, seed: int):
    """A decision with a real choice, some way into a random game."""
    for attempt in range(seed, seed + 50):
        found = after_decisions(12, lambda s: len(knowledge(game).actions(s)) > 1)
        state = random_until(game, get_game(game).info.min_players, attempt, found)
        if state is not None:
            return state
    raise AssertionError(f"no {game} mid-game decision found")


@pytest.mark.slow  # mcts-strong at its real budget
@pytest.mark.parametrize("game", GAMES)
def test_each_level_decides_a_legal_action_at_its_real_budget(game):
    state = _mid_game(game, 3)
    seat = state.current_player()
    for level in level_names():
        action = choose_action(state, seat, level, 5)
        assert action in state.legal_actions()


@pytest.mark.parametrize("game", GAMES)
def test_choose_action_is_deterministic_for_iteration_budgets(game):
    state = _mid_game(game, 4)
    seat = state.current_player()
    first = [choose_action(state, seat, level, 11) for level in ("greedy", "mcts-fast")]
    again = [choose_action(state.clone(), seat, level, 11) for level in ("greedy", "mcts-fast")]
    assert first == again


def test_choose_action_refuses_a_seat_not_to_move():
    state = get_game("cite").new_game(3, 1)
    while state.current_player() == CHANCE:
        state.apply_unchecked(state.sample_chance(random.Random(0)))
    other = (state.current_player() + 1) % 3
    with pytest.raises(ValueError):
        choose_action(state, other, "random", 1)


def test_catan_bots_answer_offers_and_never_make_them():
    from games.catan import rules as KR

    def answering(state):
        return state.phase == KR.TRADE_ANSWER and len(state.legal_actions()) == 2

    state = random_until("catan", 4, 2, answering)
    seat = state.current_player()
    for level in ("greedy", "mcts-fast"):
        assert choose_action(state, seat, level, 3) in (KR.ACCEPT, KR.DECLINE)

    main = random_until("catan", 4, 3, lambda s: s.phase == KR.MAIN and len(s.legal_actions()) > 20)
    allowed = knowledge("catan").actions(main)
    assert allowed and all(a < KR.OFFER_BASE for a in allowed)
    assert any(a >= KR.OFFER_BASE for a in main.legal_actions())
    # Exactly the legal actions less the offers, over many main-phase states.
    for seed in range(4):
        for state in _catan_main_states(seed):
            legal = state.legal_actions()
            # Inside an offer draft (reached by random play) a bot drops it.
            expected = [a for a in legal if a < KR.OFFER_BASE] or [KR.DRAFT_DROP]
            assert knowledge("catan").actions(state) == expected
    assert choose_action(main, main.current_player(), "mcts-fast", 1) < KR.OFFER_BASE


def _catan_main_states(seed: int):
    from games.catan import rules as KR

    rng = random.Random(seed)
    state = get_game("catan").new_game(4, seed)
    for _ in range(1500):
        if state.is_terminal():
            return
        if state.is_chance_node():
            state.apply_unchecked(state.sample_chance(rng))
            continue
        if state.phase == KR.MAIN:
            yield state
        state.apply_unchecked(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("game", GAMES)
def test_heuristic_shares_are_probabilities(game):
    evaluate = knowledge(game).evaluate
    for seed in range(3):
        found = after_decisions(30 + 40 * seed)
        state = random_until(game, get_game(game).info.max_players, seed, found)
        shares = evaluate(state)
        assert len(shares) == state.num_players
        assert all(0.0 <= v <= 1.0 for v in shares)
        assert sum(shares) == pytest.approx(1.0)


def test_level_kinds_and_playouts_are_enums_with_the_stored_strings():
    assert [LEVELS[n].kind for n in ("random", "greedy", "mcts-fast")] == [
        LevelKind.RANDOM,
        LevelKind.GREEDY,
        LevelKind.MCTS,
    ]
    custom = get_level("mcts:playout=random")
    assert custom.playout is Playout.RANDOM and custom.playout == "random"
    assert get_level("mcts:trees=2").playout is Playout.GAME


def test_a_servers_cap_cuts_trees_times_iterations():
    strong = LEVELS["mcts-strong"]  # 4 trees x 1500
    assert strong.capped(None) is strong and strong.capped(100_000) == strong
    assert (strong.capped(1000).trees, strong.capped(1000).iterations) == (4, 250)
    assert (strong.capped(2).trees, strong.capped(2).iterations) == (2, 1)
    timed = get_level("mcts:trees=2,seconds=0.5")  # no iteration budget: the cap gives one
    assert (timed.capped(100).iterations, timed.capped(100).seconds) == (50, 0.5)
    assert LEVELS["greedy"].capped(10) is LEVELS["greedy"]


def test_the_level_table_quotes_no_timings_that_go_stale():
    """Measured decision times live in docs/benchmarks.md, with the command that measures them."""
    import re

    import bots.levels

    assert not re.search(r"\d\s*(ms|s)\b", bots.levels.__doc__)


def test_public_api_is_exported():
    for name in ("choose_action", "search_tree", "merge_root_stats", "best_action", "LEVELS"):
        assert hasattr(bots, name)


def _first_public_view(game: str, levels: list[str], seed: int, deal: int | None) -> dict:
    """The public observation at the first real choice of an arena game."""
    seen: list[dict] = []

    class Seen(Exception):
        pass

    def stop(seat, view):
        seen.append(view.observation(None))
        raise Seen

    with pytest.raises(Seen):
        play_game(game, levels, seed, on_choice=stop, deal=deal)
    return seen[0]


@pytest.mark.parametrize("game", GAMES)
def test_games_of_one_deal_share_board_and_luck_whoever_sits_where(game):
    players = get_game(game).info.min_players
    levels = ["random"] * players
    swapped = ["greedy"] + ["random"] * (players - 1)
    first = _first_public_view(game, levels, 11, deal=4)
    assert _first_public_view(game, swapped, 12, deal=4) == first
    assert _first_public_view(game, levels, 11, deal=5) != first
