"""The ``TurnSchedule`` contract, both stores: bot turns are scheduled by the write that
made them due, claimed with a lease, renewed, and counted."""

from __future__ import annotations

from services.stores.leases import BOT_TURNS, turn_lease
from tests.polling import eventually
from tests.stores.helpers import bot_game, claim_jobs, new_game


async def test_a_created_bot_turn_is_claimed_once_then_leased(store):
    await store.create(bot_game("b1"))
    await store.create(new_game("h1"))  # a human moves first: not scheduled
    assert await claim_jobs(store, BOT_TURNS, 10, 30) == ["b1"]
    assert await claim_jobs(store, BOT_TURNS, 10, 30) == []  # leased
    assert 0 < await store.bot_turn_due_in("b1") <= 30  # leased: not due now
    assert await store.bot_turn_due_in("h1") is None


async def test_an_expired_lease_makes_the_turn_due_again(store):
    await store.create(bot_game())
    assert await claim_jobs(store, BOT_TURNS, 10, 0.05) == ["g1"]
    claimed = await eventually(
        lambda: claim_jobs(store, BOT_TURNS, 10, 30), 60, "the lease to run out"
    )
    assert claimed == ["g1"]


async def test_commit_schedules_and_unschedules_atomically(store):
    await store.create(new_game())
    await store.commit("g1", 0, 1, b"s1", "in_progress", [{"n": 1}], bot_due_in=0.0)
    assert await claim_jobs(store, BOT_TURNS, 10, 30) == ["g1"]
    # The bot's move, committed by the runner that goes on playing: leased to it.
    await store.commit("g1", 1, 2, b"s2", "in_progress", [{"n": 2}], bot_due_in=20.0)
    assert 0 < await store.bot_turn_due_in("g1") <= 20  # leased: not due now
    assert await claim_jobs(store, BOT_TURNS, 10, 30) == []
    # A human is to move next: out of the schedule.
    await store.commit("g1", 2, 3, b"s3", "in_progress", [{"n": 3}])
    assert await store.bot_turn_due_in("g1") is None
    # A stale commit changes nothing in the schedule either.
    await store.commit("g1", 0, 9, b"x", "in_progress", [], bot_due_in=0.0)
    assert await store.bot_turn_due_in("g1") is None


async def test_renew_only_at_the_same_version(store):
    await store.create(bot_game())
    await claim_jobs(store, BOT_TURNS, 10, 30)
    assert await store.renew(turn_lease("g1", 0), 0)  # handed back: due now
    assert await claim_jobs(store, BOT_TURNS, 10, 30) == ["g1"]
    assert not await store.renew(turn_lease("g1", 7), 0)  # the game moved on
    assert await claim_jobs(store, BOT_TURNS, 10, 30) == []
    await store.drop_bot_turn("g1")
    assert not await store.renew(turn_lease("g1", 0), 0)  # not scheduled: not re-added
    assert await store.bot_turn_due_in("g1") is None
    assert not await store.renew(turn_lease("nope", 0), 0)


async def test_the_backlog_counts_turns_and_ages_the_most_overdue(store):
    assert await store.bot_turn_backlog() == (0, 0.0)
    await store.create(bot_game("b1"))
    await store.create(bot_game("b2"))
    await claim_jobs(store, BOT_TURNS, 10, 30)  # both being played: leased, not overdue
    assert await store.bot_turn_backlog() == (2, 0.0)
    assert await store.renew(turn_lease("b1", 0), -5)  # nobody played it for 5 s
    count, overdue = await store.bot_turn_backlog()
    assert count == 2 and 4.5 < overdue < 30
    await store.drop_bot_turn("b1")
    assert await store.bot_turn_backlog() == (1, 0.0)


async def test_bot_status_is_read_back(store):
    await store.create(bot_game())
    assert (await store.load("g1")).bot_status == ""
    await store.set_bot_status("g1", 0, "waiting")
    assert (await store.load("g1")).bot_status == "0:waiting"
    await store.set_bot_status("nope", 0, "waiting")
    assert await store.load("nope") is None
