"""Quick play with the ladder's registered bots (docs/accounts.md, "Quick play"): after
the wait, an empty seat goes to the connected bot rated nearer the group than any
house level; the bot plays it through ConnectBot like a ladder game, and the game is
rated once, as it is archived (never by the ladder too). A house level nearer than the
bot gets the seat instead. On the in-memory store with SQLite and on Redis with
PostgreSQL."""

from __future__ import annotations

import dataclasses
import json
import secrets
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import sqlalchemy as sa

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from services.accounts.schema import rating_changes, ratings
from services.kinds import EventKind
from services.ladder.ledger import PLAYED, QUICK
from services.ladder.model import FALLBACK, BotStatus
from services.ladder.schema import ladder_bots, ladder_games, ladder_seats
from services.matchmaking import pairing
from services.matchmaking.config import QuickPlayConfig
from services.server import ServerThread
from tests.ladder.conftest import QUICK as LADDER
from tests.ladder.test_play import Connected
from tests.matchmaking.conftest import config
from tests.polling import wait_until

D = pb.BotDirective
R = pb.BotReplyResponse
# The bot's daily cap leaves room for one game, not for a ladder set (two games): the
# ladder never seats it, so only quick play moves its rating here.
BOT_LADDER = dataclasses.replace(LADDER, tables=1, daily_games=1)
HOUSE = {"random": 10.0, "greedy": 30.0}  # the house levels' mu (a newcomer's: 25)


def _server(backing: dict) -> ServerThread:
    quick = QuickPlayConfig(wait=0.5, house=tuple(HOUSE))
    return ServerThread(config(backing, quick_play=quick, ladder=BOT_LADDER))


def _rate(server: ServerThread, name: str, level: str, kind: str, mu: float) -> None:
    """``name`` rated ``mu`` on cite:2 (a small sigma: the ladder's house sets meanwhile
    move the levels little)."""
    row = {"ladder": "cite:2", "name": name, "level": level, "kind": kind, "mu": mu}
    row.update(sigma=1.0, games=5, points=2.0)
    with server.running.archive.engine.begin() as connection:
        connection.execute(sa.insert(ratings).values(row))


def _active_bot(server: ServerThread, client: Client, mu: float) -> tuple[Connected, str]:
    """Bot "probe", rated ``mu``, active (its validation passed) and connected; its key."""
    key = client.register_bot("probe", "cite", 2).key
    service = server.running.matchmaker.service
    service.accounts.set_status("probe", BotStatus.ACTIVE, "passed (test)")
    for level, level_mu in HOUSE.items():
        _rate(server, level, level, "house", level_mu)
    _rate(server, "probe", "", "bot", mu)
    connection = Connected(client, key)
    assert connection.next().kind == D.WELCOME
    return connection, key


def _matched(client: Client) -> pb.MatchmakeResponse:
    """carol's quick-play game, her seat handed to the random level (it plays itself)."""
    matched = client.matchmake("cite", 2)
    client.hand_over(matched.game_id, matched.token, "random")
    return matched


def test_a_connected_bot_rated_nearest_plays_the_empty_seat_and_the_game_is_rated_once(
    backing,
):
    with _server(backing) as server, Client(server.target) as anyone:
        connection, bot_key = _active_bot(server, anyone, 26.0)
        carol = Client(server.target, key=anyone.create_account("carol").key)
        started, ended, played = set(), {}, Counter()
        try:
            with ThreadPoolExecutor(1) as pool:
                call = pool.submit(_matched, carol)
                # The bot answers every act it is sent (the first legal move).
                while not (call.done() and call.result().game_id in ended):
                    directive = connection.next(timeout=120)
                    if directive.kind == D.START:
                        started.add(directive.game_id)
                    elif directive.kind == D.END:
                        ended[directive.game_id] = json.loads(directive.line)["returns"]
                    elif directive.kind == D.ACT:
                        legal = json.loads(directive.line)["legal"]
                        answer = anyone.bot_reply(
                            bot_key,
                            directive.game_id,
                            directive.version,
                            json.dumps({"id": legal[0]["id"]}),
                        )
                        played[directive.game_id] += answer.outcome == R.PLAYED
                matched = call.result()
        finally:
            carol.close()
            connection.close()
        game = matched.game_id
        assert (matched.bots, matched.rated) == (1, True)
        assert started == {game} and played[game] > 0
        assert sorted(ended[game]) == [0.0, 1.0]
        state = anyone.state(game)
        bot_seat = 1 - matched.seat
        seat = state.seats[bot_seat]
        assert (seat.kind, seat.name, seat.bot_level, seat.account) == (
            pb.BOT,
            "probe",
            "",
            "probe",
        )

        engine = server.running.archive.engine
        wait_until(lambda: anyone.account("carol").ratings, 120, "carol's rating")
        with engine.connect() as connection_:
            changes = connection_.execute(
                sa.select(rating_changes).where(rating_changes.c.game_id == game)
            ).all()
            probe = connection_.execute(
                sa.select(ratings).where(ratings.c.ladder == "cite:2", ratings.c.name == "probe")
            ).one()
        assert sorted((c.seat, c.name) for c in changes) == sorted(
            [(matched.seat, "carol"), (bot_seat, "probe")]
        )
        (change,) = [c for c in changes if c.name == "probe"]
        assert (change.mu_before, change.sigma_before) == (26.0, 1.0)
        # Moved once, by this game: the ladder did not rate it as well.
        assert (probe.games, probe.mu, probe.sigma) == (6, change.mu, change.sigma)
        assert probe.points == 2.0 + change.returned

        # Every move of the bot's seat was its own (none by a clock's fallback).
        archived = server.call(server.running.archive.game(game))
        moves = [
            e.data
            for e in archived.events
            if e.data["kind"] == EventKind.ACTION and e.data.get("seat") == bot_seat
        ]
        assert len(moves) == played[game] and not any(m.get("timeout") for m in moves)

        # The ladder saw it archived and marked it played (rated by quick play).
        def status() -> str:
            with engine.connect() as c:
                query = sa.select(ladder_games.c.status).where(ladder_games.c.game_id == game)
                return c.execute(query).scalar_one()

        wait_until(lambda: status() == PLAYED, 60, "the ladder to close the game")


def test_a_house_level_nearer_than_the_bot_gets_the_seat(backing):
    with _server(backing) as server, Client(server.target) as anyone:
        connection, _ = _active_bot(server, anyone, 45.0)
        key = anyone.create_account("dana").key
        try:
            with Client(server.target, key=key) as dana:
                matched = dana.matchmake("cite", 2)
                seat = anyone.state(matched.game_id).seats[1 - matched.seat]
                assert (matched.bots, seat.kind, seat.bot_level) == (1, pb.BOT, "greedy")
                dana.hand_over(matched.game_id, matched.token, "random")
        finally:
            connection.close()


def test_a_bots_match_made_again_after_a_kill_is_made_once(backing):
    """A holder killed after making the game and claiming the bot's seat: the next one
    makes the match again from its plan, and finds the game, the seat and the ladder's
    row as they were (one of each)."""
    with _server(backing) as server, Client(server.target) as anyone:
        connection, _ = _active_bot(server, anyone, 26.0)
        anyone.create_account("erin")
        quick = server.running.quick_matchmaker
        wait_until(lambda: server.call(quick.tick()), 30, "the quick play lease")
        game = secrets.token_hex(16)
        plan = {"queue": "cite:2", "seats": [{"account": "erin"}, {"bot": "probe"}], "bots": 1}
        try:
            for _ in range(2):
                server.call(quick._make(game, plan))
            start = connection.next(D.START)
            assert (start.game_id, json.loads(start.line)["seat"]) == (game, 1)
        finally:
            connection.close()
        seats = anyone.state(game).seats
        assert [(s.account, s.name) for s in seats] == [("erin", "erin"), ("probe", "probe")]
        with server.running.archive.engine.connect() as c:
            rows = c.execute(
                sa.select(ladder_games.c.status, ladder_seats.c.seat, ladder_seats.c.name)
                .join(ladder_seats, ladder_seats.c.game_id == ladder_games.c.game_id)
                .where(ladder_games.c.game_id == game)
                .order_by(ladder_seats.c.seat)
            ).all()
        assert [tuple(r) for r in rows] == [(QUICK, 0, "erin"), (QUICK, 1, "probe")]


def test_a_bot_fills_one_seat_and_house_levels_the_rest():
    levels = {"random": 10.0, "greedy": 30.0, "probe": 26.0}
    assert pairing.nearest_levels(25.0, levels, 2) == ["probe", "greedy"]
    assert pairing.nearest_levels(25.0, levels, 5, once={"probe"}) == [
        "probe",
        "greedy",
        "random",
        "greedy",
        "random",
    ]
    assert pairing.nearest_levels(25.0, {"probe": 26.0}, 2, once={"probe"}) == ["probe"]


def test_a_bot_whose_runner_left_is_handed_over_by_the_ladder_and_the_game_ends(backing):
    """The ladder looks after a quick-play game as after its own: a bot whose runner is
    gone has its seat handed to the fallback level for good, and the game plays on to
    its end (unrated, as any game with a seat handed over for good)."""
    with _server(backing) as server, Client(server.target) as anyone:
        connection, _ = _active_bot(server, anyone, 26.0)
        try:
            with Client(server.target, key=anyone.create_account("fay").key) as fay:
                matched = fay.matchmake("cite", 2)
                assert connection.next(D.START).game_id == matched.game_id
                connection.close()
                engine = server.running.archive.engine
                with engine.begin() as c:  # its presence runs out at once
                    c.execute(
                        sa.update(ladder_bots)
                        .where(ladder_bots.c.name == "probe")
                        .values(session="", connected_until=0.0)
                    )
                fay.hand_over(matched.game_id, matched.token, "random")
        finally:
            connection.close()
        game = matched.game_id
        seat = wait_until(
            lambda: (
                (s := anyone.state(game).seats[1 - matched.seat]).control == pb.Seat.HANDED_OVER
                and s
            ),
            60,
            "the bot's seat handed over",
        )
        assert (seat.kind, seat.bot_level) == (pb.BOT, FALLBACK)

        def status() -> str:
            with engine.connect() as c:
                query = sa.select(ladder_games.c.status).where(ladder_games.c.game_id == game)
                return c.execute(query).scalar_one()

        wait_until(lambda: status() == PLAYED, 120, "the game over and marked played")
        assert server.call(server.running.archive.game(game)) is not None
        with engine.connect() as c:
            query = sa.select(rating_changes).where(rating_changes.c.game_id == game)
            assert c.execute(query).all() == []
