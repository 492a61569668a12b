"""The hand-off of a finished game from the store to the archive (the archiver copies
it into SQL, then the store forgets it) is invisible to clients: a replay from the
start, a record read page by page, a listing and a state read answer the same
whether the game is in the store, copied but not yet forgotten, or forgotten.

A real server (gRPC and the HTTP gateway) on each store and each database. Its own
archiver is held off: the test forces each step of the hand-off with the archiver's
functions, between two reads: between two calls, and, for the reads that walk the
log page by page (a replay, a record), between two of the server's page reads
within one call (the store's pages made small, so a short game has several)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator

import pytest

from gamehost.v1 import gamehost_pb2 as pb
from services.archive import archiver
from services.stores.base import ARCHIVE_GAME
from tests.fixtures.gateway import Served, gateway_config
from tests.procs import wait_until

PAGE = 40  # events a store read returns here (the store's own page is 1,000)
RECORD_PAGE = 25  # GetRecord entries a page


async def _held_off(*args: object, **kwargs: object) -> None:
    """The server's archiver, never archiving: the test moves the game itself."""
    await asyncio.Event().wait()


@pytest.fixture(params=["memory", "redis"])
def served(request, archive_url, monkeypatch) -> Iterator[Served]:
    monkeypatch.setattr(archiver, "archive_forever", _held_off)
    on_redis = request.param == "redis"
    config = gateway_config(
        request.getfixturevalue("redis_url") if on_redis else None,
        request.getfixturevalue("redis_prefix") if on_redis else "gamehost",
        archive_url=archive_url,
        archive_create=True,
    )
    with Served(config) as running:
        yield running


class HandOff:
    """One finished game's hand-off, a step at a time (``step``), and the server's
    store reads of that game's log in small pages; once ``arm``ed, each read of a
    later page first takes the next step."""

    def __init__(self, served: Served, game_id: str) -> None:
        running = served.thread.running
        self.served, self.game_id = served, game_id
        self.store, self.archive = running.store, running.archive
        self.steps: list[Callable[[], Awaitable[object]]] = [self._copy, self._forget]
        self.armed = False
        read = self.store.events

        async def events(game_id: str, after: int = 0, limit: int = 1000) -> list:
            if game_id == self.game_id and after > 0 and self.armed and self.steps:
                await self.steps.pop(0)()
            return await read(game_id, after, min(limit, PAGE))

        self.store.events = events  # this server's store only

    async def _copy(self) -> None:
        assert await archiver.copy_game(self.store, self.archive, self.game_id) is not None

    async def _forget(self) -> None:
        await archiver.archive_entry(self.store, self.archive, f"{ARCHIVE_GAME}:{self.game_id}")

    def step(self) -> None:
        self.served.thread.call(self.steps.pop(0)())

    def done(self) -> bool:
        """Every step taken: the archive holds the game and the store has forgotten it."""

        async def check() -> bool:
            held = await self.archive.held([self.game_id])
            return held == {self.game_id} and await self.store.load(self.game_id) is None

        return not self.steps and self.served.thread.call(check())


def _finished_game(served: Served, seed: int) -> HandOff:
    """A six-seat Cité game of bots played to its end: long enough for several pages
    (over 200 events), and a fifth of a Catan game's."""
    game_id = served.client.create_game("cite", ["bot:random"] * 6, seed=seed).game_id
    wait_until(
        lambda: served.client.state(game_id).status == pb.FINISHED, 300, "the game to finish"
    )
    return HandOff(served, game_id)


def _grpc_replay(served: Served, game_id: str) -> list[pb.GameEvent]:
    return list(served.client.watch(game_id))


def _http_replay(served: Served, game_id: str) -> list[dict]:
    stream = served.http.stream(f"/v1/games/{game_id}/events?afterEventId=0")
    assert stream.status == 200
    events = []
    while (event := stream.next()) is not None:
        if event.name == "game-event":
            events.append(event.json())
    return events


def _grpc_pages(served: Served, game_id: str, token: str = "") -> list[pb.GameRecord]:
    """The record page by page, from the page that ``token`` opens."""
    pages = []
    while True:
        request = pb.GetRecordRequest(game_id=game_id, page_size=RECORD_PAGE, page_token=token)
        pages.append(served.client._stub.GetRecord(request))
        token = pages[-1].next_page_token
        if not token:
            return pages


def _http_pages(served: Served, game_id: str, token: str = "") -> list[dict]:
    pages = []
    while True:
        answer = served.http.get(
            f"/v1/games/{game_id}/record",
            params={"pageSize": str(RECORD_PAGE), **({"pageToken": token} if token else {})},
        )
        assert answer.status == 200, answer.body
        pages.append(answer.json())
        token = pages[-1].get("nextPageToken", "")
        if not token:
            return pages


@pytest.mark.parametrize("over", ["grpc", "http"])
def test_a_replay_from_the_start_is_whole_across_the_hand_off(served, over):
    replay = _grpc_replay if over == "grpc" else _http_replay
    hand_off = _finished_game(served, seed=11)
    before = replay(served, hand_off.game_id)
    assert len(before) > 3 * PAGE  # the replay reads several pages
    hand_off.armed = True  # copied before the second page's read, forgotten before the third
    assert replay(served, hand_off.game_id) == before
    assert hand_off.done()
    assert replay(served, hand_off.game_id) == before


@pytest.mark.parametrize("over", ["grpc", "http"])
def test_record_pages_are_the_same_across_the_hand_off(served, over):
    pages = _grpc_pages if over == "grpc" else _http_pages
    hand_off = _finished_game(served, seed=12)
    before = pages(served, hand_off.game_id)
    assert len(before) >= 3
    hand_off.armed = True  # the first page's call reads the log across both steps
    assert pages(served, hand_off.game_id) == before
    assert hand_off.done()
    # A page token the store's side gave holds once the archive answers.
    token = before[0]["nextPageToken"] if over == "http" else before[0].next_page_token
    assert pages(served, hand_off.game_id, token) == before[1:]


def test_listing_and_state_are_the_same_across_the_hand_off(served):
    """ListGames and GetState, over gRPC and HTTP, before, between and after the two
    steps, finish time included: the commit that finished the game decided it, the
    store lists it, and the archive keeps it when it copies the game."""
    hand_off = _finished_game(served, seed=13)
    game_id = hand_off.game_id

    def read() -> tuple:
        listed = served.client.list_games()
        assert [g.game_id for g in listed] == [game_id]  # never missing, never twice
        summary = listed[0]
        state = served.client.state(game_id)
        assert summary.version == state.version > 0
        assert list(summary.returns) == list(state.returns) != []  # who won (issue 60)
        http_listed = served.http.get("/v1/games").json()["games"]
        assert [g["gameId"] for g in http_listed] == [game_id]
        http_state = served.http.get(f"/v1/games/{game_id}").json()
        assert http_listed[0]["version"] == http_state["version"] == str(state.version)
        # Time bounds find it by that same instant, wherever it is.
        second = int(summary.finished_at)  # the bounds are whole seconds
        bounded = served.client.list_games(finished_after=second, finished_before=second + 1)
        assert [g.game_id for g in bounded] == [game_id]
        assert served.client.list_games(finished_before=second) == []
        return summary, json.dumps(http_listed), state, http_state

    before = read()
    assert before[0].finished_at > 0 and before[0].HasField("finished_time")
    assert json.loads(before[1])[0]["finishedTime"].endswith("Z")
    hand_off.step()  # copied into the archive; the store still has it
    assert read() == before
    hand_off.step()  # forgotten by the store
    assert hand_off.done()
    assert read() == before
