"""Fuzzing the gateway: hypothesis sends every route request bodies filled from the
request message (and random JSON, and random bytes), random query strings, path
values and headers, against a real server on Redis, whose archive (with a ladder on it)
is SQLite, then PostgreSQL. No answer may be a 5xx, and a refused request changes
nothing in the store."""

from __future__ import annotations

import json
import string
from urllib.parse import quote

import pytest
import redis
from google.protobuf import json_format
from hypothesis import given
from hypothesis import strategies as st

from services.gateway.routes import ROUTES
from tests.api.test_fuzz_api import (
    _WORDS,
    ARCHIVE_WORDS,
    FORGED_TOKEN,
    FUZZ,
    _archived,
    fingerprint,
    message,
    pb_stub,
    settled,
    unchanged,
)
from tests.fixtures.fuzz_archive import fuzz_settings
from tests.fixtures.gateway import ZERO_GAME, Served, gateway_config, two_humans

_HEADER_TEXT = st.text(alphabet=string.ascii_letters + string.digits + " -_.:/", max_size=40)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def world(redis_url, module_prefix, module_archive_url):
    """One 2-seat Cité game with both seats joined, on a server without rate limits (so
    the fuzzed requests reach the service rather than the limiter); in its archive,
    what test_fuzz_api's world has there."""
    config = gateway_config(redis_url, module_prefix, **fuzz_settings(module_archive_url))
    with Served(config) as served:
        game_id, token, _ = two_humans(served.http)
        store = redis.Redis.from_url(redis_url)
        archived_games, archived = _archived(pb_stub(served.channel), store, module_prefix)
        yield {
            "served": served,
            "game_id": game_id,
            "token": token,
            "store": store,
            "prefix": module_prefix,
            "channel": served.channel,
            "archived_games": archived_games,
            "archived": archived,
        }
        store.close()


def _path_value(world):
    known = [world["game_id"], ZERO_GAME, "t1", "nope", ".."]
    return st.one_of(st.sampled_from(known), st.text(max_size=30)).map(lambda v: quote(v, safe=""))


def _body(route, world):
    fields = message(route.method.input_type, world).map(
        lambda m: json.dumps(json_format.MessageToDict(m)).encode()
    )
    raw_json = _JSON.map(lambda v: json.dumps(v).encode())
    return st.one_of(fields, raw_json, st.binary(max_size=100))


def _query(route, world):
    names = [f.json_name for f in route.method.input_type.fields] + ["bogus", "a.b"]
    known = [world["game_id"], world["token"], *world["archived"], *_WORDS[:20], *ARCHIVE_WORDS]
    values = st.one_of(st.sampled_from(known), st.text(max_size=20))
    return st.lists(st.tuples(st.sampled_from(names), values), max_size=4)


def _headers(world):
    return st.fixed_dictionaries(
        {},
        optional={
            "Authorization": st.one_of(
                st.just(f"Bearer {world['token']}"), _HEADER_TEXT.map(lambda t: "Bearer " + t)
            ),
            "Last-Event-ID": st.one_of(
                st.sampled_from(["0", "1", "-1", "99", "2" * 30]), _HEADER_TEXT
            ),
            "X-Api-Key": _HEADER_TEXT,
        },
    )


def check(world, route, path: str, body: bytes | None, query, headers) -> None:
    served = world["served"]
    before = fingerprint(world)
    if route.streaming:
        stream = served.http.stream(path + _encoded(query), headers=headers)
        status = stream.status
        stream.close()
    else:
        answer = served.http.request(
            route.verb, path, data=body, params=query or None, headers=headers
        )
        status = answer.status
        if status >= 400:
            error = answer.json()["error"]
            assert set(error) <= {"code", "message", "field"} and error["message"], answer.body
    assert status < 500, (route.rpc, path, body, query, headers, status)
    if status >= 400:
        assert unchanged(world, before), (route.rpc, path, body, query)
    else:  # it may have changed the game: a hand-over that succeeded leaves a bot playing
        settled(world)  # seat 0, and the next call starts once it is done


def _encoded(query) -> str:
    return "?" + "&".join(f"{quote(k)}={quote(v)}" for k, v in query) if query else ""


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: f"{r.verb} {r.template}")
def test_any_request_answers_a_client_error_and_changes_nothing(world, route):
    # The strategies are built once, and drawn from per example.
    path_value, headers = _path_value(world), _headers(world)
    body, query = (_body(route, world), None) if route.body else (None, _query(route, world))

    @FUZZ
    @given(data=st.data())
    def run(data):
        path = route.template
        for name in route.path_fields:
            path = path.replace("{" + name + "}", data.draw(path_value))
        check(
            world,
            route,
            path,
            None if body is None else data.draw(body),
            [] if query is None else data.draw(query),
            data.draw(headers),
        )

    run()


# test_fuzz_api.NAMED_REFUSALS over HTTP: the error body names the field, in JSON.
HTTP_REFUSALS = [
    ("/v1/games", {"player": "a\x00b"}, "player"),
    ("/v1/games", {"tournament": "a\x00b"}, "tournament"),
    ("/v1/games", {"botLevel": "a\x00b"}, "botLevel"),
    ("/v1/games", {"pageToken": "A" + FORGED_TOKEN}, "pageToken"),
    ("/v1/export", {"player": "a\x00b"}, "player"),
    ("/v1/export", {"bot": "a\x00b"}, "bot"),
    ("/v1/export", {"since": "0001-01-01T00:00:00+14:00"}, "since"),
    ("/v1/export", {"since": "9999-12-31T23:59:59-14:00"}, "since"),
    ("/v1/bots/a%00b", {}, "name"),
]


@pytest.mark.parametrize(
    "path, query, field", HTTP_REFUSALS, ids=[f"{p}-{f}" for p, _, f in HTTP_REFUSALS]
)
def test_input_the_archive_cannot_query_is_a_400_naming_the_field(world, path, query, field):
    before = fingerprint(world)
    answer = world["served"].http.get(path, params=query or None)
    assert answer.status == 400, answer.body
    error = answer.json()["error"]
    assert (error["code"], error.get("field")) == ("INVALID_ARGUMENT", field), error
    assert error["message"].startswith(field), error
    assert unchanged(world, before)
