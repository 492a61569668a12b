"""The embedded default: `gamehost serve` with no flags keeps finished games in a
SQLite file in its data directory, so they outlive the in-memory store across a
restart. A real serving process, stopped and started again."""

from __future__ import annotations

import signal

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from tests.procs import Replica, wait_until


def test_finished_games_survive_a_restart_of_the_embedded_server(tmp_path):
    data = tmp_path / "data"
    env = {"GAMEHOST_DATA_DIR": str(data)}

    def start(name: str) -> Replica:
        return Replica(tmp_path / f"{name}.log", ["--bot-workers", "1"], env).start()

    first = start("first")
    try:
        first.wait_serving()
        with Client(first.target) as client:
            seats = [pb.SeatSpec(kind=pb.BOT, bot_level="random", name=n) for n in ("Kim", "Lu")]
            game_id = client.create_game("cite", seats, seed=9).game_id
            # Seen finished is archived: the embedded store archives a finish before showing it.
            wait_until(
                lambda: [g.status for g in client.list_games(player="Kim")] == [pb.FINISHED],
                120,
                "the game to be archived",
            )
            before = (client.record(game_id, "", include_views=True), client.state(game_id))
            assert before[1].status == pb.FINISHED
        assert (data / "archive.sqlite3").is_file()
        first.process.send_signal(signal.SIGTERM)
        assert first.process.wait(timeout=60) == 0
    finally:
        first.kill_group()

    second = start("second")
    try:
        second.wait_serving()
        with Client(second.target) as client:
            assert (client.record(game_id, "", include_views=True), client.state(game_id)) == before
            assert [g.game_id for g in client.list_games(player="Kim")] == [game_id]
    finally:
        second.kill_group()
