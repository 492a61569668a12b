"""WatchGame on both stores: streams end after the game's end (also when resumed past
it), a finished game is revealed exactly as GetRecord reveals it, ``after_event_id``
is validated, and closed streams leave nothing behind in the replica."""

from __future__ import annotations

import gc

import grpc
import pytest

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from services.server import ServerConfig, ServerThread
from tests.procs import wait_until

DEADLINE = 30  # seconds; a stream that should end but hangs fails instead of blocking


@pytest.fixture(scope="module", params=["memory", "redis"])
def served(request):
    redis_url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    prefix = request.getfixturevalue("module_prefix") if redis_url else "gamehost"
    config = ServerConfig(port=0, redis_url=redis_url, redis_prefix=prefix, bot_workers=1)
    with (
        ServerThread(config) as server,
        Client(server.target) as client,
        grpc.insecure_channel(server.target) as channel,
    ):
        yield server, client, pb_grpc.GameHostStub(channel)


def watch(stub, game_id: str, token: str = "", after: int = 0) -> list[pb.GameEvent]:
    """Every event the stream sends until the server ends it (within DEADLINE)."""
    request = pb.WatchGameRequest(game_id=game_id, token=token, after_event_id=after)
    return list(stub.WatchGame(request, timeout=DEADLINE))


def refused(stub, game_id: str, after: int, token: str = "") -> str:
    with pytest.raises(grpc.RpcError) as caught:
        watch(stub, game_id, token, after)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, caught.value
    return caught.value.details()


def play_out(client, stub) -> tuple[str, str, list[pb.GameEvent]]:
    """A short Cité game, seat 0 played here against a random bot, watched live from
    its start by seat 0; returns (game id, seat 0's token, the live stream's events)."""
    created = client.create_game(
        "cite", ["human", "bot:random"], seed=5, options={"round_limit": 1}
    )
    me = client.join(created.game_id, seat=0)
    request = pb.WatchGameRequest(game_id=created.game_id, token=me.token)
    live = stub.WatchGame(request, timeout=DEADLINE)
    seen: list[pb.GameEvent] = []
    state = client.state(created.game_id, me.token)
    while state.status != pb.FINISHED:
        if state.legal_actions:
            client.submit(created.game_id, me.token, state.legal_actions[0].id)
        else:  # the bot is to move: wait for the stream to show something new
            seen.append(next(live))
        state = client.state(created.game_id, me.token)
    seen.extend(live)  # the stream must end by itself after GAME_FINISHED
    return created.game_id, me.token, seen


@pytest.fixture(scope="module")
def finished_game(served):
    _, client, stub = served
    return play_out(client, stub)


def test_a_live_stream_ends_after_game_finished(finished_game):
    _, _, live = finished_game
    kinds = [e.kind for e in live]
    assert kinds[-1] == pb.GAME_FINISHED and kinds.count(pb.GAME_FINISHED) == 1
    assert any(e.hidden for e in live), "while it runs, seat 0 may not see the bot's draws"


def test_resumed_at_or_past_the_end_closes_at_once(served, finished_game):
    _, _, stub = served
    game_id, token, _ = finished_game
    log = watch(stub, game_id, token)
    end = log[-1]
    assert end.kind == pb.GAME_FINISHED
    assert watch(stub, game_id, token, after=end.event_id) == []
    assert watch(stub, game_id, after=end.event_id + 1) == []
    assert watch(stub, game_id, after=2**64 - 1) == []
    assert watch(stub, game_id, token, after=log[-2].event_id) == [end]


def test_a_finished_game_is_revealed_as_its_record_reveals_it(served, finished_game):
    _, client, stub = served
    game_id, token, _ = finished_game
    for viewer in ("", token):  # a spectator and seat 0 see the same complete log
        record = client.record(game_id, viewer)
        replay = [e for e in watch(stub, game_id, viewer) if e.kind == pb.ACTION]
        assert [
            (e.actor, list(e.audience), e.to_move, e.hidden, e.action_id, e.notation)
            for e in replay
        ] == [
            (e.actor, list(e.audience), e.to_move, e.hidden, e.action_id, e.notation)
            for e in record.entries
        ]
        assert not any(e.hidden for e in replay)


def test_event_ids_compare_as_numbers_past_nine(served, finished_game):
    """Ids are uint64 and resume by number: after 9 come 10, 11... (as strings, "9-0"
    sorted after "10-0")."""
    _, _, stub = served
    game_id, token, _ = finished_game
    log = watch(stub, game_id, token)
    ids = [e.event_id for e in log]
    assert len(ids) > 12 and ids == sorted(set(ids))
    assert [e.event_id for e in watch(stub, game_id, token, after=9)] == [i for i in ids if i > 9]
    assert watch(stub, game_id, token, after=9)[0].event_id == 10


def test_an_event_id_past_a_running_game_is_invalid_argument(served):
    _, client, stub = served
    game = client.create_game("cite", ["human", "human"], seed=8)
    newest = client.state(game.game_id).last_event_id
    for after in (newest + 1, 2**64 - 1):
        details = refused(stub, game.game_id, after)
        assert "past this game's newest event" in details and len(details) < 200
    assert client.state(game.game_id).last_event_id == newest


@pytest.fixture
def no_garbage_collector():
    """Cycles are not collected: what a closed stream holds must be freed by the server
    itself, not by the garbage collector whenever it happens to run."""
    gc.disable()
    yield
    gc.enable()


def test_closed_streams_leave_no_subscriber_or_reader(served, no_garbage_collector):
    server, client, stub = served
    hub = server.running.host.hub
    games = [client.create_game("cite", ["human", "human"], seed=s).game_id for s in range(3)]
    calls = [stub.WatchGame(pb.WatchGameRequest(game_id=games[i % 3])) for i in range(30)]
    for call in calls:
        assert next(call).event_id == 1  # served: it replays the log first
    wait_until(lambda: hub.subscribers == 30 and hub.games == 3, 10, "30 subscribers")
    assert hub.reading
    for call in calls:
        call.cancel()
    wait_until(
        lambda: hub.subscribers == 0 and hub.games == 0 and not hub.reading,
        10,
        "the hub to drop every subscriber and stop its reader",
    )
