"""What a Redis Cluster changes in the Redis store (``redis+cluster://``).

Every key of one game carries the hash tag ``{game_id}`` (one tournament's:
``{t:name}``), so every script over one game or tournament runs in one slot, on one
node, and moves with its slot. The keys across games cannot share all those slots:

    <prefix>:botturns, <prefix>:archive, <prefix>:archiving, <prefix>:games,
    <prefix>:tournaments, <prefix>:tournamentsweep, <prefix>:secret

each sit on the one slot of its own name, and on a Cluster the game's script no longer
writes them (it is given the game's own key in their place, which tells it so). They
are written next to it instead, in an order that loses nothing:

- a bot turn is scheduled *before* the commit that makes it due (the schedule never
  misses a due turn; a commit that then fails leaves an entry early or extra);
- an entry nobody needs is taken out by the sweeper that claimed it and found no bot
  due (``release``): only if its score is still the lease that sweeper set, so a
  commit that scheduled the game meanwhile keeps its entry;
- the archive outbox entry of a finished game, the game index, the tournament index
  and sweep are written right *after* the script: a process killed between the two
  leaves a finished game off the outbox (the expiry sweep puts it back:
  ``RedisStore.OUTBOX_GRACE``) or a tournament unswept; that window is one round trip.

With ``min_replicas``, a script and its WAIT go down one connection to the node that
serves the slot (``then_wait``), so WAIT counts that node's replicas.

Live-game reservations per owner (``live:<owner>``) read the owner's games' status
key by key, then admit atomically on the owner's key.

WatchGame's reader cannot XREAD many games' streams at once (they live on many
slots): it reads them without blocking, pipelined by node, every ``POLL`` seconds.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from typing import Any

from redis.asyncio.cluster import PipelineCommand
from redis.exceptions import AskError, MovedError, NoScriptError
from redis.exceptions import ConnectionError as RedisConnectionError

from services.stores.base import EventReader, LogId, StoredEvent
from services.stores.redis_leases import LeaseScripts

_NOW_MS = "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)\n"

_SCHEDULE = (
    _NOW_MS
    + """
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
"""
)

# The admitting half of the single Redis's reservation (the owner's finished or gone
# games were dropped just before, key by key).
_ADMIT = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('EXPIRE', KEYS[1], 7776000)
return 1
"""

REDIRECTS = 5  # MOVED or ASK answers followed by ``then_wait`` before it gives up
ARCHIVING_SEEN_SECONDS = 5.0  # how long the "deployment archives" flag is believed
LEASES_KEPT = 10_000  # remembered leases (``release``); past it they are forgotten


class ClusterSide:
    """The writes of the keys across games, next to a game's script (module doc)."""

    def __init__(self, client: Any) -> None:
        self._redis = client
        self._schedule = client.register_script(_SCHEDULE)
        self._leases_run = LeaseScripts(client)
        self._admit = client.register_script(_ADMIT)
        self._leases: dict[tuple[str, str], int] = {}  # (schedule, id) -> grant's score
        self._archiving: tuple[bool, float] | None = None  # (flag, monotonic time read)

    async def schedule(
        self, key: str, member: str, due_in: float, wait: tuple[int, int] | None = None
    ) -> int | None:
        """Schedule ``member``; with ``wait`` (replicas, ms), followed by WAIT on the
        schedule's node, whose count of confirming replicas is returned."""
        args = [member, str(int(due_in * 1000))]
        if wait is None:
            await self._schedule(keys=[key], args=args)
            return None
        command = ("EVALSHA", self._schedule.sha, 1, key, *args)
        reply, replicas = await self.then_wait(command, key, *wait)
        if isinstance(reply, NoScriptError):  # a fresh or failed-over primary
            await self._redis.script_load(_SCHEDULE)
            reply, replicas = await self.then_wait(command, key, *wait)
        if isinstance(reply, Exception):
            raise reply
        return replicas

    async def then_wait(
        self, command: tuple[Any, ...], key: str, replicas: int, wait_ms: int
    ) -> tuple[Any, int]:
        """``command`` (on ``key``'s slot) then ``WAIT replicas wait_ms`` on one
        connection of the node serving that slot, so WAIT counts the replicas holding
        the command's write. A slot that moved (MOVED) or is migrating (ASK, then
        ``ASKING`` first on the node it points to) is followed. The command's error
        comes back as its reply."""
        nodes = self._redis.nodes_manager
        node = self._redis.get_node_from_key(key)
        asking = False
        for _ in range(REDIRECTS):
            sent = [("ASKING",)] if asking else []
            sent += [command, ("WAIT", replicas, wait_ms)]
            commands = [PipelineCommand(i, *args) for i, args in enumerate(sent)]
            await node.execute_pipeline(commands)
            reply, waited = commands[-2].result, commands[-1].result
            if isinstance(reply, MovedError):
                await nodes.move_slot(reply)
                node, asking = self._redis.get_node_from_key(key), False
                continue
            if isinstance(reply, AskError):
                target = nodes.get_node(host=reply.host, port=reply.port)
                if target is None:  # a node not known yet: learn the cluster again
                    await nodes.initialize()
                    node, asking = self._redis.get_node_from_key(key), False
                else:
                    node, asking = target, True
                continue
            if isinstance(waited, Exception):
                raise waited
            return reply, int(waited)
        raise RedisConnectionError(f"the slot of {key} kept moving ({REDIRECTS} redirections)")

    async def claim(self, key: str, limit: int, seconds: float) -> list[tuple[str, int]]:
        """The lease's claim, each grant remembered for ``release``."""
        granted = await self._leases_run.claim(key, limit, seconds)
        if len(self._leases) > LEASES_KEPT:
            self._leases.clear()  # a forgotten lease is released by a later claim
        for job, token in granted:
            self._leases[(key, job)] = token
        return granted

    async def renew(self, key: str, member: str, seconds: float) -> int | None:
        """The lease's renewal, its token checked by the caller (the game's version)."""
        token = await self._leases_run.renew(key, member, None, seconds)
        if token is not None:
            self._leases[(key, member)] = token
        return token

    async def release(self, key: str, member: str) -> None:
        token = self._leases.pop((key, member), None)
        if token is not None:
            await self._leases_run.release(key, member, token)

    async def archiving(self, flag_key: str) -> bool:
        """Whether the deployment archives (the flag ``set_archiving`` writes), read at
        most every ARCHIVING_SEEN_SECONDS."""
        now = time.monotonic()
        if self._archiving is None or now - self._archiving[1] > ARCHIVING_SEEN_SECONDS:
            self._archiving = (bool(await self._redis.exists(flag_key)), now)
        return self._archiving[0]

    def forget_archiving(self) -> None:
        self._archiving = None

    async def reserve(
        self, key: str, game_key: Callable[[str], str], game_id: str, cap: int
    ) -> bool:
        now = time.time()
        members = await self._redis.zrange(key, 0, -1, withscores=True)
        if members:
            pipe = self._redis.pipeline(transaction=False)
            for raw, _ in members:
                pipe.hget(game_key(raw.decode()), "status")
            statuses = await pipe.execute()
            gone = [
                raw
                for (raw, score), status in zip(members, statuses, strict=True)
                if status == b"finished" or (status is None and now - score > 60)
            ]
            if gone:
                await self._redis.zrem(key, *gone)
        admitted = await self._admit(keys=[key], args=[game_id, str(cap), str(now)])
        return bool(admitted)


class PollingEventReader(EventReader):
    """WatchGame's reader on a Cluster: non-blocking reads of every watched stream,
    pipelined (one round trip per node), every POLL seconds until one has events or
    the timeout passes; ``wake`` ends the wait at once."""

    POLL = 0.05

    def __init__(
        self,
        client: Any,
        log_key: Callable[[LogId], str],
        decode: Callable[[list], list[StoredEvent]],
    ) -> None:
        self._redis = client
        self._log_key = log_key  # the store's: a log's stream
        self._decode = decode  # the store's: stream entries as events
        self._woken = asyncio.Event()

    async def read(
        self, positions: Mapping[LogId, int], timeout: float
    ) -> dict[LogId, list[StoredEvent]]:
        keys = {self._log_key(log): log for log in positions}
        deadline = time.monotonic() + timeout
        while True:
            self._woken.clear()
            pipe = self._redis.pipeline(transaction=False)
            for key, log in keys.items():
                pipe.xread({key: f"{positions[log]}-0"}, count=1000)
            found = {}
            for reply in await pipe.execute():
                for key, entries in reply or []:
                    found[keys[key.decode()]] = self._decode(entries)
            left = deadline - time.monotonic()
            if found or left <= 0:
                return found
            try:
                await asyncio.wait_for(self._woken.wait(), min(self.POLL, left))
                return {}  # woken: the hub has new positions to read from
            except TimeoutError:
                continue

    async def wake(self) -> None:
        self._woken.set()

    async def close(self) -> None:
        return None
