"""Two replicas of the service on one Redis: concurrent submissions never lose or
double-apply an action, and a retried request applies once."""

from __future__ import annotations

import threading
import uuid
from functools import partial

import grpc
import pytest

from gamehost import Client, GameError
from gamehost.v1 import gamehost_pb2 as pb
from services.server import ServerConfig, ServerThread


@pytest.fixture(scope="module")
def replicas(redis_url, module_prefix, server):
    """A second server process-equivalent sharing the first one's Redis keys."""
    config = ServerConfig(port=0, redis_url=redis_url, redis_prefix=module_prefix, bot_workers=1)
    with ServerThread(config) as second, Client(server.target) as a, Client(second.target) as b:
        yield a, b


def race(calls):
    """Start every call at the same moment; return (results, errors)."""
    barrier = threading.Barrier(len(calls))
    results, errors = [None] * len(calls), [None] * len(calls)

    def run(i, call):
        barrier.wait()
        try:
            results[i] = call()
        except GameError as exc:
            errors[i] = exc

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, errors


def test_two_clients_two_replicas_same_version(replicas):
    a, b = replicas
    created = a.create_game("cite", ["human", "human", "human"], seed=8)
    players = [a.join(created.game_id) for _ in range(3)]
    acknowledged = []
    rounds = 0
    state = a.state(created.game_id)
    while state.status == 1 and rounds < 60:  # IN_PROGRESS
        seat = state.to_move.seat
        token = players[seat].token
        legal = a.legal_actions(created.game_id, token)
        first, last = legal[0], legal[-1]
        results, errors = race(
            [
                partial(a.submit, created.game_id, token, first.id, expected_version=state.version),
                partial(b.submit, created.game_id, token, last.id, expected_version=state.version),
            ]
        )
        applied = [r for r in results if r is not None]
        assert len(applied) == 1, (results, errors)  # exactly one wins each race
        loser = next(e for e in errors if e is not None)
        assert loser.code in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION)
        acknowledged.append((state.version + 1, applied[0].action_id))
        state = b.state(created.game_id)
        rounds += 1

    # Each seat sees its own deals; together the three records show every move.
    records = [b.record(created.game_id, p.token) for p in players]
    human_moves = [
        next((r.entries[i] for r in records if not r.entries[i].hidden), records[0].entries[i])
        for i, entry in enumerate(records[0].entries)
        if entry.actor.kind == pb.Actor.SEAT
    ]
    assert len(human_moves) == len(acknowledged)
    # Every acknowledged action is in the log once, at the ply it was acknowledged for.
    assert [(e.ply, e.action_id) for e in human_moves] == acknowledged


def test_retried_request_applies_once_across_replicas(replicas):
    a, b = replicas
    created = a.create_game("cite", ["human", "human"], seed=4)
    me = a.join(created.game_id)
    before = a.state(created.game_id, me.token)
    action = before.legal_actions[0].id
    request_id = uuid.uuid4().hex
    results, errors = race(
        [
            lambda: a.submit(created.game_id, me.token, action, request_id=request_id),
            lambda: b.submit(created.game_id, me.token, action, request_id=request_id),
            lambda: a.submit(created.game_id, me.token, action, request_id=request_id),
        ]
    )
    assert errors == [None, None, None]
    assert sorted(r.duplicate for r in results) == [False, True, True]
    assert len({r.version for r in results}) == 1
    record = a.record(created.game_id)
    moved = [e.actor for e in record.entries[before.version :]]
    assert moved.count(pb.Actor(kind=pb.Actor.SEAT, seat=0)) == 1


def test_unpinned_submissions_from_both_replicas_all_apply_or_fail_cleanly(replicas):
    """Without expected_version the service retries on contention: no lost updates."""
    a, b = replicas
    created = a.create_game("cite", ["human", "human"], seed=6)
    me = a.join(created.game_id)
    state = a.state(created.game_id, me.token)
    assert [x.notation for x in state.legal_actions] == ["no levy", "levy"]
    results, errors = race(
        [
            lambda: a.submit(created.game_id, me.token, "levy"),
            lambda: b.submit(created.game_id, me.token, "levy"),
        ]
    )
    applied = [r for r in results if r is not None]
    assert len(applied) == 1
    # The second one was re-checked against the new state, where levy is no longer offered.
    assert [e.code for e in errors if e] == [grpc.StatusCode.FAILED_PRECONDITION]
    after = a.state(created.game_id)
    assert after.cite.levied
