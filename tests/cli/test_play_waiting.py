"""``gamehost play`` while a bot's turn waits for a search worker, then searches.

GetState's ``bot_status`` is the only place that says a worker took the turn (no event
marks it), so the waiting line must read it again: a bot queued behind other games'
searches would otherwise say "waits for a free search worker…" until it has moved.
The client here is a stand-in with GetState and WatchGame only, so the moment the
status turns is under the test's control.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator

from gamehost.client import Seat
from gamehost.play import _Game, _Screen
from gamehost.v1 import gamehost_pb2 as pb

GIVE_UP = 20.0  # seconds the stand-in waits for a read that shows the bot thinking


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True  # the status line is drawn for terminals only


class _QueuedBotServer:
    """Seat 1 (a bot) to move at version 5: waiting for capacity on the first two reads,
    thinking from the third; its move is streamed once a read has shown it thinking
    (or after ``GIVE_UP`` seconds, so a client that never reads again still ends)."""

    def __init__(self) -> None:
        self.reads = 0
        self.seen_thinking = threading.Event()

    def state(self, game_id: str, token: str = "") -> pb.GameState:
        self.reads += 1
        thinking = self.reads > 2
        if thinking:
            self.seen_thinking.set()
        return pb.GameState(
            game_id=game_id,
            version=5,
            status=pb.IN_PROGRESS,
            to_move=pb.Actor(kind=pb.Actor.SEAT, seat=1),
            bot_status=pb.BOT_THINKING if thinking else pb.BOT_WAITING_FOR_CAPACITY,
        )

    def watch(self, game_id: str, token: str) -> Iterator[pb.GameEvent]:
        self.seen_thinking.wait(GIVE_UP)
        yield pb.GameEvent(
            kind=pb.ACTION,
            version=6,
            actor=pb.Actor(kind=pb.Actor.SEAT, seat=1),
            notation="levy",
        )


def test_the_waiting_line_turns_to_thinking_when_a_worker_takes_the_turn() -> None:
    server = _QueuedBotServer()
    out = _Terminal()
    game = _Game(server, Seat("g1", 0, "t0"), "cite", _Screen(out), read=input)  # type: ignore[arg-type]
    game.wait_for_others(server.state("g1", "t0"))

    shown = out.getvalue()
    assert "seat 1 (bot) waits for a free search worker…" in shown, shown
    assert "seat 1 (bot) thinking…" in shown, shown
    assert shown.index("waits for a free search worker") < shown.index("thinking…")
    assert shown.index("thinking…") < shown.index("[seat 1] levy")
    assert server.seen_thinking.is_set()
