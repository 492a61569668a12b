"""The contract's rough edges (issue 27): one version number for a created game, and
records read page by page (GetRecord's page_size / page_token), by the client library
and the CLI on their own."""

from __future__ import annotations

import json
import random
from pathlib import Path

import grpc
import pytest

from gamehost import cli
from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from services.api.record_pages import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE
from tests.fixtures.gateway import Served, gateway_config

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def served():
    with Served(gateway_config(None, "gamehost", rate_limit=0, failed_auth_rate=0)) as served:
        yield served


@pytest.mark.parametrize("game_type, players", [("cite", 2), ("catan", 3), ("endeavor", 3)])
def test_game_created_has_the_version_create_game_answers(served, game_type, players):
    """Cité rolls at set-up (a chance outcome): its created game is at version 1, and so
    is its GAME_CREATED event, which follows the set-up's outcomes (the record's first
    entries, as the stream's first ACTION events)."""
    created = served.client.create_game(game_type, ["human"] * players, seed=5)
    me = served.client.join(created.game_id, seat=0)
    watch = served.client.watch(created.game_id, me.token)
    before = []
    while (made := next(watch)).kind != pb.GAME_CREATED:
        before.append(made)
    watch.close()
    assert made.version == created.state.version
    assert made.to_move == created.state.to_move
    assert [e.version for e in before] == list(range(1, created.state.version + 1))
    assert all(e.kind == pb.ACTION and e.actor.kind == pb.Actor.CHANCE for e in before)
    record = served.client.record(created.game_id)
    assert [e.ply for e in record.entries] == [e.version for e in before]
    assert record.initial_to_move.kind == (pb.Actor.CHANCE if before else pb.Actor.SEAT)
    if game_type == "cite":
        assert created.state.version >= 1  # what made the two numbers differ
    # Over HTTP, the stream says the same.
    stream = served.http.stream(f"/v1/games/{created.game_id}/events?token={me.token}")
    events = [e.json() for e in stream.events("game-event", len(before) + 1)]
    stream.close()
    assert events[-1]["kind"] == "GAME_CREATED"
    assert events[-1]["version"] == str(created.state.version)


def test_a_replay_and_its_record_keep_every_set_up_outcome(served):
    """The folded set-up outcomes still replay: views from the record match GetState."""
    created = served.client.create_game("cite", ["human", "human"], seed=9)
    record = served.client.record(created.game_id, include_views=True)
    assert len(record.entries) == created.state.version
    assert record.entries[-1].view.cite == served.client.state(created.game_id).cite


# ---------------------------------------------------------------------- record pages
@pytest.fixture(scope="module")
def long_game(served):
    """A Catan game of three people, 560 random moves in, with seat changes (away and
    back) at two points: (game id, tokens)."""
    client = served.client
    created = client.create_game("catan", ["human"] * 3, seed=4)
    game_id = created.game_id
    tokens = [client.join(game_id, seat=s).token for s in range(3)]
    rng = random.Random(4)
    for move in range(560):
        state = client.state(game_id)
        if move in (120, 400):  # a seat not to move goes away and comes back
            other = tokens[(state.to_move.seat + 1) % 3]
            client.hand_over(game_id, other, "random")
            client.take_back(game_id, other)
            state = client.state(game_id)
        token = tokens[state.to_move.seat]
        actions = client.state(game_id, token).legal_actions
        client.submit(game_id, token, rng.choice(actions).id, expected_version=state.version)
    return game_id, tokens


def _pages(stub, request: pb.GetRecordRequest) -> list[pb.GameRecord]:
    pages = [stub.GetRecord(request)]
    while pages[-1].next_page_token:
        request.page_token = pages[-1].next_page_token
        pages.append(stub.GetRecord(request))
    return pages


def test_a_record_comes_in_pages_that_join_into_the_whole(served, long_game):
    game_id, tokens = long_game
    stub = pb_grpc.GameHostStub(served.channel)  # gRPC's default 4 MiB receive limit
    whole = served.thread.call(served.thread.running.host.reading.record(game_id, tokens[0], True))
    assert len(whole.entries) > MAX_PAGE_SIZE + 60 and len(whole.seat_changes) == 4
    request = pb.GetRecordRequest(
        game_id=game_id, token=tokens[0], include_views=True, page_size=97
    )
    pages = _pages(stub, request)
    assert [len(p.entries) for p in pages[:-1]] == [97] * (len(pages) - 1)
    assert sum(len(p.entries) for p in pages) == len(whole.entries)
    assert pages[0].HasField("initial_view") and pages[0].initial_state
    assert not any(p.HasField("initial_view") or p.initial_state for p in pages[1:])
    assert not pages[-1].next_page_token
    entries = [e for p in pages for e in p.entries]
    assert [e.ply for e in entries] == [e["version"] for e in whole.entries]
    assert all(e.HasField("view") for e in entries)
    # Each seat change comes on the page of the first entry after it.
    changes = [(p_index, c) for p_index, p in enumerate(pages) for c in p.seat_changes]
    assert [c.version for _, c in changes] == [c["version"] for c in whole.seat_changes]
    for index, change in changes:
        assert pages[index].entries[-1].ply > change.version
        assert index == 0 or pages[index - 1].entries[-1].ply < change.version
    # The client library reads them all on its own, as one record.
    joined = served.client.record(game_id, tokens[0], include_views=True, page_size=97)
    assert list(joined.entries) == entries and not joined.next_page_token
    assert list(joined.seat_changes) == [c for _, c in changes]
    assert joined == served.client.record(game_id, tokens[0], include_views=True)


def test_page_sizes_have_a_default_and_a_maximum(served, long_game):
    game_id, _ = long_game
    stub = pb_grpc.GameHostStub(served.channel)
    default = stub.GetRecord(pb.GetRecordRequest(game_id=game_id))
    assert len(default.entries) == DEFAULT_PAGE_SIZE == 250 and default.next_page_token
    most = stub.GetRecord(pb.GetRecordRequest(game_id=game_id, page_size=10**6))
    assert len(most.entries) == MAX_PAGE_SIZE == 500 and most.next_page_token


def test_bad_page_tokens_are_invalid_arguments(served, long_game):
    game_id, _ = long_game
    stub = pb_grpc.GameHostStub(served.channel)
    token = stub.GetRecord(pb.GetRecordRequest(game_id=game_id, page_size=5)).next_page_token
    other = served.client.create_game("cite", ["human", "human"]).game_id
    for request in (
        pb.GetRecordRequest(game_id=game_id, page_token="garbage"),
        pb.GetRecordRequest(game_id=game_id, page_token=token, include_views=True),
        pb.GetRecordRequest(game_id=other, page_token=token),
    ):
        with pytest.raises(grpc.RpcError) as caught:
            stub.GetRecord(request)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert caught.value.details().startswith("page_token: ")
    answer = served.http.get(f"/v1/games/{game_id}/record", params={"pageToken": "garbage"})
    assert answer.status == 400 and answer.json()["error"]["field"] == "pageToken"


def test_http_pages_with_page_size_and_page_token(served, long_game):
    game_id, _ = long_game
    first = served.http.get(f"/v1/games/{game_id}/record", params={"pageSize": "3"}).json()
    assert len(first["entries"]) == 3 and first["nextPageToken"]
    second = served.http.get(
        f"/v1/games/{game_id}/record",
        params={"pageSize": "3", "pageToken": first["nextPageToken"]},
    ).json()
    assert [e["ply"] for e in second["entries"]] == [
        str(e.ply) for e in served.client.record(game_id).entries[3:6]
    ]


def test_the_record_command_pages_on_its_own(served, long_game, capsys):
    game_id, _ = long_game
    assert cli.main(["record", game_id, "--target", served.thread.target, "--page-size", "40"]) == 0
    printed = json.loads(capsys.readouterr().out)
    whole = served.client.record(game_id)
    assert [e["ply"] for e in printed["entries"]] == [str(e.ply) for e in whole.entries]
    assert len(printed["seatChanges"]) == 4 and "nextPageToken" not in printed


# ---------------------------------------------------------------------- legal actions
def _stream(client, game_id: str, token: str, count: int) -> list[pb.GameEvent]:
    watch = client.watch(game_id, token)
    events = [next(watch) for _ in range(count)]
    watch.close()
    return events


def test_legal_actions_ride_only_on_the_documented_events(served):
    """docs/api.md and docs/http-api.md say which events carry legal actions: a seat's
    stream, a running game, the event leaves that seat to move and is the newest."""
    for doc, words in (
        ("docs/api.md", "An event carries the caller's\n`legal_actions`"),
        ("docs/http-api.md", "**Legal actions ride on one event.**"),
    ):
        text = (ROOT / doc).read_text()
        assert words in text and "GAME_FINISHED` never does" in text, doc
    client = served.client
    created = client.create_game("cite", ["human", "human"], seed=3)
    game_id = created.game_id
    tokens = [client.join(game_id, seat=s).token for s in (0, 1)]
    for _ in range(4):
        state = client.state(game_id)
        token = tokens[state.to_move.seat]
        client.submit(game_id, token, client.legal_actions(game_id, token)[0].id)
    state = client.state(game_id)
    mover, waiter = tokens[state.to_move.seat], tokens[1 - state.to_move.seat]
    events = _stream(client, game_id, mover, state.last_event_id)
    # Replayed events whose position has moved on carry none; the newest carries them.
    assert [e.event_id for e in events if e.legal_actions] == [state.last_event_id]
    assert list(events[-1].legal_actions) == client.legal_actions(game_id, mover)
    for token in (waiter, ""):  # the seat not to move, and a spectator
        assert not any(e.legal_actions for e in _stream(client, game_id, token, len(events)))
