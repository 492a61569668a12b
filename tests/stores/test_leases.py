"""The lease contract (``services.stores.leases``), both stores: one owner at a time,
takeover at expiry, and renewals refused to anyone without the current token."""

from __future__ import annotations

from services.stores.leases import ARCHIVE, BOT_TURNS, TOURNAMENTS, Lease, turn_lease
from tests.polling import eventually
from tests.stores.helpers import bot_game, claim_jobs, finish, new_game


async def _claim_one(store, schedule: str, seconds: float) -> Lease:
    [lease] = await store.claim(schedule, 10, seconds)
    return lease


async def test_two_owners_never_hold_a_job_at_once(store):
    await store.create_tournament("t", {}, "running", [])
    first = await _claim_one(store, TOURNAMENTS, 30)
    assert first.job == "t"
    assert await claim_jobs(store, TOURNAMENTS, 10, 30) == []  # the second owner: nothing
    renewed = await store.renew(first, 40)
    assert renewed is not None and renewed.job == "t"
    assert renewed.token != first.token  # a renewal to a later expiry: a new token
    assert await claim_jobs(store, TOURNAMENTS, 10, 30) == []


async def test_an_expired_lease_is_taken_over_and_its_holder_is_refused(store):
    await store.create_tournament("t", {}, "running", [])
    lost = await _claim_one(store, TOURNAMENTS, 0.05)
    taken = await eventually(
        lambda: store.claim(TOURNAMENTS, 10, 30), 5, "the lease to run out and be taken"
    )
    assert [lease.job for lease in taken] == ["t"]
    assert taken[0].token != lost.token
    assert await store.renew(lost, 30) is None  # the old holder: refused, nothing changes
    assert await claim_jobs(store, TOURNAMENTS, 10, 30) == []  # still the new owner's
    assert await store.renew(taken[0], 30) is not None


async def test_a_renewal_without_the_current_token_is_refused(store):
    await store.create_tournament("t", {}, "running", [])
    owner = await _claim_one(store, TOURNAMENTS, 30)
    for stranger in (Lease(TOURNAMENTS, "t", 0), Lease(TOURNAMENTS, "t", owner.token + 1)):
        assert await store.renew(stranger, 0) is None  # would have handed it back
    assert await claim_jobs(store, TOURNAMENTS, 10, 30) == []  # still held
    assert await store.renew(owner, 30) is not None


async def test_a_stale_token_is_refused(store):
    await store.set_archiving(True)
    await store.create(new_game())
    await finish(store, "g1")
    stale = await _claim_one(store, ARCHIVE, 30)
    current = await store.renew(stale, 40)
    assert current is not None
    assert await store.renew(stale, 0) is None  # the token before the renewal
    assert await store.renew(current, 0) is not None  # handed back: due at once
    assert await claim_jobs(store, ARCHIVE, 10, 30) == ["game:g1"]


async def test_a_bot_turns_token_is_its_games_version(store):
    await store.create(bot_game())
    assert await claim_jobs(store, BOT_TURNS, 10, 30) == ["g1"]
    assert await store.renew(turn_lease("g1", 1), 30) is None  # no such version yet
    await store.commit("g1", 0, 1, b"s1", "in_progress", [{"n": 1}], bot_due_in=30.0)
    assert await store.renew(turn_lease("g1", 0), 0) is None  # the game moved on: stale
    assert await claim_jobs(store, BOT_TURNS, 10, 30) == []  # so nothing was handed back
    assert await store.renew(turn_lease("g1", 1), 0) == turn_lease("g1", 1)
    assert await claim_jobs(store, BOT_TURNS, 10, 30) == ["g1"]


async def test_a_refused_renewal_never_puts_a_job_back(store):
    await store.create_tournament("t", {}, "running", [])
    lease = await _claim_one(store, TOURNAMENTS, 30)
    await store.unschedule_tournament("t")
    assert await store.renew(lease, 0) is None
    assert await claim_jobs(store, TOURNAMENTS, 10, 30) == []
    assert await store.renew(turn_lease("nobody", 0), 0) is None
    assert await store.bot_turn_due_in("nobody") is None


async def test_lapsing_makes_held_jobs_due_now(store):
    for name in ("a", "b"):
        await store.create_tournament(name, {}, "running", [])
    held = await store.claim(TOURNAMENTS, 10, 30)
    assert sorted(lease.job for lease in held) == ["a", "b"]
    assert await store.lapse(TOURNAMENTS) == 2
    assert sorted(await claim_jobs(store, TOURNAMENTS, 10, 60)) == ["a", "b"]
    assert [await store.renew(lease, 30) for lease in held] == [None, None]  # tokens gone
