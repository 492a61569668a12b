"""The name a player joins with (JoinGame's ``name``) names its seat everywhere the
seat is shown: GetState, ListGames' player filter (live and archived), the record's
seat changes and the export; over gRPC and over the HTTP gateway. A real server with
a SQLite archive, on the in-memory store and on Redis."""

from __future__ import annotations

import json

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from services.server import ServerConfig, ServerThread
from tests.fixtures.gateway import Served, gateway_config
from tests.procs import wait_until


def test_a_name_given_to_join_game_names_the_seat_until_the_export(tmp_path):
    config = ServerConfig(
        port=0,
        http_port=0,
        bot_workers=1,
        archive_url=f"sqlite:///{tmp_path / 'archive.sqlite3'}",
        archive_create=True,
    )
    with ServerThread(config) as server, Client(server.target) as client:
        game_id = client.create_game("cite", ["human", "bot:random"], seed=5).game_id
        me = client.join(game_id, name="pyclient")
        assert client.state(game_id).seats[me.seat].name == "pyclient"
        assert [g.game_id for g in client.list_games(player="pyclient")] == [game_id]
        # Away: a bot plays the seat to the end, under the player's name.
        client.hand_over(game_id, me.token, "random")
        wait_until(
            lambda: client.list_games(player="pyclient", status=pb.FINISHED),
            120,
            "the game archived under the player's name",
        )
        assert client.state(game_id).seats[me.seat].name == "pyclient"
        away = client.record(game_id).seat_changes[0]
        assert away.reason == pb.SeatChange.AWAY and away.now.name == "pyclient"
        (line,) = [json.loads(x) for x in client.export_games(player="pyclient")]
        assert line["game_id"] == game_id and line["seats"][me.seat]["name"] == "pyclient"


def test_a_name_given_to_the_http_join_names_the_seat_and_no_name_leaves_it_empty(
    redis_url, redis_prefix
):
    with Served(gateway_config(redis_url, redis_prefix)) as served:
        http = served.http
        created = http.post(
            "/v1/games", {"gameType": "cite", "seats": [{"kind": "HUMAN"}, {"kind": "HUMAN"}]}
        )
        assert created.status == 200, created.body
        game_id = created.json()["gameId"]
        joined = http.post(f"/v1/games/{game_id}:join", {"seat": 0, "name": "Newcomer"})
        assert joined.status == 200, joined.body
        anonymous = http.post(f"/v1/games/{game_id}:join", {"seat": 1})
        assert anonymous.status == 200, anonymous.body
        seats = http.get(f"/v1/games/{game_id}").json()["seats"]
        assert [seat.get("name", "") for seat in seats] == ["Newcomer", ""]
        listed = http.get("/v1/games?player=Newcomer").json()["games"]
        assert [game["gameId"] for game in listed] == [game_id]
