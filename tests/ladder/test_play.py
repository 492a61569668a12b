"""The ladder played through the API itself (no processes of its own): a bot's
connection and answers (ConnectBot, BotReply), faults and the pause they lead to,
validation, rate limits on a key, and the house levels rated by duplicate sets."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import queue
import subprocess
import sys
import threading

import grpc
import pytest
import sqlalchemy as sa
from prometheus_client import REGISTRY

from gamehost import Client, GameError
from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from services.archive.schema import seats
from services.kinds import EventKind
from services.ladder.model import FALLBACK, BotStatus
from services.ladder.schema import ladder_games, ladder_ratings, ladder_seats
from services.ladder.seats import seat_token
from services.ladder.sessions import Sessions
from tests.ladder.conftest import (
    answer_codes,
    ladder_server,
    next_directive,
    quick,
    wait_for_house_game,
)
from tests.procs import wait_until

D = pb.BotDirective
R = pb.BotReplyResponse


class Connected:
    """A bot's connection read on a thread of its own; ``next`` takes its directives."""

    def __init__(self, client: Client, key: str, concurrency: int = 1) -> None:
        self.directives: queue.Queue = queue.Queue()
        self._channel = grpc.insecure_channel(client.target)
        stub = pb_grpc.GameHostStub(self._channel)
        request = pb.ConnectBotRequest(key=key, concurrency=concurrency)
        self._call = stub.ConnectBot(request)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for directive in self._call:
                self.directives.put(directive)
        except grpc.RpcError as exc:
            self.directives.put(GameError(exc.code(), exc.details()))
        self.directives.put(None)

    def next(self, kind: int | None = None, timeout: float = 60) -> pb.BotDirective:
        return next_directive(self.directives, kind, timeout)

    def close(self) -> None:
        self._call.cancel()
        self._thread.join(timeout=10)
        self._channel.close()


def _bot(client: Client, name: str) -> pb.BotInfo:
    return next(b for b in client.list_bots() if b.bot == name)


def test_answers_are_played_judged_and_counted(sqlite_url):
    server = ladder_server(sqlite_url, quick(max_faults=4))
    with server, Client(server.target) as client:
        key = client.register_bot("probe", "cite", 2).key
        connection = Connected(client, key)
        welcome = connection.next()
        assert welcome.kind == D.WELCOME and welcome.bot == "probe"
        assert "validating" in welcome.message
        start = json.loads(connection.next(D.START).line)
        assert (start["type"], start["game_type"], start["players"]) == ("start", "cite", 2)
        game_id, seat = start["game_id"], start["seat"]
        act = connection.next(D.ACT)
        line = json.loads(act.line)
        assert line["type"] == "act" and line["game_id"] == game_id == act.game_id
        assert line["seat"] == seat and isinstance(line["state"], dict) and line["state"]
        assert 0 < line["ms_left"] <= 3000 and line["ms_left"] == act.ms_left
        legal = {move["id"] for move in line["legal"]}
        assert legal and all(isinstance(m["notation"], str) for m in line["legal"])

        # Refused outright, nothing played or counted.
        with pytest.raises(GameError) as refused:
            client.bot_reply("ghb_not_a_key", game_id, act.version, '{"id": 0}')
        assert refused.value.code == grpc.StatusCode.UNAUTHENTICATED
        house_game = wait_for_house_game(client)
        with pytest.raises(GameError) as refused:  # a bot acts only in its own seats
            client.bot_reply(key, house_game, 1, '{"id": 0}')
        assert refused.value.code == grpc.StatusCode.PERMISSION_DENIED
        stale = client.bot_reply(key, game_id, act.version + 7, f'{{"id": {min(legal)}}}')
        assert stale.outcome == R.STALE
        assert _bot(client, "probe").faults == pb.BotFaults()

        # Illegal, then garbage: the fallback level plays, and each is counted.
        illegal = client.bot_reply(key, game_id, act.version, '{"id": 99999}')
        assert (illegal.outcome, illegal.fault) == (R.FALLBACK, "illegal") and illegal.notation
        assert client.bot_reply(key, game_id, act.version, '{"id": 99999}').outcome == R.STALE
        act = connection.next(D.ACT)
        garbage = client.bot_reply(key, game_id, act.version, "e4")
        assert (garbage.outcome, garbage.fault) == (R.FALLBACK, "garbage")
        info = _bot(client, "probe")
        assert (info.faults.illegal, info.faults.garbage, info.faults_in_row) == (1, 1, 2)

        # Good answers to the end: the row of faults ends; the game is played out. Each
        # is sent twice, as a runner retries: the retry is answered, never played or
        # counted again.
        moves = 0
        while True:
            directive = connection.next()
            if directive.kind == D.END:
                break
            if directive.kind == D.ACT:
                first = json.loads(directive.line)["legal"][0]["id"]
                answer = client.bot_reply(
                    key, game_id, directive.version, json.dumps({"id": first})
                )
                assert answer.outcome == R.PLAYED and answer.version > directive.version
                again = client.bot_reply(key, game_id, directive.version, json.dumps({"id": first}))
                assert (again.outcome, again.version) == (R.PLAYED, answer.version)
                moves += 1
        assert json.loads(directive.line)["returns"] in ([1.0, 0.0], [0.0, 1.0])
        info = wait_until(
            lambda: (b := _bot(client, "probe")).faults_in_row == 0 and b.moves == moves and b,
            30,
            "the moves to be counted",
        )
        # Two moves were the fallback's: the validation game is failed, the bot paused.
        paused = connection.next(D.PAUSED)
        assert "failed its validation game" in paused.message and "2 of" in paused.message
        info = _bot(client, "probe")
        assert info.status == pb.BOT_PAUSED and "failed its validation game" in info.reason
        assert info.moves == moves
        archived = server.call(server.running.archive.game(game_id))
        marked = [
            e.data["fault"]
            for e in archived.events
            if e.data["kind"] == EventKind.ACTION and e.data.get("timeout")
        ]
        assert marked == ["illegal", "garbage"]
        connection.close()


def test_a_ladder_bots_seat_is_a_bot_with_its_name_in_every_output(served):
    """A registered bot's seat shows as BOT with the bot's name wherever a seat is
    shown: GetState, ListGames (live and archived), the archive's seat rows and the
    export; its turns are its runner's all the same (it answers them itself)."""
    server, client = served
    key = client.register_bot("probe", "cite", 2).key
    connection = Connected(client, key)
    try:
        start = json.loads(connection.next(D.START).line)
        game_id, seat = start["game_id"], start["seat"]

        def shown(listed) -> list[tuple[int, str]]:
            return [(s.kind, s.name) for s in listed]

        bot = (pb.BOT, "probe")
        assert shown(client.state(game_id).seats)[seat] == bot
        (live,) = [g for g in client.list_games(player="probe") if g.game_id == game_id]
        assert shown(live.seats)[seat] == bot
        while (directive := connection.next()).kind != D.END:
            if directive.kind == D.ACT:
                first = json.loads(directive.line)["legal"][0]["id"]
                answer = client.bot_reply(
                    key, game_id, directive.version, json.dumps({"id": first})
                )
                assert answer.outcome == R.PLAYED
        archive = server.running.archive
        wait_until(lambda: server.call(archive.game(game_id)), 60, "the game in the archive")
        with archive.engine.connect() as sql:
            rows = sql.execute(
                sa.select(seats.c.kind, seats.c.name).where(
                    seats.c.game_id == game_id, seats.c.seat == seat
                )
            ).all()
        assert [tuple(r) for r in rows] == [("bot", "probe")]
        (archived,) = [g for g in client.list_games(player="probe") if g.game_id == game_id]
        assert shown(archived.seats)[seat] == bot
        assert shown(client.state(game_id).seats)[seat] == bot
        (line,) = [json.loads(x) for x in client.export_games(bot="probe")]
        assert line["seats"][seat] == {"name": "probe", "kind": "bot", "level": ""}
    finally:
        connection.close()


def test_a_bot_plays_at_most_the_servers_concurrency_whatever_its_runner_asks(sqlite_url):
    server = ladder_server(sqlite_url, quick(bot_concurrency=2))
    with server, Client(server.target) as client:
        eager = Connected(client, client.register_bot("eager", "cite", 2).key, concurrency=8)
        modest = Connected(client, client.register_bot("modest", "cite", 2).key, concurrency=1)
        for connected in (eager, modest):
            connected.next(D.WELCOME)
        accounts = server.running.sessions.accounts
        # The sets the matchmaker gives each at once (``BotAccount.slots``).
        assert (accounts.get("eager").slots, accounts.get("modest").slots) == (2, 1)
        eager.close()
        modest.close()


def test_a_bot_at_its_daily_cap_is_not_paired_and_one_below_it_is(sqlite_url):
    # cite:2 sets are 2 games: with a cap of 4, a bot with 3 games begun today has no
    # room for another set; one with none has.
    server = ladder_server(sqlite_url, quick(house_tables=0, daily_games=4))
    with server, Client(server.target) as client:
        keys = {name: client.register_bot(name, "cite", 2).key for name in ("capped", "fresh")}
        service = server.running.sessions.service
        now = dt.datetime.now(dt.UTC)
        with service.engine.begin() as connection:
            for i in range(3):
                game = {"game_id": f"earlier{i}", "ladder": "cite:2", "set_id": f"set{i}"}
                game |= {"rotation": 0, "deal": i, "validation": False, "status": "rated"}
                connection.execute(sa.insert(ladder_games).values(**game, created_at=now))
                seat = {"game_id": f"earlier{i}", "seat": 0, "name": "capped", "level": ""}
                connection.execute(sa.insert(ladder_seats).values(**seat))
        for name in keys:  # validated already: paired as soon as connected
            service.accounts.set_status(name, BotStatus.ACTIVE, "passed (test)")
        capped, fresh = (Connected(client, keys[name]) for name in ("capped", "fresh"))
        fresh.next(D.START)  # paired: in the same round, a free "capped" would be too
        assert service.ledger.games_since("cite:2", now.timestamp() - 60) == {
            "capped": 3,
            "fresh": 2,
        }
        capped.close()
        fresh.close()


def test_serve_refuses_a_per_bot_concurrency_below_one(sqlite_url):
    serve = subprocess.run(
        [sys.executable, "-m", "gamehost.cli", "serve", "--port", "0", "--archive", sqlite_url]
        + ["--ladder", "cite:2", "--ladder-bot-concurrency", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert serve.returncode == 2
    assert "--ladder-bot-concurrency must be at least 1" in serve.stderr


def test_a_runner_that_connects_again_finds_its_game_going_on(sqlite_url):
    server = ladder_server(sqlite_url, quick())
    with server, Client(server.target) as client:
        key = client.register_bot("flaky", "cite", 2).key
        first = Connected(client, key)
        start = json.loads(first.next(D.START).line)
        game_id = start["game_id"]
        act = first.next(D.ACT)
        first.close()  # the connection breaks before the answer, for a while:
        wait_until(  # the turn timer plays that move meanwhile
            lambda: client.state(game_id).version > act.version, 60, "the game to move on"
        )
        again = Connected(client, key)
        assert json.loads(again.next(D.START).line) == start
        # Its seat is still its own: it is asked again, and its answers are played.
        while True:
            directive = again.next()
            if directive.kind == D.END:
                break
            if directive.kind == D.ACT:
                assert directive.game_id == game_id
                move = json.loads(directive.line)["legal"][0]["id"]
                answer = client.bot_reply(key, game_id, directive.version, json.dumps({"id": move}))
                assert answer.outcome == R.PLAYED, answer.message
        again.close()


def test_a_seat_handed_over_for_good_ends_for_the_bot_and_is_not_started_again(sqlite_url):
    server = ladder_server(sqlite_url, quick())
    with server, Client(server.target) as client:
        key = client.register_bot("leaver", "cite", 2).key
        connection = Connected(client, key)
        start = json.loads(connection.next(D.START).line)
        game_id, seat = start["game_id"], start["seat"]
        host, sessions = server.running.host, server.running.sessions

        async def hand_over() -> None:  # as the matchmaker does for a bot gone too long
            token = seat_token(await host.store.secret(), game_id, seat)
            await host.seating.hand_over(game_id, token, FALLBACK, for_good=True)

        server.call(hand_over())
        # The game goes on without the bot: its runner is told it is over for it.
        while (end := connection.next()).kind != D.END:
            assert end.kind in (D.ACT, D.START)
        assert json.loads(end.line) == {"type": "end", "game_id": game_id, "returns": []}
        connection.close()

        async def feed_again() -> tuple[bool, list]:  # as for a runner that reconnects
            lines: asyncio.Queue = asyncio.Queue()
            fed = await sessions._feed(game_id, seat, lines)
            return fed, [lines.get_nowait() for _ in range(lines.qsize())]

        assert server.call(feed_again()) == (True, [])  # not even a start


def test_faults_in_a_row_pause_a_bot_and_a_new_connection_gives_it_another_chance(sqlite_url):
    server = ladder_server(sqlite_url, quick(max_faults=3))
    with server, Client(server.target) as client:
        key = client.register_bot("noisy", "cite", 2).key
        connection = Connected(client, key)
        answers = []
        while not (answers and answers[-1].paused):
            act = connection.next(D.ACT)
            answers.append(client.bot_reply(key, act.game_id, act.version, "not json"))
        assert [(a.outcome, a.fault) for a in answers] == [(R.FALLBACK, "garbage")] * 3
        assert "paused" in answers[-1].message
        assert "3 faults in a row" in connection.next(D.PAUSED).message
        info = _bot(client, "noisy")
        assert (info.status, info.faults.garbage, info.connected) == (pb.BOT_PAUSED, 3, False)
        assert info.reason == "3 faults in a row (the last: garbage)"
        # Its validation game goes on without it (its seat is the fallback's now).
        game_id = act.game_id
        wait_until(
            lambda: client.state(game_id).status == pb.FINISHED, 60, "the paused bot's game to end"
        )
        # ... and the ladder settles it (archived, judged): a runner that connected before
        # that would be judged by the game it left, and paused again.
        ledger = server.running.sessions.service.ledger
        wait_until(
            lambda: game_id not in {g.game.game_id for g in ledger.open_games("cite:2")},
            60,
            "the ladder to settle the paused bot's game",
        )
        again = Connected(client, key)
        assert "validates again" in again.next(D.WELCOME).message
        assert _bot(client, "noisy").status == pb.BOT_VALIDATING
        assert _bot(client, "noisy").faults_in_row == 0
        again.close()


def test_answers_that_play_nothing_are_limited_and_revoked_keys_refused(sqlite_url):
    server = ladder_server(sqlite_url, quick(stale_answers_per_second=1.0))
    with server, Client(server.target) as client:
        key = client.register_bot("eager", "cite", 2).key
        connection = Connected(client, key)
        act = connection.next(D.ACT)

        # Stale answers: a burst of 5, then one a second; refused with the reason.
        def stale() -> object:
            return client.bot_reply(key, act.game_id, act.version + 100, '{"id": 0}')

        codes = answer_codes(stale)
        assert codes[:5] == ["ok"] * 5 and "RESOURCE_EXHAUSTED" in codes[5:]
        with pytest.raises(GameError) as refused:
            stale()
        assert "answers that played nothing" in refused.value.details
        # Revoked while its runner is connected: refused from the next answer on, and
        # the runner is let go.
        client.revoke_bot("eager", key)
        with pytest.raises(GameError) as refused:
            client.bot_reply(key, act.game_id, act.version, '{"id": 0}')
        assert refused.value.code == grpc.StatusCode.PERMISSION_DENIED
        assert "revoked" in connection.next(D.PAUSED).message
        connection.close()
        with pytest.raises(GameError) as refused:
            next(iter(client.connect_bot(key)))
        assert refused.value.code == grpc.StatusCode.PERMISSION_DENIED


def test_an_answer_in_time_that_loses_to_the_clock_is_counted_overruled(sqlite_url, monkeypatch):
    # The server holds a legal answer that came in time until the clock's fallback has
    # played its act: a server fault, counted (and the move not charged to the bot).
    async def held(self, game_id, seat, version, action):
        async with asyncio.timeout(60):
            while (await self.host.load(game_id)).version == version:
                await asyncio.sleep(0.05)  # polls the game: the clock's move ends it
        return None

    monkeypatch.setattr(Sessions, "_submit", held)
    name = "gamehost_ladder_overruled_answers_total"
    server = ladder_server(sqlite_url, quick(move_seconds=1.0))
    with server, Client(server.target) as client:
        before = REGISTRY.get_sample_value(name)
        key = client.register_bot("held", "cite", 2).key
        connection = Connected(client, key)
        act = connection.next(D.ACT)
        legal = json.loads(act.line)["legal"][0]["id"]
        answer = client.bot_reply(key, act.game_id, act.version, json.dumps({"id": legal}))
        assert answer.outcome == R.STALE, answer
        assert before is not None and REGISTRY.get_sample_value(name) == before + 1
        assert _bot(client, "held").faults == pb.BotFaults()
        connection.close()


def test_house_greedy_ends_rated_above_house_random_in_duplicate_sets(sqlite_url):
    ladder = quick(house=("random", "greedy"), tables=3, house_tables=3)
    with ladder_server(sqlite_url, ladder) as server, Client(server.target) as client:

        def rated() -> dict[str, pb.LadderStanding]:
            rows = {r.bot: r for r in client.ladder("cite", 2).standings}
            return rows if len(rows) == 2 and min(r.games for r in rows.values()) >= 16 else {}

        rows = wait_until(rated, 240, "16 rated games each")
        greedy, random_ = rows["greedy"], rows["random"]
        assert (greedy.level, random_.level) == ("greedy", "random")
        assert greedy.mu > random_.mu and greedy.ordinal > random_.ordinal
        assert greedy.win_share > 0.5 > random_.win_share
        assert [r.bot for r in client.ladder("cite", 2).standings][0] == "greedy"
        # Duplicate sets: each deal under both seatings, the same initial position.
        engine = server.running.archive.engine
        with engine.connect() as connection:
            games = list(
                connection.execute(sa.select(ladder_games).where(ladder_games.c.status == "rated"))
            )
            seats = list(connection.execute(sa.select(ladder_seats)))
        by_set: dict[str, list] = {}
        for game in games:
            by_set.setdefault(game.set_id, []).append(game)
        complete = [s for s in by_set.values() if len(s) == 2]
        assert len(complete) >= 6
        seated = {(s.game_id, s.seat): s.name for s in seats}
        for first, second in complete:
            assert first.deal == second.deal and {first.rotation, second.rotation} == {0, 1}
            assert seated[(first.game_id, 0)] == seated[(second.game_id, 1)]
            assert seated[(first.game_id, 1)] == seated[(second.game_id, 0)]
            deals = [_deal(server, g.game_id) for g in (first, second)]
            assert deals[0] == deals[1] and deals[0]
            # Each names its set's games: its cards stay hidden until both end.
            for game in (first, second):
                meta = server.call(server.running.archive.game(game.game_id)).snapshot.info
                assert set(meta.deal_games) == {first.game_id, second.game_id}
        # Every rated game moved each seat's rating once: with the matchmaker stopped,
        # the seats' rows add up to the standings' games and points.
        server.call(server.running.matchmaker.close())
        with engine.connect() as connection:
            seats = list(connection.execute(sa.select(ladder_seats)))
            query = sa.select(ladder_ratings.c.name, ladder_ratings.c.points)
            points = {r.name: r.points for r in connection.execute(query)}
        rows = {r.bot: r for r in client.ladder("cite", 2).standings}
        for name, row in rows.items():
            mine = [s for s in seats if s.name == name and s.mu is not None]
            assert len(mine) == row.games
            assert sum(s.returned for s in mine) == pytest.approx(points[name])


def _deal(server, game_id: str) -> list[int]:
    """The chance outcomes before the first player's move: the deal."""
    archived = server.call(server.running.archive.game(game_id))
    deal = []
    for event in archived.events:
        if event.data["kind"] == EventKind.ACTION:
            if event.data["seat"] >= 0:
                break
            deal.append(event.data["action"])
    return deal
