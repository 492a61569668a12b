"""How a process reaches Redis: one URL names a single server, a Sentinel set or a
Cluster, and how many replicas must confirm a write before a client is told of it.

    redis://host:port/db                      one server (also rediss://, unix://)
    redis+sentinel://h1:p1,h2:p2/NAME[/db]    the primary of service NAME, found through
                                              these sentinels and followed when they
                                              promote another (also rediss+sentinel://)
    redis+cluster://h1:p1,h2:p2               a Redis Cluster, from these startup nodes
                                              (also rediss+cluster://)

Query parameters this module reads (and removes before redis-py sees the URL):
``min_replicas=N`` (every acknowledged write waits for ``WAIT N``),
``wait_timeout=SECONDS`` (how long it waits) and, on a single server only,
``inline_commits=1`` (a move's commit run on a blocking connection of its own, inside
the event loop's turn, instead of awaited like any call: ``services.stores.inline_commit``;
a shorter move on a lightly loaded replica, fewer moves a second on a saturated one:
docs/operations.md). One string thus tells every
process (the serving replicas, their children, the Celery workers a bot turn is handed
to) how to reach the store and how to write to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

SENTINEL = "redis+sentinel"
CLUSTER = "redis+cluster"
_SCHEMES = {
    "redis+sentinel": ("sentinel", False),
    "rediss+sentinel": ("sentinel", True),
    "redis+cluster": ("cluster", False),
    "rediss+cluster": ("cluster", True),
}
DEFAULT_WAIT_TIMEOUT = 1.0  # seconds a write waits for its replicas' confirmation

Kind = Literal["single", "sentinel", "cluster"]


class BadRedisUrl(ValueError):
    """A store URL this module cannot read (said in one line at start)."""


@dataclass(frozen=True)
class Durability:
    """How many replicas must hold a write before a client hears "accepted"."""

    min_replicas: int = 0
    wait_timeout: float = DEFAULT_WAIT_TIMEOUT

    def __post_init__(self) -> None:
        if self.min_replicas < 0:
            raise BadRedisUrl("min_replicas must be 0 or more")
        if self.wait_timeout <= 0:  # WAIT with timeout 0 would block for ever
            raise BadRedisUrl("wait_timeout must be more than 0 seconds")


@dataclass(frozen=True)
class RedisTarget:
    """A parsed store URL."""

    kind: Kind
    url: str  # single: the URL for redis-py (without our parameters)
    hosts: tuple[tuple[str, int], ...] = ()  # sentinel: the sentinels; cluster: startup nodes
    service: str = ""  # sentinel: the monitored primary's name
    db: int = 0
    username: str | None = None
    password: str | None = None
    tls: bool = False
    durability: Durability = Durability()
    inline_commits: bool = False  # single: moves' commits on a blocking connection


def parse(url: str) -> RedisTarget:
    """Read a store URL (see the module's docstring); raise BadRedisUrl."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    try:
        durability = Durability(
            int(query.pop("min_replicas", "0")),
            float(query.pop("wait_timeout", DEFAULT_WAIT_TIMEOUT)),
        )
    except ValueError as exc:
        raise BadRedisUrl(f"{url}: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in _SCHEMES:
        inline = query.pop("inline_commits", "0")
        if inline not in ("0", "1"):
            raise BadRedisUrl(f"{url}: inline_commits is 0 or 1, not {inline!r}")
        plain = urlunsplit(parts._replace(query=urlencode(query)))
        return RedisTarget(
            "single",
            plain,
            durability=durability,
            # WAIT needs the commit's own connection: min_replicas takes the pool's.
            inline_commits=inline == "1" and durability.min_replicas == 0,
        )
    kind, tls = _SCHEMES[scheme]
    if query:
        raise BadRedisUrl(f"{url}: unknown parameter {sorted(query)[0]!r} for {scheme}")
    userinfo, _, hostlist = parts.netloc.rpartition("@")
    username, _, password = userinfo.partition(":") if userinfo else ("", "", "")
    hosts = tuple(_host_port(item, url) for item in hostlist.split(",") if item)
    if not hosts:
        raise BadRedisUrl(f"{url}: no host:port given")
    path = [unquote(p) for p in parts.path.split("/") if p]
    service, db = "", 0
    if kind == "sentinel":
        if not path or len(path) > 2:
            raise BadRedisUrl(f"{url}: expected {scheme}://host:port[,...]/SERVICE[/db]")
        service = path[0]
        db = _db(path[1], url) if len(path) == 2 else 0
    elif path:
        raise BadRedisUrl(f"{url}: a cluster has only database 0; give no path")
    return RedisTarget(
        kind,
        url,
        hosts,
        service,
        db,
        unquote(username) or None,
        unquote(password) or None,
        tls,
        durability,
    )


def _host_port(item: str, url: str) -> tuple[str, int]:
    host, sep, port = item.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise BadRedisUrl(f"{url}: {item!r} is not host:port")
    return host.strip("[]"), int(port)


def _db(text: str, url: str) -> int:
    if not text.isdigit():
        raise BadRedisUrl(f"{url}: database {text!r} is not a number")
    return int(text)


def sentinel_url(sentinels: str, service: str, db: int = 0) -> str:
    """The URL for ``--redis-sentinel h1:p1,h2:p2 --redis-service NAME``."""
    hosts = ",".join(s.strip() for s in sentinels.split(",") if s.strip())
    url = f"{SENTINEL}://{hosts}/{quote(service, safe='')}" + (f"/{db}" if db else "")
    parse(url)  # a wrong host list fails here, with the flag's text
    return url


def cluster_url(nodes: str) -> str:
    """The URL for ``--redis-cluster redis://h1:p1,h2:p2`` (or rediss://)."""
    scheme, sep, rest = nodes.partition("://")
    if not sep or scheme not in ("redis", "rediss"):
        raise BadRedisUrl(f"{nodes}: expected redis://host:port[,host:port...]")
    url = f"{scheme}+cluster://{rest.rstrip('/')}"
    parse(url)
    return url


def with_durability(url: str, durability: Durability) -> str:
    """``url`` with its replicas' confirmation settings (none: the URL as given)."""
    if durability.min_replicas == 0:
        return url
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    query["min_replicas"] = str(durability.min_replicas)
    query["wait_timeout"] = f"{durability.wait_timeout:g}"
    return urlunsplit(parts._replace(query=urlencode(query)))


def with_inline_commits(url: str, inline: bool = True) -> str:
    """A single server's ``url`` with ``inline_commits`` set: 1 (``inline``) runs every
    move's commit on a blocking connection, 0 awaits it (the default)."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    query["inline_commits"] = "1" if inline else "0"
    return urlunsplit(parts._replace(query=urlencode(query)))


def base_url(url: str) -> str:
    """``url`` without this module's parameters (a Celery broker on the store's Redis)."""
    parts = urlsplit(url)
    ours = ("min_replicas", "wait_timeout", "inline_commits")
    query = [(k, v) for k, v in parse_qsl(parts.query) if k not in ours]
    return urlunsplit(parts._replace(query=urlencode(query)))


def display(url: str) -> str:
    """The URL without its password, for logs and start lines."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{netloc[2]}"))


class _BlockingSentinelPool(SentinelConnectionPool, aioredis.BlockingConnectionPool):
    """The primary's pool, as the single server's: a burst of calls waits for a
    pooled connection instead of failing with "Too many connections"."""


def _retry() -> Retry:
    """A call that meets a dropped connection (the primary died, was demoted) tries
    again a few times over about a second, asking Sentinel anew each time, before the
    caller hears UNAVAILABLE. A repeated commit is safe: the commit is a compare-and-set
    and request ids make a retried one answer its first result."""
    return Retry(
        ExponentialWithJitterBackoff(base=0.05, cap=0.5),
        3,
        supported_errors=(RedisConnectionError, RedisTimeoutError),
    )


def connect(
    target: RedisTarget,
    *,
    max_connections: int,
    pool_timeout: float,
    socket_timeout: float,
) -> Any:
    """A client for ``target``: ``redis.asyncio.Redis`` (one server or Sentinel's
    primary) or ``redis.asyncio.cluster.RedisCluster``; bytes in, bytes out."""
    if target.kind == "single":
        pool = aioredis.BlockingConnectionPool.from_url(
            target.url,
            max_connections=max_connections,
            timeout=pool_timeout,
            decode_responses=False,
            socket_timeout=socket_timeout,
        )
        return aioredis.Redis.from_pool(pool)
    auth = {"username": target.username, "password": target.password}
    if target.kind == "sentinel":
        sentinels = Sentinel(
            list(target.hosts),
            # The sentinels themselves: quick to give up on one that is down.
            sentinel_kwargs={"socket_timeout": 1.0, "socket_connect_timeout": 1.0},
            socket_connect_timeout=2.0,
        )
        return sentinels.master_for(
            target.service,
            connection_pool_class=_BlockingSentinelPool,
            db=target.db,
            max_connections=max_connections,
            timeout=pool_timeout,
            socket_timeout=socket_timeout,
            retry=_retry(),
            ssl=target.tls,
            **auth,
        )
    return RedisCluster(
        startup_nodes=[ClusterNode(host, port) for host, port in target.hosts],
        max_connections=max_connections,
        socket_timeout=socket_timeout,
        socket_connect_timeout=2.0,
        ssl=target.tls,
        decode_responses=False,
        **auth,
    )


def kombu_broker(url: str) -> tuple[str, dict[str, str]]:
    """Celery's broker (or result backend) URL for a store URL, and the transport
    options it needs: kombu names a Sentinel set ``sentinel://h1:p1;sentinel://h2:p2/db``
    with the service in the ``master_name`` option."""
    if urlsplit(url).scheme.lower() not in _SCHEMES:
        return base_url(url), {}  # redis://, amqp://...: kombu reads it as it is
    target = parse(url)
    if target.kind == "cluster":
        raise BadRedisUrl(
            "Celery cannot use a Redis Cluster as its broker: give --celery-broker "
            "(a single Redis or a Sentinel set)"
        )
    auth = ""
    if target.password:
        auth = f"{quote(target.username or '', safe='')}:{quote(target.password, safe='')}@"
    # The database on every one: kombu reads it from the first, Celery's backend too.
    hosts = ";".join(f"sentinel://{auth}{host}:{port}/{target.db}" for host, port in target.hosts)
    return hosts, {"master_name": target.service}
