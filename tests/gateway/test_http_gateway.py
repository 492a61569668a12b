"""The HTTP/JSON gateway on a real server (memory and Redis): every route's happy path
with the same answers as gRPC, each error class mapped to its HTTP status with the
same message and nothing changed, and each seat's views as gRPC shows them."""

from __future__ import annotations

import pytest

from gamehost import GameError
from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from tests.fixtures.gateway import ZERO_GAME, Served, as_json, gateway_config, two_humans
from tests.procs import wait_until


@pytest.fixture(scope="module", params=["memory", "redis"])
def served(request):
    redis_url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    prefix = request.getfixturevalue("module_prefix") if redis_url else "gamehost"
    with Served(gateway_config(redis_url, prefix)) as served:
        served.kind = request.param
        yield served


def error_of(answer, status: int, code: str) -> str:
    """Check an error answer's status and JSON body; its message."""
    assert answer.status == status, (answer.status, answer.body)
    assert answer.headers["Content-Type"].startswith("application/json")
    body = answer.json()
    assert set(body) == {"error"} and set(body["error"]) <= {"code", "message", "field"}
    assert body["error"]["code"] == code and body["error"]["message"]
    return body["error"]["message"]


def grpc_error(call) -> GameError:
    with pytest.raises(GameError) as caught:
        call()
    return caught.value


# ---------------------------------------------------------------------- happy paths


def test_game_types_lists_every_game_and_bot_level(served):
    answer = served.http.get("/v1/game-types")
    assert answer.status == 200 and answer.headers["Content-Type"].startswith("application/json")
    body = answer.json()
    assert {t["name"] for t in body["gameTypes"]} == {"cite", "catan", "endeavor"}
    assert "random" in body["botLevels"]
    stub = pb_grpc.GameHostStub(served.channel)
    assert body == as_json(stub.ListGameTypes(pb.ListGameTypesRequest()))


def test_a_game_is_created_joined_listed_read_played_and_recorded(served):
    http = served.http
    created = http.post(
        "/v1/games",
        {
            "gameType": "cite",
            "seats": [{"kind": "HUMAN", "name": "ann"}, {"kind": "HUMAN"}],
            "seed": "11",
            "options": {"round_limit": "2"},
        },
    )
    assert created.status == 200, created.body
    game_id = created.json()["gameId"]
    assert created.json()["state"]["status"] == "IN_PROGRESS"
    assert "seed" not in created.body.decode()  # seeds never reach clients
    listed = http.get("/v1/games", params={"limit": "500"}).json()["games"]
    assert game_id in [g["gameId"] for g in listed]
    # proto field names are accepted as well as lowerCamelCase
    joined = http.post(f"/v1/games/{game_id}:join", {"seat": 0, "name": "ann"}).json()
    assert joined["seat"] == 0 and joined["gameId"] == game_id and joined["token"]
    other = http.post(f"/v1/games/{game_id}:join", {"invite_code": ""}).json()
    assert other["seat"] == 1
    token = joined["token"]
    state = http.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"}).json()
    assert state["viewerSeat"] == 0 and state["gameId"] == game_id
    assert http.get(f"/v1/games/{game_id}", params={"token": token}).json() == state
    assert state == as_json(served.client.state(game_id, token))
    seat = state["toMove"]["seat"]
    mover = token if seat == 0 else other["token"]
    state = http.get(f"/v1/games/{game_id}", params={"token": mover}).json()
    action = state["legalActions"][0]
    submitted = http.post(
        f"/v1/games/{game_id}:submit",
        {"actionId": action["id"], "expectedVersion": state["version"], "requestId": "r1"},
        headers={"Authorization": f"Bearer {mover}"},
    )
    assert submitted.status == 200, submitted.body
    done = submitted.json()
    assert int(done["version"]) > int(state["version"]) and done["duplicate"] is False
    assert done["notation"] == action["notation"]
    again = http.post(
        f"/v1/games/{game_id}:submit",
        {"token": mover, "actionId": action["id"], "requestId": "r1"},
    ).json()
    assert again["duplicate"] is True and again["version"] == done["version"]
    state = served.client.state(game_id, token)
    mover = token if state.to_move.seat == 0 else other["token"]
    state = served.client.state(game_id, mover)
    by_notation = http.post(
        f"/v1/games/{game_id}:submit",
        {"token": mover, "notation": state.legal_actions[-1].notation},
    )
    assert by_notation.status == 200, by_notation.body
    record = http.get(f"/v1/games/{game_id}/record", params={"includeViews": "true"})
    assert record.status == 200
    body = record.json()
    assert [int(e["ply"]) for e in body["entries"]] == list(range(1, int(body["version"]) + 1))
    assert "initialView" in body and all("view" in e for e in body["entries"])
    assert body == as_json(served.client.record(game_id, include_views=True))


def test_tournament_routes(served):
    http = served.http
    name = f"http-{served.kind}"
    definition = {
        "name": name,
        "gameType": "cite",
        "players": 2,
        "entrants": [{"name": "bot", "level": "random"}, {"name": "me"}],
        "format": "round-robin",
        "games": 2,
        "seed": "5",
        "parallel": 1,
    }
    created = http.post("/v1/tournaments", {"definition": definition})
    assert created.status == 200, created.body
    assert created.json()["status"] == "TOURNAMENT_RUNNING"
    assert name in [t["name"] for t in http.get("/v1/tournaments").json()["tournaments"]]
    assert http.get(f"/v1/tournaments/{name}").json()["definition"]["name"] == name
    joined = http.post(f"/v1/tournaments/{name}:join", {"entrant": "me"}).json()
    token = joined["entrantToken"]
    assert joined["entrant"] == "me" and token
    stream = http.stream(
        f"/v1/tournaments/{name}/events?token={token}".replace("token", "entrantToken")
    )
    assert stream.status == 200
    started = stream.events("tournament-event", 1)[0]
    assert started.json()["kind"] == "TABLE_STARTED" and started.id == started.json()["eventId"]
    stream.close()
    wait_until(
        lambda: http.get(
            f"/v1/tournaments/{name}/seats", headers={"Authorization": f"Bearer {token}"}
        ).json()["seats"],
        30,
        "the external entrant's first seat",
    )
    seats = http.get(f"/v1/tournaments/{name}/seats", params={"entrantToken": token}).json()
    assert seats["seats"][0]["seatToken"]
    cancelled = http.post(f"/v1/tournaments/{name}:cancel")
    assert cancelled.status == 200 and cancelled.json()["status"] == "TOURNAMENT_CANCELLED"


# ---------------------------------------------------------------------- errors


def test_malformed_json_is_400_and_changes_nothing(served):
    http = served.http
    game_id, token, _ = two_humans(http)
    before = served.fingerprint(game_id)
    for body in (b"{", b"[1, 2]", b'"text"', b"\xff\xfe", b'{"gameType": 5}', b'{"nope": 1}'):
        answer = http.request("POST", "/v1/games", data=body)
        message = error_of(answer, 400, "INVALID_ARGUMENT")
        assert "nope" not in message or "nope" in body.decode(errors="replace")
    answer = http.request(
        "POST",
        f"/v1/games/{game_id}:submit",
        data=b'{"token": "' + token.encode() + b'", "actionId": "x"}',
    )
    error_of(answer, 400, "INVALID_ARGUMENT")
    error_of(http.get(f"/v1/games/{game_id}", params={"bogus": "1"}), 400, "INVALID_ARGUMENT")
    assert served.fingerprint(game_id) == before


def test_unknown_game_is_404_with_the_grpc_message(served):
    http = served.http
    message = error_of(http.get(f"/v1/games/{ZERO_GAME}"), 404, "NOT_FOUND")
    assert message == grpc_error(lambda: served.client.state(ZERO_GAME)).details
    error_of(http.post(f"/v1/games/{ZERO_GAME}:submit", {"actionId": 1}), 404, "NOT_FOUND")
    error_of(http.post(f"/v1/games/{ZERO_GAME}:join"), 404, "NOT_FOUND")
    error_of(http.get(f"/v1/games/{ZERO_GAME}/record"), 404, "NOT_FOUND")
    error_of(http.get(f"/v1/games/{ZERO_GAME}/events"), 404, "NOT_FOUND")
    error_of(http.get("/v1/tournaments/nobody"), 404, "NOT_FOUND")


def test_bad_tokens_are_401_and_wrong_seats_403_and_change_nothing(served):
    http = served.http
    game_id, token, _ = two_humans(http)
    before = served.fingerprint(game_id)
    bad = "x" * 30
    message = error_of(
        http.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {bad}"}),
        401,
        "UNAUTHENTICATED",
    )
    assert message == grpc_error(lambda: served.client.state(game_id, bad)).details
    error_of(
        http.post(f"/v1/games/{game_id}:submit", {"token": bad, "actionId": 0}),
        401,
        "UNAUTHENTICATED",
    )
    error_of(http.post(f"/v1/games/{game_id}:submit", {"actionId": 0}), 401, "UNAUTHENTICATED")
    error_of(
        http.post(f"/v1/games/{game_id}:submit", {"token": token, "actionId": 0, "seat": 1}),
        403,
        "PERMISSION_DENIED",
    )
    assert served.fingerprint(game_id) == before


def test_stale_versions_are_409_and_illegal_actions_400_and_change_nothing(served):
    http = served.http
    game_id, *tokens = two_humans(http, seed=8)
    state = served.client.state(game_id)
    mover, waiter = tokens[state.to_move.seat], tokens[1 - state.to_move.seat]
    before = served.fingerprint(game_id)
    submit = f"/v1/games/{game_id}:submit"
    legal = served.client.state(game_id, mover).legal_actions[0].id
    stale = {"token": mover, "actionId": legal, "expectedVersion": str(state.version + 5)}
    message = error_of(http.post(submit, stale), 409, "ABORTED")
    assert "stale" in message
    error_of(http.post(submit, {"token": mover, "actionId": 99999}), 400, "INVALID_ARGUMENT")
    error_of(
        http.post(submit, {"token": mover, "notation": "fly to the moon"}), 400, "INVALID_ARGUMENT"
    )
    not_yours = http.post(submit, {"token": waiter, "actionId": legal})
    assert "not your turn" in error_of(not_yours, 400, "FAILED_PRECONDITION")
    assert served.fingerprint(game_id) == before


def test_unknown_routes_are_404_and_wrong_verbs_405(served):
    http = served.http
    before = served.fingerprint(ZERO_GAME)
    error_of(http.get("/v1/nothing-here"), 404, "NOT_FOUND")
    error_of(http.get("/v1"), 404, "NOT_FOUND")
    error_of(http.post(f"/v1/games/{ZERO_GAME}:explode"), 404, "NOT_FOUND")
    error_of(http.get("/v1/games/a/b/c"), 404, "NOT_FOUND")
    # A decoded newline in the path still reaches the gateway's route table (a JSON
    # error from the service, not aiohttp's plain-text 404).
    error_of(http.post("/v1/games/%0A:addBot", {}), 400, "INVALID_ARGUMENT")
    error_of(http.get("/v1/nothing%0Ahere"), 404, "NOT_FOUND")
    wrong = http.request("DELETE", "/v1/games")
    assert wrong.status == 405 and set(wrong.headers["Allow"].split(", ")) == {"GET", "POST"}
    assert wrong.json()["error"]["code"] == "UNIMPLEMENTED"
    assert served.fingerprint(ZERO_GAME) == before


# ---------------------------------------------------------------------- hidden information


def test_each_seat_sees_what_grpc_shows_it_and_no_other_seats_hand(served):
    http = served.http
    created = http.post(
        "/v1/games",
        {"gameType": "catan", "seats": [{"kind": "HUMAN"}] * 3, "seed": "21"},
    ).json()
    game_id = created["gameId"]
    tokens = [http.post(f"/v1/games/{game_id}:join", {"seat": s}).json()["token"] for s in range(3)]
    for seat, token in [(None, ""), *enumerate(tokens)]:
        state = http.get(f"/v1/games/{game_id}", params={"token": token} if token else None).json()
        assert state == as_json(served.client.state(game_id, token))
        players = state["catan"]["players"]
        visible = [p["seat"] for p in players if p["resourcesVisible"] or p["devVisible"]]
        assert visible == ([] if seat is None else [seat])
        for player in players:
            if player["seat"] != seat:
                assert set(player.get("resources", {}).values()) <= {0}
                assert set(player.get("devCards", {}).values()) <= {0}
        record = http.get(
            f"/v1/games/{game_id}/record", params={"token": token, "includeViews": "1"}
        )
        assert record.json() == as_json(served.client.record(game_id, token, include_views=True))


def test_private_games_and_spectators_off_are_enforced_as_over_grpc(served):
    http = served.http
    created = http.post(
        "/v1/games",
        {
            "gameType": "cite",
            "seats": [{"kind": "HUMAN"}] * 2,
            "private": True,
            "spectators": False,
        },
    ).json()
    game_id, codes = created["gameId"], created["inviteCodes"]
    assert [c["seat"] for c in codes] == [0, 1]
    assert game_id not in [g["gameId"] for g in http.get("/v1/games").json()["games"]]
    before = served.fingerprint(game_id)
    error_of(http.post(f"/v1/games/{game_id}:join", {"seat": 0}), 403, "PERMISSION_DENIED")
    error_of(http.get(f"/v1/games/{game_id}"), 403, "PERMISSION_DENIED")
    error_of(http.get(f"/v1/games/{game_id}/events"), 403, "PERMISSION_DENIED")
    assert served.fingerprint(game_id) == before
    joined = http.post(f"/v1/games/{game_id}:join", {"inviteCode": codes[1]["code"]}).json()
    assert joined["seat"] == 1
    mine = http.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {joined['token']}"})
    assert mine.status == 200 and mine.json()["viewerSeat"] == 1


def test_a_seat_declines_offers_over_http(served):
    """SetSeatOptions as POST /v1/games/{id}:seatOptions (issue 29), the token as Bearer."""
    http = served.http
    created = http.post(
        "/v1/games", {"gameType": "catan", "seats": [{"kind": "HUMAN"}] * 3, "seed": "4"}
    ).json()
    game_id = created["gameId"]
    token = http.post(f"/v1/games/{game_id}:join", {"seat": 1}).json()["token"]
    bearer = {"Authorization": f"Bearer {token}"}
    answer = http.post(f"/v1/games/{game_id}:seatOptions", {"declineOffers": True}, headers=bearer)
    assert answer.status == 200, answer.body
    assert answer.json()["now"]["declineOffers"] is True and answer.json()["now"]["index"] == 1
    seats = http.get(f"/v1/games/{game_id}").json()["seats"]
    assert [bool(s.get("declineOffers")) for s in seats] == [False, True, False]
    refused = http.post(f"/v1/games/{game_id}:seatOptions", {"declineOffers": True})
    assert refused.status == 401, refused.body  # no token: nobody's seat
