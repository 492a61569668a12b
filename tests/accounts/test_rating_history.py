"""A rating over time (docs/accounts.md, "Ratings"): GetAccount gives, per game and player
count, the account's rating after each of its newest rated games, oldest first, read
from ``rating_changes`` (a game not open to anyone without its id); on SQLite and
PostgreSQL, over gRPC and HTTP."""

from __future__ import annotations

import pytest

from gamehost import Client
from services.accounts import ratings
from tests.fixtures.http_client import Http
from tests.polling import wait_until


def _rated_game(client: Client, keys: dict[str, str], spectators: bool = True) -> str:
    """A rated cite game of the accounts in ``keys``, each seat handed to the random
    level at once: it plays to its end on its own."""
    game = client.create_game("cite", ["human", "human"], rated=True, spectators=spectators).game_id
    tokens = []
    for key in keys.values():
        with Client(client.target, key=key) as player:
            tokens.append(player.join(game).token)
    for token in tokens:
        client.hand_over(game, token, "random")
    return game


def _games(client: Client, name: str) -> int:
    found = [r for r in client.account(name).ratings if (r.game_type, r.players) == ("cite", 2)]
    return found[0].games if found else 0


def test_the_history_gives_each_rated_games_rating_oldest_first(served):
    server, client = served
    keys = {n: client.create_account(n).key for n in ("alice", "bob")}
    assert client.account("alice").ratings == []
    games = []
    for played in (1, 2):  # one after the other: the order is the archive's
        games.append(_rated_game(client, keys))
        wait_until(lambda n=played: _games(client, "alice") == n, 120, f"rated game {played}")
    (cite,) = client.account("alice").ratings
    assert [p.game_id for p in cite.history] == games
    engine = server.running.archive.engine
    for point, game in zip(cite.history, games, strict=True):
        change = ratings.rating_change(engine, game, "alice")
        assert change is not None
        assert (point.mu, point.sigma, point.rated_at) == (change.mu, change.sigma, change.rated_at)
        assert point.ordinal == pytest.approx(change.mu - 3 * change.sigma)
    assert cite.history[0].rated_at <= cite.history[1].rated_at
    assert (cite.history[-1].mu, cite.history[-1].sigma) == (cite.mu, cite.sigma)
    # The bound keeps the newest games.
    newest = ratings.history_of(engine, "alice", ["cite:2"], limit=1)
    assert [p.game_id for p in newest["cite:2"]] == games[1:]
    # A game that admits no spectators keeps its point, not its id (ListGames hides it).
    hidden = _rated_game(client, keys, spectators=False)
    wait_until(lambda: _games(client, "alice") == 3, 120, "rated game 3")
    (cite,) = client.account("alice").ratings
    assert [p.game_id for p in cite.history] == [*games, ""]
    change = ratings.rating_change(engine, hidden, "alice")
    assert change is not None and (cite.history[2].mu, cite.history[2].sigma) == (
        change.mu,
        change.sigma,
    )
    with Http(server.running.http_url) as http:
        shown = http.get("/v1/accounts/alice").json()
    (points,) = [r["history"] for r in shown["ratings"]]
    assert [p.get("gameId", "") for p in points] == [*games, ""]
    assert points[1]["ordinal"] == pytest.approx(cite.history[1].ordinal)
