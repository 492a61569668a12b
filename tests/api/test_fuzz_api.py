"""Fuzzing the API: hypothesis fills every field of every request message (and sends
raw random bytes to every method) against a real server on Redis, whose archive (with
a ladder on it) is SQLite, then PostgreSQL. No answer may be UNKNOWN or INTERNAL, and a
refused call changes nothing in the store."""

from __future__ import annotations

import base64
import json

import grpc
import pytest
import redis
from google.protobuf.descriptor import FieldDescriptor
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamehost.v1 import gamehost_pb2 as pb
from services.errors import FIELD_METADATA
from services.server import SERVICE_NAME
from tests.conftest import serve_module
from tests.fixtures.fuzz_archive import fuzz_settings
from tests.procs import wait_until

FORBIDDEN = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL}
SERVICE = pb.DESCRIPTOR.services_by_name["GameHost"]
FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
_INT_RANGES = {
    FieldDescriptor.CPPTYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.CPPTYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.CPPTYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.CPPTYPE_UINT64: (0, 2**64 - 1),
}
# Inputs that once reached the archive's SQL and answered INTERNAL (issue 57): a page
# token whose game id is a NUL (ListGames' and the archive's own spelling), and export
# dates whose UTC time no SQL datetime holds.
FORGED_TOKEN = base64.urlsafe_b64encode(b"1700000000|\0").decode()
ARCHIVE_WORDS = [
    "a\x00b",
    "A" + FORGED_TOKEN,
    FORGED_TOKEN,
    "0001-01-01T00:00:00+14:00",
    "9999-12-31T23:59:59-14:00",
]
# Text that hits the interesting paths: real names, near-misses, huge and odd inputs.
_WORDS = [
    "",
    "cite",
    "catan",
    "endeavor",
    "random",
    "greedy",
    "mcts:iterations=-5",
    "mcts:iterations=0",
    "mcts:c=nan",
    "mcts:trees=64,iterations=100000000",
    "turn_limit",
    "round_limit",
    "track_glory",
    "2147483648",
    "2000000000",
    "-1",
    "nan",
    "0" * 32,
    "f" * 32,
    "1-1",
    "99999999999999999999999-0",
    "x" * 5000,
    "\x00",
    *ARCHIVE_WORDS,
]


@pytest.fixture(scope="module")
def server(redis_url, module_prefix, module_archive_url):
    """A server without per-client limits: the fuzzed requests must reach the service,
    not the limiter (on a fast machine they outrun 200 requests a second)."""
    yield from serve_module(redis_url, module_prefix, **fuzz_settings(module_archive_url))


@pytest.fixture(scope="module")
def world(server, redis_url, module_prefix):
    """One 2-seat Cité game with seat 0 joined: what the fuzzed requests aim at; and
    in the archive, two finished games and a ladder bot, whose names and page tokens
    the fuzzed text draws from too."""
    channel = grpc.insecure_channel(server.target)
    stub = pb_stub(channel)
    created = stub.CreateGame(
        pb.CreateGameRequest(
            game_type="cite", seats=[pb.SeatSpec(kind=pb.HUMAN), pb.SeatSpec(kind=pb.HUMAN)]
        )
    )
    joined = stub.JoinGame(pb.JoinGameRequest(game_id=created.game_id, seat=0))
    store = redis.Redis.from_url(redis_url)
    world = {
        "channel": channel,
        "game_id": created.game_id,
        "token": joined.token,
        "store": store,
        "prefix": module_prefix,
    }
    world["archived_games"], world["archived"] = _archived(stub, store, module_prefix)
    yield world
    store.close()
    channel.close()


def _archived(stub, store, prefix: str) -> tuple[list[str], list[str]]:
    """Two all-bot games played out, archived and gone from the store (so no fuzzed
    call races the archiver), and a registered ladder bot: the games' ids, and the
    words to fuzz with (the ids, the bot's name, page tokens of ListGames and GetRecord)."""
    bots = [pb.SeatSpec(kind=pb.BOT, bot_level="random")] * 2
    ids = [stub.CreateGame(pb.CreateGameRequest(game_type="cite", seats=bots)).game_id]
    ids.append(stub.CreateGame(pb.CreateGameRequest(game_type="cite", seats=bots)).game_id)

    def archived() -> pb.ListGamesResponse | None:
        page = stub.ListGames(pb.ListGamesRequest(status=pb.FINISHED, page_size=1))
        listed = stub.ListGames(pb.ListGamesRequest(status=pb.FINISHED)).games
        gone = all(store.zscore(f"{prefix}:games", game_id) is None for game_id in ids)
        return page if gone and set(ids) <= {g.game_id for g in listed} else None

    page = wait_until(archived, 120, "both bot games archived and gone from the store")
    record = stub.GetRecord(pb.GetRecordRequest(game_id=ids[0], page_size=1))
    bot = stub.RegisterBot(pb.RegisterBotRequest(name="fuzzbot", game_type="cite", players=2))
    return ids, [*ids, page.next_page_token, record.next_page_token, bot.bot]


def pb_stub(channel):
    from gamehost.v1 import gamehost_pb2_grpc

    return gamehost_pb2_grpc.GameHostStub(channel)


def fingerprint(world) -> tuple:
    """The set of games, and every byte stored for the target game."""
    store, prefix = world["store"], world["prefix"]
    games = frozenset(store.zrange(f"{prefix}:games", 0, -1))
    keys = sorted(store.scan_iter(match=f"{prefix}:{{{world['game_id']}}}:*", count=500))
    return games, [(key, store.dump(key)) for key in keys]


def unchanged(world, before: tuple) -> bool:
    """No game was made and the target game is as it was since ``before``. Games may
    have gone: the archiver forgets a finished game (a game of bots that a fuzzed call
    made) once it has copied it into the archive."""
    games, target = fingerprint(world)
    return games <= before[0] and target == before[1]


def _text(world):
    known = [world["game_id"], world["token"], *world["archived"], *_WORDS]
    return st.one_of(st.sampled_from(known), st.text(max_size=40))


def _scalar(field: FieldDescriptor, world):
    if field.type == FieldDescriptor.TYPE_STRING:
        return _text(world)
    if field.type == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=64)
    if field.type == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if field.type == FieldDescriptor.TYPE_ENUM:
        return st.integers(-3, 10)
    if field.cpp_type in (FieldDescriptor.CPPTYPE_DOUBLE, FieldDescriptor.CPPTYPE_FLOAT):
        return st.floats(allow_nan=True)
    low, high = _INT_RANGES[field.cpp_type]
    return st.one_of(st.integers(max(low, -3), 20), st.integers(low, high))


def message(descriptor, world, depth: int = 0):
    """A strategy for ``descriptor``'s message with any subset of fields set."""
    cls = _class(descriptor)

    @st.composite
    def build(draw):
        msg = cls()
        for field in descriptor.fields:
            if not draw(st.booleans()):
                continue
            if field.message_type is not None and field.message_type.GetOptions().map_entry:
                key = field.message_type.fields_by_name["key"]
                value = field.message_type.fields_by_name["value"]
                entries = draw(
                    st.dictionaries(_scalar(key, world), _scalar(value, world), max_size=4)
                )
                getattr(msg, field.name).update(entries)
            elif field.message_type is not None:
                if depth > 2:
                    continue
                inner = message(field.message_type, world, depth + 1)
                if field.is_repeated:
                    getattr(msg, field.name).extend(draw(st.lists(inner, max_size=5)))
                else:
                    getattr(msg, field.name).CopyFrom(draw(inner))
            elif field.is_repeated:
                getattr(msg, field.name).extend(draw(st.lists(_scalar(field, world), max_size=4)))
            else:
                setattr(msg, field.name, draw(_scalar(field, world)))
        return msg

    return build()


def _class(descriptor):
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(descriptor)


def call(world, method, request_bytes: bytes) -> grpc.StatusCode:
    """Send raw bytes to ``method``; the status it ends with."""
    path = f"/{SERVICE_NAME}/{method.name}"
    channel = world["channel"]
    try:
        if method.server_streaming:
            stream = channel.unary_stream(path)(request_bytes, timeout=0.5)
            for _ in stream:
                pass
        else:
            channel.unary_unary(path)(request_bytes, timeout=10)
    except grpc.RpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


def settled(world) -> None:
    """Wait until no bot is to move in the target game: a fuzzed HandOverSeat that
    succeeds (the world's token is valid) puts a bot on seat 0, which then plays by
    itself until a person's seat is to move. Waited for after every call that may have
    changed something, so the next call starts on a quiet game."""
    stub = pb_stub(world["channel"])

    def quiet() -> bool:
        state = stub.GetState(pb.GetStateRequest(game_id=world["game_id"]), timeout=5)
        return state.bot_status == pb.BOT_STATUS_UNSPECIFIED

    wait_until(quiet, 10, "the bot on a handed-over seat to finish its turn")


def check(world, method, request_bytes: bytes) -> None:
    before = fingerprint(world)
    code = call(world, method, request_bytes)
    assert code not in FORBIDDEN, (method.name, request_bytes[:200])
    if code == grpc.StatusCode.OK or code == grpc.StatusCode.DEADLINE_EXCEEDED:
        settled(world)  # it may have changed the game (a deadline: it may have, or not)
    else:
        assert unchanged(world, before), (method.name, code, request_bytes[:200])


@pytest.mark.parametrize("method", list(SERVICE.methods), ids=lambda m: m.name)
def test_any_request_fields_answer_a_client_error_and_change_nothing(world, method):
    @FUZZ
    @given(request=message(method.input_type, world))  # built once, drawn from per example
    def run(request):
        check(world, method, request.SerializeToString())

    run()


@pytest.mark.parametrize("method", list(SERVICE.methods), ids=lambda m: m.name)
def test_random_request_bytes_answer_invalid_argument_or_a_client_error(world, method):
    @FUZZ
    @given(raw=st.binary(min_size=1, max_size=200))
    def run(raw):
        check(world, method, raw)

    run()


def test_garbage_bytes_are_invalid_argument(world):
    for method in SERVICE.methods:
        assert call(world, method, b"\xff\xff\xff") == grpc.StatusCode.INVALID_ARGUMENT


# Inputs that answered INTERNAL (issue 57), each refused naming its field.
_NUL = "a\x00b"
NAMED_REFUSALS = [
    ("ListGames", pb.ListGamesRequest(player=_NUL), "player"),
    ("ListGames", pb.ListGamesRequest(tournament=_NUL), "tournament"),
    ("ListGames", pb.ListGamesRequest(bot_level=_NUL), "bot_level"),
    ("ListGames", pb.ListGamesRequest(page_token="A" + FORGED_TOKEN), "page_token"),
    ("ExportGames", pb.ExportGamesRequest(player=_NUL), "player"),
    ("ExportGames", pb.ExportGamesRequest(tournament=_NUL), "tournament"),
    ("ExportGames", pb.ExportGamesRequest(bot=_NUL), "bot"),
    ("ExportGames", pb.ExportGamesRequest(since="0001-01-01T00:00:00+14:00"), "since"),
    ("ExportGames", pb.ExportGamesRequest(since="9999-12-31T23:59:59-14:00"), "since"),
    ("GetBot", pb.GetBotRequest(name=_NUL), "name"),
]


def answer(world, rpc: str, request) -> tuple[grpc.StatusCode, str, str]:
    """``rpc``'s status for ``request`` (a stream read to its end): its code, message
    and the field it names (the ``gamehost-field`` trailing metadata)."""
    try:
        reply = getattr(pb_stub(world["channel"]), rpc)(request, timeout=30)
        if SERVICE.methods_by_name[rpc].server_streaming:
            list(reply)
    except grpc.RpcError as exc:
        field = dict(exc.trailing_metadata() or ()).get(FIELD_METADATA, "")
        return exc.code(), exc.details(), field
    return grpc.StatusCode.OK, "", ""


@pytest.mark.parametrize(
    "rpc, request_, field", NAMED_REFUSALS, ids=[f"{r}-{f}" for r, _, f in NAMED_REFUSALS]
)
def test_input_the_archive_cannot_query_is_invalid_argument_naming_the_field(
    world, rpc, request_, field
):
    before = fingerprint(world)
    code, message, named = answer(world, rpc, request_)
    assert (code, named) == (grpc.StatusCode.INVALID_ARGUMENT, field), message
    assert message.startswith(field), message
    assert unchanged(world, before)


def test_export_since_holds_every_sql_datetime_and_nothing_past_them(world):
    """The boundary both ways: the first and the last second SQL datetimes hold (UTC)
    are dates to export from, one second before or after them is refused."""
    stub = pb_stub(world["channel"])

    def exported(since: str) -> set[str]:
        lines = stub.ExportGames(pb.ExportGamesRequest(since=since), timeout=30)
        return {json.loads(line.json)["game_id"] for line in lines}

    assert set(world["archived_games"]) <= exported("0001-01-01T00:00:00Z")
    assert exported("9999-12-31T23:59:59Z") == exported("9999-12-31T23:59:59+14:00") == set()
    for outside in ("0001-01-01T00:00:00+00:00:01", "9999-12-31T23:59:59-00:00:01"):
        code, message, field = answer(world, "ExportGames", pb.ExportGamesRequest(since=outside))
        assert (code, field) == (grpc.StatusCode.INVALID_ARGUMENT, "since"), (outside, message)
