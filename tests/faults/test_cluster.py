"""The Redis store on a real Redis Cluster of 3 primaries (``redis-server
--cluster-enabled yes`` + ``redis-cli --cluster create``, ``loadtest.topology``): the
store contract, the archive outbox, tree gathering and forgetting archived games run
again on it, and the service
plays human tables and an all-bot game while the games' slots migrate between nodes,
with nothing acknowledged lost or doubled (``loadtest.failover``)."""

from __future__ import annotations

import inspect
import uuid

import pytest

from loadtest import failover
from loadtest.topology import ClusterSet, SentinelSet, redis_binary
from services.stores import CommitOutcome
from services.stores import redis_connect as rc
from services.stores.base import NotReplicated
from services.stores.leases import ARCHIVE, BOT_TURNS
from services.stores.redis_store import RedisStore
from tests.stores import (
    helpers,
    test_archive_outbox,
    test_deployment,
    test_event_logs,
    test_forget_archived,
    test_game_log,
    test_leases,
    test_limits,
    test_retention,
    test_tree_gathering,
    test_turn_schedule,
)
from tests.stores.helpers import claim_jobs

pytestmark = [
    pytest.mark.procs,
    pytest.mark.skipif(redis_binary() is None, reason="needs redis-server on PATH"),
]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with ClusterSet(tmp_path_factory.mktemp("cluster")) as started:
        yield started


@pytest.fixture
async def store(cluster, request):
    """A Cluster store of this test's own prefix (the cluster goes with the module);
    for the archive outbox's tests, archiving as a server with an archive sets it."""
    s = RedisStore.from_url(rc.cluster_url(cluster.url()), prefix=f"t{uuid.uuid4().hex[:8]}")
    await s.settle_layout()  # a new deployment: the newest layout, as a server's start
    module = request.function.__module__
    if module == test_archive_outbox.__name__:
        await s.set_archiving(True)
    if module == test_tree_gathering.__name__:  # its own fixture's games
        for game_id in ("g1", "g2"):
            await s.create(helpers.new_game(game_id))
    yield s
    await s.close()


# On a Cluster the bot-turn schedule is written beside the commit, not in it
# (services/stores/redis_cluster.py): a commit that takes the bot's turn away, or is
# refused, leaves an entry that the sweeper claiming it releases. These two contract
# tests assert the single Redis's atomic version; the Cluster's is asserted below.
BESIDE_THE_COMMIT = {
    "test_commit_schedules_and_unschedules_atomically",
    "test_a_token_not_as_expected_refuses_the_whole_commit",
}

# The store tests that need nothing but a store, run again on the Cluster.
for _module in (
    test_game_log,
    test_event_logs,
    test_turn_schedule,
    test_leases,
    test_retention,
    test_limits,
    test_deployment,
    test_archive_outbox,
    test_tree_gathering,
    test_forget_archived,
):
    for _name, _test in list(vars(_module).items()):
        if (
            _name.startswith("test_")
            and _name not in BESIDE_THE_COMMIT
            and list(inspect.signature(_test).parameters) == ["store"]
        ):
            globals()[_name] = _test


async def test_an_entry_no_bot_needs_goes_when_its_sweeper_releases_it(store):
    new_game = helpers.new_game
    await store.create(new_game())
    await store.commit("g1", 0, 1, b"s1", "in_progress", [{"n": 1}], bot_due_in=0.0)
    assert await claim_jobs(store, BOT_TURNS, 10, 30) == ["g1"]
    # A human is to move next: the entry stays (leased) until its sweeper releases it.
    await store.commit("g1", 1, 2, b"s2", "in_progress", [{"n": 2}])
    assert await store.bot_turn_due_in("g1") > 0
    await store.release_bot_turn("g1")
    assert await store.bot_turn_due_in("g1") is None
    # A commit that makes a bot due after the claim keeps its entry: the release then
    # finds another score than its lease and leaves it.
    await store.commit("g1", 2, 3, b"s3", "in_progress", [{"n": 3}], bot_due_in=0.0)
    assert await claim_jobs(store, BOT_TURNS, 10, 30) == ["g1"]
    await store.commit("g1", 3, 4, b"s4", "in_progress", [{"n": 4}], bot_due_in=0.0)
    await store.release_bot_turn("g1")
    assert await claim_jobs(store, BOT_TURNS, 10, 30) == ["g1"]
    # A refused commit may leave an early entry, never lose one.
    await store.release_bot_turn("g1")
    await store.commit("g1", 0, 9, b"x", "in_progress", [], bot_due_in=0.0)
    assert (await store.load("g1")).version == 4
    assert await claim_jobs(store, BOT_TURNS, 10, 30) == ["g1"]


def test_play_goes_on_while_the_games_slots_migrate(tmp_path):
    row = failover.run("cluster: the games' slots migrated mid-play", 0, tmp_path, tables=2)
    print(f"\n{row}")
    assert row.acknowledged > 0
    assert (row.lost, row.doubled, row.mismatches) == (0, 0, [])


async def test_min_replicas_on_a_cluster_waits_for_the_replica_of_the_games_own_node(tmp_path):
    with ClusterSet(tmp_path, replicas=1) as cluster:
        url = rc.with_durability(rc.cluster_url(cluster.url()), rc.Durability(1, 0.5))
        store = RedisStore.from_url(url, prefix="durable")
        try:
            await store.settle_layout()
            node_of = {}  # a game on each of two primaries
            for n in range(100):
                game_id = f"g{n}"
                node = store._redis.get_node_from_key(store._key(game_id, "game")).port
                node_of.setdefault(node, game_id)
                if len(node_of) == 2:
                    break
            (port_a, game_a), (_, game_b) = node_of.items()
            for game_id in (game_a, game_b):
                await store.create(helpers.new_game(game_id))
                moved = await store.commit(game_id, 0, 1, b"s1", "in_progress", [{"n": 1}])
                assert moved.outcome is CommitOutcome.APPLIED
            primary = next(n for n in cluster.nodes if n.port == port_a)
            replica = next(n for n in cluster.nodes if _primary_port(n) == port_a)
            replica.kill9()  # game A's node has no replica now; game B's still has one
            args = (game_a, 1, 2, b"s2", "in_progress", [{"n": 2}], "1:req")
            with pytest.raises(NotReplicated, match="--redis-min-replicas"):
                await store.commit(*args)
            moved = await store.commit(game_b, 1, 2, b"s2", "in_progress", [{"n": 2}])
            assert moved.outcome is CommitOutcome.APPLIED
            replica.start()
            SentinelSet.wait_replicas(primary, 1)
            # The retry is acknowledged once a replica holds the first try: applied once.
            again = await store.commit(*args)
            assert (again.outcome, again.version) == (CommitOutcome.DUPLICATE, 2)
            assert (await store.load(game_a)).version == 2
        finally:
            await store.close()


def _primary_port(node) -> int | None:
    with node.client() as client:
        info = client.info("replication")
    return int(info["master_port"]) if info["role"] == "slave" else None


async def test_a_finished_game_missed_by_the_outbox_is_put_back_by_the_expiry_sweep(store):
    # On a Cluster the outbox entry is written right after the finishing commit; a
    # process killed in between leaves the game off the outbox. The sweep mends it.
    await store.set_archiving(True)
    await store.create(helpers.new_game("g1"))
    await store.commit("g1", 0, 1, b"end", "finished", [{"kind": "finished"}])
    assert await claim_jobs(store, ARCHIVE, 10, 30) == ["game:g1"]
    await store.ack_archive("game:g1")  # as if never written
    store.OUTBOX_GRACE = 0.0  # finished long enough ago
    assert await store.expire_games(finished_retention=3600, idle_expiry=3600) == []
    assert await claim_jobs(store, ARCHIVE, 10, 30) == ["game:g1"]
    assert (await store.load("g1")).status == "finished"  # kept until archived
