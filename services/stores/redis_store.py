"""The Redis store: the real one, shared by every service replica.

Keys per game share the hash tag ``{game_id}`` so that a Redis Cluster keeps them
in one slot and the Lua scripts below (which touch several of them) stay legal:

    <prefix>:{id}:game      hash: meta (JSON), state, version, status
    <prefix>:{id}:tokens    hash: seat -> sha256(token)
    <prefix>:{id}:requests  hash: seat/request id -> result JSON (idempotent retries)
    <prefix>:{id}:events    stream: one entry per event, field "e" = JSON
    <prefix>:games          sorted set: game ids by creation time (the index)
    <prefix>:botturns       sorted set: game ids whose bot is to move, by the Redis-time
                            (ms) their turn is due or their lease runs out

The bot-turn schedule is written inside the commit script with the game's keys, so
a due bot turn is never lost between a commit and its scheduling (on a Redis
Cluster this one key would have to share the games' slot; we run one primary).
"""

from __future__ import annotations

import json
import time
from typing import Any

import redis.asyncio as aioredis

from services.stores.base import (
    CommitOutcome,
    CommitResult,
    GameStore,
    NewGame,
    Snapshot,
    StoredEvent,
)

# Compare-and-set: a duplicate request id wins over staleness, so a retry of an
# applied request is answered with its first result even if the game moved on.
_COMMIT = """
local version = redis.call('HGET', KEYS[1], 'version')
if not version then return {'not_found'} end
if ARGV[5] ~= '' then
  local previous = redis.call('HGET', KEYS[2], ARGV[5])
  if previous then return {'duplicate', version, previous} end
end
if version ~= ARGV[1] then return {'stale', version} end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'state', ARGV[3], 'status', ARGV[4])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[2], ARGV[5], ARGV[6]) end
if ARGV[7] == '' then
  redis.call('ZREM', KEYS[4], ARGV[8])
else
  local t = redis.call('TIME')
  redis.call('ZADD', KEYS[4], t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ARGV[7]), ARGV[8])
end
local result = {'applied', ARGV[2]}
for i = 9, #ARGV do
  result[#result + 1] = redis.call('XADD', KEYS[3], '*', 'e', ARGV[i])
end
return result
"""

_CLAIM = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return false end
redis.call('XADD', KEYS[3], '*', 'e', ARGV[3])
return true
"""


# One atomic read of everything a request needs, in one round trip.
_LOAD = """
local game = redis.call('HMGET', KEYS[1], 'meta', 'state', 'version', 'status', 'botstatus')
if not game[1] then return false end
local previous = false
if ARGV[1] ~= '' then previous = redis.call('HGET', KEYS[3], ARGV[1]) end
local last = redis.call('XREVRANGE', KEYS[4], '+', '-', 'COUNT', 1)
local last_id = ''
if #last > 0 then last_id = last[1][1] end
return {game[1], game[2], game[3], game[4], redis.call('HGETALL', KEYS[2]), previous, last_id,
        game[5]}
"""

_NOW_MS = "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)\n"

# Lease every due bot turn it returns: due again only when the lease runs out.
_CLAIM_BOT_TURNS = (
    _NOW_MS
    + """
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), id) end
return ids
"""
)

_RENEW_BOT_TURN = (
    _NOW_MS
    + """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[2] then return 0 end
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
return 1
"""
)

_BOT_TURN_DUE_IN = (
    _NOW_MS
    + """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return false end
return tostring(tonumber(score) - now)
"""
)

_SET_BOT_STATUS = """
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'botstatus', ARGV[1]) end
"""


def _ms(seconds: float | None) -> str:
    return "" if seconds is None else str(int(seconds * 1000))


def _dumps(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()


class RedisStore(GameStore):
    def __init__(self, client: aioredis.Redis, prefix: str = "gamehost") -> None:
        self._redis = client
        self._prefix = prefix
        self._commit = client.register_script(_COMMIT)
        self._claim = client.register_script(_CLAIM)
        self._load = client.register_script(_LOAD)
        self._claim_bot_turns = client.register_script(_CLAIM_BOT_TURNS)
        self._renew_bot_turn = client.register_script(_RENEW_BOT_TURN)
        self._bot_turn_due_in = client.register_script(_BOT_TURN_DUE_IN)
        self._set_bot_status = client.register_script(_SET_BOT_STATUS)

    # Blocking reads (WatchGame) wait at most this long, well inside the socket timeout.
    MAX_BLOCK_SECONDS = 10.0

    @classmethod
    def from_url(cls, url: str, prefix: str = "gamehost") -> RedisStore:
        client = aioredis.Redis.from_url(
            url, decode_responses=False, socket_timeout=3 * cls.MAX_BLOCK_SECONDS
        )
        return cls(client, prefix)

    def _key(self, game_id: str, part: str) -> str:
        return f"{self._prefix}:{{{game_id}}}:{part}"

    @property
    def _bot_turns_key(self) -> str:
        return f"{self._prefix}:botturns"

    async def create(self, game: NewGame) -> list[str]:
        key = self._key(game.game_id, "game")
        pipe = self._redis.pipeline(transaction=True)
        pipe.hsetnx(key, "meta", _dumps(game.meta))
        pipe.hset(
            key,
            mapping={"state": game.state, "version": game.version, "status": game.status},
        )
        for data in game.events:
            pipe.xadd(self._key(game.game_id, "events"), {"e": _dumps(data)})
        if game.bot_due_in is not None:
            # Score 0: due at once, first in line (create has no server time at hand).
            pipe.zadd(self._bot_turns_key, {game.game_id: 0})
        results = await pipe.execute()
        if not results[0]:
            raise ValueError(f"game {game.game_id} exists")
        # The index lives in another slot: written after the game itself exists.
        await self._redis.zadd(f"{self._prefix}:games", {game.game_id: time.time()})
        return [r.decode() for r in results[2 : 2 + len(game.events)]]

    async def load(self, game_id: str, request_key: str | None = None) -> Snapshot | None:
        reply = await self._load(
            keys=[self._key(game_id, part) for part in ("game", "tokens", "requests", "events")],
            args=[request_key or ""],
        )
        if not reply:
            return None
        meta, state, version, status, tokens, previous, last_id, bot_status = reply
        return Snapshot(
            game_id=game_id,
            meta=json.loads(meta),
            state=state,
            version=int(version),
            status=status.decode(),
            tokens={int(tokens[i]): tokens[i + 1].decode() for i in range(0, len(tokens), 2)},
            request_result=json.loads(previous) if previous else None,
            last_event_id=last_id.decode(),
            bot_status=bot_status.decode() if bot_status else "",
        )

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        new_version: int,
        state: bytes,
        status: str,
        events: list[dict[str, Any]],
        request_key: str | None = None,
        request_result: dict[str, Any] | None = None,
        bot_due_in: float | None = None,
    ) -> CommitResult:
        reply = await self._commit(
            keys=[
                self._key(game_id, "game"),
                self._key(game_id, "requests"),
                self._key(game_id, "events"),
                self._bot_turns_key,
            ],
            args=[
                str(expected_version),
                str(new_version),
                state,
                status,
                request_key or "",
                _dumps(request_result or {}),
                _ms(bot_due_in),
                game_id,
                *(_dumps(e) for e in events),
            ],
        )
        outcome = CommitOutcome(reply[0].decode())
        if outcome is CommitOutcome.NOT_FOUND:
            return CommitResult(outcome)
        version = int(reply[1])
        if outcome is CommitOutcome.DUPLICATE:
            return CommitResult(outcome, version, [], json.loads(reply[2]))
        if outcome is CommitOutcome.STALE:
            return CommitResult(outcome, version)
        return CommitResult(outcome, version, [r.decode() for r in reply[2:]])

    async def claim_seat(
        self, game_id: str, seat: int, token_hash: str, event: dict[str, Any]
    ) -> bool:
        claimed = await self._claim(
            keys=[
                self._key(game_id, "game"),
                self._key(game_id, "tokens"),
                self._key(game_id, "events"),
            ],
            args=[str(seat), token_hash, _dumps(event)],
        )
        return bool(claimed)

    @staticmethod
    def _decode(entries: list) -> list[StoredEvent]:
        return [StoredEvent(eid.decode(), json.loads(fields[b"e"])) for eid, fields in entries]

    async def events(self, game_id: str, after: str = "", limit: int = 1000) -> list[StoredEvent]:
        start = f"({after}" if after else "-"
        entries = await self._redis.xrange(self._key(game_id, "events"), start, "+", count=limit)
        return self._decode(entries)

    async def wait_events(self, game_id: str, after: str, timeout: float) -> list[StoredEvent]:
        key = self._key(game_id, "events")
        reply = await self._redis.xread(
            {key: after or "0-0"},
            count=1000,
            block=max(1, int(min(timeout, self.MAX_BLOCK_SECONDS) * 1000)),
        )
        return self._decode(reply[0][1]) if reply else []

    async def list_games(self, limit: int = 100) -> list[Snapshot]:
        ids = await self._redis.zrevrange(f"{self._prefix}:games", 0, max(0, limit - 1))
        snapshots = []
        for raw in ids:
            snap = await self.load(raw.decode())
            if snap is not None:
                snapshots.append(snap)
        return snapshots

    async def claim_bot_turns(self, limit: int, lease: float) -> list[str]:
        ids = await self._claim_bot_turns(keys=[self._bot_turns_key], args=[limit, _ms(lease)])
        return [raw.decode() for raw in ids]

    async def renew_bot_turn(self, game_id: str, version: int, lease: float) -> bool:
        renewed = await self._renew_bot_turn(
            keys=[self._key(game_id, "game"), self._bot_turns_key],
            args=[game_id, str(version), _ms(lease)],
        )
        return bool(renewed)

    async def drop_bot_turn(self, game_id: str) -> None:
        await self._redis.zrem(self._bot_turns_key, game_id)

    async def bot_turn_due_in(self, game_id: str) -> float | None:
        reply = await self._bot_turn_due_in(keys=[self._bot_turns_key], args=[game_id])
        return None if reply is None else float(reply) / 1000

    async def set_bot_status(self, game_id: str, version: int, status: str) -> None:
        await self._set_bot_status(keys=[self._key(game_id, "game")], args=[f"{version}:{status}"])

    async def delete_all(self) -> None:
        """Remove every key under this store's prefix (tests and tooling)."""
        async for key in self._redis.scan_iter(match=f"{self._prefix}:*", count=500):
            await self._redis.delete(key)

    async def close(self) -> None:
        await self._redis.aclose()
