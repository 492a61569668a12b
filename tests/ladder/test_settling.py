"""The matchmaker settling games that went wrong before they were played: a seat
claim that keeps losing races to a moving game waits for a later tick instead of
failing the game, and a pending game the store no longer has is settled instead of
staying open (and holding a table) for ever."""

from __future__ import annotations

import json
import secrets
import time

import sqlalchemy as sa

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from services.kinds import GameStatus, SeatKind
from services.ladder.ledger import FAILED, PENDING, LadderSeat, PlannedGame
from services.ladder.matchmaker import CLAIM_TRIES
from services.ladder.schema import ladder_games
from services.play.host import SeatSpec
from services.stores import GameMoved
from services.turns import steps
from tests.ladder.conftest import ladder_server, quick
from tests.ladder.test_play import Connected
from tests.procs import wait_until

D = pb.BotDirective
# No sets of their own: only what a test asks for (and validation games) is played.
STILL = quick(tables=1, house_tables=0)


def _status(server, game_id: str) -> str | None:
    with server.running.archive.engine.connect() as connection:
        return connection.execute(
            sa.select(ladder_games.c.status).where(ladder_games.c.game_id == game_id)
        ).scalar()


def test_a_claim_that_keeps_losing_races_waits_for_a_later_tick(sqlite_url):
    server = ladder_server(sqlite_url, STILL)
    with server, Client(server.target) as client:
        store = server.running.host.store
        claim_seat = store.claim_seat
        tries: list[str] = []

        async def always_moved(game_id, *args, **kwargs):  # a game moving under every try
            tries.append(game_id)
            raise GameMoved(game_id)

        store.claim_seat = always_moved
        key = client.register_bot("patient", "cite", 2).key
        connection = Connected(client, key)
        wait_until(lambda: len(tries) > 2 * CLAIM_TRIES, 60, "claims over several ticks")
        game_id = tries[0]
        assert set(tries) == {game_id}  # the same game, tried again and again
        assert _status(server, game_id) == PENDING
        assert client.state(game_id).status == pb.IN_PROGRESS  # not abandoned
        store.claim_seat = claim_seat  # the game settles down: the seat is claimed
        start = json.loads(connection.next(D.START).line)
        assert start["game_id"] == game_id
        connection.close()


def test_a_pending_game_the_store_lost_is_settled(sqlite_url):
    server = ladder_server(sqlite_url, STILL)
    with server, Client(server.target) as client:
        client.register_bot("ghost", "cite", 2)
        running = server.running
        host, matchmaker = running.host, running.matchmaker
        wait_until(lambda: "cite:2" in matchmaker._held, 60, "the matchmaker's lease")
        game_id = secrets.token_hex(16)

        async def made_and_gone() -> bool:  # as if played, then forgotten by the store
            seats = [SeatSpec(SeatKind.BOT, "random"), SeatSpec(SeatKind.HUMAN, name="ghost")]
            await host.create_game("cite", seats, {}, game_id=game_id)
            await steps.abandon(host.store, game_id, "a test")
            snapshot = await host.store.load(game_id)
            if snapshot is not None and snapshot.status == GameStatus.FINISHED:
                last = (await host.store.events(game_id))[-1].event_id
                await host.store.forget_archived(game_id, last, "cite", 3600)
            return await host.store.load(game_id) is None

        assert server.call(made_and_gone())
        seats = (LadderSeat("random", "random"), LadderSeat("ghost", ""))
        planned = PlannedGame(game_id, game_id, 0, 1, False, seats)
        ledger = running.sessions.service.ledger
        assert ledger.add("cite:2", matchmaker.replica, [planned], time.time())
        wait_until(lambda: _status(server, game_id) == FAILED, 60, "the lost game settled")
