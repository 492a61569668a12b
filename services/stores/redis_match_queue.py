"""The Redis store's quick play queues (``match_queue.MatchQueue``): one Lua script per
step, so replicas never see half a step. Keys share the hash tag ``{mq}``:

    PREFIX:{mq}:tickets        hash  account -> its ticket (JSON)
    PREFIX:{mq}:seen           hash  account -> when its call last polled
    PREFIX:{mq}:queue:GAME:N   zset  account by when it queued
    PREFIX:{mq}:queues         set   queues holding a ticket
    PREFIX:{mq}:matching       hash  account -> the match that took it
    PREFIX:{mq}:plans          hash  match id -> plan (JSON)
    PREFIX:{mq}:answer:ACCOUNT string the match's answer, until its call polls it
"""

from __future__ import annotations

import json

from redis import asyncio as aioredis

from services.stores.match_queue import MatchQueue, Poll, Polled, Queued, Ticket

_ENQUEUE = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 or redis.call('HEXISTS', KEYS[4], ARGV[1]) == 1 then
  return 'already'
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 'queue_full' end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then return 'all_full' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[6], ARGV[1], ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[6])
redis.call('DEL', KEYS[5])
return 'ok'
"""

_LEAVE = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return '' end
local queue = cjson.decode(raw).queue
local qkey = ARGV[2] .. queue
redis.call('ZREM', qkey, ARGV[1])
if redis.call('ZCARD', qkey) == 0 then redis.call('SREM', KEYS[2], queue) end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return queue
"""

_POLL = """
local answer = redis.call('GET', KEYS[1])
if answer then
  redis.call('DEL', KEYS[1])
  return {'matched', answer}
end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
  return {'waiting', ''}
end
if redis.call('HEXISTS', KEYS[4], ARGV[1]) == 1 then return {'matching', ''} end
return {'gone', ''}
"""

_TAKE = """
for i = 4, #ARGV, 2 do
  local raw = redis.call('HGET', KEYS[1], ARGV[i])
  if not raw or cjson.decode(raw).ticket ~= ARGV[i + 1] then return 0 end
end
for i = 4, #ARGV, 2 do
  redis.call('HDEL', KEYS[1], ARGV[i])
  redis.call('HDEL', KEYS[3], ARGV[i])
  redis.call('ZREM', KEYS[6], ARGV[i])
  redis.call('HSET', KEYS[4], ARGV[i], ARGV[1])
end
if redis.call('ZCARD', KEYS[6]) == 0 then redis.call('SREM', KEYS[2], ARGV[3]) end
redis.call('HSET', KEYS[5], ARGV[1], ARGV[2])
return 1
"""

_ANSWER = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
for i = 4, #ARGV, 2 do
  redis.call('SET', ARGV[3] .. ARGV[i], ARGV[i + 1], 'PX', ARGV[2])
  redis.call('HDEL', KEYS[2], ARGV[i])
end
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
"""


def _ticket(raw: bytes | str, seen: bytes | None) -> Ticket:
    data = json.loads(raw)
    return Ticket(
        data["account"],
        data["queue"],
        data["ticket"],
        float(data["mu"]),
        float(data["since"]),
        float(seen) if seen is not None else float(data["since"]),
    )


class RedisMatchQueue(MatchQueue):
    _redis: aioredis.Redis
    _prefix: str

    def _mq_key(self, part: str) -> str:
        return f"{self._prefix}:{{mq}}:{part}"

    def _mq_script(self, name: str, body: str):
        cached = getattr(self, name, None)
        if cached is None:
            cached = self._redis.register_script(body)
            setattr(self, name, cached)
        return cached

    async def enqueue(self, ticket: Ticket, per_queue: int, total: int) -> Queued:
        data = {
            "account": ticket.account,
            "queue": ticket.queue,
            "ticket": ticket.ticket,
            "mu": ticket.mu,
            "since": ticket.since,
        }
        reply = await self._mq_script("_mq_enqueue", _ENQUEUE)(
            keys=[
                self._mq_key("tickets"),
                self._mq_key(f"queue:{ticket.queue}"),
                self._mq_key("queues"),
                self._mq_key("matching"),
                self._mq_key(f"answer:{ticket.account}"),
                self._mq_key("seen"),
            ],
            args=[ticket.account, json.dumps(data), per_queue, total, ticket.since, ticket.queue],
        )
        return Queued(reply.decode() if isinstance(reply, bytes) else reply)

    async def leave_queue(self, account: str) -> str:
        left = await self._mq_script("_mq_leave", _LEAVE)(
            keys=[self._mq_key("tickets"), self._mq_key("queues"), self._mq_key("seen")],
            args=[account, self._mq_key("queue:")],
        )
        return left.decode() if isinstance(left, bytes) else (left or "")

    async def poll_queue(self, account: str, now: float) -> Poll:
        state, answer = await self._mq_script("_mq_poll", _POLL)(
            keys=[
                self._mq_key(f"answer:{account}"),
                self._mq_key("tickets"),
                self._mq_key("seen"),
                self._mq_key("matching"),
            ],
            args=[account, now],
        )
        text = answer.decode() if isinstance(answer, bytes) else answer
        return Poll(Polled(state.decode() if isinstance(state, bytes) else state), text)

    async def queue_tickets(self, queue: str) -> list[Ticket]:
        accounts = await self._redis.zrange(self._mq_key(f"queue:{queue}"), 0, -1)
        if not accounts:
            return []
        raws = await self._redis.hmget(self._mq_key("tickets"), accounts)
        seens = await self._redis.hmget(self._mq_key("seen"), accounts)
        return [_ticket(raw, seen) for raw, seen in zip(raws, seens, strict=True) if raw]

    async def queue_names(self) -> list[str]:
        names = await self._redis.smembers(self._mq_key("queues"))
        return sorted(n.decode() if isinstance(n, bytes) else n for n in names)

    async def take_match(self, match_id: str, plan: str, tickets: list[Ticket]) -> bool:
        if not tickets:
            return False
        queue = tickets[0].queue
        args: list = [match_id, plan, queue]
        for t in tickets:
            args += [t.account, t.ticket]
        taken = await self._mq_script("_mq_take", _TAKE)(
            keys=[
                self._mq_key("tickets"),
                self._mq_key("queues"),
                self._mq_key("seen"),
                self._mq_key("matching"),
                self._mq_key("plans"),
                self._mq_key(f"queue:{queue}"),
            ],
            args=args,
        )
        return bool(taken)

    async def open_matches(self) -> dict[str, str]:
        plans = await self._redis.hgetall(self._mq_key("plans"))
        return {
            (k.decode() if isinstance(k, bytes) else k): (v.decode() if isinstance(v, bytes) else v)
            for k, v in plans.items()
        }

    async def answer_match(self, match_id: str, answers: dict[str, str], ttl: float) -> None:
        args: list = [match_id, int(ttl * 1000), self._mq_key("answer:")]
        for account, answer in answers.items():
            args += [account, answer]
        await self._mq_script("_mq_answer", _ANSWER)(
            keys=[self._mq_key("plans"), self._mq_key("matching")], args=args
        )
