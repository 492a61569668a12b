"""A slow client's replay of a long game, opened the moment it finishes, on the default
`gamehost serve` (in-memory store, SQLite archive): the archiver moves the game to
the archive while the replay is still being read, and the replay still gets every
event up to GAME_FINISHED. The client is a browser's or Node.js's kind: a small
receive window, reading in bursts with pauses (which only slow it down)."""

from __future__ import annotations

import time

import grpc
import pytest

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from tests.procs import Replica

RUNS = 20
SEED = 4  # four random bots on this seed play a Catan game of 2,364 events
BURST = 20  # messages read between two pauses
PAUSE = 0.03  # seconds: about 1.5 s a thousand events, slower than the archiver

# Flow control as a slow client keeps it: a small window, no growing it.
_SLOW = [("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0)]


def _slow_replay(target: str, game_id: str) -> list[pb.GameEvent]:
    with grpc.insecure_channel(target, options=_SLOW) as channel:
        stream = pb_grpc.GameHostStub(channel).WatchGame(
            pb.WatchGameRequest(game_id=game_id, after_event_id=0)
        )
        events = []
        for event in stream:
            events.append(event)
            if len(events) % BURST == 0:
                time.sleep(PAUSE)  # paused, then resumed: a slow reader, nothing awaited
        return events


@pytest.mark.slow  # 20 Catan games of 2,364 events, each replayed slowly
def test_a_slow_replay_opened_at_the_finish_gets_every_event(tmp_path):
    server = Replica(
        tmp_path / "serve.log", ["--bot-workers", "1"], {"GAMEHOST_DATA_DIR": str(tmp_path)}
    )
    server.start()
    try:
        server.wait_serving()
        with Client(server.target) as client:
            for run in range(RUNS):
                game_id = client.create_game("catan", ["bot:random"] * 4, seed=SEED).game_id
                live = list(client.watch(game_id))  # followed to its end
                assert live[-1].kind == pb.GAME_FINISHED
                events = _slow_replay(server.target, game_id)
                ids = [e.event_id for e in events]
                assert ids == list(range(1, len(live) + 1)), f"run {run}: {len(ids)} events"
                assert len(ids) > 2000 and events[-1].kind == pb.GAME_FINISHED
    finally:
        server.kill_group()
