"""Accounts (CreateAccount, GetAccount, RotateAccountKey, RevokeAccount) over gRPC,
HTTP and the command line, on SQLite and PostgreSQL: the key is shown once and kept
only as its hash, names are unique in any case across humans and bots, house level
names are reserved, creation is limited per client; bad input changes nothing."""

from __future__ import annotations

import hashlib
import json

import grpc
import pytest
import sqlalchemy as sa

from gamehost import Client, GameError
from gamehost.cli import main
from gamehost.v1 import gamehost_pb2 as pb
from services.accounts.schema import accounts
from tests.fixtures.http_client import Http
from tests.ladder.conftest import ladder_server


def _rows(server) -> list[dict]:
    with server.running.archive.engine.connect() as connection:
        query = sa.select(accounts).order_by(accounts.c.name)
        return [dict(r._mapping) for r in connection.execute(query)]


def _refused(call) -> grpc.StatusCode:
    with pytest.raises(GameError) as refused:
        call()
    return refused.value.code


def test_create_get_rotate_and_revoke_over_grpc(served):
    server, client = served
    created = client.create_account("alice")
    assert created.account == "alice" and created.key.startswith("gha_")
    (row,) = _rows(server)
    assert row["key_hash"] == hashlib.sha256(created.key.encode()).hexdigest()
    assert all(created.key not in str(value) for value in row.values())
    found = client.account("ALICE")  # any case finds it
    assert (found.name, found.kind, found.revoked) == ("alice", pb.ACCOUNT_HUMAN, False)
    assert not found.ratings and found.games_played == 0

    rotated = client.rotate_account_key("alice", created.key)
    assert rotated.key != created.key
    assert _refused(lambda: client.rotate_account_key("alice", created.key)) == (
        grpc.StatusCode.UNAUTHENTICATED
    )
    client.create_account("bob")
    with Client(server.target, key=rotated.key) as alice:  # the key as the client's bearer
        assert _refused(lambda: alice.revoke_account("bob")) == grpc.StatusCode.PERMISSION_DENIED
        assert not client.account("bob").revoked
        assert alice.revoke_account("alice").revoked
        assert _refused(lambda: alice.rotate_account_key("alice")) == (
            grpc.StatusCode.PERMISSION_DENIED
        )
    assert _refused(lambda: client.account("carol")) == grpc.StatusCode.NOT_FOUND


def test_create_get_rotate_and_revoke_over_http(served):
    server, _ = served
    with Http(server.running.http_url) as http:
        created = http.post("/v1/accounts", {"name": "dora"})
        assert created.status == 200, created.body
        body = created.json()
        assert body["account"] == "dora" and body["key"].startswith("gha_")
        shown = http.get("/v1/accounts/Dora").json()
        assert (shown["name"], shown["kind"]) == ("dora", "ACCOUNT_HUMAN")
        bearer = {"Authorization": f"Bearer {body['key']}"}
        rotated = http.request("POST", "/v1/accounts/dora:rotateKey", {}, headers=bearer)
        assert rotated.status == 200 and rotated.json()["key"] != body["key"]
        stale = http.request("POST", "/v1/accounts/dora:revoke", {}, headers=bearer)
        assert stale.status == 401, stale.body
        fresh = {"Authorization": f"Bearer {rotated.json()['key']}"}
        revoked = http.request("POST", "/v1/accounts/dora:revoke", {}, headers=fresh)
        assert revoked.status == 200 and revoked.json()["revoked"] is True
        assert http.get("/v1/accounts/nobody").status == 404
        taken = http.post("/v1/accounts", {"name": "DORA"})
        assert taken.status == 409 and "taken" in taken.json()["error"]["message"]


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Alice", grpc.StatusCode.ALREADY_EXISTS),  # alice exists, in another case
        ("ALPHA", grpc.StatusCode.ALREADY_EXISTS),  # a bot's name: one name space
        ("greedy", grpc.StatusCode.INVALID_ARGUMENT),  # a house level's name
        ("Random", grpc.StatusCode.INVALID_ARGUMENT),  # in any case
        ("MCTS-fast", grpc.StatusCode.INVALID_ARGUMENT),
        ("", grpc.StatusCode.INVALID_ARGUMENT),
        ("x" * 41, grpc.StatusCode.INVALID_ARGUMENT),
        ("bad name", grpc.StatusCode.INVALID_ARGUMENT),
    ],
)
def test_bad_names_are_refused_and_change_nothing(served, name, code):
    server, client = served
    client.create_account("alice")
    client.register_bot("alpha", "cite", 2)
    before = _rows(server)
    assert _refused(lambda: client.create_account(name)) == code
    assert _rows(server) == before


def test_a_bot_is_an_account_of_kind_bot_in_the_one_name_space(served):
    server, client = served
    client.create_account("carol")
    reply = client.register_bot("beta", "cite", 2)
    found = client.account("BETA")
    assert (found.name, found.kind) == ("beta", pb.ACCOUNT_BOT)
    assert [r["kind"] for r in _rows(server)] == ["bot", "human"]  # beta, carol
    assert _refused(lambda: client.register_bot("Carol", "cite", 2)) == (
        grpc.StatusCode.ALREADY_EXISTS
    )
    # A bot is revoked with RevokeBot (its runner is let go too), not RevokeAccount.
    assert _refused(lambda: client.revoke_account("beta", reply.key)) == (
        grpc.StatusCode.FAILED_PRECONDITION
    )
    client.revoke_bot("beta", reply.key)
    assert client.account("beta").revoked


def test_creation_is_limited_per_client(sqlite_url):
    with ladder_server(sqlite_url, accounts_per_hour=2) as server, Client(server.target) as c:
        c.create_account("one")
        c.create_account("two")
        assert _refused(lambda: c.create_account("three")) == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert [r["name"] for r in _rows(server)] == ["one", "two"]
        c.register_bot("bot-one", "cite", 2)  # bot registrations are counted apart


def test_the_command_line_prints_the_key_once_as_its_last_line(served, capsys):
    server, _ = served
    target = ["--target", server.target]
    assert main(["account", "create", *target, "--name", "erin"]) == 0
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert list(last) == ["account", "key"] and last["account"] == "erin"
    assert main(["account", "show", *target, "--name", "ERIN"]) == 0
    shown = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (shown["account"], shown["kind"]) == ("erin", "human")
    assert main(["account", "revoke", *target, "--name", "erin", "--key", "gha_wrong"]) == 1
    assert main(["account", "revoke", *target, "--name", "erin", "--key", last["key"]]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["revoked"] is True
