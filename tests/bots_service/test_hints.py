"""Move hints (``Hint``) through real servers on both stores and the local search pool:
a hint is the move its level plays for the seat, it sees only the seat's observation,
and every refusal has its own status and changes nothing."""

from __future__ import annotations

import random

import grpc
import pytest

from gamehost import Client, GameError
from gamehost.client import seat_of
from gamehost.v1 import gamehost_pb2 as pb
from services.server import ServerConfig, ServerThread

# A small search, so that a game's worth of hints is quick.
LEVEL = "mcts:trees=2,iterations=40,depth=10"


@pytest.fixture(scope="module", params=["memory", "redis"])
def hint_server(request):
    """A server on each store, hint rate limit off (tests/bots_service/test_hints.py's rate
    test has its own)."""
    config = ServerConfig(port=0, bot_workers=2, hint_rate=0)
    if request.param == "redis":
        config.redis_url = request.getfixturevalue("redis_url")
        config.redis_prefix = request.getfixturevalue("module_prefix")
    with ServerThread(config) as running:
        yield running


@pytest.fixture(scope="module")
def hints(hint_server):
    with Client(hint_server.target) as client:
        yield client


def finish(client: Client, game_id: str) -> pb.GameRecord:
    for _ in client.watch(game_id):
        pass  # the stream ends with the game
    return client.record(game_id)


def refused(call) -> GameError:
    with pytest.raises(GameError) as caught:
        call()
    return caught.value


def fingerprint(client: Client, game_id: str) -> tuple:
    state = client.state(game_id)
    return state.version, state.last_event_id, len(client.record(game_id).entries)


def test_a_hint_is_the_move_its_level_played_for_that_seat(hints):
    """Bots of two levels play a game; afterwards, a hint for each position a bot moved
    in, at that bot's level, names the very move it played (same seed, same view)."""
    # Seeded: an unseeded game could end before a seat's eighth move (CI saw one at 7).
    # This deal lasts 28 and 20 moves (bots decide from the seed and the position).
    created = hints.create_game("cite", [f"bot:{LEVEL}", "bot:random"], seed=1)
    record = finish(hints, created.game_id)
    assert record.status == pb.FINISHED
    levels = {0: LEVEL, 1: "random"}
    checked = {0: 0, 1: 0}
    for entry in record.entries:
        seat = seat_of(entry.actor)
        if seat is None or checked[seat] >= 8:
            continue
        hint = hints.hint(created.game_id, level=levels[seat], version=entry.ply - 1)
        assert (hint.version, hint.seat) == (entry.ply - 1, seat)
        assert (hint.action_id, hint.notation) == (entry.action_id, entry.notation)
        checked[seat] += 1
    assert checked == {0: 8, 1: 8}


def test_a_seat_gets_a_hint_during_the_game_and_the_same_one_after_it(hints):
    created = hints.create_game("cite", ["human", "human"])
    game_id = created.game_id
    tokens = {s: hints.join(game_id, s).token for s in (0, 1)}
    rng = random.Random(3)
    live: dict[int, pb.HintResponse] = {}
    while True:
        state = hints.state(game_id)
        if state.status == pb.FINISHED:
            break
        seat = seat_of(state.to_move)
        legal = hints.legal_actions(game_id, tokens[seat])
        if len(live) < 6 and len(legal) > 1:
            hint = hints.hint(game_id, tokens[seat], LEVEL)
            assert (hint.version, hint.seat, hint.bot_level) == (state.version, seat, LEVEL)
            assert (hint.action_id, hint.notation) in {(a.id, a.notation) for a in legal}
            top = hint.top_actions
            assert 1 <= len(top) <= 5 and (top[0].action_id, top[0].notation) == (
                hint.action_id,
                hint.notation,
            )
            assert [a.visits for a in top] == sorted((a.visits for a in top), reverse=True)
            assert all(0.0 <= a.win_share <= 1.0 for a in top)
            assert (hint.trees, hint.iterations) == (2, 80)
            live[state.version] = hint
        action = rng.choice(legal).id
        hints.submit(game_id, tokens[seat], action, expected_version=state.version)
    assert len(live) == 6
    # Over: anyone (no token) analyses those positions, replayed from the log.
    for version, hint in live.items():
        again = hints.hint(game_id, level=LEVEL, version=version)
        assert again == hint


def test_refusals_during_a_game_have_their_codes_and_change_nothing(hints):
    created = hints.create_game("cite", ["human", "human"])
    game_id = created.game_id
    tokens = {s: hints.join(game_id, s).token for s in (0, 1)}
    state = hints.state(game_id)
    mover = seat_of(state.to_move)
    other = 1 - mover
    before = fingerprint(hints, game_id)
    cases = [
        # A spectator may not ask during a game.
        (lambda: hints.hint(game_id), grpc.StatusCode.PERMISSION_DENIED, "only its seats"),
        # A seat for another seat.
        (
            lambda: hints.hint(game_id, tokens[mover], seat=other),
            grpc.StatusCode.PERMISSION_DENIED,
            f"not seat {other}",
        ),
        # A seat not to move.
        (
            lambda: hints.hint(game_id, tokens[other]),
            grpc.StatusCode.FAILED_PRECONDITION,
            "not your turn",
        ),
        # Bad levels: unknown, malformed, over the server's hint budget.
        (
            lambda: hints.hint(game_id, tokens[mover], "grandmaster"),
            grpc.StatusCode.INVALID_ARGUMENT,
            "unknown bot level",
        ),
        (
            lambda: hints.hint(game_id, tokens[mover], "mcts:trees=0"),
            grpc.StatusCode.INVALID_ARGUMENT,
            "bad search level",
        ),
        (
            lambda: hints.hint(game_id, tokens[mover], "mcts:trees=16,iterations=20000"),
            grpc.StatusCode.INVALID_ARGUMENT,
            "at most 24000",
        ),
        # Bad positions: past the newest version, or an older one while the game runs.
        (
            lambda: hints.hint(game_id, tokens[mover], version=state.version + 1),
            grpc.StatusCode.INVALID_ARGUMENT,
            "past game",
        ),
        (
            lambda: hints.hint(game_id, tokens[mover], version=state.version - 1),
            grpc.StatusCode.ABORTED,
            "stale version",
        ),
        (
            lambda: hints.hint(game_id, tokens[mover], seat=7),
            grpc.StatusCode.INVALID_ARGUMENT,
            "seat 7 does not exist",
        ),
        (
            lambda: hints.hint(game_id, "not-a-token"),
            grpc.StatusCode.UNAUTHENTICATED,
            "not valid",
        ),
        (lambda: hints.hint("0" * 32, tokens[mover]), grpc.StatusCode.NOT_FOUND, "no game"),
        (lambda: hints.hint("nope", tokens[mover]), grpc.StatusCode.INVALID_ARGUMENT, "malformed"),
    ]
    assert state.version >= 1  # the deal is chance: an older version exists
    for call, code, words in cases:
        error = refused(call)
        assert error.code == code, (code, error)
        assert words in error.details, error.details
    assert fingerprint(hints, game_id) == before
    # The seat to move still gets its hint (the default level), and that changes nothing.
    hint = hints.hint(game_id, tokens[mover])
    assert (hint.bot_level, hint.seat, hint.version) == ("mcts-fast", mover, state.version)
    assert fingerprint(hints, game_id) == before


def test_after_the_game_anyone_analyses_any_position_from_the_seat_to_move(hints):
    created = hints.create_game("cite", ["bot:random", "bot:random"])
    game_id = created.game_id
    record = finish(hints, game_id)
    before = fingerprint(hints, game_id)
    seat_moves = [e for e in record.entries if seat_of(e.actor) is not None]
    chance = next(e for e in record.entries if e.to_move.kind == pb.Actor.CHANCE)
    entry = seat_moves[len(seat_moves) // 2]
    seat, version = seat_of(entry.actor), entry.ply - 1
    # Seen from the seat to move there: named, or left to the server.
    named = hints.hint(game_id, level=LEVEL, version=version, seat=seat)
    assert hints.hint(game_id, level=LEVEL, version=version) == named
    assert named.seat == seat and named.notation
    # No token is needed, but a wrong one is refused.
    cases = [
        (
            lambda: hints.hint(game_id, level=LEVEL, version=version, seat=1 - seat),
            grpc.StatusCode.FAILED_PRECONDITION,
            f"seat {seat} is",
        ),
        (
            lambda: hints.hint(game_id, level=LEVEL, version=chance.ply),
            grpc.StatusCode.FAILED_PRECONDITION,
            "chance acts",
        ),
        (
            lambda: hints.hint(game_id, level=LEVEL),  # the final position
            grpc.StatusCode.FAILED_PRECONDITION,
            "the game is over",
        ),
        (
            lambda: hints.hint(game_id, level=LEVEL, version=record.version + 1),
            grpc.StatusCode.INVALID_ARGUMENT,
            "past game",
        ),
        (
            lambda: hints.hint(game_id, "bad-token", LEVEL, version=version),
            grpc.StatusCode.UNAUTHENTICATED,
            "not valid",
        ),
        (
            lambda: hints.hint(game_id, level="mcts:trees=4,seconds=6", version=version),
            grpc.StatusCode.INVALID_ARGUMENT,
            "at most 20 s",
        ),
    ]
    for call, code, words in cases:
        error = refused(call)
        assert error.code == code, (code, error)
        assert words in error.details, error.details
    assert fingerprint(hints, game_id) == before


@pytest.fixture(params=["memory", "redis"])
def limited(request):
    """A server that allows each game two hints and then one an hour."""
    config = ServerConfig(port=0, bot_workers=1, hint_rate=1 / 3600, hint_burst=2)
    if request.param == "redis":
        config.redis_url = request.getfixturevalue("redis_url")
        config.redis_prefix = request.getfixturevalue("redis_prefix")
    with ServerThread(config) as running, Client(running.target) as client:
        yield client


def test_hints_are_rate_limited_per_game(limited):
    games = []
    for _ in range(2):
        game_id = limited.create_game("cite", ["human", "human"]).game_id
        tokens = {s: limited.join(game_id, s).token for s in (0, 1)}
        games.append((game_id, tokens[seat_of(limited.state(game_id).to_move)]))
    (game_id, token), (second_id, second_token) = games
    before = fingerprint(limited, game_id)
    # Refused requests spend nothing.
    assert refused(lambda: limited.hint(game_id, token, "nonsense")).code == (
        grpc.StatusCode.INVALID_ARGUMENT
    )
    for _ in range(2):
        limited.hint(game_id, token, LEVEL)
    error = refused(lambda: limited.hint(game_id, token, LEVEL))
    assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    # One an hour in bursts of two: at most 2 in any 2 hours, counted from the first.
    assert "at most 2 hints in any 7200 s per game" in error.details
    assert "retry in " in error.details and " s" in error.details
    wait = float(error.details.split("retry in ")[1].split(" s")[0])
    assert 7100 < wait <= 7200
    assert fingerprint(limited, game_id) == before
    # Another game has its own allowance.
    assert limited.hint(second_id, second_token, LEVEL).action_id >= 0
