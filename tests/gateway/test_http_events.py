"""Server-sent event streams of the gateway (memory and Redis): live events as they
happen, resumed after Last-Event-ID or ?afterEventId=, heartbeats while idle, an
``end`` message when the game is over, refusals as HTTP errors, and nothing left
subscribed once the browser goes away."""

from __future__ import annotations

import itertools
import json

import aiohttp
import grpc
import pytest

from gamehost.v1 import gamehost_pb2 as pb
from services.gateway.app import GatewayConfig, HttpGateway
from services.gateway.calls import Dispatcher
from services.observe.grpc_metrics import PrometheusServerInterceptor
from tests.fixtures.gateway import ZERO_GAME, Served, as_json, gateway_config, two_humans
from tests.procs import wait_until


@pytest.fixture(scope="module", params=["memory", "redis"])
def served(request):
    redis_url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    prefix = request.getfixturevalue("module_prefix") if redis_url else "gamehost"
    with Served(gateway_config(redis_url, prefix)) as served:
        yield served


def play_one(served, game_id: str, tokens: tuple[str, str]) -> pb.SubmitActionResponse:
    """One move by whoever is to move, through gRPC."""
    state = served.client.state(game_id)
    token = tokens[state.to_move.seat]
    action = served.client.state(game_id, token).legal_actions[0].id
    return served.client.submit(game_id, token, action)


def test_a_stream_delivers_live_events_with_their_ids(served):
    game_id, *tokens = two_humans(served.http)
    stream = served.http.stream(f"/v1/games/{game_id}/events?token={tokens[0]}")
    assert stream.status == 200
    assert stream.headers["Content-Type"].startswith("text/event-stream")
    assert stream.headers["Cache-Control"] == "no-cache"
    newest = served.client.state(game_id).last_event_id
    replayed = stream.events("game-event", newest)  # the log so far, from the start
    kinds = [e.json()["kind"] for e in replayed]
    # Cité's set-up chance outcome, then the created game, then the two seats joined.
    assert kinds[:2] == ["ACTION", "GAME_CREATED"] and kinds.count("SEAT_JOINED") == 2
    assert [int(e.id) for e in replayed] == list(range(1, newest + 1))
    assert [e.id for e in replayed] == [e.json()["eventId"] for e in replayed]
    done = play_one(served, game_id, tokens)  # another client, through gRPC
    live = stream.events("game-event", 1)[0].json()
    assert live["kind"] == "ACTION" and int(live["eventId"]) > int(replayed[-1].id)
    while int(live["version"]) < done.version:  # chance outcomes follow the move
        live = stream.events("game-event", 1)[0].json()
    assert int(live["version"]) == done.version
    stream.close()


def test_a_stream_resumes_after_last_event_id_or_after_event_id(served):
    game_id, *tokens = two_humans(served.http)
    play_one(served, game_id, tokens)
    full = served.http.stream(f"/v1/games/{game_id}/events")
    first = full.events("game-event", 4)
    full.close()
    ids = [int(e.id) for e in first]
    # An EventSource reconnects to its first URL with Last-Event-ID: the header wins.
    resumed = served.http.stream(
        f"/v1/games/{game_id}/events?afterEventId=0", headers={"Last-Event-ID": str(ids[1])}
    )
    assert int(resumed.events("game-event", 1)[0].id) == ids[2]
    resumed.close()
    by_query = served.http.stream(f"/v1/games/{game_id}/events?afterEventId={ids[2]}")
    assert int(by_query.events("game-event", 1)[0].id) == ids[3]
    by_query.close()


def test_an_idle_stream_sends_heartbeats(served):
    game_id, *tokens = two_humans(served.http)
    newest = served.client.state(game_id).last_event_id
    stream = served.http.stream(f"/v1/games/{game_id}/events?afterEventId={newest}")
    assert stream.status == 200  # opened with nothing to send yet
    beats = stream.events("comment", 2, timeout=10)
    assert all(b.comments == ["keep-alive"] for b in beats)
    stream.close()


def test_a_finished_game_stream_ends_with_an_end_message(served):
    created = served.http.post(
        "/v1/games",
        {
            "gameType": "cite",
            "seats": [{"kind": "BOT", "botLevel": "random"}] * 2,
            "seed": "4",
            "options": {"round_limit": "1"},
        },
    ).json()
    game_id = created["gameId"]
    wait_until(lambda: served.client.state(game_id).status == pb.FINISHED, 60, "the bots' game")
    messages = served.http.stream(f"/v1/games/{game_id}/events").read_all()
    events = [m for m in messages if m.name == "game-event"]
    assert events[-1].json()["kind"] == "GAME_FINISHED"
    assert messages[-1].name == "end"
    assert [int(e.id) for e in events] == sorted(int(e.id) for e in events)
    past_end = served.http.stream(
        f"/v1/games/{game_id}/events", headers={"Last-Event-ID": events[-1].id}
    )
    assert [m.name for m in past_end.read_all() if m.name != "retry"] == ["end"]


def test_refused_streams_are_http_errors(served):
    game_id, *_ = two_humans(served.http)
    unknown = served.http.get(f"/v1/games/{ZERO_GAME}/events")
    assert unknown.status == 404 and unknown.json()["error"]["code"] == "NOT_FOUND"
    past = served.http.get(f"/v1/games/{game_id}/events", params={"afterEventId": "999"})
    assert past.status == 400 and past.json()["error"]["code"] == "INVALID_ARGUMENT"
    bad_token = served.http.get(f"/v1/games/{game_id}/events", params={"token": "x" * 20})
    assert bad_token.status == 401
    tournament = served.http.get("/v1/tournaments/nobody/events")
    assert tournament.status == 404


@pytest.fixture(params=["memory", "redis"])
def quiet(request):
    """A server whose streams send no heartbeat for minutes: a stream must end when the
    browser goes, not when a write to it next fails."""
    redis_url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    prefix = request.getfixturevalue("redis_prefix") if redis_url else "gamehost"
    with Served(gateway_config(redis_url, prefix, http_heartbeat=600)) as served:
        yield served


def test_closed_streams_leave_no_subscriber(quiet):
    served = quiet
    hub = served.thread.running.host.hub
    games = [two_humans(served.http, seed=s)[0] for s in range(3)]
    streams = [served.http.stream(f"/v1/games/{games[i % 3]}/events") for i in range(12)]
    for stream in streams:
        assert stream.events("game-event", 1)[0].json()["eventId"] == "1"  # the log, replayed
    wait_until(lambda: hub.subscribers == 12 and hub.games == 3, 10, "12 subscribers")
    for stream in streams:
        stream.close()
    wait_until(
        lambda: hub.subscribers == 0 and hub.games == 0 and not hub.reading,
        10,
        "the hub to drop every subscriber once the browsers went away",
    )
    # The hub lets go inside each stream's handler, which then still has to finish.
    gateway = served.thread.running.http
    wait_until(lambda: not gateway._streams, 10, "the gateway to forget every closed stream")


async def test_a_failure_after_the_stream_started_is_an_rpc_error_message():
    """A stand-in WatchGame (behind the real metrics interceptor) that fails after one
    event: the store cannot be made to fail mid-stream on purpose (the hub retries)."""

    async def watch(request, context):
        yield pb.GameEvent(event_id=1, kind=pb.GAME_CREATED)
        await context.abort(grpc.StatusCode.UNAVAILABLE, "the store went away; retry")

    handlers = {"WatchGame": grpc.unary_stream_rpc_method_handler(watch)}
    gateway = HttpGateway(Dispatcher(handlers, [PrometheusServerInterceptor()]), GatewayConfig())
    port = await gateway.start("127.0.0.1", 0)
    try:
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"http://127.0.0.1:{port}/v1/games/{ZERO_GAME}/events") as answer,
        ):
            assert answer.status == 200
            text = (await answer.read()).decode()
    finally:
        await gateway.stop()
    blocks = [b for b in text.split("\n\n") if b]
    assert blocks[1].startswith("id: 1\nevent: game-event\n")
    assert blocks[2].startswith("event: rpc-error\ndata: ")
    error = json.loads(blocks[2].split("data: ", 1)[1])
    assert error == {"error": {"code": "UNAVAILABLE", "message": "the store went away; retry"}}


def test_a_seat_streams_exactly_the_events_grpc_streams_it(served):
    """Hidden draws stay hidden: the stream is WatchGame's, redacted for the caller."""
    game_id, *tokens = two_humans(served.http, seed=13)
    for _ in range(6):
        play_one(served, game_id, tokens)
    newest = served.client.state(game_id).last_event_id
    hidden = {}
    for token in ("", *tokens):
        stream = served.http.stream(f"/v1/games/{game_id}/events?token={token}")
        sent = [e.json() for e in stream.events("game-event", newest)]
        stream.close()
        live = served.client.watch(game_id, token)
        expected = [as_json(e) for e in itertools.islice(live, newest)]
        live.close()
        assert sent == expected
        hidden[token] = [e for e in sent if e["hidden"]]
    assert hidden[""], "a spectator is dealt no card: some events are hidden from it"
    assert all(e["actionId"] == -1 and "?" in e["notation"] for e in hidden[""])
