"""Real servers for the ladder's tests: the gRPC server (and HTTP gateway) on free
ports, the archive in a SQLite file of the test's own or a PostgreSQL database made
and dropped for the test (tests/fixtures/databases.py), the store in memory or on Redis
with a prefix of the test's own."""

from __future__ import annotations

import dataclasses
import queue
import time
from collections.abc import Callable, Iterator

import pytest

from gamehost import Client, GameError
from gamehost.v1 import gamehost_pb2 as pb
from services.ladder.model import LadderConfig, LadderSpec
from services.server import ServerConfig, ServerThread
from tests.procs import wait_until

CITE2 = LadderSpec("cite", 2)
# Quick ladders for tests: house levels that decide in-process, short moves, few faults.
QUICK = LadderConfig(
    ladders=(CITE2,),
    house=("random", "greedy"),
    move_seconds=3.0,
    max_faults=4,
    tables=4,
)


def ladder_server(archive_url: str, ladder: LadderConfig = QUICK, **settings) -> ServerThread:
    """A ServerThread (enter it) serving ``ladder`` on an archive made for it."""
    config = ServerConfig(
        port=0,
        bot_workers=1,
        archive_url=archive_url,
        archive_create=True,
        ladder=ladder,
        **settings,
    )
    return ServerThread(config)


@pytest.fixture
def served(archive_url) -> Iterator[tuple[ServerThread, Client]]:
    """(server, client): the in-memory store, the archive on each database in turn."""
    with ladder_server(archive_url, http_port=0) as server, Client(server.target) as client:
        yield server, client


def quick(**changes) -> LadderConfig:
    return dataclasses.replace(QUICK, **changes)


def next_directive(
    directives: queue.Queue, kind: int | None = None, timeout: float = 60
) -> pb.BotDirective:
    """The next directive a connection's reader thread queued (of ``kind``: others
    before it are skipped); an error it queued is raised, its end (None) fails."""
    deadline = time.monotonic() + timeout
    while True:
        item = directives.get(timeout=max(0.1, deadline - time.monotonic()))
        if isinstance(item, Exception):
            raise item
        assert item is not None, "the connection ended"
        if kind is None or item.kind == kind:
            return item


def _house(seat: pb.SeatSpec) -> bool:
    """A house level's seat: a bot with a level (a registered bot's seat shows as a bot
    too, under its name, with no level)."""
    return seat.kind == pb.BOT and bool(seat.bot_level)


def wait_for_house_game(client: Client) -> str:
    """A game of house levels only (no seat of any registered bot), once one is on."""
    return wait_until(
        lambda: next(
            (g.game_id for g in client.list_games() if all(_house(s) for s in g.seats)),
            None,
        ),
        60,
        "a game of house levels",
    )


def answer_codes(reply: Callable[[], object], answers: int = 8) -> list[str]:
    """``reply`` called ``answers`` times at once: "ok", or the status code refusing it."""
    codes = []
    for _ in range(answers):
        try:
            reply()
            codes.append("ok")
        except GameError as exc:
            codes.append(exc.code.name)
    return codes
