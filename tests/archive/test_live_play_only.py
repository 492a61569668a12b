"""Redis holds live play only: real servers (gRPC and HTTP), real Redis, real
PostgreSQL, bots playing on the local pool. A finished game stays in Redis until its
archive insert commits (the test holds the insert back with a table lock, and reads
every answer meanwhile), then leaves: only a tombstone of at most 512 bytes stays,
and every read and a client's retried request, over gRPC and HTTP, on this replica
and on a fresh one, answers as before. No bot turn leaves a request key behind, with
or without an archive; with ``--archive none`` finished games stay as they were."""

from __future__ import annotations

import grpc
import psycopg
import pytest
import redis

from gamehost import GameError
from gamehost.v1 import gamehost_pb2 as pb
from services.archive.archive import Archive
from tests.fixtures.gateway import Served, gateway_config
from tests.procs import wait_until


def _keys(client: redis.Redis, prefix: str, game_id: str = "*") -> list[str]:
    pattern = f"{prefix}:{{{game_id}}}:*" if game_id != "*" else f"{prefix}:*"
    return sorted(k.decode().removeprefix(f"{prefix}:") for k in client.scan_iter(match=pattern))


def _turn_keys(client: redis.Redis, prefix: str) -> list[str]:
    return [k for k in _keys(client, prefix) if ":request:bot:" in k or ":request:timeout:" in k]


def _answers(served: Served, game_id: str, token: str, retry: tuple | None) -> dict:
    client, bearer = served.client, {"Authorization": f"Bearer {token}"} if token else {}
    watched = list(client.watch(game_id, token))
    answers: dict = {
        "record": client.record(game_id, token, include_views=True),
        "state": client.state(game_id, token),
        "watch": watched,
        "watch after": list(
            client.watch(game_id, token, after=watched[len(watched) // 3].event_id)
        ),
        "http state": served.http.get(f"/v1/games/{game_id}", headers=bearer).body,
        "http record": served.http.get(
            f"/v1/games/{game_id}/record",
            headers=bearer,
            params={"includeViews": "true", "pageSize": "20"},
        ).body,
    }
    if retry is not None:
        action, request_id = retry
        answers["retry"] = client.submit(game_id, token, action, request_id=request_id)
        with pytest.raises(GameError) as over:
            client.submit(game_id, token, action)
        answers["new move"] = (over.value.code, over.value.details)
    return answers


def test_a_finished_game_leaves_redis_once_archived_and_reads_the_same(
    redis_url, redis_prefix, postgres_url
):
    Archive.open(postgres_url, create=True).close()
    config = gateway_config(redis_url, redis_prefix, archive_url=postgres_url)
    raw = redis.Redis.from_url(redis_url)
    hold = psycopg.connect(postgres_url)  # a transaction whose lock holds inserts back
    try:
        hold.execute("LOCK TABLE archived_games IN SHARE MODE")  # reads go on
        with Served(config) as served:
            client = served.client
            bots = client.create_game(
                "cite",
                [pb.SeatSpec(kind=pb.BOT, bot_level="random", name=n) for n in ("Zed", "Yan")],
                seed=3,
            )
            people = client.create_game("endeavor", ["human:Ann", "bot:random", "bot:greedy"])
            ann = client.join(people.game_id, 0, "Ann")
            wait_until(
                lambda: client.state(people.game_id, ann.token).legal_actions, 60, "Ann's turn"
            )
            state = client.state(people.game_id, ann.token)
            moved = client.submit(
                people.game_id,
                ann.token,
                state.legal_actions[0].id,
                expected_version=state.version,
                request_id="ann-1",
            )
            client.hand_over(people.game_id, ann.token, "random")  # the bots play it out
            games = {bots.game_id: [""], people.game_id: ["", ann.token]}
            wait_until(
                lambda: all(client.state(g).status == pb.FINISHED for g in games),
                240,
                "the games to finish",
            )
            outbox = f"{redis_prefix}:archive"
            wait_until(  # both on the outbox, one claimed (leased: a score past 0), its
                # insert waiting on the lock (and the archiver with it)
                lambda: (
                    raw.zcard(outbox) == len(games)
                    and any(s > 0 for _, s in raw.zrange(outbox, 0, -1, withscores=True))
                ),
                60,
                "the archiver to take the games",
            )
            assert _turn_keys(raw, redis_prefix) == []
            retry = (moved.action_id, "ann-1")
            before = {
                (g, t): _answers(served, g, t, retry if t else None)
                for g, viewers in games.items()
                for t in viewers
            }
            for game_id in games:  # finished, not archived yet: still in Redis
                assert f"{{{game_id}}}:game" in _keys(raw, redis_prefix, game_id)
            assert raw.zcard(outbox) == len(games)
            assert before[people.game_id, ann.token]["retry"].duplicate
            assert before[people.game_id, ann.token]["new move"][0] == (
                grpc.StatusCode.FAILED_PRECONDITION
            )

            hold.rollback()  # the archiver's inserts commit now; then Redis forgets
            for game_id in games:
                wait_until(
                    lambda g=game_id: f"{{{g}}}:game" not in _keys(raw, redis_prefix, g),
                    120,
                    "the archived game to leave Redis",
                )
            for game_id in games:  # Ann's requests went into the archive with her game
                assert _keys(raw, redis_prefix, game_id) == [f"{{{game_id}}}:gone"]
            for game_id in games:
                tombstone = f"{redis_prefix}:{{{game_id}}}:gone"
                assert raw.memory_usage(tombstone, samples=0) <= 512
                assert raw.hget(tombstone, "status") == b"finished"
            assert _turn_keys(raw, redis_prefix) == []
            for (game_id, token), answers in before.items():
                assert _answers(served, game_id, token, retry if token else None) == answers
            listed = {g.game_id for g in client.list_games()}
            assert listed == set(games)

        with Served(config) as fresh:  # a replica that never saw the games
            for (game_id, token), answers in before.items():
                assert _answers(fresh, game_id, token, retry if token else None) == answers
    finally:
        hold.close()
        raw.close()


def test_without_an_archive_finished_games_stay_and_bot_turns_leave_no_keys(
    redis_url, redis_prefix
):
    raw = redis.Redis.from_url(redis_url)
    try:
        with Served(gateway_config(redis_url, redis_prefix)) as served:
            client = served.client
            game = client.create_game("cite", ["bot:random", "bot:greedy", "bot:random"], seed=8)
            wait_until(
                lambda: client.state(game.game_id).status == pb.FINISHED, 240, "the game's end"
            )
            store = served.thread.running.store
            assert served.thread.call(store.archive_backlog()) == 0
            # The sweep keeps a finished game for --finished-retention (7 days).
            assert served.thread.call(store.expire_games(7 * 86400.0, 30 * 86400.0)) == []
            assert f"{{{game.game_id}}}:game" in _keys(raw, redis_prefix, game.game_id)
            assert served.thread.call(store.tombstone(game.game_id)) is None
            assert client.record(game.game_id).status == pb.FINISHED
            assert _turn_keys(raw, redis_prefix) == []
    finally:
        raw.close()
