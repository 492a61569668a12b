"""The engine contract, checked on every registered game with random playouts."""

from __future__ import annotations

import importlib
import random

import pytest

from games import CHANCE, TERMINAL, IllegalActionError, NotationError, game_names, get_game
from games.base import CorruptStateError, OptionsError
from services.views import view_of

GAMES = game_names()


def playout(game, players: int, seed: int, max_plies: int = 100_000):
    """A random game; returns (initial state, action log, final state)."""
    rng = random.Random(seed)
    state = game.new_game(players, seed)
    initial = state.clone()
    log = []
    while not state.is_terminal():
        assert len(log) < max_plies, "game did not end"
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert outcomes and abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            action = state.sample_chance(rng)
        else:
            legal = state.legal_actions()
            assert legal, "a decision node must offer an action"
            assert len(set(legal)) == len(legal)
            action = rng.choice(legal)
        state.apply_action(action)
        log.append(action)
    return initial, log, state


def player_counts(game):
    return range(game.info.min_players, game.info.max_players + 1)


@pytest.mark.parametrize("name", GAMES)
def test_random_games_end_with_valid_returns(name):
    game = get_game(name)
    for players in player_counts(game):
        for seed in range(3):
            _, _, final = playout(game, players, seed)
            returns = final.returns()
            assert len(returns) == players
            assert all(r >= 0 for r in returns)
            assert sum(returns) == pytest.approx(1.0) or sum(returns) == 0
            assert final.current_player() == TERMINAL
            assert final.legal_actions() == []


@pytest.mark.parametrize("name", GAMES)
def test_replay_and_bytes_reproduce_the_state(name):
    game = get_game(name)
    players = game.info.max_players
    initial, log, final = playout(game, players, seed=11)
    replayed = game.replay(game.state_class.from_bytes(initial.to_bytes()), log)
    assert replayed == final
    assert replayed.to_bytes() == final.to_bytes()
    assert game.state_class.from_bytes(final.to_bytes()) == final


@pytest.mark.parametrize("name", GAMES)
def test_same_seed_same_setup(name):
    game = get_game(name)
    players = game.info.min_players
    assert game.new_game(players, 5).to_bytes() == game.new_game(players, 5).to_bytes()


@pytest.mark.parametrize("name", GAMES)
def test_notation_round_trips_for_every_legal_action(name):
    game = get_game(name)
    rng = random.Random(3)
    state = game.new_game(game.info.max_players, 3)
    steps = 0
    while not state.is_terminal() and steps < 3000:
        if state.is_chance_node():
            actions = [a for a, _ in state.chance_outcomes()]
        else:
            actions = state.legal_actions()
        for action in actions:
            text = state.action_to_string(action)
            assert state.string_to_action(text) == action, text
        state.apply_action(rng.choice(actions))
        steps += 1


@pytest.mark.parametrize("name", GAMES)
def test_clone_is_independent(name):
    game = get_game(name)
    state = game.new_game(game.info.min_players, 1)
    before = state.to_bytes()
    copy = state.clone()
    rng = random.Random(0)
    for _ in range(50):
        if copy.is_terminal():
            break
        copy.apply_action(
            copy.sample_chance(rng) if copy.is_chance_node() else rng.choice(copy.legal_actions())
        )
    assert state.to_bytes() == before


@pytest.mark.parametrize("name", GAMES)
def test_clone_copies_every_declared_field(name):
    """Each engine writes its clone out field by field: it must follow its ``_COPIED``
    declaration (every field there, each list its own), mid-game as at the start."""
    game = get_game(name)
    state = game.new_game(game.info.min_players, 3)
    fields = importlib.import_module(type(state).__module__)._COPIED
    rng = random.Random(3)
    for _ in range(60):
        assert fields.missing_from_clone(state, state.clone()) == []
        if state.is_terminal():
            break
        state.apply_action(
            state.sample_chance(rng)
            if state.is_chance_node()
            else rng.choice(state.legal_actions())
        )


@pytest.mark.parametrize("name", GAMES)
def test_bad_input_is_rejected_and_changes_nothing(name):
    game = get_game(name)
    state = game.new_game(game.info.min_players, 2)
    rng = random.Random(2)
    while state.is_chance_node():
        state.apply_action(state.sample_chance(rng))
    before = state.to_bytes()
    legal = set(state.legal_actions())
    illegal = next(a for a in range(100_000) if a not in legal)
    with pytest.raises(IllegalActionError):
        state.apply_action(illegal)
    with pytest.raises(NotationError):
        state.string_to_action("fly to the moon")
    with pytest.raises(IllegalActionError):
        state.apply_action(-5)
    assert state.to_bytes() == before
    for junk in (b"", b"[]", b"{}", b"not json", b'{"n": "x"}'):
        with pytest.raises(CorruptStateError):
            game.state_class.from_bytes(junk)
    with pytest.raises(OptionsError):
        game.new_game(game.info.max_players + 1, 0)
    with pytest.raises(OptionsError):
        game.new_game(game.info.min_players, 0, {"no_such_option": "1"})


@pytest.mark.parametrize("name", GAMES)
def test_determinize_keeps_what_the_seat_sees(name):
    game = get_game(name)
    rng = random.Random(9)
    state = game.new_game(game.info.max_players, 9)
    steps = 0
    while not state.is_terminal() and steps < 1500:
        actor = state.current_player()
        for seat in range(state.num_players):
            sample = state.determinize(seat, random.Random(steps))
            assert sample.observation(seat) == state.observation(seat)
            if actor >= 0:
                assert sample.current_player() == actor
            if actor == seat:
                assert sample.legal_actions() == state.legal_actions()
        state.apply_action(
            state.sample_chance(rng)
            if state.is_chance_node()
            else rng.choice(state.legal_actions())
        )
        steps += 1


@pytest.mark.parametrize("name", GAMES)
def test_determinize_depends_only_on_the_observation(name):
    """Two states a seat cannot tell apart give that seat identical samples."""
    game = get_game(name)
    rng = random.Random(4)
    state = game.new_game(game.info.max_players, 4)
    steps = 0
    while not state.is_terminal() and steps < 1500:
        for seat in range(state.num_players):
            other = state.determinize(seat, random.Random(1000 + steps))
            assert other.observation(seat) == state.observation(seat)
            a = state.determinize(seat, random.Random(steps))
            b = other.determinize(seat, random.Random(steps))
            assert a == b
        state.apply_action(
            state.sample_chance(rng)
            if state.is_chance_node()
            else rng.choice(state.legal_actions())
        )
        steps += 1


@pytest.mark.parametrize("name", GAMES)
def test_view_builds_for_every_seat_and_spectators(name):
    game = get_game(name)
    _, _, final = playout(game, game.info.min_players, 6)
    state = game.new_game(game.info.min_players, 6)
    for s in (state, final):
        for seat in [None, *range(s.num_players)]:
            view = view_of(name, s, seat)
            assert view.ByteSize() > 0
            assert type(view).FromString(view.SerializeToString()) == view


def test_chance_actor_constant():
    assert CHANCE == -1 and TERMINAL == -4
