"""Store URLs: one string names a single Redis, a Sentinel set or a Cluster, and the
replicas a write waits for; the command line's flags make the same string."""

from __future__ import annotations

import argparse

import pytest

from services.stores import redis_connect as rc
from workers.cli import _store_url


def test_a_plain_url_passes_through_without_our_parameters():
    target = rc.parse("redis://h:1/2?min_replicas=1&wait_timeout=0.25&socket_timeout=3")
    assert target.kind == "single"
    assert target.url == "redis://h:1/2?socket_timeout=3"
    assert target.durability == rc.Durability(1, 0.25)
    assert rc.parse("redis://h:1/0").durability == rc.Durability(0, rc.DEFAULT_WAIT_TIMEOUT)


def test_a_single_servers_moves_commit_inline_only_when_the_url_asks_and_waits_for_none():
    assert not rc.parse("redis://h:1/0").inline_commits  # awaited by default
    on = rc.parse("redis://h:1/0?inline_commits=1&socket_timeout=3")
    assert on.inline_commits and on.url == "redis://h:1/0?socket_timeout=3"
    assert not rc.parse("redis://h:1/0?inline_commits=0").inline_commits
    # WAIT needs the pool's connection; Sentinel and Cluster never commit inline.
    assert not rc.parse("redis://h:1/0?inline_commits=1&min_replicas=1").inline_commits
    assert not rc.parse("redis+sentinel://a:1/svc").inline_commits
    assert rc.base_url("redis://h:1/0?inline_commits=1") == "redis://h:1/0"
    inline = rc.with_inline_commits("redis://h:1/0?socket_timeout=3")
    assert rc.parse(inline).inline_commits and "socket_timeout=3" in inline
    awaited = rc.with_inline_commits(inline, False)
    assert not rc.parse(awaited).inline_commits and "socket_timeout=3" in awaited


def test_sentinel_url_names_sentinels_service_and_database():
    target = rc.parse("redis+sentinel://:pw@a:26379,b:26380/mymaster/3?min_replicas=2")
    assert target.kind == "sentinel"
    assert target.hosts == (("a", 26379), ("b", 26380))
    assert (target.service, target.db, target.password) == ("mymaster", 3, "pw")
    assert target.durability.min_replicas == 2
    assert rc.parse("redis+sentinel://a:1/svc").db == 0


def test_cluster_url_names_startup_nodes():
    target = rc.parse("rediss+cluster://a:7000,b:7001")
    assert (target.kind, target.tls, target.hosts) == ("cluster", True, (("a", 7000), ("b", 7001)))
    assert rc.cluster_url("redis://a:7000,b:7001/") == "redis+cluster://a:7000,b:7001"


@pytest.mark.parametrize(
    "url",
    [
        "redis+sentinel://a:1",  # no service
        "redis+sentinel://a/svc",  # no port
        "redis+sentinel://a:1/svc/x",  # database not a number
        "redis+sentinel://a:1/svc?socket_timeout=1",  # not ours, not redis-py's here
        "redis+cluster://a:1/0",  # a cluster has database 0 only
        "redis://h:1/0?min_replicas=-1",
        "redis://h:1/0?min_replicas=1&wait_timeout=0",  # WAIT 0 blocks for ever
        "redis://h:1/0?min_replicas=many",
        "redis://h:1/0?inline_commits=yes",
    ],
)
def test_bad_urls_say_what_is_wrong(url):
    with pytest.raises(rc.BadRedisUrl):
        rc.parse(url)


def test_durability_rides_in_the_url_and_is_left_out_of_a_broker():
    url = rc.with_durability("redis+sentinel://a:1,b:2/svc", rc.Durability(1, 0.5))
    assert rc.parse(url).durability == rc.Durability(1, 0.5)
    assert rc.base_url(url) == "redis+sentinel://a:1,b:2/svc"
    assert rc.with_durability("redis://h:1/0", rc.Durability()) == "redis://h:1/0"


def test_kombu_gets_a_sentinel_list_and_the_primary_name():
    broker, options = rc.kombu_broker("redis+sentinel://a:1,b:2/svc/1?min_replicas=1")
    assert broker == "sentinel://a:1/1;sentinel://b:2/1"
    assert options == {"master_name": "svc"}
    assert rc.kombu_broker("redis://h:1/1?min_replicas=1") == ("redis://h:1/1", {})
    assert rc.kombu_broker("amqp://guest@h//") == ("amqp://guest@h//", {})
    with pytest.raises(rc.BadRedisUrl):
        rc.kombu_broker("redis+cluster://a:1")


def test_display_hides_the_password():
    assert rc.display("redis+sentinel://u:secret@a:1/svc") == "redis+sentinel://u:***@a:1/svc"
    assert rc.display("redis://h:1/0") == "redis://h:1/0"


def flags(**given) -> argparse.Namespace:
    fields = {
        "redis": None,
        "redis_sentinel": None,
        "redis_service": None,
        "redis_cluster": None,
        "redis_min_replicas": 0,
        "redis_wait_timeout": 1.0,
    }
    return argparse.Namespace(**{**fields, **given})


def test_flags_make_one_store_url():
    assert _store_url(flags()) is None
    url = _store_url(flags(redis_sentinel="a:1, b:2", redis_service="gh", redis_min_replicas=1))
    assert url == "redis+sentinel://a:1,b:2/gh?min_replicas=1&wait_timeout=1"
    assert _store_url(flags(redis_cluster="redis://a:1,b:2")) == "redis+cluster://a:1,b:2"
    on_cluster = _store_url(flags(redis_cluster="redis://a:1,b:2", redis_min_replicas=1))
    assert on_cluster == "redis+cluster://a:1,b:2?min_replicas=1&wait_timeout=1"
    assert rc.parse(on_cluster).durability.min_replicas == 1
    assert _store_url(flags(redis="redis://h:1/0")) == "redis://h:1/0"


@pytest.mark.parametrize(
    "given",
    [
        {"redis": "redis://h:1/0", "redis_sentinel": "a:1", "redis_service": "s"},
        {"redis_sentinel": "a:1"},  # no service
        {"redis_service": "s"},  # no sentinels
        {"redis_min_replicas": 1},  # in memory: there are no replicas
        {"redis": "redis://h:1/0?min_replicas=1", "redis_min_replicas": 1},
        {"redis_sentinel": "a", "redis_service": "s"},  # no port
    ],
)
def test_contradicting_flags_are_refused(given):
    with pytest.raises(rc.BadRedisUrl):
        _store_url(flags(**given))
