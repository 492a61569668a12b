"""Seats that belong to someone (docs/accounts.md): JoinGame with an account's key binds
the seat to the account; views, listings, the archive and the export show its name and
kind; GetMySeat gives the seat's token back from another client; guests keep their
name, shown as guests, and never match ``account=``. On the in-memory store with SQLite
and on Redis with PostgreSQL; the store contract on both stores."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator

import grpc
import pytest

from gamehost import Client, GameError
from gamehost.v1 import gamehost_pb2 as pb
from services.archive.archive import Archive, GameQuery
from services.archive.export import ExportQuery, export_lines
from services.archive.synthetic import finished_game
from services.ladder.schema import games_of
from services.server import ServerConfig, ServerThread
from tests.fixtures.databases import scratch_postgres
from tests.fixtures.http_client import Http
from tests.polling import wait_until
from tests.stores.helpers import new_game


@pytest.fixture(params=["memory+sqlite", "redis+postgres"])
def server(request, tmp_path) -> Iterator[ServerThread]:
    settings: dict = {}
    if request.param == "memory+sqlite":
        url = f"sqlite:///{tmp_path / 'archive.sqlite3'}"
        postgres = None
    else:
        postgres = scratch_postgres()
        url = next(postgres)
        settings.update(
            redis_url=request.getfixturevalue("redis_url"),
            redis_prefix=request.getfixturevalue("redis_prefix"),
        )
    config = ServerConfig(
        port=0, http_port=0, bot_workers=1, archive_url=url, archive_create=True, **settings
    )
    try:
        with ServerThread(config) as running:
            yield running
    finally:
        if postgres is not None:
            next(postgres, None)


def _refused(call) -> grpc.StatusCode:
    with pytest.raises(GameError) as refused:
        call()
    return refused.value.code


def _listed(client: Client, **filters) -> set[str]:
    return {g.game_id for g in client.list_games(**filters)}


def test_a_key_binds_the_seat_and_a_guest_keeps_a_name(server):
    with Client(server.target) as anyone:
        alice_key = anyone.create_account("alice").key
        bob_key = anyone.create_account("bob").key
        game = anyone.create_game("cite", ["human", "human"]).game_id
        with Client(server.target, key=alice_key) as alice:
            joined = alice.join(game)
            assert _refused(lambda: alice.join(game)) == grpc.StatusCode.FAILED_PRECONDITION
        guest = anyone.join(game, name="Guesty")
        seats = anyone.state(game).seats
        assert (seats[0].name, seats[0].account, seats[0].guest) == ("alice", "alice", False)
        assert seats[0].account_kind == pb.ACCOUNT_HUMAN and seats[0].kind == pb.HUMAN
        assert (seats[1].name, seats[1].account, seats[1].guest) == ("Guesty", "", True)
        (summary,) = [g for g in anyone.list_games() if g.game_id == game]
        assert [(s.name, s.account, s.guest) for s in summary.seats] == [
            ("alice", "alice", False),
            ("Guesty", "", True),
        ]
        assert game in _listed(anyone, account="alice")
        assert game not in _listed(anyone, account="Guesty")  # a guest's name is no account
        assert game in _listed(anyone, player="Guesty") and game in _listed(anyone, player="alice")

        # From another device: the same seat and token; the guest's token still works.
        with Client(server.target, key=alice_key) as other_device:
            mine = other_device.my_seat(game)
        assert (mine.seat, mine.token) == (joined.seat, joined.token)
        assert anyone.state(game, mine.token).HasField("view")
        assert anyone.state(game, guest.token).HasField("view")
        with Client(server.target, key=bob_key) as bob:
            assert _refused(lambda: bob.my_seat(game)) == grpc.StatusCode.NOT_FOUND
        assert _refused(lambda: anyone.my_seat(game)) == grpc.StatusCode.UNAUTHENTICATED
        with Client(server.target, key="gha_made_up") as stranger:
            assert _refused(lambda: stranger.join(game)) == grpc.StatusCode.UNAUTHENTICATED
        # Over HTTP the key is the join's Authorization header.
        other = anyone.create_game("cite", ["human", "human"]).game_id
        with Http(server.running.http_url) as http:
            answer = http.request(
                "POST",
                f"/v1/games/{other}:join",
                {},
                headers={"Authorization": f"Bearer {bob_key}"},
            )
            assert answer.status == 200, answer.body
        first = anyone.state(other).seats[0]
        assert (first.name, first.account, first.guest) == ("bob", "bob", False)


def test_an_account_joins_under_its_own_name_and_reads_no_other_private_game(server):
    with Client(server.target) as anyone:
        alice_key = anyone.create_account("alice").key
        bob_key = anyone.create_account("bob").key
        created = anyone.create_game("cite", ["human", "human"], private=True)
        game, codes = created.game_id, {c.seat: c.code for c in created.invite_codes}
        with Client(server.target, key=alice_key) as alice:
            assert _refused(lambda: alice.join(game, name="mallory", invite_code=codes[0])) == (
                grpc.StatusCode.INVALID_ARGUMENT
            )
            seat = alice.join(game, invite_code=codes[0])
            assert alice.my_seat(game).token == seat.token
        with Client(server.target, key=bob_key) as bob:
            assert _refused(lambda: bob.my_seat(game)) == grpc.StatusCode.NOT_FOUND
            assert _refused(lambda: bob.state(game)) == grpc.StatusCode.PERMISSION_DENIED
            assert game not in _listed(bob, account="alice")  # private games stay unlisted


async def test_archived_seats_and_the_export_show_the_account(tmp_path):
    archive = Archive.open(f"sqlite:///{tmp_path / 'a.sqlite3'}", create=True)
    try:
        snapshot, events = finished_game("cite", 2, seed=3, names=["alice", "Guesty"])
        seats = [
            {**snapshot.meta["seats"][0], "account": "alice", "account_kind": "human"},
            snapshot.meta["seats"][1],
        ]
        snapshot = dataclasses.replace(snapshot, meta={**snapshot.meta, "seats": seats})
        assert await archive.put_game(snapshot, events)
        found, _ = await archive.find_games(GameQuery(account="alice"))
        assert [g.game_id for g in found] == [snapshot.game_id]
        assert found[0].seats[0]["account"] == "alice" and "account" not in found[0].seats[1]
        assert (await archive.find_games(GameQuery(account="Guesty")))[0] == []
        lines = [line async for line in export_lines(archive, ExportQuery(), games_of)]
        exported = json.loads(lines[0])["seats"]
        assert exported[0]["account"] == "alice" and "account" not in exported[1]
    finally:
        archive.close()


async def test_a_seat_claimed_by_an_account_keeps_it_in_the_metadata(store):
    """The store contract: ``claim_seat(account=)`` binds the seat while its token
    holds it, without moving the version, as a joined name does."""
    seats = [{"kind": "human", "level": "", "name": ""}] * 2
    await store.create(dataclasses.replace(new_game(), meta={**new_game().meta, "seats": seats}))
    joined = {"kind": "joined"}
    assert await store.claim_seat("g1", 0, "hash-a", joined, 0, name="alice", account="human:alice")
    assert await store.claim_seat("g1", 1, "hash-b", joined, 0, name="Guesty")
    loaded = await store.load("g1")
    assert loaded.version == 0
    assert [(s.name, s.account, s.account_kind) for s in loaded.info.seats] == [
        ("alice", "alice", "human"),
        ("Guesty", "", ""),
    ]


def test_my_games_are_the_accounts_live_first_with_the_turn_marked(server):
    with Client(server.target) as anyone:
        key = anyone.create_account("alice").key
        finished = anyone.create_game("cite", ["human", "human"]).game_id
        waiting = anyone.create_game("cite", ["human", "human"]).game_id
        others = anyone.create_game("cite", ["human", "human"]).game_id
        with Client(server.target, key=key) as alice:
            seats = {game: alice.join(game, seat=0) for game in (finished, waiting)}
            anyone.join(others, name="alice")  # a guest named alice: not hers
            anyone.join(waiting, seat=1, name="Guesty")
            assert alice.my_games() and not anyone.list_games(account="nobody")
            # The finished game: both players step away; bots play it out in their seats.
            guest = anyone.join(finished, seat=1, name="Guesty")
            for token in (seats[finished].token, guest.token):
                anyone.hand_over(finished, token, "random")
            wait_until(
                lambda: anyone.state(finished).status == pb.FINISHED,
                timeout=120,
                what="the bots finish the game",
            )
            mine = alice.my_games()
        assert [g.game_id for g in mine] == [waiting, finished]  # live first
        to_move = anyone.state(waiting).to_move
        assert mine[0].your_turn == (to_move.kind == pb.Actor.SEAT and to_move.seat == 0)
        assert not mine[1].your_turn
        # Once archived, the finished game counts among the games alice played.
        wait_until(
            lambda: anyone.account("alice").games_played == 1,
            timeout=60,
            what="the finished game is archived and counted",
        )
        with Http(server.running.http_url) as http:
            answer = http.get("/v1/me/games", headers={"Authorization": f"Bearer {key}"})
            assert answer.status == 200, answer.body
            listed = answer.json()["games"]
            assert [g["gameId"] for g in listed] == [waiting, finished]
            assert http.get("/v1/me/games").status == 401
