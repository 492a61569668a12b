"""Ratings for everyone (docs/accounts.md, "Ratings"): a rated game with an account or a
house level in every seat moves each seat's rating once, when it is archived; an
unrated one, or one with a guest, moves none. On the in-memory store with SQLite and on
Redis with PostgreSQL; the once-only rule on the archive itself."""

from __future__ import annotations

import dataclasses

import pytest

from gamehost import Client
from services.accounts import ratings
from services.archive.archive import Archive
from services.archive.synthetic import finished_game
from services.kinds import SeatKind
from services.stores.records import Seat
from services.tournament.ratings import new_rating
from tests.polling import wait_until


def _rating(client: Client, name: str, ladder: tuple[str, int] = ("cite", 2)):
    found = [r for r in client.account(name).ratings if (r.game_type, r.players) == ladder]
    return found[0] if found else None


def _played_by_bots(client: Client, keys: dict[str, str], rated: bool, guest: str = "") -> str:
    """A cite game of the accounts in ``keys`` (and a guest), each seat handed to the
    random level at once: it plays to its end on its own."""
    game = client.create_game("cite", ["human", "human"], rated=rated).game_id
    tokens = []
    for key in keys.values():
        with Client(client.target, key=key) as player:
            tokens.append(player.join(game).token)
    if guest:
        tokens.append(client.join(game, name=guest).token)
    for token in tokens:
        client.hand_over(game, token, "random")
    return game


def test_a_rated_game_moves_both_accounts_ratings_once(server):
    with Client(server.target) as client:
        keys = {n: client.create_account(n).key for n in ("alice", "bob")}
        assert client.account("alice").ratings == []
        game = _played_by_bots(client, keys, rated=True)
        rated = wait_until(lambda: _rating(client, "bob"), 120, "bob's rating")
        alice = _rating(client, "alice")
        assert alice is not None and (alice.games, rated.games) == (1, 1)
        fresh = new_rating()
        assert alice.sigma < fresh.sigma and rated.sigma < fresh.sigma
        change = ratings.rating_change(server.running.archive.engine, game, "alice")
        assert change is not None and (change.mu, change.sigma) == (alice.mu, alice.sigma)
        assert (change.mu_before, change.sigma_before) == (fresh.mu, fresh.sigma)
        assert ratings.rating_change(server.running.archive.engine, game, "carol") is None
        assert client.account("alice").games_played == 1


def test_an_unrated_game_or_one_with_a_guest_moves_nobody(server):
    with Client(server.target) as client:
        alice = {"alice": client.create_account("alice").key}
        both = dict(alice, bob=client.create_account("bob").key)
        games = [
            _played_by_bots(client, both, rated=False),
            _played_by_bots(client, alice, rated=True, guest="Guesty"),
        ]
        wait_until(lambda: client.account("alice").games_played == 2, 120, "both archived")
        assert client.account("alice").ratings == [] and client.account("bob").ratings == []
        engine = server.running.archive.engine
        assert [ratings.rating_change(engine, g, "alice") for g in games] == [None, None]


def _rated_game(seats: tuple[Seat, ...], game_id: str):
    snapshot, events = finished_game("cite", 2, seed=3, names=["alice", "greedy"])
    info = dataclasses.replace(snapshot.info, rated=True, seats=seats)
    return snapshot.replaced(game_id=game_id, meta=info.to_dict()), events


@pytest.mark.parametrize("url", ["sqlite", "postgres"])
async def test_an_archived_game_is_rated_once_however_often_it_is_put(url, request, tmp_path):
    from tests.fixtures.databases import scratch_postgres

    postgres = scratch_postgres() if url == "postgres" else None
    archive_url = next(postgres) if postgres else f"sqlite:///{tmp_path / 'a.sqlite3'}"
    archive = Archive.open(archive_url, create=True)
    archive.on_archived.append(ratings.rate_archived)
    try:
        seats = (
            Seat(name="alice", account="alice", account_kind="human"),
            Seat(kind=SeatKind.BOT, level="greedy", name="greedy"),
        )
        snapshot, events = _rated_game(seats, "a" * 32)
        assert await archive.put_game(snapshot, events)
        first = ratings.ratings_of(archive.engine, "alice")
        assert [(r.ladder, r.games) for r in first] == [("cite:2", 1)]
        assert [r.games for r in ratings.ratings_of(archive.engine, "greedy")] == [1]
        assert not await archive.put_game(snapshot, events)  # archived again: no-op
        with archive.engine.begin() as connection:  # the hook replayed by hand: no-op
            ratings.rate_archived(connection, snapshot, [1.0, 0.0])
        assert ratings.ratings_of(archive.engine, "alice") == first
    finally:
        archive.close()
        if postgres is not None:
            next(postgres, None)
