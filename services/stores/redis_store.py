"""The Redis store: the real one, shared by every service replica.

Keys per game share the hash tag ``{game_id}`` so that a Redis Cluster keeps them
in one slot and the Lua scripts below (which touch several of them) stay legal:

    <prefix>:{id}:game      hash: meta (JSON), state, version, status, seq (the last
                            event id given out), touched (ms of the last event), luck
                            (deal-stream games: chance draws so far per kind, JSON),
                            turn (the newest turn's request key and result JSON),
                            names (JSON: sha256(token) -> the name its seat was joined
                            with, ``records.with_joined_names``)
    <prefix>:{id}:tokens    hash: seat -> sha256(token)
    <prefix>:{id}:requests  hash: a client's request key (token hash and request id)
                            -> its result JSON (idempotent retries), written by the
                            commit, which also sets the hash to expire ``request_ttl``
                            after the newest request; archived with the game. A turn's
                            request key (a bot's move) is the game hash's ``turn``
                            field instead: only the newest, gone with the game
    <prefix>:{id}:gone      hash: status, type, finished (ms): the tombstone of a game
                            archived and forgotten, expiring after the finished retention
    <prefix>:{id}:trees:<turn>  hash: tree index -> root statistics (JSON) of a bot turn
                            searched on Celery workers, until the last tree arrives
                            (``gather_tree``); expiring, so a turn abandoned midway leaves
                            nothing behind
    <prefix>:{id}:events    stream: one entry per event, field "e" = the event packed
                            by ``services.stores.compact``, with the explicit stream id
                            "<event id>-0" (event ids are the game's own sequence
                            1, 2, 3..., not Redis times); the newest events only:
    <prefix>:{id}:log       hash: block k -> the events k*LOG_BLOCK+1 .. (k+1)*LOG_BLOCK,
                            packed, one a line, zstd-compressed: whole blocks older
                            than the newest whole one leave the stream for it (sealed)
    <prefix>:games          sorted set: game ids by creation time (the index)
    <prefix>:secret         string: the server secret mixed into client seeds
    <prefix>:live:<owner>   sorted set: game ids an API key / address created, by time
    <prefix>:botturns       sorted set: game ids whose bot is to move, by the Redis-time
                            (ms) their turn is due or their lease runs out
    <prefix>:archive        sorted set: the archive outbox, ``game:<id>`` and
                            ``tournament:<name>`` entries by the Redis time (ms) they are
                            due (0: at once) or their archiver's lease runs out
    <prefix>:archiving      string: present while the deployment archives (the outbox
                            is written only then, by whichever process commits)
    <prefix>:layout         string: the layout written (``LAYOUT``; absent: 1, the previous
                            release's, which writes JSON events alone in the stream and
                            each request id as ``<prefix>:{id}:request:<key>``, expiring)

Tournaments (the hash tag ``{t:name}`` keeps one tournament's keys in one slot):

    <prefix>:tournament:{t:name}:meta       hash: record (JSON), status, seq (last event id),
                                            touched (ms of the last event or status change)
    <prefix>:tournament:{t:name}:tables     hash: table index -> JSON (set once: started)
    <prefix>:tournament:{t:name}:results    hash: table index -> JSON (set once: finished)
    <prefix>:tournament:{t:name}:entrants   hash: external entrant -> sha256(token)
    <prefix>:tournament:{t:name}:events     stream: "<event id>-0", field "e" = JSON
    <prefix>:tournaments      sorted set: tournament names by creation time (the index)
    <prefix>:tournamentsweep  sorted set: running tournaments by the Redis time (ms) of
                              their next sweep or the end of a replica's lease

The bot-turn schedule and the archive outbox are written inside the commit script
with the game's keys, so a due bot turn or a finished game is never lost between a
commit and its scheduling (on a Redis Cluster these keys would have to share the
games' slot; we run one primary).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import re
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

import redis.asyncio as aioredis
import zstandard
from limits.aio.storage import RedisClusterStorage, RedisStorage, Storage
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import SSLConnection
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError

from services.kinds import GameStatus
from services.stores import compact, redis_connect
from services.stores.base import (
    ARCHIVE_GAME,
    ARCHIVE_TOURNAMENT,
    Commit,
    CommitOutcome,
    CommitResult,
    EventReader,
    GameExists,
    GameMoved,
    LogId,
    NewGame,
    NotReplicated,
    Snapshot,
    StoredEvent,
    Tombstone,
    TournamentLog,
    TournamentSnapshot,
    archive_entry,
)
from services.stores.game_store import GameStore
from services.stores.inline_commit import InlineCommits
from services.stores.leases import BOT_TURNS, SCHEDULES, Lease
from services.stores.records import ACCOUNT, with_joined_names
from services.stores.redis_cluster import ClusterSide, PollingEventReader
from services.stores.redis_connect import Durability
from services.stores.redis_leases import LeaseScripts
from services.stores.redis_match_queue import RedisMatchQueue
from services.stores.timing import time_store_calls

log = logging.getLogger(__name__)

# Compare-and-set: a duplicate request id wins over staleness, so a retry of an
# applied request is answered with its first result even if the game moved on.
# ARGV[13]: the request key, kept as ARGV[12] says: "turn", the game hash's one
# "turn" field ("<key>=<result>", a turn's: only the newest); "requests", a field of
# the game's requests (KEYS[2]), which expire ARGV[5] ms after the newest; "key", a
# key of its own (KEYS[8]) expiring after ARGV[5] ms (layout 1).
_COMMIT = """
local version = redis.call('HGET', KEYS[1], 'version')
if not version then return {'not_found'} end
local previous = request_result(KEYS[1], KEYS[2], KEYS[8], ARGV[13])
if previous then return {'duplicate', version, previous} end
if version ~= ARGV[1] then return {'stale', version} end
local tokens = cjson.decode(ARGV[11])
for _, t in ipairs(tokens) do
  if (redis.call('HGET', KEYS[5], t[1]) or '') ~= t[2] then return {'seat_taken', version} end
end
for _, t in ipairs(tokens) do
  if t[3] == '' then redis.call('HDEL', KEYS[5], t[1]) else redis.call('HSET', KEYS[5], t[1], t[3]) end
end
if ARGV[10] ~= '' then redis.call('HSET', KEYS[1], 'meta', ARGV[10]) end
if KEYS[6] ~= KEYS[1] and ARGV[4] == 'finished' and redis.call('EXISTS', KEYS[7]) == 1
   and redis.call('HGET', KEYS[1], 'status') ~= 'finished' then
  redis.call('ZADD', KEYS[6], 'NX', 0, 'game:' .. ARGV[8])
end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'state', ARGV[3], 'status', ARGV[4])
if ARGV[12] == 'turn' then
  redis.call('HSET', KEYS[1], 'turn', ARGV[13] .. '=' .. ARGV[6])
elseif ARGV[12] == 'requests' then
  redis.call('HSET', KEYS[2], ARGV[13], ARGV[6])
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
elseif ARGV[12] == 'key' then
  redis.call('SET', KEYS[8], ARGV[6], 'PX', ARGV[5])
end
if KEYS[4] == KEYS[1] then
  -- a Cluster: the schedule is in another slot, written by the caller (_OnCluster)
elseif ARGV[7] == '' then
  redis.call('ZREM', KEYS[4], ARGV[8])
else
  local t = redis.call('TIME')
  redis.call('ZADD', KEYS[4], t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ARGV[7]), ARGV[8])
end
if ARGV[9] ~= '' then redis.call('HSET', KEYS[1], 'luck', string.sub(ARGV[9], 2)) end
local result = {'applied', ARGV[2]}
for i = 14, #ARGV do result[#result + 1] = append(KEYS[1], KEYS[3], ARGV[i]) end
return result
"""

# Seal one block of the log: the stream's oldest LOG_BLOCK events, compressed by the
# caller (ARGV[3]), go into the log hash and leave the stream, at once; only while
# the stream still starts with that block (ARGV[2]) and the block is not sealed yet.
_SEAL = """
local first = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
if #first == 0 or first[1][1] ~= ARGV[2] then return 0 end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[3]) == 0 then return 0 end
redis.call('XTRIM', KEYS[1], 'MINID', ARGV[4])
return 1
"""

# One tree's root statistics of a bot turn: the task that brings the last one gets them
# all (and the set is gone), every other gets nothing. A repeated tree (a redelivered
# task) overwrites its own entry; a set never completed expires; a game that is gone
# gets no set.
_GATHER_TREE = """
if redis.call('EXISTS', KEYS[2]) == 0 then return false end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if redis.call('HLEN', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return false
end
local all = redis.call('HVALS', KEYS[1])
redis.call('DEL', KEYS[1])
return all
"""

# A seat's claim; with a name (ARGV[5]), the name goes into the game's names by the
# token's hash (a JSON object of strings alone, which cjson keeps as it was), and with
# an account (ARGV[6]: "kind:name"), the account by records.ACCOUNT and the hash.
_CLAIM = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if ARGV[4] ~= '' and redis.call('HGET', KEYS[1], 'version') ~= ARGV[4] then return -1 end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return false end
if ARGV[5] ~= '' or ARGV[6] ~= '' then
  local names = cjson.decode(redis.call('HGET', KEYS[1], 'names') or '{}')
  if ARGV[5] ~= '' then names[ARGV[2]] = ARGV[5] end
  if ARGV[6] ~= '' then names[ARGV[7] .. ARGV[2]] = ARGV[6] end
  redis.call('HSET', KEYS[1], 'names', cjson.encode(names))
end
append(KEYS[1], KEYS[3], ARGV[3])
return true
"""

# A new game: its hash, its first events and (a bot moves first) its bot turn, at once.
# Score 0 in the schedule: due at once, first in line. An id whose game was archived
# and forgotten (its tombstone, KEYS[4]) is taken too.
_CREATE = """
if redis.call('EXISTS', KEYS[4]) == 1 then return false end
if redis.call('HSETNX', KEYS[1], 'meta', ARGV[1]) == 0 then return false end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'version', ARGV[3], 'status', ARGV[4], 'seq', 0,
           'luck', ARGV[7])
if ARGV[5] == '1' and KEYS[3] ~= KEYS[1] then redis.call('ZADD', KEYS[3], 0, ARGV[6]) end
local ids = {}
for i = 8, #ARGV do ids[#ids + 1] = append(KEYS[1], KEYS[2], ARGV[i]) end
return ids
"""

# The result of an applied request (false if none): a client's in the game's
# requests, or in a key of its own (``single``: how versions before the per-game
# record kept them; they expire within request_ttl), or the game's newest turn's.
_REQUEST_RESULT = """
local function request_result(game, requests, single, key)
  if key == '' then return false end
  local found = redis.call('HGET', requests, key) or redis.call('GET', single)
  if found then return found end
  local turn = redis.call('HGET', game, 'turn')
  if turn and string.sub(turn, 1, #key + 1) == key .. '=' then return string.sub(turn, #key + 2) end
  return false
end
"""

# Appends one event to a game's log under the next event id; returns that id.
_APPEND = """
local function append(game, stream, event)
  local id = redis.call('HINCRBY', game, 'seq', 1)
  local t = redis.call('TIME')
  redis.call('HSET', game, 'touched', t[1] * 1000 + math.floor(t[2] / 1000))
  redis.call('XADD', stream, id .. '-0', 'e', event)
  return id
end
"""


# One atomic read of everything a request needs, in one round trip.
_LOAD = """
local game = redis.call('HMGET', KEYS[1], 'meta', 'state', 'version', 'status', 'botstatus', 'seq',
                       'luck', 'names')
if not game[1] then return false end
local previous = false
if ARGV[1] ~= '' then previous = request_result(KEYS[1], KEYS[3], KEYS[5], ARGV[1]) end
return {game[1], game[2], game[3], game[4], redis.call('HGETALL', KEYS[2]), previous,
        game[6] or '0', game[5], game[7], game[8]}
"""

# A finished game the archive holds (its client requests too) leaves the store; its
# tombstone stays (KEYS[4]).
# Only while its log ends where the archived one did (ARGV[2]): a write after the
# archiver read the game keeps it here until retention expires it, never lost.
# The index and the schedule live in other slots: on a Cluster the caller leaves them.
_FORGET = """
local game = redis.call('HMGET', KEYS[1], 'status', 'seq', 'touched')
if game[1] ~= 'finished' or game[2] ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[4], 'status', game[1], 'type', ARGV[4], 'finished', game[3] or '0')
redis.call('PEXPIRE', KEYS[4], ARGV[3])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[7], KEYS[8])
if KEYS[5] ~= KEYS[1] then  -- else a Cluster: the caller leaves the index and schedule
  redis.call('ZREM', KEYS[5], ARGV[1])
  redis.call('ZREM', KEYS[6], ARGV[1])
end
return 1
"""

# A write that changes nothing on a game that exists, so a WAIT after it covers every
# write before it (a retried request's first try: ``_confirm_request``).
_TOUCH = """
local version = redis.call('HGET', KEYS[1], 'version')
if version then redis.call('HSET', KEYS[1], 'version', version) end
"""

_NOW_MS = "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)\n"

_BOT_TURN_DUE_IN = (
    _NOW_MS
    + """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return false end
return tostring(tonumber(score) - now)
"""
)

_BOT_TURN_BACKLOG = (
    _NOW_MS
    + """
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #first == 0 then return {0, '0'} end
return {redis.call('ZCARD', KEYS[1]), tostring(math.max(0, now - tonumber(first[2])))}
"""
)

_SET_BOT_STATUS = """
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'botstatus', ARGV[1]) end
"""


# Tournament writes: each set-if-absent (or status change) appends its events at once.
_T_APPEND = """
local function touch(meta)
  local t = redis.call('TIME')
  redis.call('HSET', meta, 'touched', t[1] * 1000 + math.floor(t[2] / 1000))
end
local function tappend(meta, stream, event)
  local id = redis.call('HINCRBY', meta, 'seq', 1)
  redis.call('XADD', stream, id .. '-0', 'e', event)
  touch(meta)
  return id
end
"""

_T_CREATE = """
if redis.call('HSETNX', KEYS[1], 'record', ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'seq', 0)
touch(KEYS[1])
if KEYS[3] ~= KEYS[1] then  -- else a Cluster: the caller writes the index and the sweep
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
  redis.call('ZADD', KEYS[4], 0, ARGV[3])
end
for i = 5, #ARGV do tappend(KEYS[1], KEYS[2], ARGV[i]) end
return 1
"""

_T_SET_ONCE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return 0 end
for i = 3, #ARGV do tappend(KEYS[1], KEYS[3], ARGV[i]) end
return 1
"""

_T_STATUS = """
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[2])
touch(KEYS[1])
if KEYS[3] ~= KEYS[1] then  -- else a Cluster: the caller writes the sweep and outbox
  if ARGV[3] == '1' then redis.call('ZADD', KEYS[3], 0, ARGV[1])
  else redis.call('ZREM', KEYS[3], ARGV[1]) end
  if redis.call('EXISTS', KEYS[5]) == 1 then
    redis.call('ZADD', KEYS[4], 'NX', 0, 'tournament:' .. ARGV[1])
  end
end
for i = 4, #ARGV do tappend(KEYS[1], KEYS[2], ARGV[i]) end
return 1
"""


def _ms(seconds: float | None) -> str:
    return "" if seconds is None else str(int(seconds * 1000))


# Live games of one owner: drop the finished or gone ones (a reservation whose game
# never appeared counts for a minute), then admit the new one if under the cap.
# Game keys are built here from ARGV: fine on a single Redis, not on a Cluster.
_RESERVE = """
local now = tonumber(ARGV[4])
local members = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #members, 2 do
  local gid = members[i]
  local status = redis.call('HGET', ARGV[1] .. ':{' .. gid .. '}:game', 'status')
  if status == 'finished' or (not status and now - tonumber(members[i + 1]) > 60) then
    redis.call('ZREM', KEYS[1], gid)
  end
end
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], now, ARGV[2])
-- An owner who never comes back: its set goes after 90 days (games expire before).
redis.call('EXPIRE', KEYS[1], 7776000)
return 1
"""


# Layouts. 1: what the previous release writes and reads: events as JSON objects, all
# in the stream; a request id a key of its own; finished games kept until retention.
# 2: events packed and old blocks sealed; a game's client request ids one hash, a bot
# turn's one field; a finished game forgotten once archived. This release reads both
# and writes the deployment's (``<prefix>:layout``), so replicas and workers of the
# previous release keep reading what this one writes until the operator moves on.
LAYOUT = 2
LAYOUT_CHECK_SECONDS = 30.0
LOG_BLOCK = 64  # events a sealed block of a game's log holds
_SEAL_LEVEL = 3  # zstd: a block is sealed on the commit path, so a fast level
_GAME_PARTS = ("game", "tokens", "events", "requests", "log")  # a game's keys, but its tombstone


def _kept_as(request_key: str, turn: bool, newest: bool) -> str:
    """How a commit keeps its request key (the commit script's ARGV[12])."""
    if not request_key:
        return ""
    if not newest:
        return "key"
    return "turn" if turn else "requests"


def _stream_id(event_id: int, exclusive: bool = False) -> str:
    """The stream id of an event id (XREAD reads after it; "(" makes XRANGE exclusive)."""
    return f"{'(' if exclusive else ''}{event_id}-0"


def _dumps(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()


@time_store_calls  # gamehost_redis_call_seconds{operation}
class RedisStore(GameStore, RedisMatchQueue):
    def __init__(
        self,
        client: aioredis.Redis,
        prefix: str = "gamehost",
        request_ttl: float = 86400.0,
        durability: Durability | None = None,
        inline: InlineCommits | None = None,
    ) -> None:
        self._redis = client
        self._inline = inline  # moves' commits on a blocking connection (single Redis)
        self._prefix = prefix
        self._durability = durability or Durability()
        self._wait_ms = max(1, int(self._durability.wait_timeout * 1000))
        self._request_ttl_ms = str(max(1, int(request_ttl * 1000)))
        self._layout: int | None = None  # the deployment's layout, as last read
        self._layout_read = 0.0
        self._reserve = client.register_script(_RESERVE)
        self._secret: bytes | None = None
        self._commit = client.register_script(_REQUEST_RESULT + _APPEND + _COMMIT)
        self._claim = client.register_script(_APPEND + _CLAIM)
        self._gather_tree = client.register_script(_GATHER_TREE)
        self._create = client.register_script(_APPEND + _CREATE)
        self._load = client.register_script(_REQUEST_RESULT + _LOAD)
        self._forget = client.register_script(_FORGET)
        self._seal = client.register_script(_SEAL)
        self._touch = client.register_script(_TOUCH)
        self._lease_scripts = LeaseScripts(client)
        self._bot_turn_due_in = client.register_script(_BOT_TURN_DUE_IN)
        self._bot_turn_backlog = client.register_script(_BOT_TURN_BACKLOG)
        self._set_bot_status = client.register_script(_SET_BOT_STATUS)
        self._t_create = client.register_script(_T_APPEND + _T_CREATE)
        self._t_set_once = client.register_script(_T_APPEND + _T_SET_ONCE)
        self._t_status = client.register_script(_T_APPEND + _T_STATUS)
        # On a Cluster the keys across games are written beside a game's script.
        self._on_cluster = ClusterSide(client) if isinstance(client, RedisCluster) else None

    # On a Cluster the outbox entry of a finished game is written just after its
    # commit: a finished game still off the outbox this long after is put on it by
    # the expiry sweep (a process killed between the two writes).
    OUTBOX_GRACE = 10.0
    # Blocking reads (WatchGame) wait at most this long, well inside the socket timeout.
    MAX_BLOCK_SECONDS = 10.0
    MAX_CONNECTIONS = 100  # pooled connections per process
    POOL_WAIT_SECONDS = 5.0  # then the call fails with a ConnectionError

    @classmethod
    def from_url(
        cls, url: str, prefix: str = "gamehost", request_ttl: float = 86400.0
    ) -> RedisStore:
        """A store on a single Redis, a Sentinel set's primary or a Cluster
        (``services.stores.redis_connect`` reads the URL)."""
        target = redis_connect.parse(url)
        # A burst of calls waits for a pooled connection instead of failing with
        # "Too many connections" (blocking reads of WatchGame do not use this pool).
        client = redis_connect.connect(
            target,
            max_connections=cls.MAX_CONNECTIONS,
            pool_timeout=cls.POOL_WAIT_SECONDS,
            socket_timeout=3 * cls.MAX_BLOCK_SECONDS,
        )
        inline = InlineCommits(target.url) if target.inline_commits else None
        return cls(client, prefix, request_ttl, target.durability, inline)

    # ------------------------------------------------------------------ durability
    async def _durable(
        self, script: AsyncScript, keys: list[str], args: list[Any]
    ) -> tuple[Any, int | None]:
        """Run a write script; with ``min_replicas``, on one connection followed by
        ``WAIT``, whose count of confirming replicas comes back with the script's reply
        (None: no confirmation asked for)."""
        if not self._durability.min_replicas:
            return await script(keys=keys, args=args), None
        command = ("EVALSHA", script.sha, len(keys), *keys, *args)
        reply, replicas = await self._then_wait(command, keys[0])
        if isinstance(reply, NoScriptError):  # a fresh or failed-over primary
            await self._redis.script_load(script.script)
            reply, replicas = await self._then_wait(command, keys[0])
        if isinstance(reply, Exception):
            raise reply
        return reply, replicas

    async def _then_wait(self, command: tuple[Any, ...], key: str) -> tuple[Any, int]:
        """``command`` and ``WAIT`` in one pipeline, so on one connection: WAIT counts
        the replicas holding every write this connection made, the command's included.
        The command's error comes back as its reply. On a Cluster, on the connection
        to the node serving ``key``'s slot."""
        if self._on_cluster is not None:
            return await self._on_cluster.then_wait(
                command, key, self._durability.min_replicas, self._wait_ms
            )
        pipe = self._redis.pipeline(transaction=False)
        pipe.execute_command(*command)
        pipe.execute_command("WAIT", self._durability.min_replicas, self._wait_ms)
        reply, replicas = await pipe.execute(raise_on_error=False)
        if isinstance(replicas, Exception):
            raise replicas
        return reply, int(replicas)

    async def _schedule_beside(self, game_id: str, due_in: float) -> None:
        """On a Cluster: a bot turn put on the schedule's slot before the commit that
        makes it due; with ``min_replicas``, confirmed by the replicas of that slot's
        node as well (else the commit is not made)."""
        assert self._on_cluster is not None
        wanted = self._durability.min_replicas
        wait = (wanted, self._wait_ms) if wanted else None
        replicas = await self._on_cluster.schedule(self._bot_turns_key, game_id, due_in, wait)
        self._confirmed(replicas, "the bot turn's schedule")

    def _confirmed(self, replicas: int | None, what: str) -> None:
        """Raise NotReplicated when fewer replicas than asked hold the write."""
        wanted = self._durability.min_replicas
        if replicas is not None and replicas < wanted:
            raise NotReplicated(
                f"{what} reached the Redis primary, but only {replicas} of the {wanted} "
                f"replicas required (--redis-min-replicas) confirmed it within "
                f"{self._durability.wait_timeout:g} s, so a failover could still lose it; "
                "it is not acknowledged: retry with the same request_id"
            )

    async def _confirm_request(self, game_id: str, request_key: str, what: str) -> None:
        """A retried request answered from its stored result: its first try's write may
        not be on the replicas yet. Any write on a connection makes its WAIT cover every
        write the primary made before (replication is one ordered stream), so the
        game is touched (a write that changes nothing), then waited for."""
        if not self._durability.min_replicas:
            return
        # (The request is kept where its layout put it: the game's hash is touched.)
        _, replicas = await self._durable(self._touch, [self._key(game_id, "game")], [])
        self._confirmed(replicas, what)

    async def ping(self) -> None:
        await self._redis.ping()

    # ------------------------------------------------------------------ layouts
    @property
    def _layout_key(self) -> str:
        return f"{self._prefix}:layout"

    async def layout(self) -> int:
        """The deployment's layout (``<prefix>:layout``; 1 when never set), read again
        every LAYOUT_CHECK_SECONDS, so every replica and worker follows an upgrade."""
        now = time.monotonic()
        if self._layout is None or now - self._layout_read > LAYOUT_CHECK_SECONDS:
            raw = await self._redis.get(self._layout_key)
            self._layout, self._layout_read = int(raw or 1), now
        return self._layout

    async def settle_layout(self) -> int:
        """A new deployment (none of its deployment-wide keys yet) takes the newest
        layout at its first server's start; one that exists keeps its own (1, the
        previous release's, when never set) until ``upgrade_layout``."""
        shared = ("games", "tournaments", "archive", "archiving", "botturns", "secret")
        for name in shared:  # one at a time: on a Cluster they lie in different slots
            if await self._redis.exists(f"{self._prefix}:{name}"):
                break
        else:
            await self._redis.set(self._layout_key, str(LAYOUT), nx=True)
        self._layout = None
        return await self.layout()

    async def _packer(self) -> Callable[[dict[str, Any]], bytes]:
        """How this deployment's layout writes an event."""
        return compact.pack if await self.layout() >= 2 else _dumps

    async def upgrade_layout(self) -> tuple[int, int]:
        """Move the deployment to the newest layout (``gamehost store upgrade``, once
        every replica and worker runs this release); returns (before, after)."""
        before = int(await self._redis.get(self._layout_key) or 1)
        after = max(before, LAYOUT)
        await self._redis.set(self._layout_key, str(after))
        self._layout = None
        return before, after

    def _key(self, game_id: str, part: str) -> str:
        return f"{self._prefix}:{{{game_id}}}:{part}"

    def _cross(self, game_id: str, key: str) -> str:
        """A key across games as a game's script is given it: on a Cluster the game's
        own hash instead, which tells the script to leave it to the caller."""
        return key if self._on_cluster is None else self._key(game_id, "game")

    @property
    def _bot_turns_key(self) -> str:
        return f"{self._prefix}:botturns"

    @property
    def _archive_key(self) -> str:
        return f"{self._prefix}:archive"

    @property
    def _archiving_key(self) -> str:
        return f"{self._prefix}:archiving"

    async def create(self, game: NewGame) -> list[int]:
        if self._on_cluster is not None and game.bot_due_in is not None:  # before
            await self._schedule_beside(game.game_id, 0)
        ids, replicas = await self._durable(
            self._create,
            [
                self._key(game.game_id, "game"),
                self._key(game.game_id, "events"),
                self._cross(game.game_id, self._bot_turns_key),
                self._key(game.game_id, "gone"),
            ],
            [
                _dumps(game.meta),
                game.state,
                str(game.version),
                game.status,
                "1" if game.bot_due_in is not None else "0",
                game.game_id,
                game.luck,
                *map(await self._packer(), game.events),
            ],
        )
        if ids is None:
            raise GameExists(f"game {game.game_id} exists")
        # The index lives in another slot: written after the game itself exists.
        index = ("ZADD", f"{self._prefix}:games", str(time.time()), game.game_id)
        if replicas is None:
            await self._redis.execute_command(*index)
        else:
            _, indexed = await self._then_wait(index, f"{self._prefix}:games")
            self._confirmed(min(replicas, indexed), "the new game")
        return [int(i) for i in ids]

    async def load(self, game_id: str, request_key: str | None = None) -> Snapshot | None:
        reply = await self._load(
            keys=[
                self._key(game_id, "game"),
                self._key(game_id, "tokens"),
                self._key(game_id, "requests"),
                self._key(game_id, "events"),
                self._key(game_id, f"request:{request_key or ''}"),
            ],
            args=[request_key or ""],
        )
        if not reply:
            return None
        meta, state, version, status, tokens, previous, last_id, bot_status, luck, names = reply
        if previous and request_key:  # a retry is answered from this: only once it is safe
            await self._confirm_request(game_id, request_key, "the request's first try")
        hashes = {int(tokens[i]): tokens[i + 1].decode() for i in range(0, len(tokens), 2)}
        return Snapshot(
            game_id=game_id,
            meta=with_joined_names(json.loads(meta), hashes, json.loads(names or "{}")),
            state=state,
            version=int(version),
            status=status.decode(),
            tokens=hashes,
            request_result=json.loads(previous) if previous else None,
            last_event_id=int(last_id),
            bot_status=bot_status.decode() if bot_status else "",
            luck=luck.decode() if luck else "",
        )

    async def write(self, commit: Commit) -> CommitResult:
        token_changes = [
            [str(seat), old, new] for seat, (old, new) in (commit.tokens or {}).items()
        ]
        game_id = commit.game_id
        key = commit.request_key or ""
        newest = await self.layout() >= 2
        if self._on_cluster is not None and commit.bot_due_in is not None:
            # Before the commit: a turn the commit makes due is never missing.
            await self._schedule_beside(game_id, commit.bot_due_in)
        keys = [
            self._key(game_id, "game"),
            self._key(game_id, "requests"),
            self._key(game_id, "events"),
            self._cross(game_id, self._bot_turns_key),
            self._key(game_id, "tokens"),
            self._cross(game_id, self._archive_key),
            self._cross(game_id, self._archiving_key),
            self._key(game_id, f"request:{key}"),
        ]
        args = [
            str(commit.expected_version),
            str(commit.new_version),
            commit.state,
            commit.status,
            self._request_ttl_ms,
            _dumps(commit.request_result or {}),
            _ms(commit.bot_due_in),
            commit.game_id,
            "" if commit.luck is None else "=" + commit.luck,  # '=': set (even to empty)
            b"" if commit.meta is None else _dumps(commit.meta),
            # cjson decodes [] as an empty table; {} would not be a list
            _dumps(token_changes) if token_changes else b"[]",
            _kept_as(key, commit.turn_request, newest),
            key,
            *map(compact.pack if newest else _dumps, commit.events),
        ]
        reply = None if self._inline is None else self._inline.run(self._commit, keys, args)
        replicas: int | None = None
        if reply is None:  # no blocking path, or set aside: awaited
            reply, replicas = await self._durable(self._commit, keys, args)
        outcome = CommitOutcome(reply[0].decode())
        if outcome is CommitOutcome.NOT_FOUND:
            return CommitResult(outcome)
        version = int(reply[1])
        if outcome is CommitOutcome.DUPLICATE:
            assert commit.request_key is not None
            await self._confirm_request(
                commit.game_id, commit.request_key, "the request's first try"
            )
            return CommitResult(outcome, version, [], json.loads(reply[2]))
        if outcome is CommitOutcome.APPLIED:
            self._confirmed(replicas, "the move")
            if (
                self._on_cluster is not None
                and commit.status == GameStatus.FINISHED
                and await self._on_cluster.archiving(self._archiving_key)
            ):
                await self._redis.zadd(
                    self._archive_key, {archive_entry(ARCHIVE_GAME, game_id): 0}, nx=True
                )
        if outcome in (CommitOutcome.STALE, CommitOutcome.SEAT_TAKEN):
            return CommitResult(outcome, version)
        ids = [int(r) for r in reply[2:]]
        if newest and any(i % LOG_BLOCK == 0 for i in ids):  # a block is whole: seal older
            await self._seal_log(commit.game_id, ids[-1])
        return CommitResult(outcome, version, ids)

    async def _seal_log(self, game_id: str, newest: int) -> None:
        """Seal every whole block of the log older than the newest whole one (the
        stream keeps at least LOG_BLOCK events: what a watcher resuming lately reads).
        Best effort: a block left in the stream is sealed at a later one's turn."""
        keep_from = (newest // LOG_BLOCK - 1) * LOG_BLOCK + 1  # the stream's first, after
        stream, log_key = self._key(game_id, "events"), self._key(game_id, "log")
        try:
            while True:
                entries = await self._redis.xrange(stream, "-", "+", count=LOG_BLOCK)
                first = int(entries[0][0].partition(b"-")[0]) if entries else keep_from
                if (first - 1) % LOG_BLOCK or first + LOG_BLOCK > keep_from:
                    return
                if len(entries) < LOG_BLOCK:
                    return
                lines = b"\n".join(fields[b"e"] for _, fields in entries)  # JSON: no raw newline
                blob = zstandard.compress(lines, _SEAL_LEVEL)
                block = str((first - 1) // LOG_BLOCK)
                next_id = _stream_id(first + LOG_BLOCK)
                sealed = await self._seal(
                    keys=[stream, log_key], args=[block, _stream_id(first), blob, next_id]
                )
                if not sealed:
                    return  # another writer sealed it meanwhile
        except (aioredis.RedisError, OSError) as exc:
            log.warning("could not seal the log of game %s: %s", game_id, exc)

    async def gather_tree(
        self, game_id: str, turn: str, tree: int, stats: bytes, trees: int, ttl: float
    ) -> list[bytes] | None:
        """Keep tree ``tree`` of the bot turn ``turn`` (its request key) of a game; when
        this completes the turn's ``trees`` trees, return all of them (once, to one
        caller) and forget them. Celery workers gather a turn's trees here."""
        reply = await self._gather_tree(
            keys=[self._key(game_id, f"trees:{turn}"), self._key(game_id, "game")],
            args=[str(tree), stats, str(trees), str(max(1, int(ttl * 1000)))],
        )
        return list(reply) if reply else None

    async def claim_seat(
        self,
        game_id: str,
        seat: int,
        token_hash: str,
        event: dict[str, Any],
        version: int | None = None,
        name: str = "",
        account: str = "",
    ) -> bool:
        claimed, replicas = await self._durable(
            self._claim,
            [
                self._key(game_id, "game"),
                self._key(game_id, "tokens"),
                self._key(game_id, "events"),
            ],
            [
                str(seat),
                token_hash,
                (await self._packer())(event),
                "" if version is None else str(version),
                name,
                account,
                ACCOUNT,
            ],
        )
        if claimed == -1:
            raise GameMoved(f"game {game_id} has moved past version {version}")
        if claimed:
            self._confirmed(replicas, "the seat's claim")
        return bool(claimed)

    async def request_results(self, game_id: str) -> dict[str, dict[str, Any]]:
        kept = await self._redis.hgetall(self._key(game_id, "requests"))
        return {k.decode(): json.loads(v) for k, v in kept.items()}

    @staticmethod
    def _decode(entries: list) -> list[StoredEvent]:
        return [
            StoredEvent(int(eid.partition(b"-")[0]), compact.unpack(fields[b"e"]))
            for eid, fields in entries
        ]

    async def events(self, game_id: str, after: int = 0, limit: int = 1000) -> list[StoredEvent]:
        start = _stream_id(after, exclusive=True)
        entries = await self._redis.xrange(self._key(game_id, "events"), start, "+", count=limit)
        found = self._decode(entries)
        if not found or found[0].event_id == after + 1:
            return found  # (none at all: the stream always holds the newest events)
        return await self._sealed(game_id, after, limit)

    async def _sealed(self, game_id: str, after: int, limit: int) -> list[StoredEvent]:
        """Events after ``after`` from its sealed block on (then the stream's)."""
        block = after // LOG_BLOCK
        blob = await self._redis.hget(self._key(game_id, "log"), str(block))
        if blob is None:  # sealed and gone since (the game was deleted): none
            return []
        lines = zstandard.decompress(blob).split(b"\n")
        first = block * LOG_BLOCK + 1
        found = [
            StoredEvent(first + i, compact.unpack(raw))
            for i, raw in enumerate(lines)
            if first + i > after
        ][:limit]
        if len(found) < limit:
            found += await self.events(game_id, found[-1].event_id, limit - len(found))
        return found

    async def wait_events(self, game_id: str, after: int, timeout: float) -> list[StoredEvent]:
        key = self._key(game_id, "events")
        reply = await self._redis.xread(
            {key: _stream_id(after)},
            count=1000,
            block=max(1, int(min(timeout, self.MAX_BLOCK_SECONDS) * 1000)),
        )
        found = self._decode(reply[0][1]) if reply else []
        if found and found[0].event_id != after + 1:  # sealed in between: read it all
            return await self.events(game_id, after)
        return found

    def event_reader(self) -> EventReader:
        if self._on_cluster is not None:
            # One XREAD cannot span slots.
            return PollingEventReader(self._redis, self._log_key, self._decode)
        # A connection of its own (not from the shared pool): it spends its life
        # blocked in XREAD, and calls that need the pool must never wait behind it.
        pool = self._redis.connection_pool
        kwargs = {**pool.connection_kwargs, "client_name": watch_client_name(self._prefix)}
        own_pool = aioredis.ConnectionPool(
            connection_class=pool.connection_class, max_connections=1, **kwargs
        )
        # Its one connection is taken from that pool for each call rather than held
        # (single_connection_client): the pool (re)connects it, which asks Sentinel
        # where the primary is now; a held connection reconnects to the address it had.
        client = aioredis.Redis(connection_pool=own_pool)
        return _RedisEventReader(self, client)

    async def list_games(self, limit: int = 100) -> list[Snapshot]:
        ids = await self._redis.zrevrange(f"{self._prefix}:games", 0, max(0, limit - 1))
        snapshots = []
        for raw in ids:
            snap = await self.load(raw.decode())
            if snap is not None:
                snapshots.append(snap)
        return snapshots

    async def secret(self) -> bytes:
        if self._secret is None:  # made once per deployment; the first replica wins
            key = f"{self._prefix}:secret"
            await self._redis.set(key, secrets.token_hex(32), nx=True)
            self._secret = await self._redis.get(key)
        return self._secret

    async def expire_games(self, finished_retention: float, idle_expiry: float) -> list[str]:
        """One pass over the index; a game's last activity is its newest event's time
        (``touched``, set with every appended event)."""
        index = f"{self._prefix}:games"
        now_ms = time.time() * 1000
        gone: list[str] = []
        missed: list[str] = []  # finished, never put on the outbox (a Cluster's gap)
        mend = (
            self._on_cluster is not None
            and await self.layout() >= 2  # (the previous layout keeps archived games)
            and await self._on_cluster.archiving(self._archiving_key)
        )
        cursor = 0
        while True:
            cursor, page = await self._redis.zscan(index, cursor, count=500)
            ids = [raw.decode() for raw, _ in page]
            pipe = self._redis.pipeline(transaction=False)
            for game_id in ids:
                pipe.hmget(self._key(game_id, "game"), "status", "touched")
                pipe.zscore(self._archive_key, archive_entry(ARCHIVE_GAME, game_id))
            replies = await pipe.execute()
            for game_id, (status, touched), outbox in zip(
                ids, replies[::2], replies[1::2], strict=True
            ):
                if outbox is not None:
                    continue  # not archived yet: kept until it is
                if status is None:
                    gone.append(game_id)  # already gone: drop it from the index
                    continue
                last_ms = int(float(touched or 0))
                finished = status == GameStatus.FINISHED.encode()
                if mend and finished and now_ms - last_ms > self.OUTBOX_GRACE * 1000:
                    missed.append(game_id)
                    continue
                limit = (
                    finished_retention if status == GameStatus.FINISHED.encode() else idle_expiry
                )
                if now_ms - last_ms > limit * 1000:
                    gone.append(game_id)
            if cursor == 0:
                break
        for game_id in missed:
            log.warning("archive: finished game %s was not on the outbox; put on it now", game_id)
            entry = archive_entry(ARCHIVE_GAME, game_id)
            await self._redis.zadd(self._archive_key, {entry: 0}, nx=True)
        for game_id in gone:
            await self._redis.delete(*(self._key(game_id, p) for p in _GAME_PARTS))
            await self._redis.zrem(index, game_id)
            await self._redis.zrem(self._bot_turns_key, game_id)
        return gone

    async def reserve_live_game(self, owner: str, game_id: str, cap: int) -> bool:
        if self._on_cluster is not None:  # the owner's games live on other slots
            return await self._on_cluster.reserve(
                f"{self._prefix}:live:{owner}", lambda g: self._key(g, "game"), game_id, cap
            )
        reply = await self._reserve(
            keys=[f"{self._prefix}:live:{owner}"],
            args=[self._prefix, game_id, str(cap), str(time.time())],
        )
        return bool(reply)

    async def drop_bot_turn(self, game_id: str) -> None:
        await self._redis.zrem(self._bot_turns_key, game_id)

    async def release_bot_turn(self, game_id: str) -> None:
        if self._on_cluster is not None:
            await self._on_cluster.release(self._bot_turns_key, game_id)

    async def bot_turn_due_in(self, game_id: str) -> float | None:
        reply = await self._bot_turn_due_in(keys=[self._bot_turns_key], args=[game_id])
        return None if reply is None else float(reply) / 1000

    async def bot_turn_backlog(self) -> tuple[int, float]:
        count, overdue_ms = await self._bot_turn_backlog(keys=[self._bot_turns_key])
        return int(count), float(overdue_ms) / 1000

    async def set_bot_status(self, game_id: str, version: int, status: str) -> None:
        await self._set_bot_status(keys=[self._key(game_id, "game")], args=[f"{version}:{status}"])

    # ------------------------------------------------------------------ archive outbox
    async def set_archiving(self, on: bool) -> None:
        if self._on_cluster is not None:
            self._on_cluster.forget_archiving()
        if on:
            await self._redis.set(self._archiving_key, "1")
        else:
            await self._redis.delete(self._archiving_key, self._archive_key)

    async def ack_archive(self, entry: str) -> None:
        await self._redis.zrem(self._archive_key, entry)

    async def archive_backlog(self) -> int:
        return int(await self._redis.zcard(self._archive_key))

    async def forget_archived(
        self, game_id: str, last_event_id: int, game_type: str, tombstone_ttl: float
    ) -> bool:
        if await self.layout() < 2:
            return False  # the previous release's layout: finished games stay until retention
        forgotten = await self._forget(
            keys=[
                self._key(game_id, "game"),
                self._key(game_id, "tokens"),
                self._key(game_id, "events"),
                self._key(game_id, "gone"),
                self._cross(game_id, f"{self._prefix}:games"),
                self._cross(game_id, self._bot_turns_key),
                self._key(game_id, "requests"),
                self._key(game_id, "log"),
            ],
            args=[game_id, str(last_event_id), _ms(max(tombstone_ttl, 0.001)), game_type],
        )
        if forgotten and self._on_cluster is not None:  # the other slots' entries
            await self._redis.zrem(f"{self._prefix}:games", game_id)
            await self._redis.zrem(self._bot_turns_key, game_id)
        return bool(forgotten)

    async def tombstone(self, game_id: str) -> Tombstone | None:
        status, game_type, finished = await self._redis.hmget(
            self._key(game_id, "gone"), "status", "type", "finished"
        )
        if status is None:
            return None
        return Tombstone(status.decode(), game_type.decode(), float(finished or 0) / 1000)

    # ------------------------------------------------------------------ tournaments
    def _tkey(self, name: str, part: str) -> str:
        return f"{self._prefix}:tournament:{{t:{name}}}:{part}"

    def _log_key(self, log: LogId) -> str:
        """The stream of a game's or a tournament's log."""
        if isinstance(log, TournamentLog):
            return self._tkey(log.name, "events")
        return self._key(log, "events")

    async def create_tournament(
        self, name: str, record: dict[str, Any], status: str, events: list[dict[str, Any]]
    ) -> bool:
        index, sweep = f"{self._prefix}:tournaments", f"{self._prefix}:tournamentsweep"
        meta = self._tkey(name, "meta")
        cluster = self._on_cluster is not None  # then the script leaves index and sweep
        created, replicas = await self._durable(
            self._t_create,
            [
                meta,
                self._tkey(name, "events"),
                meta if cluster else index,
                meta if cluster else sweep,
            ],
            [_dumps(record), status, name, str(time.time()), *map(_dumps, events)],
        )
        if created and cluster:
            await self._redis.zadd(index, {name: time.time()})
            await self._redis.zadd(sweep, {name: 0})
        if created:
            self._confirmed(replicas, "the new tournament")
        return bool(created)

    async def load_tournament(self, name: str) -> TournamentSnapshot | None:
        pipe = self._redis.pipeline(transaction=True)  # one slot: an atomic read
        pipe.hmget(self._tkey(name, "meta"), "record", "status", "seq")
        for part in ("tables", "results", "entrants"):
            pipe.hgetall(self._tkey(name, part))
        (record, status, seq), tables, results, entrants = await pipe.execute()
        if record is None:
            return None
        return TournamentSnapshot(
            name=name,
            record=json.loads(record),
            status=status.decode(),
            tables={int(k): json.loads(v) for k, v in tables.items()},
            results={int(k): json.loads(v) for k, v in results.items()},
            entrants={k.decode(): v.decode() for k, v in entrants.items()},
            last_event_id=int(seq or 0),
        )

    async def list_tournaments(self, limit: int = 100) -> list[str]:
        names = await self._redis.zrevrange(f"{self._prefix}:tournaments", 0, max(0, limit - 1))
        return [raw.decode() for raw in names]

    async def _set_once(
        self, name: str, part: str, field: str, value: Any, events: list[dict[str, Any]]
    ) -> bool:
        keys = [self._tkey(name, "meta"), self._tkey(name, part), self._tkey(name, "events")]
        done = await self._t_set_once(keys=keys, args=[field, _dumps(value), *map(_dumps, events)])
        return bool(done)

    async def start_table(
        self, name: str, index: int, table: dict[str, Any], events: list[dict[str, Any]]
    ) -> bool:
        return await self._set_once(name, "tables", str(index), table, events)

    async def finish_table(
        self, name: str, index: int, result: dict[str, Any], events: list[dict[str, Any]]
    ) -> bool:
        return await self._set_once(name, "results", str(index), result, events)

    async def set_tournament_status(
        self, name: str, status: str, events: list[dict[str, Any]], keep_swept: bool = False
    ) -> bool:
        sweep, meta = f"{self._prefix}:tournamentsweep", self._tkey(name, "meta")
        cluster = self._on_cluster  # then the script leaves the sweep and the outbox
        done, replicas = await self._durable(
            self._t_status,
            [
                meta,
                self._tkey(name, "events"),
                meta if cluster else sweep,
                meta if cluster else self._archive_key,
                meta if cluster else self._archiving_key,
            ],
            [name, status, "1" if keep_swept else "", *map(_dumps, events)],
        )
        if done and cluster is not None:
            if keep_swept:
                await self._redis.zadd(sweep, {name: 0})
            else:
                await self._redis.zrem(sweep, name)
            if await cluster.archiving(self._archiving_key):
                entry = archive_entry(ARCHIVE_TOURNAMENT, name)
                await self._redis.zadd(self._archive_key, {entry: 0}, nx=True)
        if done:
            self._confirmed(replicas, "the tournament's status")
        return bool(done)

    async def unschedule_tournament(self, name: str) -> None:
        await self._redis.zrem(f"{self._prefix}:tournamentsweep", name)

    async def claim_entrant(self, name: str, entrant: str, token_hash: str) -> bool:
        if not await self._redis.exists(self._tkey(name, "meta")):
            return False
        return bool(await self._redis.hsetnx(self._tkey(name, "entrants"), entrant, token_hash))

    async def tournament_events(
        self, name: str, after: int = 0, limit: int = 1000
    ) -> list[StoredEvent]:
        start = _stream_id(after, exclusive=True)
        entries = await self._redis.xrange(self._tkey(name, "events"), start, "+", count=limit)
        return self._decode(entries)

    async def expire_tournaments(self, finished_retention: float, idle_expiry: float) -> list[str]:
        """One pass over the index, as ``expire_games``; a tournament stored before
        ``touched`` was kept counts from its creation (its score in the index)."""
        index = f"{self._prefix}:tournaments"
        now_ms = time.time() * 1000
        gone: list[str] = []
        cursor = 0
        while True:
            cursor, page = await self._redis.zscan(index, cursor, count=500)
            names = [(raw.decode(), created) for raw, created in page]
            pipe = self._redis.pipeline(transaction=False)
            for name, _ in names:
                pipe.hmget(self._tkey(name, "meta"), "status", "touched")
                pipe.zscore(self._archive_key, archive_entry(ARCHIVE_TOURNAMENT, name))
            replies = await pipe.execute()
            for (name, created), (status, touched), outbox in zip(
                names, replies[::2], replies[1::2], strict=True
            ):
                if outbox is not None:
                    continue  # not archived yet: kept until it is
                if status is None:
                    gone.append(name)  # already gone: drop it from the index
                    continue
                last_ms = float(touched) if touched else created * 1000
                limit = idle_expiry if status == b"running" else finished_retention
                if now_ms - last_ms > limit * 1000:
                    gone.append(name)
            if cursor == 0:
                break
        parts = ("meta", "tables", "results", "entrants", "events")
        for name in gone:
            await self._redis.delete(*(self._tkey(name, part) for part in parts))
            await self._redis.zrem(index, name)
            await self._redis.zrem(f"{self._prefix}:tournamentsweep", name)
        return gone

    # ------------------------------------------------------------------ leases
    def _schedule_key(self, schedule: str) -> str:
        if schedule not in SCHEDULES:
            raise ValueError(f"no schedule {schedule!r}")
        return f"{self._prefix}:{schedule}"

    async def claim(self, schedule: str, limit: int, seconds: float) -> list[Lease]:
        key = self._schedule_key(schedule)
        if self._on_cluster is not None and schedule == BOT_TURNS:  # kept for release_bot_turn
            granted = await self._on_cluster.claim(key, limit, seconds)
        else:
            granted = await self._lease_scripts.claim(key, limit, seconds)
        return [Lease(schedule, job, token) for job, token in granted]

    async def renew(self, lease: Lease, seconds: float) -> Lease | None:
        key = self._schedule_key(lease.schedule)
        if lease.schedule != BOT_TURNS:  # the token is the grant's score
            token = await self._lease_scripts.renew(key, lease.job, lease.token, seconds)
            return None if token is None else dataclasses.replace(lease, token=token)
        game = self._key(lease.job, "game")
        if self._on_cluster is not None:  # the version first, then the schedule's slot
            current = await self._redis.hget(game, "version")
            if current is None or int(current) != lease.token:
                return None
            renewed = await self._on_cluster.renew(key, lease.job, seconds)
        else:
            renewed = await self._lease_scripts.renew(key, lease.job, lease.token, seconds, game)
        return None if renewed is None else lease

    async def lapse(self, schedule: str) -> int:
        return await self._lease_scripts.lapse(self._schedule_key(schedule))

    def limit_storage(self) -> Storage:
        """The rate limits' counters in this store's Redis, under its key prefix (each
        key expires with its window). One server or Sentinel's primary: on the store's
        own connection pool, so a failover is followed alike; a Cluster: the library's
        own client, to the same nodes with the same credentials."""
        prefix = f"{self._prefix}:limits"
        if not isinstance(self._redis, RedisCluster):
            pool = self._redis.connection_pool
            return RedisStorage(
                "async+redis://", implementation="redispy", key_prefix=prefix, connection_pool=pool
            )
        settings = self._redis.get_connection_kwargs()
        nodes = ",".join(f"{node.host}:{node.port}" for node in self._redis.get_nodes())
        auth = {k: settings[k] for k in ("username", "password") if settings.get(k)}
        return RedisClusterStorage(
            f"async+redis+cluster://{nodes}",
            implementation="redispy",
            key_prefix=prefix,
            ssl=settings.get("connection_class") is SSLConnection,
            **auth,
        )

    async def close(self) -> None:
        if self._inline is not None:
            self._inline.close()
        await self._redis.aclose()


def watch_client_name(prefix: str) -> str:
    """The watch hub's one connection as CLIENT LIST shows it: named with the key prefix,
    so deployments (and test runs) sharing a Redis can tell theirs apart."""
    return "gamehost-watch:" + re.sub(r"[^A-Za-z0-9_.:{}-]", "_", prefix)


class _RedisEventReader(EventReader):
    """One XREAD over every watched log's stream; ``wake`` ends a blocked XREAD early
    with CLIENT UNBLOCK (else it returns at its block timeout)."""

    def __init__(self, store: RedisStore, client: aioredis.Redis) -> None:
        self._store = store
        self._client = client
        self._client_id: int | None = None  # this connection's id, for CLIENT UNBLOCK
        self._blocked = False
        self._reads = 0

    async def read(
        self, positions: Mapping[LogId, int], timeout: float
    ) -> dict[LogId, list[StoredEvent]]:
        streams = {self._store._log_key(log): _stream_id(after) for log, after in positions.items()}
        logs = {key.encode(): log for key, log in zip(streams, positions, strict=True)}
        try:
            if self._client_id is None:
                self._client_id = int(await self._client.client_id())
            self._blocked = True
            self._reads += 1
            reply = await self._client.xread(
                streams,
                count=1000,
                block=max(1, int(min(timeout, RedisStore.MAX_BLOCK_SECONDS) * 1000)),
            )
        except BaseException:
            self._client_id = None  # the connection may come back as another client
            raise
        finally:
            self._blocked = False
        return {logs[key]: RedisStore._decode(entries) for key, entries in reply or []}

    async def wake(self) -> None:
        reads = self._reads
        for _ in range(5):
            if not self._blocked or self._reads != reads or self._client_id is None:
                return
            if await self._store._redis.client_unblock(self._client_id):
                return
            # The XREAD may still be on its way to Redis: try again in a moment.
            await asyncio.sleep(0.01)
        self._client_id = None  # maybe not our id any more (a reconnect): ask again

    async def close(self) -> None:
        await self._client.aclose(close_connection_pool=True)
