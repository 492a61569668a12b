"""Bad input gets INVALID_ARGUMENT with a short message, and nothing is stored:
option bounds, custom level bounds, length caps, out-of-range SubmitAction fields."""

from __future__ import annotations

import math

import grpc
import pytest
import redis

from bots.levels import MAXIMA, get_level
from gamehost import GameError
from games import OptionsError, get_game


def refused(call, *args, **kwargs) -> str:
    with pytest.raises(GameError) as caught:
        call(*args, **kwargs)
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT, caught.value
    return caught.value.details


@pytest.fixture
def stored_games(redis_url, module_prefix):
    store = redis.Redis.from_url(redis_url)
    yield lambda: set(store.zrange(f"{module_prefix}:games", 0, -1))
    store.close()


@pytest.mark.parametrize(
    "game, options",
    [
        ("catan", {"turn_limit": "2147483648"}),
        ("catan", {"turn_limit": "2000000000"}),
        ("catan", {"turn_limit": "0"}),
        ("catan", {"board": "huge"}),
        ("cite", {"round_limit": "-3"}),
        ("endeavor", {"track_glory": "sideways"}),
    ],
)
def test_options_out_of_bounds_are_refused_and_store_nothing(client, stored_games, game, options):
    before = stored_games()
    players = get_game(game).info.min_players
    details = refused(client.create_game, game, ["bot"] * players, options)
    assert next(iter(options)) in details
    assert stored_games() == before


def test_every_option_with_a_default_has_declared_bounds():
    for name in ("catan", "cite", "endeavor"):
        info = get_game(name).info
        assert set(info.option_bounds) == set(info.default_options), name
        get_game(name).parse_options({})  # the defaults are within their own bounds


def test_options_within_bounds_are_accepted():
    assert get_game("catan").parse_options({"turn_limit": "10000"})["turn_limit"] == 10_000
    with pytest.raises(OptionsError, match="1..10000"):
        get_game("catan").parse_options({"turn_limit": "10001"})


@pytest.mark.parametrize(
    "spec",
    [
        "mcts:iterations=-5",
        "mcts:iterations=0",
        "mcts:c=nan",
        "mcts:c=inf",
        "mcts:c=0",
        "mcts:trees=64,iterations=100000000",
        f"mcts:iterations={MAXIMA['iterations'] + 1}",
        "mcts:seconds=1e9",
        "mcts:depth=-1",
        "mcts:iterations=many",
    ],
)
def test_custom_levels_out_of_bounds_are_refused(client, stored_games, spec):
    with pytest.raises(ValueError, match="bad search level"):
        get_level(spec)
    before = stored_games()
    assert "bad search level" in refused(client.create_game, "cite", [f"bot:{spec}", "bot"])
    assert stored_games() == before


def test_custom_levels_at_their_maxima_are_accepted():
    level = get_level(f"mcts:trees={MAXIMA['trees']},iterations={MAXIMA['iterations']},c=2.5")
    assert level.trees == MAXIMA["trees"] and math.isfinite(level.c)


def test_long_inputs_are_refused_and_errors_quote_a_short_prefix(client, stored_games):
    before = stored_games()
    huge = "x" * 100_000
    for seats, options, game in [
        ([f"human:{huge}", "human"], {}, "cite"),
        (["human", "human"], {huge: "1"}, "cite"),
        (["human", "human"], {"round_limit": huge}, "cite"),
        (["human", "human"], {f"k{i}": "1" for i in range(100)}, "cite"),
        (["human", "human"], {}, huge),
    ]:
        details = refused(client.create_game, game, seats, options)
        assert len(details) < 200, details
    assert stored_games() == before


def test_submit_action_fields_out_of_range(client):
    created = client.create_game("cite", ["human", "human"], seed=3)
    me = client.join(created.game_id)
    before = client.state(created.game_id)
    long_notation = "n" * 10_000
    for kwargs in [
        {"action": -7},
        {"action": 0, "seat": 99},
        {"action": long_notation},
        {"action": 0, "request_id": "r" * 1000},
    ]:
        action = kwargs.pop("action")
        details = refused(client.submit, created.game_id, me.token, action, **kwargs)
        assert len(details) < 200, details
    after = client.state(created.game_id)
    assert (after.version, after.last_event_id) == (before.version, before.last_event_id)


def test_event_ids_past_the_newest_are_invalid_arguments(client):
    created = client.create_game("cite", ["human", "human"], seed=4)
    newest = client.state(created.game_id).last_event_id
    for after in [newest + 1, 2**63, 2**64 - 1]:
        with pytest.raises(GameError) as caught:
            next(client.watch(created.game_id, after=after))
        assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT, caught.value
