"""The same read rights on every path that returns a game's content (one rule:
``services.limits.access.reader``), walked over every GameHost RPC and every HTTP
route, on a real server with its HTTP gateway (on the in-memory store with a SQLite
archive, and on Redis with a PostgreSQL one):

- a private game and a public game with spectators off: no content without a seat's
  token (PERMISSION_DENIED, HTTP 403), never listed, never exported, live or archived;
- a running game's hidden information: a spectator and a seat outside an action's
  audience never see it (the action's id and notation, another seat's Cité card).

``RIGHTS`` classifies every RPC; every walk first checks that it classifies every
RPC and route (``content_rpcs``), so a new one fails these tests until it is
classified, and a content path is then walked like the others."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf import message_factory

from gamehost.v1 import gamehost_pb2 as pb
from games.catan import rules as catan_rules
from services.gateway.routes import ROUTES, SERVICE, Route
from tests.api.test_api_v1 import _play_to_the_deal
from tests.fixtures.databases import scratch_postgres
from tests.fixtures.gateway import Served, as_json, gateway_config
from tests.procs import wait_until

GAME = "a game's content (state, log, events, hints), by its id and a seat's token or none"
BULK = "games in bulk, for anyone: only games open to anyone, their content never"
SEAT = "a seat's or a bot's own call, with its credential: its own seat's view at most"
NONE = "no game's content"

RIGHTS = {
    "ListGameTypes": NONE,
    "CreateGame": SEAT,  # the creator's new game, as a spectator sees it
    "JoinGame": SEAT,
    "ListGames": BULK,
    "GetState": GAME,
    "SubmitAction": SEAT,
    "WatchGame": GAME,
    "GetRecord": GAME,
    "Hint": GAME,
    # Tournaments and the ladder: results (returns) of their games, no log or state;
    # their games are created public with spectators (open to anyone) anyway.
    "CreateTournament": NONE,
    "GetTournament": NONE,
    "ListTournaments": NONE,
    "WatchTournament": NONE,
    "JoinTournament": NONE,
    "ListTournamentSeats": NONE,
    "CancelTournament": NONE,
    "AddBot": SEAT,
    "HandOverSeat": SEAT,
    "TakeBackSeat": SEAT,
    "SetSeatOptions": SEAT,
    "ExportGames": BULK,
    "RegisterBot": NONE,
    "ListBots": NONE,
    "RevokeBot": NONE,
    "GetBot": NONE,
    "ConnectBot": SEAT,  # a registered bot's own seats, by its key
    "BotReply": SEAT,
    "GetLadder": NONE,
    "CreateAccount": NONE,
    "GetAccount": NONE,
    "RotateAccountKey": NONE,
    "RevokeAccount": NONE,
    "GetMySeat": SEAT,  # an account's own seat, by its key
    # An account's own games' news, by its key: ids, its turns and its own seat's
    # return, no state or log (tests/accounts/test_events.py: never another's game).
    "WatchPlayer": SEAT,
    "Challenge": NONE,
    "AnswerChallenge": NONE,  # the accepted game's id; its seat token is GetMySeat's
    "Matchmake": SEAT,  # the account's own seat in its match's game, by its key
    "LeaveQueue": NONE,
}
EXTRA = {"GetRecord": {"include_views": True}}  # the record with every view it has


def content_rpcs(kind: str) -> list[str]:
    """The RPCs of ``kind`` (GAME or BULK), once every RPC and route is classified."""
    unclassified = set(SERVICE.methods_by_name) ^ set(RIGHTS)
    assert not unclassified, f"classify in RIGHTS: {sorted(unclassified)}"
    found = [name for name, said in RIGHTS.items() if said == kind]
    # Every content RPC has an HTTP route, so the walks cover both edges.
    assert {route.rpc for route in ROUTES if route.rpc in found} == set(found)
    return found


# ---------------------------------------------------------------- calls, generic
@dataclass
class Answer:
    code: str  # "OK" or the gRPC status name (HTTP: the error body's code)
    messages: list[dict[str, Any]]  # the answer's messages as JSON


def _grpc(served: Served, rpc: str, fields: dict[str, Any], events: int = 0) -> Answer:
    """A call of ``rpc`` on the raw channel, from the descriptor (no client code)."""
    method = SERVICE.methods_by_name[rpc]
    request = message_factory.GetMessageClass(method.input_type)(**fields)
    reply = message_factory.GetMessageClass(method.output_type)
    path = f"/{SERVICE.full_name}/{rpc}"
    kw = {"request_serializer": type(request).SerializeToString}
    kw["response_deserializer"] = reply.FromString
    try:
        if not method.server_streaming:
            call = served.channel.unary_unary(path, **kw)
            return Answer("OK", [as_json(call(request, timeout=60))])
        stream = served.channel.unary_stream(path, **kw)(request, timeout=60)
        got = []
        for message in stream:
            got.append(as_json(message))
            if events and len(got) == events:  # a running game's stream goes on
                stream.cancel()
                break
        return Answer("OK", got)
    except grpc.RpcError as error:
        return Answer(error.code().name, [])


def _http(served: Served, route: Route, fields: dict[str, Any], events: int = 0) -> Answer:
    """The same call through its route: path fields in the path, the token as Bearer,
    the rest in the query string or the body."""
    path = route.template
    for name in route.path_fields:
        path = path.replace("{" + name + "}", fields[name])
    headers = {"Authorization": f"Bearer {fields['token']}"} if fields.get("token") else {}
    rest = {k: v for k, v in fields.items() if k not in (*route.path_fields, "token")}
    if route.streaming and not route.ndjson:  # server-sent events
        assert not rest, rest
        stream = served.http.stream(path, headers=headers)
        if stream.status != 200:
            body = served.http._run(stream.response.read())
            stream.close()
            return Answer(json.loads(body)["error"]["code"], [])
        got = [e.json() for e in stream.events("game-event", events)]
        stream.close()
        return Answer("OK", got)
    if route.verb == "GET":
        params = {k: str(v).lower() if isinstance(v, bool) else v for k, v in rest.items()}
        answer = served.http.get(path, headers=headers, params=params)
    else:
        answer = served.http.post(path, rest, headers=headers)
    if answer.status != 200:
        return Answer(answer.json()["error"]["code"], [])
    if route.ndjson:
        return Answer("OK", [json.loads(line) for line in answer.body.decode().splitlines()])
    return Answer("OK", [answer.json()])


def _routes(rpc: str) -> list[Route]:
    """``rpc``'s routes; not GET /v1/me/games, ListGames for one account's key alone
    (tests/accounts/test_seats.py)."""
    return [route for route in ROUTES if route.rpc == rpc and not route.fixed]


def read_game(served: Served, game_id: str, token: str, events: int) -> Iterator[tuple]:
    """Every GAME path (each RPC over gRPC, then each of its routes) on ``game_id``:
    (path's name, Answer). ``events``: where a running game's stream is left."""
    for rpc in content_rpcs(GAME):
        fields = {"game_id": game_id, **({"token": token} if token else {}), **EXTRA.get(rpc, {})}
        yield f"gRPC {rpc}", _grpc(served, rpc, fields, events)
        for route in _routes(rpc):
            yield f"{route.verb} {route.template}", _http(served, route, fields, events)


def read_bulk(served: Served) -> dict[str, Answer]:
    """Every BULK path's answer (each RPC over gRPC, then each of its routes) to a
    caller with no credential."""
    answers = {}
    for rpc in content_rpcs(BULK):
        answers[f"gRPC {rpc}"] = _grpc(served, rpc, {})
        answers |= {f"{r.verb} {r.template}": _http(served, r, {}) for r in _routes(rpc)}
    assert all(answer.code == "OK" for answer in answers.values()), answers
    return answers


def listed_ids(served: Served) -> dict[str, set[str]]:
    """The game ids every BULK path holds."""
    return {
        path: {g for m in answer.messages for g in _game_ids(m)}
        for path, answer in read_bulk(served).items()
    }


def _game_ids(message: dict[str, Any]) -> list[str]:
    if "json" in message:  # ExportedGame
        return [json.loads(message["json"])["game_id"]]
    if "game_id" in message:  # an NDJSON export line
        return [message["game_id"]]
    return [game["gameId"] for game in message.get("games", [])]


# ---------------------------------------------------------------- the server and games
@dataclass
class Games:
    closed: dict[str, tuple[str, str]]  # name -> (game id, a seat's token or "")
    open_finished: str
    dealt: str  # a running Cité game: seat 0 dealt a card to seat 1
    dealt_tokens: list[str]


@pytest.fixture(scope="module", params=["memory+sqlite", "redis+postgres"])
def served(request, tmp_path_factory) -> Iterator[Served]:
    """A server on each store and each archive database in turn (the archive its own,
    dropped afterwards)."""
    if request.param == "memory+sqlite":
        redis_url, prefix = None, "gamehost"
        urls = iter([f"sqlite:///{tmp_path_factory.mktemp('archive') / 'archive.sqlite3'}"])
    else:
        redis_url = request.getfixturevalue("redis_url")
        prefix = request.getfixturevalue("module_prefix")
        urls = scratch_postgres()
    archive_url = next(urls)
    config = gateway_config(
        redis_url,
        prefix,
        archive_url=archive_url,
        archive_create=True,
        anonymous_exports=100,  # the walks export many times a minute
    )
    try:
        with Served(config) as running:
            yield running
    finally:
        next(urls, None)  # drops the PostgreSQL database


def _running(served: Served, **options: Any) -> tuple[str, str]:
    created = served.client.create_game("cite", ["human", "human"], **options)
    codes = {c.seat: c.code for c in created.invite_codes}
    seat = served.client.join(created.game_id, 0, invite_code=codes.get(0, ""))
    return created.game_id, seat.token


@pytest.fixture(scope="module")
def games(served) -> Games:
    client = served.client
    bots = ["bot:random", "bot:random"]
    finished = {
        "private, finished": client.create_game("cite", bots, private=True).game_id,
        "spectators off, finished": client.create_game("cite", bots, spectators=False).game_id,
    }
    open_finished = client.create_game("cite", bots).game_id
    archive = served.thread.running.archive

    def archived() -> bool:
        ids = [*finished.values(), open_finished]
        return all(served.thread.call(archive.game(g, cache=False)) for g in ids)

    wait_until(archived, 120, "the finished games archived")
    closed = {name: (game_id, "") for name, game_id in finished.items()}
    closed["private, running"] = _running(served, private=True)
    closed["spectators off, running"] = _running(served, spectators=False)
    dealt = client.create_game("cite", ["human", "human", "human"], seed=99).game_id
    tokens = [client.join(dealt).token for _ in range(3)]
    _play_to_the_deal(client, dealt, tokens)
    return Games(closed, open_finished, dealt, tokens)


def _newest(served: Served, game_id: str) -> int:
    return served.thread.call(served.thread.running.host.load(game_id)).last_event_id


# ---------------------------------------------------------------- (a) and (b)
# Read: answered, or (a Hint) refused only because no seat may be analysed there.
READ = ("OK", "FAILED_PRECONDITION")


def test_closed_games_are_read_by_their_seats_only(served, games):
    wrong = {}  # every path that answered otherwise, to see them all at once
    for name, (game_id, token) in games.closed.items():
        newest = _newest(served, game_id)
        for path, answer in read_game(served, game_id, "", newest):
            if answer.code != "PERMISSION_DENIED":
                wrong[name, path, "no token"] = answer.code
        if token:  # a seat's token reads it
            for path, answer in read_game(served, game_id, token, newest):
                if answer.code not in READ:
                    wrong[name, path, "seat token"] = answer.code
    # An open game, for comparison: anyone reads it.
    newest = _newest(served, games.open_finished)
    for path, answer in read_game(served, games.open_finished, "", newest):
        if answer.code not in READ:
            wrong["open, finished", path, "no token"] = answer.code
    assert wrong == {}


def test_closed_games_are_never_listed_or_exported(served, games):
    closed = {name: game_id for name, (game_id, _) in games.closed.items()}
    held = listed_ids(served)
    # `gamehost export`, from a server and from the archive database itself.
    for source in (["--target", served.thread.target], ["--archive", served.config.archive_url]):
        printed = subprocess.run(
            [sys.executable, "-m", "gamehost.cli", "export", *source],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        held[f"gamehost export {source[0]}"] = {
            json.loads(x)["game_id"] for x in printed.splitlines()
        }
    leaked = {
        path: sorted(name for name, game_id in closed.items() if game_id in ids)
        for path, ids in held.items()
    }
    assert leaked == dict.fromkeys(held, [])
    assert all(games.open_finished in ids for ids in held.values())  # what anyone may read


# ---------------------------------------------------------------- (c) hidden information
def _secrets(answer: Any, seat: int | None) -> tuple[list[Any], int, int]:
    """What ``seat`` (None: a spectator) must not see in an answer: actions shown in
    full to a seat outside their audience, and Cité cards dealt or drawn (in this
    game, seats 0 and 1 hold them). Also how many hidden actions and views it holds."""
    leaks: list[Any] = []
    actions = views = 0
    if isinstance(answer, dict):
        audience = answer.get("audience")
        if audience and seat not in audience:
            actions += 1
            if not answer["hidden"] or answer.get("actionId", -1) != -1:
                leaks.append(answer)
        if "cities" in answer and "drawn" in answer:
            views += 1
            cards = [c.get("card") for c in answer["cities"]]
            if answer["drawn"] or any(c not in (None, "CITE_CARD_UNSPECIFIED") for c in cards):
                leaks.append(answer)
        children = list(answer.values())
    else:
        children = answer if isinstance(answer, list) else []
    for child in children:
        found, more_actions, more_views = _secrets(child, seat)
        leaks += found
        actions += more_actions
        views += more_views
    return leaks, actions, views


def test_a_running_games_hidden_information_stays_hidden(served, games):
    newest = _newest(served, games.dealt)
    for seat, token in ((None, ""), (2, games.dealt_tokens[2])):
        actions = views = 0
        for path, answer in read_game(served, games.dealt, token, newest):
            leaks, seen_actions, seen_views = _secrets(answer.messages, seat)
            assert leaks == [], (seat, path, leaks)
            actions += seen_actions
            views += seen_views
        assert actions and views  # the walk met hidden actions and Cité views
    # Listed, the running game shows no content at all.
    for path, answer in read_bulk(served).items():
        assert _secrets(answer.messages, None) == ([], 0, 0), path
    # The receiver of the card sees it, and the check above would have caught it.
    receiver = read_game(served, games.dealt, games.dealt_tokens[1], newest)
    assert any(_secrets(answer.messages, None)[0] for _, answer in receiver)


# ---------------------------------------------------------------- (d) a shared deal
_DISCARDS = range(catan_rules.DISCARD_BASE, catan_rules.DISCARD_BASE + 5)
ENTRANTS = [("me", ""), ("r1", "random"), ("r2", "random")]  # "me": an external entrant


def _catan_secrets(answer: Any, seat: int | None) -> tuple[list[Any], int, int]:
    """``_secrets`` for Catan: hidden actions shown in full to a seat outside their
    audience (but a 7's discards, public once all are in), and another seat's hand or
    development cards in a view."""
    leaks, actions, _ = _secrets(answer, seat)
    leaks = [leak for leak in leaks if leak.get("actionId") not in _DISCARDS]
    views = 0
    for view in _catan_views(answer):
        views += 1
        for player in view["players"]:
            if player["seat"] != seat and (player["resourcesVisible"] or player["devVisible"]):
                leaks.append(player)
    return leaks, actions, views


def _catan_views(answer: Any) -> Iterator[dict[str, Any]]:
    if isinstance(answer, dict):
        if "devDeckCount" in answer:
            yield answer
        answer = list(answer.values())
    for child in answer if isinstance(answer, list) else []:
        yield from _catan_views(child)


def _exported(served: Served) -> dict[str, set[str]]:
    """The game ids every BULK path and ``gamehost export`` (from the server) hold."""
    held = listed_ids(served)
    printed = subprocess.run(
        [sys.executable, "-m", "gamehost.cli", "export", "--target", served.thread.target],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert printed.returncode == 0, printed.stderr
    held["gamehost export"] = {json.loads(x)["game_id"] for x in printed.stdout.splitlines()}
    return held


def test_a_finished_rotations_hidden_cards_wait_for_its_deal(served):
    """A duplicate tournament group (as a ladder set): one deal under each of three
    seat rotations, an external entrant at every table. It lets a bot play its seat at
    the first table only, so that table plays out while the other two wait on it. Until
    they end, the finished table shows no hidden card on any path, to a spectator or
    to the entrant's own seat there (it sits at the siblings too), and is neither
    listed nor exported, live or archived; then its whole log is public again."""
    client, name = served.client, "dealt"
    entrants = [pb.TournamentEntrant(name=n, level=lv) for n, lv in ENTRANTS]
    client.create_tournament(
        pb.TournamentDefinition(
            name=name,
            game_type="catan",
            players=3,
            entrants=entrants,
            format="round-robin",
            games=3,
            seed=5,
            duplicate=True,
            parallel=3,
            options={"turn_limit": "40"},
        )
    )
    entrant = client.join_tournament(name, "me")
    seats = wait_until(
        lambda: len(found := client.tournament_seats(name, entrant)) == 3 and found,
        120,
        "the three tables started",
    )
    finished, siblings = seats[0], seats[1:]
    client.hand_over(finished.game_id, finished.seat_token, "random")  # away: still its seat
    archive = served.thread.running.archive

    def archived(game_id: str) -> bool:
        return served.thread.call(archive.game(game_id, cache=False)) is not None

    wait_until(lambda: archived(finished.game_id), 120, "the first table played and archived")
    game_id, newest = finished.game_id, _newest(served, finished.game_id)
    leaked = {}  # (reader, path) -> how many secrets it showed: all of them at once
    met = {}  # reader -> the hidden actions its walk met
    for seat, token in ((None, ""), (finished.seat, finished.seat_token)):
        actions = views = 0
        for path, answer in read_game(served, game_id, token, newest):
            assert answer.code in READ, (seat, path, answer.code)
            leaks, seen_actions, seen_views = _catan_secrets(answer.messages, seat)
            if leaks:
                leaked[seat, path] = len(leaks)
            actions += seen_actions
            views += seen_views
        assert views  # the walk met final views
        met[seat] = actions
    # A sibling's seat token holds no seat of the finished table.
    for path, answer in read_game(served, game_id, siblings[0].seat_token, newest):
        assert answer.code == "UNAUTHENTICATED", path
    held = _exported(served)
    leaked |= {(None, path): 1 for path, ids in held.items() if game_id in ids}
    assert leaked == {}

    for sibling in siblings:  # the siblings play out too
        client.hand_over(sibling.game_id, sibling.seat_token, "random")
    wait_until(lambda: all(archived(s.game_id) for s in siblings), 120, "the siblings archived")
    held = _exported(served)
    assert {path for path, ids in held.items() if game_id not in ids} == set()
    spectator = [answer for _, answer in read_game(served, game_id, "", newest)]
    assert all(answer.code in READ for answer in spectator)
    assert any(_catan_secrets(answer.messages, None)[0] for answer in spectator)
    # The spectator's walk met, hidden, every action the same walk now shows. (How many
    # there are, none included, is the bots' play: searching bots play differently on
    # a busy machine.)
    assert sum(_catan_secrets(answer.messages, None)[1] for answer in spectator) == met[None]
