"""Errors a client can act on (issue 27): one JSON shape, the HTTP status of google.api's
mapping of the gRPC code, the field the error is about, no Python text and no proto
(snake_case) field names in any HTTP message; an unknown action id answers the same
code in every game, over gRPC and HTTP."""

from __future__ import annotations

import re

import grpc
import pytest

from gamehost import GameError
from gamehost.v1 import gamehost_pb2 as pb
from services.gateway.errors import HTTP_STATUS
from tests.fixtures.gateway import ZERO_GAME, Served, gateway_config

# google/rpc/code.proto: each code's HTTP mapping, as google.api documents it.
GOOGLE_HTTP = {
    "OK": 200,
    "CANCELLED": 499,
    "UNKNOWN": 500,
    "INVALID_ARGUMENT": 400,
    "DEADLINE_EXCEEDED": 504,
    "NOT_FOUND": 404,
    "ALREADY_EXISTS": 409,
    "PERMISSION_DENIED": 403,
    "UNAUTHENTICATED": 401,
    "RESOURCE_EXHAUSTED": 429,
    "FAILED_PRECONDITION": 400,
    "ABORTED": 409,
    "OUT_OF_RANGE": 400,
    "UNIMPLEMENTED": 501,
    "INTERNAL": 500,
    "UNAVAILABLE": 503,
    "DATA_LOSS": 500,
}
# What Python's and protobuf's own error texts look like.
PYTHON_TEXT = re.compile(
    r"Available Fields|invalid literal|base 10|Failed to parse|Message type|Traceback|"
    r"Error\b|Exception|NoneType|\bint\(\)|gamehost\.v1\.|json_format|Expecting value|"
    r"\ba (int|float|bool|str)\b",
)


def _snake_field_names() -> set[str]:
    names, todo = set(), list(pb.DESCRIPTOR.message_types_by_name.values())
    while todo:
        descriptor = todo.pop()
        todo.extend(descriptor.nested_types)
        names.update(f.name for f in descriptor.fields if f.name != f.json_name)
    return names


SNAKE_FIELDS = _snake_field_names()


@pytest.fixture(scope="module")
def served():
    with Served(gateway_config(None, "gamehost", rate_limit=0, failed_auth_rate=0)) as served:
        yield served


def error(answer, status: int, code: str) -> dict:
    """The answer's error object, checked against the one documented shape."""
    assert answer.status == status, (answer.status, answer.body)
    body = answer.json()
    assert set(body) == {"error"}, body
    found = body["error"]
    assert set(found) <= {"code", "message", "field"} and found["code"] == code, found
    assert GOOGLE_HTTP[found["code"]] == status or status == 405
    message = found["message"]
    assert not PYTHON_TEXT.search(message), message
    words = set(re.findall(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", message + found.get("field", "")))
    assert not words & SNAKE_FIELDS, (words & SNAKE_FIELDS, message)
    return found


def test_http_statuses_are_googles_mapping_of_the_grpc_codes():
    assert {code.name: status for code, status in HTTP_STATUS.items()} == GOOGLE_HTTP


def test_an_unknown_game_type_names_the_field_as_the_api_spells_it(served):
    for name in ("gameType", "game_type"):  # the proto name is accepted, answered in camelCase
        found = error(
            served.http.post("/v1/games", {name: "x", "seats": [{"kind": "HUMAN"}]}),
            400,
            "INVALID_ARGUMENT",
        )
        assert found == {
            "code": "INVALID_ARGUMENT",
            "message": "gameType: unknown game 'x'; known: catan, cite, endeavor",
            "field": "gameType",
        }


@pytest.mark.parametrize(
    "body, field",
    [
        ({"gameType": "cite", "seats": [{"kind": "HUMAN"}] * 2, "bogus": 1}, "bogus"),
        ({"gameType": "cite", "seats": [{"kind": "HUMAN"}] * 2, "seed": "abc"}, "seed"),
        ({"gameType": "cite", "seats": [{"kind": "HUMAN"}] * 2, "seed": -1}, "seed"),
        ({"gameType": "cite", "seats": [{"kind": "WHAT"}, {"kind": "HUMAN"}]}, "seats[0].kind"),
        (
            {
                "gameType": "cite",
                "seats": [{"kind": "HUMAN"}, {"kind": "BOT", "bot_level": "x" * 300}],
            },
            "seats[1].botLevel",
        ),
        (
            {
                "gameType": "cite",
                "seats": [{"kind": "HUMAN"}, {"kind": "BOT", "botLevel": "genius"}],
            },
            "seats[1].botLevel",
        ),
        ({"gameType": "cite", "seats": {"kind": "HUMAN"}}, "seats"),
        ({"gameType": "cite", "seats": [{"kind": "HUMAN"}] * 2, "private": "yes"}, "private"),
        ({"gameType": "cite", "seats": [{"kind": "HUMAN"}] * 2, "options": []}, "options"),
        (
            {"gameType": "cite", "seats": [{"kind": "HUMAN"}] * 2, "timer": {"move_seconds": "x"}},
            "timer.moveSeconds",
        ),
        ({"gameType": 5, "seats": []}, "gameType"),
        ({"game_type": "cite", "gameType": "cite", "seats": []}, "gameType"),
        ({"gameType": "cite", "seats": []}, "seats"),
        (
            {"gameType": "catan", "seats": [{"kind": "HUMAN"}] * 3, "options": {"turn_limit": "x"}},
            "options",
        ),
        (
            {"gameType": "cite", "seats": [{"kind": "HUMAN"}] * 2, "timer": {"moveSeconds": -1}},
            "timer.moveSeconds",
        ),
        (
            {
                "gameType": "cite",
                "seats": [{"kind": "HUMAN"}] * 2,
                "timer": {"moveSeconds": 5, "fallbackLevel": "zzz"},
            },
            "timer.fallbackLevel",
        ),
    ],
)
def test_bad_create_requests_name_the_field_without_python_text(served, body, field):
    found = error(served.http.post("/v1/games", body), 400, "INVALID_ARGUMENT")
    assert found["field"] == field
    assert found["message"].startswith(f"{field}: ") or found["message"].startswith(field)


def test_bad_values_in_other_places_name_their_field(served):
    http = served.http
    created = http.post("/v1/games", {"gameType": "cite", "seats": [{"kind": "HUMAN"}] * 2})
    game_id = created.json()["gameId"]
    token = http.post(f"/v1/games/{game_id}:join", {"seat": 0}).json()["token"]
    submit = f"/v1/games/{game_id}:submit"
    cases = [
        (http.post(f"/v1/games/{game_id}:join", {"seat": "abc"}), 400, "INVALID_ARGUMENT", "seat"),
        (http.post(submit, {"token": token, "actionId": "x"}), 400, "INVALID_ARGUMENT", "actionId"),
        (
            http.post(submit, {"token": token, "action_id": 0, "notation": "levy"}),
            400,
            "INVALID_ARGUMENT",
            "notation",
        ),
        (
            http.post(submit, {"token": token, "actionId": 0, "expectedVersion": "99"}),
            409,
            "ABORTED",
            "expectedVersion",
        ),
        (
            http.post(submit, {"token": token, "actionId": 0, "request_id": "r" * 200}),
            400,
            "INVALID_ARGUMENT",
            "requestId",
        ),
        (http.post(submit, {"actionId": 0}), 401, "UNAUTHENTICATED", "token"),
        (http.get("/v1/games", params={"limit": "ten"}), 400, "INVALID_ARGUMENT", "limit"),
        (
            http.get(f"/v1/games/{game_id}/record", params={"includeViews": "maybe"}),
            400,
            "INVALID_ARGUMENT",
            "includeViews",
        ),
        (
            http.get(f"/v1/games/{game_id}/events", params={"afterEventId": "999"}),
            400,
            "INVALID_ARGUMENT",
            "afterEventId",
        ),
        (
            http.get(f"/v1/games/{game_id}/events", params={"afterEventId": "-1"}),
            400,
            "INVALID_ARGUMENT",
            "afterEventId",
        ),
        (http.get("/v1/games/not-an-id"), 400, "INVALID_ARGUMENT", "gameId"),
    ]
    for answer, status, code, field in cases:
        assert error(answer, status, code).get("field") == field, answer.body
    assert error(http.get(f"/v1/games/{ZERO_GAME}"), 404, "NOT_FOUND")["message"]
    for body in (b"{", b"[1]", b"\xff", b'{"a": ' * 2000):
        error(http.request("POST", "/v1/games", data=body), 400, "INVALID_ARGUMENT")
    wrong_verb = http.request("DELETE", "/v1/games")
    error(wrong_verb, 405, "UNIMPLEMENTED")


def _seat_game(client, game_type: str) -> tuple[str, str, str]:
    """A game of people only, all joined: (game id, the mover's token, another's token)."""
    players = {"cite": 2, "catan": 3, "endeavor": 3}[game_type]
    created = client.create_game(game_type, ["human"] * players, seed=11)
    tokens = [client.join(created.game_id, seat=s).token for s in range(players)]
    mover = client.state(created.game_id).to_move.seat
    return created.game_id, tokens[mover], tokens[(mover + 1) % players]


@pytest.mark.parametrize("game_type", ["cite", "catan", "endeavor"])
def test_an_unknown_action_id_is_invalid_argument_in_every_game(served, game_type):
    """Whose turn it is does not change what an id outside the game's actions is."""
    game_id, mover, waiter = _seat_game(served.client, game_type)
    unknown = 2**31 - 1
    for token in (mover, waiter):
        with pytest.raises(GameError) as caught:
            served.client.submit(game_id, token, unknown)
        assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT, caught.value.details
        assert caught.value.details.startswith("action_id: ")
        answer = served.http.post(
            f"/v1/games/{game_id}:submit", {"token": token, "actionId": unknown}
        )
        found = error(answer, 400, "INVALID_ARGUMENT")
        assert found["field"] == "actionId" and found["message"].startswith("actionId: ")
