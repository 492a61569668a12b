"""Bot turns searched on a real Celery worker and committed from there; a turn's
request id goes with its turn (no key of its own in Redis)."""

from __future__ import annotations

import redis

from gamehost.v1 import gamehost_pb2 as pb


def turn_keys(redis_url: str, prefix: str) -> list[bytes]:
    """Request-id keys of bot turns and timeouts (kept in the game's hash instead)."""
    client = redis.Redis.from_url(redis_url)
    try:
        return [
            k
            for pattern in ("*:request:bot:*", "*:request:timeout:*")
            for k in client.scan_iter(match=f"{prefix}:{pattern}", count=1000)
        ]
    finally:
        client.close()


def finish(client, game_id: str) -> pb.GameRecord:
    for _ in client.watch(game_id):
        pass  # the stream ends with the game
    return client.record(game_id)


def test_a_game_of_bots_runs_to_the_end_on_celery(celery_client):
    created = celery_client.create_game("cite", ["bot:random"] * 4, seed=11)
    record = finish(celery_client, created.game_id)
    assert record.status == pb.FINISHED
    assert sum(record.returns) == 1.0
    assert {e.actor.seat for e in record.entries if e.actor.kind == pb.Actor.SEAT} == {0, 1, 2, 3}


def test_celery_and_the_local_pool_play_the_same_game(celery_client, client):
    """Bots are deterministic given the game's seed, wherever they run."""
    on_celery = finish(
        celery_client, celery_client.create_game("cite", ["bot:random"] * 3, seed=5).game_id
    )
    local = finish(client, client.create_game("cite", ["bot:random"] * 3, seed=5).game_id)
    assert [(e.actor, e.action_id) for e in on_celery.entries] == [
        (e.actor, e.action_id) for e in local.entries
    ]


def test_catan_with_four_mcts_bots_on_celery(celery_client, redis_url, module_prefix):
    """Each bot turn is a chord of root-parallel trees on the worker; the game ends."""
    level = "bot:mcts:trees=2,iterations=30,depth=10"
    created = celery_client.create_game("catan", [level] * 4, {"turn_limit": 30}, seed=21)
    record = finish(celery_client, created.game_id)
    assert record.status == pb.FINISHED
    assert sum(record.returns) == 1.0
    decisions = [e for e in record.entries if e.actor.kind == pb.Actor.SEAT]
    assert {e.actor.seat for e in decisions} == {0, 1, 2, 3}
    assert any(e.notation.startswith("city") or e.notation.startswith("settle") for e in decisions)
    assert turn_keys(redis_url, module_prefix) == []


def test_timeouts_and_added_bots_are_played_on_celery(celery_client, redis_url, module_prefix):
    """A seat out of time gets its fallback move from a worker (marked, once per
    version); a bot added to a free seat plays there too."""
    from gamehost import turn_timer
    from tests.procs import wait_until

    timer = turn_timer(0.3, fallback_level="greedy", max_timeouts=0)
    created = celery_client.create_game("cite", ["human", "human"], seed=12, timer=timer)
    game_id = created.game_id

    def timed_out() -> list[pb.RecordEntry]:
        return [e for e in celery_client.record(game_id).entries if e.timeout]

    wait_until(lambda: len(timed_out()) >= 2, 60, "two timeouts played by the worker")
    added = celery_client.add_bot(game_id, 1, "random", creator_token=created.creator_token)
    record = wait_until(
        lambda: (
            (r := celery_client.record(game_id))
            and any(
                e.actor.kind == pb.Actor.SEAT
                and e.actor.seat == 1
                and e.ply > added.version
                and not e.timeout
                for e in r.entries
            )
            and r
        ),
        60,
        "the added bot's move on the worker",
    )
    plies = [e.ply for e in record.entries]
    assert len(plies) == len(set(plies))
    assert turn_keys(redis_url, module_prefix) == []
