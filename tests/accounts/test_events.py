"""One event stream per player and challenges (docs/accounts.md): WatchPlayer over gRPC
and GET /v1/me/events over SSE carry a game started, your turn, a game finished and
challenges received and answered; resumption by event id; a watcher on one replica
hears a move made on another (Redis and PostgreSQL); challenges accepted, declined and
refused. On the in-memory store with SQLite and on Redis with PostgreSQL."""

from __future__ import annotations

import json
import queue
import random
import threading
from collections.abc import Iterator

import grpc
import pytest

from gamehost import Client, GameError
from gamehost.cli import main
from gamehost.v1 import gamehost_pb2 as pb
from services.accounts import challenges as challenge_rules
from services.accounts import events
from services.accounts.accounts import AccountKind, Accounts
from services.accounts.event_log import KEEP, EventLog
from services.archive import database
from services.server import ServerConfig, ServerThread
from tests.fixtures.databases import scratch_postgres
from tests.fixtures.http_client import Http
from tests.polling import wait_until

WAIT = 60  # seconds an awaited event may take (a bound on a failure, not a timing)
SHORT_CITE = {"round_limit": "1"}


def _config(url: str, **settings) -> ServerConfig:
    return ServerConfig(
        port=0, http_port=0, bot_workers=1, archive_url=url, archive_create=True, **settings
    )


@pytest.fixture(params=["memory+sqlite", "redis+postgres"])
def backing(request, tmp_path) -> Iterator[dict]:
    """What a server is made with: the archive's URL and, on Redis, the store's."""
    if request.param == "memory+sqlite":
        yield {"url": f"sqlite:///{tmp_path / 'archive.sqlite3'}"}
        return
    postgres = scratch_postgres()
    url = next(postgres)
    try:
        yield {
            "url": url,
            "redis_url": request.getfixturevalue("redis_url"),
            "redis_prefix": request.getfixturevalue("redis_prefix"),
        }
    finally:
        next(postgres, None)


@pytest.fixture
def server(backing) -> Iterator[ServerThread]:
    with ServerThread(_config(**backing)) as running:
        yield running


class Watcher:
    """A WatchPlayer stream of ``client``'s account, on a client (a device) of its own,
    read on a thread of its own, so a test waits for an event with a bound (``next``)
    instead of blocking on the stream."""

    def __init__(self, client: Client, after: int = 0) -> None:
        self._events: queue.Queue = queue.Queue()
        self._client = Client(client.target, key=client.key)
        self._stream = self._client.watch_me(after)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for event in self._stream:
                self._events.put(event)
        except GameError as exc:
            self._events.put(exc)
        self._events.put(None)

    def next(self) -> pb.PlayerEvent:
        event = self._events.get(timeout=WAIT)
        if isinstance(event, GameError):
            raise event
        assert event is not None, "the stream ended"
        return event

    def until(self, kind: int, game_id: str = "") -> tuple[pb.PlayerEvent, list]:
        """The next event of ``kind`` (in ``game_id``), and every event before it."""
        before = []
        while True:
            event = self.next()
            if event.kind == kind and (not game_id or event.game_id == game_id):
                return event, before
            before.append(event)

    def close(self) -> None:
        self._client.close()  # cancels the stream: the thread's read ends
        self._thread.join(WAIT)


def _accounts(target: str, *names: str) -> list[Client]:
    with Client(target) as anyone:
        keys = [anyone.create_account(name).key for name in names]
    return [Client(target, key=key) for key in keys]


def _move(client: Client, game_id: str, version: int) -> None:
    """The account's seat plays a legal action at ``version``."""
    seat = client.my_seat(game_id)
    legal = client.legal_actions(game_id, seat.token)
    client.submit(
        game_id, seat.token, random.Random(version).choice(legal).id, expected_version=version
    )


def _challenged_game(
    alice: Client, bob: Client, bob_events: Watcher, options: dict[str, str] = SHORT_CITE
) -> str:
    """alice challenges bob, bob's stream hears it and bob accepts: the game's id."""
    sent = alice.challenge("bob", "cite", options)
    received, _ = bob_events.until(pb.PLAYER_CHALLENGE_RECEIVED)
    assert received.challenge.challenge_id == sent.challenge_id
    assert (received.challenge.challenger, received.challenge.state) == (
        "alice",
        pb.CHALLENGE_PENDING,
    )
    assert dict(received.challenge.options) == options
    accepted = bob.answer_challenge(sent.challenge_id, accept=True)
    assert accepted.state == pb.CHALLENGE_ACCEPTED and accepted.game_id
    return accepted.game_id


def test_a_challenge_accepted_is_played_to_its_end_on_both_streams(server):
    alice, bob = _accounts(server.target, "alice", "bob")
    alice_events, bob_events = Watcher(alice), Watcher(bob)
    try:
        game_id = _challenged_game(alice, bob, bob_events)
        started, _ = bob_events.until(pb.PLAYER_GAME_STARTED, game_id)
        assert (started.seat, started.game_type) == (1, "cite")
        answered, before = alice_events.until(pb.PLAYER_CHALLENGE_ANSWERED)
        assert (answered.challenge.state, answered.game_id) == (pb.CHALLENGE_ACCEPTED, game_id)
        seats = [(s.account, s.guest) for s in alice.state(game_id).seats]
        assert seats == [("alice", False), ("bob", False)]
        players = {"alice": (alice, alice_events), "bob": (bob, bob_events)}
        # Each turn is told to the seat to move, at the version it moves at, until the
        # end; every event id is one more than the one before.
        finished = {}
        told = {name: [] for name in players}
        while len(finished) < 2:
            state = alice.state(game_id)
            if state.status == pb.FINISHED:
                for name, (_, events) in players.items():
                    finished[name], skipped = events.until(pb.PLAYER_GAME_FINISHED, game_id)
                    told[name] += skipped
                break
            mover = state.seats[state.to_move.seat].account
            client, events = players[mover]
            turn, skipped = events.until(pb.PLAYER_YOUR_TURN, game_id)
            told[mover] += [*skipped, turn]
            assert turn.version == state.version and turn.seat == state.to_move.seat
            assert not turn.HasField("seconds_left")  # no turn timer in this game
            _move(client, game_id, turn.version)
        returns = list(alice.state(game_id).returns)
        for name, seat in (("alice", 0), ("bob", 1)):
            event = finished[name]
            assert list(event.returns) == returns and event.your_return == returns[seat]
            assert event.seat == seat and event.rating_change == 0
            ids = [e.event_id for e in told[name]]
            assert ids == sorted(set(ids))
    finally:
        alice_events.close()
        bob_events.close()


def test_a_timed_game_tells_the_time_left(server):
    alice, bob = _accounts(server.target, "alice", "bob")
    with Client(server.target) as anyone:
        game_id = anyone.create_game(
            "cite", ["human", "human"], SHORT_CITE, timer={"move_seconds": 600}
        ).game_id
    alice.join(game_id)
    bob.join(game_id)
    events = Watcher(alice)
    try:
        turn, before = events.until(pb.PLAYER_YOUR_TURN, game_id)
        assert [e.kind for e in before] == [pb.PLAYER_GAME_STARTED]
        assert turn.HasField("seconds_left") and 0 <= turn.seconds_left <= 600
    finally:
        events.close()


def test_a_reconnect_gets_what_it_missed_and_nothing_twice(server):
    alice, bob, carol = _accounts(server.target, "alice", "bob", "carol")
    bob_events = Watcher(bob)
    first = Watcher(alice)
    try:
        game_id = _challenged_game(alice, bob, bob_events, {})  # a long game
        turn, before = first.until(pb.PLAYER_YOUR_TURN, game_id)
        seen = [*before, turn]
    finally:
        first.close()
    # While alice is away: her move (made from another device), bob's moves until she
    # is to move again, and carol's challenge.
    _move(alice, game_id, turn.version)
    while (state := alice.state(game_id)).seats[state.to_move.seat].account == "bob":
        _move(bob, game_id, state.version)
    carol.challenge("alice", "cite")
    again = Watcher(alice, after=seen[-1].event_id)
    try:
        missed, between = again.until(pb.PLAYER_CHALLENGE_RECEIVED)
        later, more = again.until(pb.PLAYER_YOUR_TURN, game_id)
    finally:
        again.close()
        bob_events.close()
    resumed = [*between, missed, *more, later]
    assert missed.challenge.challenger == "carol"
    assert later.version > turn.version  # the turn now, not the one told before
    ids = [e.event_id for e in resumed]
    assert min(ids) == seen[-1].event_id + 1 and ids == sorted(set(ids))
    assert not [e for e in resumed if e.kind == pb.PLAYER_GAME_STARTED]  # told once
    # From the start: what was kept, the same events under the same ids.
    replay = Watcher(alice)
    try:
        whole = [replay.next() for _ in range(seen[-1].event_id)]
    finally:
        replay.close()
    assert [(e.event_id, e.kind) for e in whole] == [(e.event_id, e.kind) for e in seen]


def test_sse_carries_the_same_events_and_resumes_with_last_event_id(server):
    alice, bob = _accounts(server.target, "alice", "bob")
    sent = [bob.challenge("alice", "cite") for _ in range(3)]
    with Http(server.running.http_url) as http:
        auth = {"Authorization": f"Bearer {alice.key}"}
        stream = http.stream("/v1/me/events", headers=auth)
        assert stream.status == 200
        events = stream.events("player-event", 2)
        stream.close()
        assert [e.json()["challenge"]["challengeId"] for e in events] == [
            c.challenge_id for c in sent[:2]
        ]
        first = events[0].json()
        assert first["kind"] == "PLAYER_CHALLENGE_RECEIVED" and first["eventId"] == events[0].id
        # The message's JSON spelling, as gRPC's.
        watcher = Watcher(alice)
        try:
            over_grpc = watcher.next()
        finally:
            watcher.close()
        assert json.loads(events[0].data)["challenge"]["challenger"] == "bob"
        assert int(first["eventId"]) == over_grpc.event_id
        resumed = http.stream("/v1/me/events", headers={**auth, "Last-Event-ID": events[1].id})
        (third,) = resumed.events("player-event", 1)
        resumed.close()
        assert third.json()["challenge"]["challengeId"] == sent[2].challenge_id
        assert int(third.id) == int(events[1].id) + 1
        assert http.get("/v1/me/events").status == 401
        past = http.get("/v1/me/events", headers={**auth, "Last-Event-ID": "99"})
        assert past.status == 400 and past.json()["error"]["code"] == "INVALID_ARGUMENT"


def test_a_declined_challenge_is_told_to_the_challenger(server):
    alice, bob = _accounts(server.target, "alice", "bob")
    sent = alice.challenge("bob", "cite")
    declined = bob.answer_challenge(sent.challenge_id, accept=False)
    assert (declined.state, declined.game_id) == (pb.CHALLENGE_DECLINED, "")
    assert bob.answer_challenge(sent.challenge_id, accept=False).state == pb.CHALLENGE_DECLINED
    with pytest.raises(GameError) as late:
        bob.answer_challenge(sent.challenge_id, accept=True)
    assert late.value.code == grpc.StatusCode.FAILED_PRECONDITION
    events = Watcher(alice)
    try:
        answered, before = events.until(pb.PLAYER_CHALLENGE_ANSWERED)
    finally:
        events.close()
    assert before == [] and answered.challenge.state == pb.CHALLENGE_DECLINED
    assert not alice.my_games()  # no game was made


def test_an_accept_sent_twice_makes_one_game(server):
    alice, bob = _accounts(server.target, "alice", "bob")
    sent = alice.challenge("bob", "cite")
    first = bob.answer_challenge(sent.challenge_id, accept=True)
    second = bob.answer_challenge(sent.challenge_id, accept=True)
    assert first.game_id == second.game_id
    assert [g.game_id for g in alice.my_games()] == [first.game_id]
    events = Watcher(alice)
    try:
        kinds = [events.next().kind for _ in range(2)]
        told = [e for e in (events.next(),)]  # the first turn: alice is seat 0
    finally:
        events.close()
    assert sorted(kinds) == [pb.PLAYER_GAME_STARTED, pb.PLAYER_CHALLENGE_ANSWERED]
    assert told[0].kind == pb.PLAYER_YOUR_TURN


def _code(call) -> grpc.StatusCode:
    with pytest.raises(GameError) as refused:
        call()
    return refused.value.code


def test_bad_challenges_are_refused_and_change_nothing(server):
    alice, bob, carol = _accounts(server.target, "alice", "bob", "carol")
    with Client(server.target) as anonymous:
        assert _code(lambda: anonymous.challenge("bob", "cite")) == grpc.StatusCode.UNAUTHENTICATED
        assert _code(lambda: next(anonymous.watch_me())) == grpc.StatusCode.UNAUTHENTICATED
    assert _code(lambda: alice.challenge("nobody", "cite")) == grpc.StatusCode.NOT_FOUND
    assert _code(lambda: alice.challenge("Alice", "cite")) == grpc.StatusCode.INVALID_ARGUMENT
    assert _code(lambda: alice.challenge("bob", "chess")) == grpc.StatusCode.INVALID_ARGUMENT
    assert _code(lambda: alice.challenge("bob", "catan")) == grpc.StatusCode.INVALID_ARGUMENT
    bad_options = {"round_limit": "many"}
    assert _code(lambda: alice.challenge("bob", "cite", bad_options)) == (
        grpc.StatusCode.INVALID_ARGUMENT
    )
    assert _code(lambda: bob.answer_challenge("0" * 16, True)) == grpc.StatusCode.NOT_FOUND
    sent = [alice.challenge("bob", "cite") for _ in range(challenge_rules.SENT_PENDING)]
    assert _code(lambda: alice.challenge("carol", "cite")) == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert _code(lambda: carol.answer_challenge(sent[0].challenge_id, True)) == (
        grpc.StatusCode.PERMISSION_DENIED
    )
    assert _code(lambda: next(bob.watch_me(after=999))) == grpc.StatusCode.INVALID_ARGUMENT
    # Only the ones sent reached bob; none reached carol, and nothing was played.
    events = Watcher(bob)
    try:
        received = [events.next() for _ in sent]
    finally:
        events.close()
    assert [e.challenge.challenge_id for e in received] == [c.challenge_id for c in sent]
    assert not alice.my_games() and not carol.my_games()
    # Answering one frees a place: the next challenge is sent.
    bob.answer_challenge(sent[0].challenge_id, accept=False)
    assert alice.challenge("carol", "cite").state == pb.CHALLENGE_PENDING
    with Http(server.running.http_url) as http:
        body = {"name": "bob", "gameType": "cite"}
        assert http.post("/v1/me/challenges", body).status == 401
        answer = http.post(
            "/v1/me/challenges", body, headers={"Authorization": f"Bearer {alice.key}"}
        )
        assert answer.status == 429 and answer.json()["error"]["code"] == "RESOURCE_EXHAUSTED"
        answer = http.post(
            f"/v1/me/challenges/{sent[1].challenge_id}:answer",
            {"accept": False},
            headers={"Authorization": f"Bearer {bob.key}"},
        )
        assert answer.status == 200 and answer.json()["state"] == "CHALLENGE_DECLINED"


def test_a_stream_tells_only_its_own_accounts_games(server):
    alice, bob, carol = _accounts(server.target, "alice", "bob", "carol")
    bob_events = Watcher(bob)
    carol_events = Watcher(carol)
    try:
        game_id = _challenged_game(alice, bob, bob_events)
        bob_events.until(pb.PLAYER_GAME_STARTED, game_id)
        alice.challenge("carol", "cite")  # a mark: carol's stream has read past the game
        _, before = carol_events.until(pb.PLAYER_CHALLENGE_RECEIVED)
    finally:
        bob_events.close()
        carol_events.close()
    assert before == []


def test_a_move_on_one_replica_is_told_by_a_stream_on_another(redis_url, redis_prefix):
    postgres = scratch_postgres()
    url = next(postgres)
    try:
        settings = {"url": url, "redis_url": redis_url, "redis_prefix": redis_prefix}
        with ServerThread(_config(**settings)) as a, ServerThread(_config(**settings)) as b:
            alice_a, bob_a = _accounts(a.target, "alice", "bob")
            bob_b = Client(b.target, key=bob_a.key)
            bob_events = Watcher(bob_b)  # on replica B
            try:
                sent = alice_a.challenge("bob", "cite", SHORT_CITE)  # on replica A
                received, _ = bob_events.until(pb.PLAYER_CHALLENGE_RECEIVED)
                assert received.challenge.challenge_id == sent.challenge_id
                game_id = bob_a.answer_challenge(sent.challenge_id, True).game_id
                bob_events.until(pb.PLAYER_GAME_STARTED, game_id)
                version = alice_a.state(game_id).version
                # alice's moves on replica A, until bob is to move.
                while (state := alice_a.state(game_id)).to_move.seat == 0:
                    _move(alice_a, game_id, state.version)
                turn, _ = bob_events.until(pb.PLAYER_YOUR_TURN, game_id)
                assert turn.version == state.version > version
                # Another stream of bob's, on replica A, tells the same events.
                again = Watcher(bob_a)
                try:
                    same = [again.next() for _ in range(turn.event_id)]
                finally:
                    again.close()
                assert same[-1] == turn
            finally:
                bob_events.close()
    finally:
        next(postgres, None)


def test_the_log_tells_each_games_news_once_and_keeps_its_newest(tmp_path):
    engine = database.make_engine(f"sqlite:///{tmp_path / 'archive.sqlite3'}")
    database.upgrade(engine)
    Accounts(engine).create("alice", AccountKind.HUMAN, "test")
    log = EventLog(engine)
    game = "a" * 32
    assert log.started("alice", game, 1, {"kind": "PLAYER_GAME_STARTED"})
    assert not log.started("alice", game, 1, {"kind": "PLAYER_GAME_STARTED"})
    assert log.turn("alice", game, 5, {"kind": "PLAYER_YOUR_TURN", "version": 5})
    assert not log.turn("alice", game, 5, {"kind": "PLAYER_YOUR_TURN", "version": 5})
    assert not log.turn("alice", game, 3, {"kind": "PLAYER_YOUR_TURN", "version": 3})
    assert log.open_games("alice", 10) == {game: 1}
    assert log.finished("alice", game, {"kind": "PLAYER_GAME_FINISHED"})
    assert not log.finished("alice", game, {"kind": "PLAYER_GAME_FINISHED"})
    assert not log.turn("alice", game, 9, {"kind": "PLAYER_YOUR_TURN", "version": 9})
    assert log.open_games("alice", 10) == {}
    assert [e.seq for e in log.after("alice", 0)] == [1, 2, 3]
    for n in range(KEEP):
        log.add("alice", {"kind": "PLAYER_CHALLENGE_RECEIVED", "n": n})
    kept = log.after("alice", 0)
    assert len(kept) == KEEP and kept[0].seq == 4 and kept[-1].seq == KEEP + 3
    assert log.newest("alice") == KEEP + 3
    engine.dispose()


def test_the_command_line_prints_the_accounts_events(server, capsys):
    alice, bob = _accounts(server.target, "alice", "bob")
    sent = [bob.challenge("alice", "cite") for _ in range(2)]
    target = ["--target", server.target, "--key", alice.key]
    assert main(["account", "events", *target, "--count", "1"]) == 0
    (line,) = capsys.readouterr().out.strip().splitlines()
    first = json.loads(line)
    assert first["kind"] == "PLAYER_CHALLENGE_RECEIVED" and first["eventId"] == "1"
    assert first["challenge"]["challengeId"] == sent[0].challenge_id
    assert main(["account", "events", *target, "--after", "1", "--count", "1"]) == 0
    (line,) = capsys.readouterr().out.strip().splitlines()
    assert json.loads(line)["challenge"]["challengeId"] == sent[1].challenge_id
    assert main(["account", "events", "--target", server.target, "--key", "gha_wrong"]) == 1


def test_a_game_joined_and_finished_while_no_stream_was_open_is_told(server):
    alice, bob = _accounts(server.target, "alice", "bob")
    with Client(server.target) as anyone:
        game_id = anyone.create_game("cite", ["human", "human"], SHORT_CITE).game_id
    alice.join(game_id)
    bob.join(game_id)
    players = {"alice": alice, "bob": bob}
    while (state := alice.state(game_id)).status != pb.FINISHED:
        _move(players[state.seats[state.to_move.seat].account], game_id, state.version)
    events = Watcher(alice)
    try:
        finished, before = events.until(pb.PLAYER_GAME_FINISHED, game_id)
    finally:
        events.close()
    assert [(e.kind, e.game_id, e.seat) for e in before] == [(pb.PLAYER_GAME_STARTED, game_id, 0)]
    assert list(finished.returns) == list(state.returns)


def test_a_rated_games_end_tells_each_accounts_rating_change(server):
    alice, bob = _accounts(server.target, "alice", "bob")
    with Client(server.target) as anyone:
        game_id = anyone.create_game("cite", ["human", "human"], SHORT_CITE, rated=True).game_id
    alice.join(game_id)
    bob.join(game_id)
    players = {"alice": alice, "bob": bob}
    while (state := alice.state(game_id)).status != pb.FINISHED:
        _move(players[state.seats[state.to_move.seat].account], game_id, state.version)
    changes = {}
    for name, client in players.items():
        events = Watcher(client)
        try:
            finished, _ = events.until(pb.PLAYER_GAME_FINISHED, game_id)
        finally:
            events.close()
        # A newcomer's ordinal is 0: the change is where the one rated game left it.
        (rating,) = client.account(name).ratings
        assert finished.rating_change == pytest.approx(rating.ordinal)
        changes[name] = finished.rating_change
    returns = dict(zip(players, state.returns, strict=True))
    if returns["alice"] != returns["bob"]:
        winner = max(returns, key=returns.__getitem__)
        loser = min(returns, key=returns.__getitem__)
        assert changes[winner] > changes[loser]


def test_an_account_holds_a_bounded_number_of_streams(server):
    alice, bob = _accounts(server.target, "alice", "bob")
    bob.challenge("alice", "cite")  # an event each stream sends once it is open
    watchers = [Watcher(alice) for _ in range(events.STREAMS_PER_ACCOUNT)]
    try:
        for watcher in watchers:
            watcher.until(pb.PLAYER_CHALLENGE_RECEIVED)
        one_more = Watcher(alice)
        with pytest.raises(GameError) as refused:
            one_more.next()
        one_more.close()
        assert refused.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "close one" in refused.value.details
        bob_events = Watcher(bob)  # another account's streams are its own
        alice.challenge("bob", "cite")
        bob_events.until(pb.PLAYER_CHALLENGE_RECEIVED)
        bob_events.close()
        watchers.pop().close()

        def reopened() -> bool:  # the closed stream's end reaches the server in a while
            again = Watcher(alice)
            try:
                again.until(pb.PLAYER_CHALLENGE_RECEIVED)
            except GameError as exc:
                assert exc.code == grpc.StatusCode.RESOURCE_EXHAUSTED
                again.close()
                return False
            watchers.append(again)
            return True

        wait_until(reopened, WAIT, "a stream to open once one was closed", interval=0.2)
    finally:
        for watcher in watchers:
            watcher.close()
