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
from loadtest.topology import ClusterSet, redis_binary
from services.stores import redis_connect as rc
from services.stores.redis_store import RedisStore
from tests.stores import (
    test_archive_outbox,
    test_forget_archived,
    test_store_contract,
    test_tree_gathering,
)

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
            await s.create(test_store_contract.new_game(game_id))
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
    test_store_contract,
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
    new_game = test_store_contract.new_game
    await store.create(new_game())
    await store.commit("g1", 0, 1, b"s1", "in_progress", [{"n": 1}], bot_due_in=0.0)
    assert await store.claim_bot_turns(10, lease=30) == ["g1"]
    # A human is to move next: the entry stays (leased) until its sweeper releases it.
    await store.commit("g1", 1, 2, b"s2", "in_progress", [{"n": 2}])
    assert await store.bot_turn_due_in("g1") > 0
    await store.release_bot_turn("g1")
    assert await store.bot_turn_due_in("g1") is None
    # A commit that makes a bot due after the claim keeps its entry: the release then
    # finds another score than its lease and leaves it.
    await store.commit("g1", 2, 3, b"s3", "in_progress", [{"n": 3}], bot_due_in=0.0)
    assert await store.claim_bot_turns(10, lease=30) == ["g1"]
    await store.commit("g1", 3, 4, b"s4", "in_progress", [{"n": 4}], bot_due_in=0.0)
    await store.release_bot_turn("g1")
    assert await store.claim_bot_turns(10, lease=30) == ["g1"]
    # A refused commit may leave an early entry, never lose one.
    await store.release_bot_turn("g1")
    await store.commit("g1", 0, 9, b"x", "in_progress", [], bot_due_in=0.0)
    assert (await store.load("g1")).version == 4
    assert await store.claim_bot_turns(10, lease=30) == ["g1"]


def test_play_goes_on_while_the_games_slots_migrate(tmp_path):
    row = failover.run("cluster: the games' slots migrated mid-play", 0, tmp_path, tables=2)
    print(f"\n{row}")
    assert row.acknowledged > 0
    assert (row.lost, row.doubled, row.mismatches) == (0, 0, [])
