"""The Redis implementation of the lease (``services.stores.leases``): one set of Lua
scripts for every schedule.

A schedule is a sorted set, ``<prefix>:<schedule>``: a job's score is the Redis time
(ms) at which it is due; a score ahead of now is a held lease, and that score is the
grant's fencing token. A bot turn's token is its game's version instead, read from
the game's hash (``fence``) in the renewal's script; on a Cluster, whose schedule is
on a slot of its own, the caller reads the version just before (``fence`` None,
``token`` None)."""

from __future__ import annotations

from typing import Any

_NOW_MS = "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)\n"

# Hold every due job it returns, each with its new score (the grant's token).
_CLAIM = (
    _NOW_MS
    + """
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
local out = {}
local held = now + tonumber(ARGV[2])
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], held, id)
  out[#out + 1] = id
  out[#out + 1] = tostring(held)
end
return out
"""
)

# KEYS[2]: the game's hash when the token is its version, else the schedule again
# (the token is the score). ARGV: job, token ('': checked by the caller), ms.
_RENEW = (
    _NOW_MS
    + """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return false end
if ARGV[2] ~= '' then
  if KEYS[2] ~= KEYS[1] then
    if redis.call('HGET', KEYS[2], 'version') ~= ARGV[2] then return false end
  elseif tonumber(score) ~= tonumber(ARGV[2]) then return false end
end
local held = now + tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], held, ARGV[1])
return tostring(held)
"""
)

# Take a job out of the schedule only while its score is still the token given.
_RELEASE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 1
end
return 0
"""

_LAPSE = (
    _NOW_MS
    + """
local held = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
for _, id in ipairs(held) do redis.call('ZADD', KEYS[1], now, id) end
return #held
"""
)


def _ms(seconds: float) -> str:
    return str(int(seconds * 1000))


class LeaseScripts:
    """The lease's scripts on one client (a single Redis, Sentinel's primary or a Cluster)."""

    def __init__(self, client: Any) -> None:
        self._claim = client.register_script(_CLAIM)
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)
        self._lapse = client.register_script(_LAPSE)

    async def claim(self, key: str, limit: int, seconds: float) -> list[tuple[str, int]]:
        """Due jobs of the schedule ``key``, each with its grant's token."""
        reply = await self._claim(keys=[key], args=[limit, _ms(seconds)])
        return [
            (raw.decode(), int(float(score)))
            for raw, score in zip(reply[::2], reply[1::2], strict=True)
        ]

    async def renew(
        self, key: str, job: str, token: int | None, seconds: float, fence: str | None = None
    ) -> int | None:
        """The new score, or None when refused; ``fence``: the hash whose ``version``
        is the token (else the token is the score)."""
        args = [job, "" if token is None else str(token), _ms(seconds)]
        reply = await self._renew(keys=[key, fence or key], args=args)
        return None if reply is None else int(float(reply))

    async def release(self, key: str, job: str, token: int) -> bool:
        return bool(await self._release(keys=[key], args=[job, str(token)]))

    async def lapse(self, key: str) -> int:
        return int(await self._lapse(keys=[key]))
