"""The route table: one line per RPC, in google.api.http's vocabulary.

A template's ``{field}`` is a request field bound from one path segment; ``:verb`` is a
custom method. ``body="*"`` takes the other fields from a JSON body; without a body
they come from the query string (``?limit=5``). A new RPC gets its HTTP route by one
line here (tests/gateway/test_http_routes.py fails until it has one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import unquote

from google.protobuf.descriptor import MethodDescriptor

from gamehost.v1 import gamehost_pb2 as pb

SERVICE = pb.DESCRIPTOR.services_by_name["GameHost"]
_VARIABLE = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Route:
    verb: str  # GET, POST or DELETE
    template: str  # "/v1/games/{game_id}:join"
    rpc: str  # the GameHost method
    body: str = ""  # "*": every field not bound by the path comes from a JSON body
    ndjson: bool = False  # a stream served as NDJSON (one message's JSON a line), not SSE
    fixed: tuple[tuple[str, object], ...] = ()  # fields the route sets: ("mine", True)
    pattern: re.Pattern = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # A variable is one path segment and never holds ':' (ids and names do not).
        pieces = _VARIABLE.split(self.template)  # literal, name, literal, name, ..., literal
        regex = "".join(
            f"(?P<{piece}>[^/:]+)" if i % 2 else re.escape(piece) for i, piece in enumerate(pieces)
        )
        object.__setattr__(self, "pattern", re.compile(f"^{regex}$"))

    @property
    def method(self) -> MethodDescriptor:
        return SERVICE.methods_by_name[self.rpc]

    @property
    def path_fields(self) -> list[str]:
        return _VARIABLE.findall(self.template)

    @property
    def streaming(self) -> bool:
        return self.method.server_streaming

    def match(self, raw_path: str) -> dict[str, str] | None:
        found = self.pattern.match(raw_path)
        if found is None:
            return None
        return {name: unquote(value) for name, value in found.groupdict().items()}


_TABLE = (
    Route("GET", "/v1/game-types", "ListGameTypes"),
    Route("POST", "/v1/games", "CreateGame", body="*"),
    Route("GET", "/v1/games", "ListGames"),
    Route("POST", "/v1/games/{game_id}:join", "JoinGame", body="*"),
    Route("GET", "/v1/games/{game_id}", "GetState"),
    Route("POST", "/v1/games/{game_id}:submit", "SubmitAction", body="*"),
    Route("GET", "/v1/games/{game_id}/events", "WatchGame"),
    Route("GET", "/v1/games/{game_id}/record", "GetRecord"),
    Route("POST", "/v1/tournaments", "CreateTournament", body="*"),
    Route("GET", "/v1/tournaments", "ListTournaments"),
    Route("GET", "/v1/tournaments/{name}", "GetTournament"),
    Route("GET", "/v1/tournaments/{name}/events", "WatchTournament"),
    Route("POST", "/v1/tournaments/{name}:join", "JoinTournament", body="*"),
    Route("GET", "/v1/tournaments/{name}/seats", "ListTournamentSeats"),
    Route("POST", "/v1/tournaments/{name}:cancel", "CancelTournament", body="*"),
    # Issue 16's RPCs (hints, seats on demand), served once their proto is merged.
    Route("POST", "/v1/games/{game_id}:hint", "Hint", body="*"),
    Route("POST", "/v1/games/{game_id}:addBot", "AddBot", body="*"),
    Route("POST", "/v1/games/{game_id}:handOver", "HandOverSeat", body="*"),
    Route("POST", "/v1/games/{game_id}:takeBack", "TakeBackSeat", body="*"),
    Route("POST", "/v1/games/{game_id}:seatOptions", "SetSeatOptions", body="*"),
    # The archive's export (docs/export.md): each line is an ExportedGame's json.
    Route("GET", "/v1/export", "ExportGames", ndjson=True),
    # The ladder (docs/ladder.md); a runner's connection is an event stream too.
    Route("POST", "/v1/bots", "RegisterBot", body="*"),
    Route("GET", "/v1/bots", "ListBots"),
    Route("GET", "/v1/bots/{name}", "GetBot"),
    Route("POST", "/v1/bots/{name}:revoke", "RevokeBot", body="*"),
    Route("POST", "/v1/bots:connect", "ConnectBot", body="*"),
    # The same stream for a browser's fetch: ``?concurrency=N``, the key as Bearer
    # (never ``?key=``: binding.NEVER_IN_URLS).
    Route("GET", "/v1/bots:connect", "ConnectBot"),
    Route("POST", "/v1/bots:reply", "BotReply", body="*"),
    Route("GET", "/v1/ladder", "GetLadder"),
    # Accounts (docs/accounts.md); the key as Bearer.
    Route("POST", "/v1/accounts", "CreateAccount", body="*"),
    Route("GET", "/v1/accounts/{name}", "GetAccount"),
    Route("POST", "/v1/accounts/{name}:rotateKey", "RotateAccountKey", body="*"),
    Route("POST", "/v1/accounts/{name}:revoke", "RevokeAccount", body="*"),
    Route("GET", "/v1/games/{game_id}/mySeat", "GetMySeat"),
    Route("GET", "/v1/me/games", "ListGames", fixed=(("mine", True),)),
    Route("GET", "/v1/me/events", "WatchPlayer"),
    Route("POST", "/v1/me/challenges", "Challenge", body="*"),
    Route("POST", "/v1/me/challenges/{challenge_id}:answer", "AnswerChallenge", body="*"),
    # Quick play (docs/accounts.md): the answer comes once matched.
    Route("POST", "/v1/me/queue", "Matchmake", body="*"),
    Route("DELETE", "/v1/me/queue", "LeaveQueue"),
)
# The routes of the RPCs this build's service has (a route may be written before the
# RPC it serves is merged).
ROUTES: tuple[Route, ...] = tuple(r for r in _TABLE if r.rpc in SERVICE.methods_by_name)


@dataclass(frozen=True)
class Match:
    route: Route | None  # None: no route has this path with this verb
    path_values: dict[str, str]
    allowed: tuple[str, ...] = ()  # the verbs the path has (non-empty: wrong verb)


def find(verb: str, raw_path: str, routes: tuple[Route, ...] = ROUTES) -> Match:
    allowed = []
    for route in routes:
        values = route.match(raw_path)
        if values is None:
            continue
        if route.verb == verb:
            return Match(route, values)
        allowed.append(route.verb)
    return Match(None, {}, tuple(allowed))


def unrouted_rpcs(routes: tuple[Route, ...] = ROUTES) -> list[str]:
    """GameHost methods without a route (should be none)."""
    routed = {route.rpc for route in routes}
    return [m.name for m in SERVICE.methods if m.name not in routed]
