"""Bot accounts (RegisterBot, ListBots, RevokeBot, GetBot) over gRPC, HTTP and the
command line, on SQLite and PostgreSQL: the key is shown once and only its hash is
kept; bad input is refused with the right status and changes nothing."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging

import grpc
import pytest
import sqlalchemy as sa

from gamehost import Client, GameError
from gamehost.cli import main
from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from services.accounts.schema import accounts as account_rows
from services.archive import database
from services.ladder.accounts import Accounts
from services.ladder.model import Fault
from services.ladder.schema import ladder_bots
from services.server import ServerConfig, ServerThread
from tests.fixtures.http_client import Http
from tests.ladder.conftest import ladder_server, quick
from tests.procs import wait_until


def _rows(server) -> list[dict]:
    engine = server.running.archive.engine
    with engine.connect() as connection:
        # A bot is an account of kind bot (which keeps the key) and its ladder row.
        query = sa.select(ladder_bots, account_rows.c.key_hash, account_rows.c.kind).join(
            account_rows, account_rows.c.name == ladder_bots.c.name
        )
        return [dict(r._mapping) for r in connection.execute(query)]


def test_a_key_is_shown_once_and_kept_only_as_its_hash(served):
    server, client = served
    reply = client.register_bot("alpha", "cite", 2)
    assert reply.bot == "alpha" and reply.key.startswith("ghb_") and len(reply.key) > 30
    (row,) = _rows(server)
    assert row["key_hash"] == hashlib.sha256(reply.key.encode()).hexdigest()
    assert all(reply.key not in str(value) for value in row.values())
    (info,) = client.list_bots()
    assert info.bot == "alpha" and info.status == pb.BOT_VALIDATING
    page = client.bot_page("alpha")
    assert page.bot.bot == "alpha" and not page.HasField("standing") and not page.games


@pytest.mark.parametrize(
    ("name", "game", "players", "code"),
    [
        ("alpha", "cite", 2, grpc.StatusCode.ALREADY_EXISTS),  # taken below
        ("greedy", "cite", 2, grpc.StatusCode.INVALID_ARGUMENT),  # a house level's name
        ("Greedy", "cite", 2, grpc.StatusCode.INVALID_ARGUMENT),  # in any case
        ("RANDOM", "cite", 2, grpc.StatusCode.INVALID_ARGUMENT),
        ("MCTS-fast", "cite", 2, grpc.StatusCode.INVALID_ARGUMENT),
        ("mcts:trees=2", "cite", 2, grpc.StatusCode.INVALID_ARGUMENT),
        ("", "cite", 2, grpc.StatusCode.INVALID_ARGUMENT),
        ("x" * 41, "cite", 2, grpc.StatusCode.INVALID_ARGUMENT),
        ("bad name", "cite", 2, grpc.StatusCode.INVALID_ARGUMENT),
        ("beta", "cite", 3, grpc.StatusCode.FAILED_PRECONDITION),  # no such ladder served
        ("beta", "chess", 2, grpc.StatusCode.FAILED_PRECONDITION),
    ],
)
def test_bad_registrations_are_refused_and_change_nothing(served, name, game, players, code):
    server, client = served
    client.register_bot("alpha", "cite", 2)
    before = _rows(server)
    with pytest.raises(GameError) as refused:
        client.register_bot(name, game, players)
    assert refused.value.code == code, refused.value.details
    assert _rows(server) == before


def test_registrations_are_limited_per_client(sqlite_url):
    server = ladder_server(sqlite_url, quick(registrations_per_hour=2))
    with server, Client(server.target) as client:
        client.register_bot("one", "cite", 2)
        client.register_bot("two", "cite", 2)
        with pytest.raises(GameError) as refused:
            client.register_bot("three", "cite", 2)
        assert refused.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert [b.bot for b in client.list_bots()] == ["one", "two"]


def test_concurrent_registrations_from_one_address_stop_at_the_limit(served):
    """40 registrations sent at once from one address: exactly the limit (10 an hour)
    are taken, the others are refused RESOURCE_EXHAUSTED (HTTP 429), and the archive
    holds exactly the bots that were answered with a key."""
    server, _ = served
    http = Http(server.running.http_url)
    try:

        async def burst() -> list:
            return await asyncio.gather(
                *(
                    asyncio.to_thread(
                        http.post, "/v1/bots", {"name": f"b{i}", "gameType": "cite", "players": 2}
                    )
                    for i in range(40)
                )
            )

        answers = asyncio.run(burst())
    finally:
        http.close()
    assert sorted(a.status for a in answers) == [200] * 10 + [429] * 30
    taken = {a.json()["bot"] for a in answers if a.status == 200}
    assert {r["name"] for r in _rows(server)} == taken
    refused = next(a.json() for a in answers if a.status == 429)
    assert "at most 10 bot registrations an hour" in refused["error"]["message"]


def test_with_api_keys_only_callers_with_a_key_register(sqlite_url, tmp_path):
    keys = tmp_path / "keys"
    keys.write_text("k" * 20 + " operator\n")
    with ladder_server(sqlite_url, api_keys_file=str(keys)) as server:
        with Client(server.target) as anonymous:
            with pytest.raises(GameError) as refused:
                anonymous.register_bot("one", "cite", 2)
            assert refused.value.code == grpc.StatusCode.UNAUTHENTICATED
            assert anonymous.list_bots() == []  # reading needs no key
        with Client(server.target, api_key="k" * 20) as operator:
            operator.register_bot("one", "cite", 2)
            # The API key that registered a bot may revoke it without the bot's key.
            assert operator.revoke_bot("one").status == pb.BOT_REVOKED
        with Client(server.target) as anonymous:
            with pytest.raises(GameError) as refused:
                anonymous.revoke_bot("one")
            assert refused.value.code == grpc.StatusCode.UNAUTHENTICATED


def test_revoking_needs_the_bots_key(served):
    server, client = served
    alpha = client.register_bot("alpha", "cite", 2).key
    beta = client.register_bot("beta", "cite", 2).key
    for key, code in [
        ("", grpc.StatusCode.UNAUTHENTICATED),
        (beta, grpc.StatusCode.UNAUTHENTICATED),  # another bot's key
        ("ghb_made_up", grpc.StatusCode.UNAUTHENTICATED),
    ]:
        with pytest.raises(GameError) as refused:
            client.revoke_bot("alpha", key)
        assert refused.value.code == code
    with pytest.raises(GameError) as refused:
        client.revoke_bot("nobody", alpha)
    assert refused.value.code == grpc.StatusCode.NOT_FOUND
    assert {r["name"]: r["status"] for r in _rows(server)} == {
        "alpha": "validating",
        "beta": "validating",
    }
    assert client.revoke_bot("alpha", alpha).status == pb.BOT_REVOKED
    assert client.revoke_bot("alpha", alpha).status == pb.BOT_REVOKED  # again: no error
    assert {r["name"]: r["status"] for r in _rows(server)} == {
        "alpha": "revoked",
        "beta": "validating",
    }


def test_a_server_without_a_ladder_says_so(sqlite_url):
    config = ServerConfig(port=0, bot_workers=1, archive_url=sqlite_url, archive_create=True)
    with ServerThread(config) as server, Client(server.target) as client:
        for call in (lambda: client.register_bot("a", "cite", 2), client.list_bots):
            with pytest.raises(GameError) as refused:
                call()
            assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION
            assert "--ladder" in refused.value.details


def test_the_command_line_prints_the_issues_json_lines(served, capsys):
    server, client = served
    target = ["--target", server.target]
    register = ["bot", "register", *target, "--name", "cli-bot", "--game", "cite"]
    assert main([*register, "--players", "2"]) == 0
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(last) == {"bot", "key"} and last["bot"] == "cli-bot"
    assert main(["bot", "list", *target]) == 0
    listed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    (bot,) = listed["bots"]
    assert {"bot", "status", "reason", "games"} <= set(bot)
    assert (bot["bot"], bot["status"], bot["games"]) == ("cli-bot", "validating", 0)
    assert main(["bot", "revoke", "cli-bot", *target, "--key", "ghb_wrong"]) == 1
    assert "UNAUTHENTICATED" in capsys.readouterr().err
    assert main(["bot", "revoke", "cli-bot", *target, "--key", last["key"]]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["status"] == "revoked"
    # The house levels play among themselves meanwhile: they may be rated already.
    wait_until(lambda: len(client.ladder("cite", 2).standings) == 2, 120, "house ratings")
    assert main(["ladder", *target, "--game", "cite", "--players", "2"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0] == "ladder cite:2 (house: random, greedy)"
    standings = json.loads(out[-1])["standings"]
    fields = {"bot", "level", "games", "mu", "sigma", "ordinal", "win_share", "ci_low", "ci_high"}
    assert all(set(row) == fields for row in standings)
    assert sorted((row["bot"], row["level"]) for row in standings) == [
        ("greedy", "greedy"),
        ("random", "random"),
    ]


def test_over_http(served):
    server, _ = served
    http = Http(server.running.http_url)
    try:
        made = http.post("/v1/bots", {"name": "web-bot", "gameType": "cite", "players": 2})
        assert made.status == 200, made.body
        key = made.json()["key"]
        listed = http.get("/v1/bots")
        assert [b["bot"] for b in listed.json()["bots"]] == ["web-bot"]
        assert listed.json()["bots"][0]["status"] == "BOT_VALIDATING"
        assert http.get("/v1/bots/web-bot").json()["bot"]["bot"] == "web-bot"
        assert http.get("/v1/bots/nobody").status == 404
        bad = http.post("/v1/bots", {"name": "greedy", "gameType": "cite", "players": 2})
        assert bad.status == 400
        revoked = http.post(
            "/v1/bots/web-bot:revoke", {}, headers={"Authorization": f"Bearer {key}"}
        )
        assert revoked.status == 200, revoked.body
        assert revoked.json()["status"] == "BOT_REVOKED"
        ladder = http.get("/v1/ladder?gameType=cite&players=2")
        assert ladder.status == 200 and ladder.json()["ladders"] == ["cite:2"]
        rated = {row["bot"] for row in ladder.json().get("standings", [])}
        assert rated <= {"random", "greedy"}  # web-bot was revoked unrated
    finally:
        http.close()


def test_a_runner_over_http_sends_its_key_as_a_bearer_token_never_in_a_url(served, caplog):
    """``GET /v1/bots:connect?key=...`` is refused (400, INVALID_ARGUMENT, field key)
    with the way to send it, and the key is written in no log; the same GET (or POST)
    with ``Authorization: Bearer`` streams the bot's directives."""
    caplog.set_level(logging.DEBUG)  # every log line, to look for the key in
    server, client = served
    http = Http(server.running.http_url)
    try:
        made = http.post("/v1/bots", {"name": "browser-bot", "gameType": "cite", "players": 2})
        key = made.json()["key"]
        in_url = http.get(f"/v1/bots:connect?key={key}&concurrency=1")
        assert in_url.status == 400, in_url.body
        error = in_url.json()["error"]
        assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "key")
        assert "Authorization: Bearer" in error["message"] and key not in error["message"]
        assert not next(b for b in client.list_bots() if b.bot == "browser-bot").connected
        bearer = {"Authorization": f"Bearer {key}"}
        stream = http.stream("/v1/bots:connect?concurrency=1", headers=bearer)
        assert stream.status == 200 and stream.headers["Content-Type"].startswith(
            "text/event-stream"
        )
        welcome, start, act = (e.json() for e in stream.events("bot-directive", 3))
        assert (welcome["kind"], welcome["bot"]) == ("WELCOME", "browser-bot")
        assert (start["kind"], act["kind"]) == ("START", "ACT")
        legal = json.loads(act["line"])["legal"]
        answer = http.post(
            "/v1/bots:reply",
            {
                "gameId": act["gameId"],
                "version": act["version"],
                "line": json.dumps({"id": legal[0]["id"]}),
            },
            headers=bearer,
        )
        assert answer.status == 200 and answer.json()["outcome"] == "PLAYED", answer.body
        stream.close()
        wrong = http.stream("/v1/bots:connect", headers={"Authorization": "Bearer ghb_not_a_key"})
        assert wrong.status == 401
    finally:
        http.close()
    assert key not in caplog.text


def test_a_runner_over_grpc_sends_its_key_as_authorization_metadata(served):
    """gRPC's bearer token: ``authorization: Bearer KEY`` metadata, for ConnectBot and
    BotReply alike; protocol 1's key field still works, and two different keys are
    refused INVALID_ARGUMENT."""
    server, client = served
    key = client.register_bot("meta-bot", "cite", 2).key
    bearer = (("authorization", f"Bearer {key}"),)
    with grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.GameHostStub(channel)
        stream = stub.ConnectBot(pb.ConnectBotRequest(concurrency=1), metadata=bearer)
        directives = iter(stream)
        welcome = next(directives)
        assert (welcome.kind, welcome.bot) == (pb.BotDirective.WELCOME, "meta-bot")
        act = next(d for d in directives if d.kind == pb.BotDirective.ACT)
        legal = json.loads(act.line)["legal"]
        reply = pb.BotReplyRequest(
            game_id=act.game_id, version=act.version, line=json.dumps({"id": legal[0]["id"]})
        )
        answer = stub.BotReply(reply, metadata=bearer)
        assert answer.outcome == pb.BotReplyResponse.PLAYED, answer
        stream.cancel()
        other = client.register_bot("other-bot", "cite", 2).key
        with pytest.raises(grpc.RpcError) as refused:
            next(iter(stub.ConnectBot(pb.ConnectBotRequest(key=other), metadata=bearer)))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "authorization: Bearer" in refused.value.details()
        with pytest.raises(grpc.RpcError) as refused:
            stub.BotReply(reply, metadata=(("authorization", "Bearer ghb_not_a_key"),))
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_moves_and_heartbeats_are_written_for_many_bots_at_once(archive_url):
    """The per-second flush of counted moves and the heartbeat of a replica's runners
    are one statement each for all bots: each bot gets its own count, a move ends its
    row of faults only when it came last, and only a bot's current runner is kept."""
    engine = database.make_engine(archive_url)
    try:
        database.upgrade(engine)
        accounts = Accounts(engine)
        names = ["alpha", "beta", "gamma"]
        for name in names:
            accounts.register(name, "cite:2", "owner")
            assert accounts.connect(name, f"s-{name}", 1, 100.0) is not None
            accounts.record_fault(name, Fault.GARBAGE, max_faults=10)
        accounts.record_moves({"alpha": (3, True), "beta": (5, False), "nobody": (1, True)})
        accounts.record_moves({"alpha": (1, True)})
        found = {name: accounts.get(name) for name in names}
        assert [found[n].moves for n in names] == [4, 5, 0]
        assert [found[n].faults_in_row for n in names] == [0, 1, 1]
        pairs = [("alpha", "s-alpha"), ("beta", "s-old"), ("gamma", "s-gamma")]
        assert accounts.heartbeats(pairs, 500.0) == {("alpha", "s-alpha"), ("gamma", "s-gamma")}
        assert accounts.heartbeats([], 600.0) == set()
        until = {name: accounts.get(name).connected_until for name in names}
        assert until == {"alpha": 500.0, "beta": 100.0, "gamma": 500.0}
    finally:
        engine.dispose()
