"""What the fault tests share: a ledger of acknowledged human actions (to show none
is lost or applied twice) and a watch on a game's progress (to time the resume)."""

from __future__ import annotations

import re
import time
import uuid
from dataclasses import dataclass, field

from gamehost import Client
from gamehost.client import GameError
from gamehost.v1 import gamehost_pb2 as pb
from tests.procs import Worker, wait_until

# A bot level whose decision is a real search of about half a second on one core.
SEARCHING_BOT = "bot:mcts:trees=1,iterations=1500,depth=30"


@dataclass
class Ledger:
    """A two-seat all-human Cité game played by the test through whichever replica
    answers; every acknowledged action is kept to compare with the final record."""

    targets: list[str]
    game_id: str = ""
    tokens: dict[int, str] = field(default_factory=dict)
    acked: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        with Client(self.targets[0], timeout=5) as client:
            self.game_id = client.create_game("cite", ["human", "human"], seed=3).game_id
            for seat in (0, 1):
                self.tokens[seat] = client.join(self.game_id, seat).token

    def play(self, moves: int, deadline_s: float = 60) -> None:
        """Make ``moves`` acknowledged moves, retrying each (same request id) on any
        replica until one acknowledges it."""
        for _ in range(moves):
            request_id = uuid.uuid4().hex
            deadline = time.monotonic() + deadline_s
            while True:
                target = self.targets[0]
                try:
                    with Client(target, timeout=3, retries=0) as client:
                        state = client.state(self.game_id)
                        if state.status == pb.FINISHED:
                            return
                        seat = state.to_move.seat
                        token = self.tokens[seat]
                        legal = client.state(self.game_id, token).legal_actions
                        reply = client.submit(
                            self.game_id, token, legal[0].id, request_id=request_id
                        )
                    # A duplicate answer is this move's first acknowledgement too: the
                    # earlier try was applied but its answer was lost with its replica.
                    self.acked.append(reply.notation)
                    break
                except GameError:
                    self.targets.append(self.targets.pop(0))  # try the next replica
                    assert time.monotonic() < deadline, "no replica took the move"
                    time.sleep(0.1)

    def check(self, target: str) -> None:
        """Every acknowledged action is in the record exactly once, in order."""
        with Client(target, timeout=5) as client:
            record = client.record(self.game_id, self.tokens[0])
        played = [e.notation for e in record.entries if e.actor.kind == pb.Actor.SEAT]
        assert played == self.acked, (played, self.acked)


def version(target: str, game_id: str) -> int:
    with Client(target, timeout=3, retries=0) as client:
        return client.state(game_id).version


def time_to_move(
    target: str, game_id: str, since: int, timeout: float, started: float | None = None
) -> float:
    """Seconds from ``started`` (default: now) until the game's version passes ``since``."""
    started = time.monotonic() if started is None else started

    def moved() -> bool:
        try:
            return version(target, game_id) > since
        except GameError:
            return False

    wait_until(moved, timeout, f"game {game_id} to move past version {since}")
    return time.monotonic() - started


def busy(worker: Worker) -> bool:
    """The worker (started with ``--loglevel INFO``) has received a search it has not
    finished."""
    log = worker.output()
    received = len(re.findall(r"gamehost\.search\[\S+\] received", log))
    done = len(re.findall(r"gamehost\.search\[\S+\] (succeeded|raised)", log))
    return received > done
