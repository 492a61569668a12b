"""The ladder's admission of new sets (services/ladder/admission.py): fewer open
duplicate sets while the bots' runners report slow round trips (at the median, or more
than 1% of them past ``--ladder-tail-ms``) or the matchmaking replica's event loop runs
late, more again, up to ``--ladder-tables``, once answers keep time."""

from __future__ import annotations

import asyncio
import random
import time

import sqlalchemy as sa
from prometheus_client import REGISTRY

from gamehost import Client
from services.archive import database
from services.archive.schema import ladder_paces
from services.ladder.admission import (
    FLOOR_SECONDS,
    MIN_BOTS,
    MIN_SAMPLES,
    START,
    TAIL_ANSWERS,
    TAIL_CLEAN,
    TAIL_OF_CYCLE,
    TAIL_PATIENCE,
    TAIL_SHARE,
    LoopLag,
    Pace,
    RoundTrips,
    TableLimit,
)
from services.ladder.paces import FORGET, FRESH, PaceBoard
from tests.ladder.conftest import ladder_server, quick
from tests.procs import wait_until

LATE = [0.010] * MIN_SAMPLES  # a tick's lag samples (s): the loop 10 ms late
ON_TIME = [0.0001] * MIN_SAMPLES
SLOW = [12.0] * MIN_BOTS  # a tick's round trips beyond the bots' fastest (ms), one per bot
QUICK = [1.5] * MIN_BOTS
TABLE_LIMIT = "gamehost_ladder_table_limit"


def tick(
    limit: TableLimit, lags: list[float], trips: list[float], open_sets: int, busy: float = 1.0
) -> int:
    """One tick of a lone replica: its own pace alone."""
    return limit.after_tick([Pace.measured(lags, trips, busy)], open_sets)


def test_a_slow_tick_cuts_the_limit_once_per_drain_and_only_a_binding_limit_grows():
    limit = TableLimit("cite:2", tables=8, target_ms=4.0)
    assert limit.limit == START  # it starts low, and grows while answers keep time
    while limit.limit < 8:
        tick(limit, ON_TIME, QUICK, open_sets=limit.limit)
    assert tick(limit, ON_TIME, SLOW, open_sets=8) == 6  # a quarter fewer
    # Still 8 open (games are never stopped): no second cut until they drain to 6.
    assert tick(limit, ON_TIME, SLOW, open_sets=8) == 6
    assert tick(limit, ON_TIME, SLOW, open_sets=7) == 6
    assert tick(limit, ON_TIME, SLOW, open_sets=6) == 4
    assert tick(limit, LATE, QUICK, open_sets=4) == 3  # the loop late: slow too
    assert tick(limit, LATE, [], open_sets=2) == 1  # cut from what is open
    assert tick(limit, ON_TIME, SLOW, open_sets=1) == 1  # never below one set
    # On time: one more per tick while the limit is what holds the ladder back...
    assert tick(limit, ON_TIME, QUICK, open_sets=1) == 2
    assert tick(limit, [], QUICK, open_sets=2) == 3
    assert tick(limit, ON_TIME, [], open_sets=3) == 4
    # ...and not while fewer sets are open than it allows (no bots waiting for one).
    assert tick(limit, ON_TIME, QUICK, open_sets=1) == 4
    for _ in range(10):
        tick(limit, ON_TIME, QUICK, open_sets=limit.limit)
    assert limit.limit == 8  # never above --ladder-tables


def test_an_idle_process_is_never_slow():
    limit = TableLimit("cite:2", tables=8, target_ms=4.0)
    # Slow answers while the process uses a tenth of a core: jitter, or slowness
    # elsewhere; fewer games would not cure it.
    assert tick(limit, LATE, SLOW, open_sets=START, busy=0.1) == START + 1
    assert tick(limit, LATE, SLOW, open_sets=START + 1, busy=0.9) == START


def test_a_tick_with_too_few_samples_or_no_target_decides_nothing():
    limit = TableLimit("cite:2", tables=8, target_ms=4.0)
    few_lags, few_bots = LATE[: MIN_SAMPLES - 1], SLOW[: MIN_BOTS - 1]
    assert tick(limit, few_lags, few_bots, open_sets=START) == START
    unbounded = TableLimit("cite:2", tables=8, target_ms=0.0)  # --ladder-target-ms 0
    assert tick(unbounded, LATE * 10, SLOW * 10, open_sets=8) == 8


def test_any_busy_replica_that_answers_late_cuts_the_limit():
    limit = TableLimit("cite:2", tables=8, target_ms=4.0)
    on_time = Pace.measured(ON_TIME, QUICK, busy=1.0)
    late_busy = Pace.measured(ON_TIME, SLOW, busy=0.9)  # another replica's bots wait
    late_idle = Pace.measured(LATE, SLOW, busy=0.1)  # jitter: fewer games would not help
    undecided = Pace.measured(LATE[:1], SLOW[:1], busy=1.0)
    assert limit.after_tick([on_time, late_idle, undecided], open_sets=START) == START + 1
    assert limit.after_tick([on_time, late_busy], open_sets=START + 1) == START
    assert limit.after_tick([undecided], open_sets=START) == START  # nothing to go by


def test_a_replica_that_does_not_matchmake_shows_the_most_and_starts_afresh():
    limit = TableLimit("standby:2", tables=8, target_ms=4.0)
    for _ in range(3):
        tick(limit, ON_TIME, QUICK, open_sets=limit.limit)
    assert limit.limit == START + 3
    limit.stand_by()  # another replica took the ladder over
    assert REGISTRY.get_sample_value(TABLE_LIMIT, {"ladder": "standby:2"}) == 8
    assert limit.limit == START  # if it takes the ladder back, it starts low again
    assert tick(limit, ON_TIME, QUICK, open_sets=START) == START + 1
    assert REGISTRY.get_sample_value(TABLE_LIMIT, {"ladder": "standby:2"}) == START + 1


def test_replicas_read_each_others_paces_once_each_while_fresh(archive_url):
    engine = database.make_engine(archive_url)
    try:
        database.upgrade(engine)
        here, there = PaceBoard(engine, "here/1/a"), PaceBoard(engine, "there/2/b")
        slow = Pace(7.5, (12.0, 0.5, 3.25), 0.8, 250, ("a", "b", "a"))
        assert here.exchange("cite:2", Pace(None, (), 0.1), now=1000.0) == []
        assert there.exchange("cite:2", slow, now=1000.2) == [Pace(None, (), 0.1)]
        assert here.exchange("cite:2", Pace(None, (), 0.1), now=1000.5) == [slow]
        assert here.exchange("cite:2", Pace(None, (), 0.1), now=1001.0) == []  # taken once
        assert here.exchange("catan:4", Pace(None, (), 0.1), now=1001.0) == []  # per ladder
        there.exchange("cite:2", slow, now=1001.1)
        later = 1001.1 + FRESH + 0.5  # that report is stale by now: the replica stopped?
        assert here.exchange("cite:2", Pace(None, (), 0.1), now=later) == []
        # Long gone replicas' rows are deleted by whoever publishes next.
        here.exchange("cite:2", Pace(None, (), 0.1), now=1001.1 + FORGET + 1)
        with engine.connect() as connection:
            replicas = connection.execute(sa.select(ladder_paces.c.replica)).scalars().all()
        assert sorted(replicas) == ["here/1/a", "here/1/a"]  # one row per ladder
    finally:
        engine.dispose()


def test_the_matchmaker_opens_fewer_sets_while_another_replica_answers_late(sqlite_url):
    # Two replicas on one archive. The one that matchmakes is idle (never slow itself);
    # the other reports its loop late while busy, as it would with its bots' answers
    # queueing: the matchmaker paces the ladder by that report.
    ladder = quick(tables=4, house_tables=4, target_ms=2.0)
    with ladder_server(sqlite_url, ladder) as first:
        holder = first.running.matchmaker
        wait_until(lambda: "cite:2" in holder._held, 60, "the first replica to matchmake")
        holder._cpu.take = lambda: 0.0  # idle: its own pace never slow
        with ladder_server(sqlite_url, ladder) as second:
            other = second.running.matchmaker
            other._cpu.take = lambda: 1.0
            other._lag.take = lambda: LATE
            limit = holder.limits["cite:2"]
            wait_until(lambda: limit.limit == 1, 120, "the limit cut to one set")
            assert "cite:2" not in other._held  # it only reported
            assert other.limits["cite:2"].limit == START  # and stood by
            other._lag.take = lambda: ON_TIME
            wait_until(lambda: limit.limit == 4, 120, "the limit back at --ladder-tables")


def test_the_matchmaker_opens_fewer_sets_while_another_replicas_bots_see_a_long_tail(
    sqlite_url,
):
    # As above, but the other replica is idle as well (its medians would not count):
    # its runners report more than 1% of their answers past --ladder-tail-ms.
    ladder = quick(tables=4, house_tables=4, target_ms=2.0, tail_ms=4.0)
    with ladder_server(sqlite_url, ladder) as first:
        holder = first.running.matchmaker
        wait_until(lambda: "cite:2" in holder._held, 60, "the first replica to matchmake")
        holder._cpu.take = lambda: 0.0
        with ladder_server(sqlite_url, ladder) as second:
            other = second.running.matchmaker
            other._cpu.take = lambda: 0.1
            too_many = late_bots(int(TAIL_SHARE * TAIL_ANSWERS) + 1)
            other._round_trips.take_tail = lambda ladder, tail_ms: (50, too_many)
            limit = holder.limits["cite:2"]
            wait_until(lambda: limit.limit == 1, 120, "the limit cut to one set")
            assert "cite:2" not in other._held
            other._round_trips.take_tail = lambda ladder, tail_ms: (50, ())
            wait_until(lambda: limit.limit == 4, 120, "the limit back at --ladder-tables")


def test_round_trips_count_each_bot_once_a_tick_beyond_its_own_fastest():
    trips = RoundTrips()
    for ms in (50.0, 60.0, 70.0):  # one bot reporting slow answers again and again
        trips.report("cite:2", "noisy", ms)
    trips.report("cite:2", "near", 2.0)
    trips.report("cite:2", "calm", 0.0)  # nothing measured (a first answer): not counted
    trips.report("catan:4", "other", 9.0)
    # Each bot's newest, beyond its own fastest: 70 - 50 for the noisy one.
    assert sorted(trips.take("cite:2")) == [0.0, 20.0]
    assert trips.take("cite:2") == []  # taken
    assert trips.take("catan:4") == [0.0]
    # A bot far away on the network: its distance is not queueing, its variation is.
    for ms in (80.0, 81.0, 95.0):
        trips.report("cite:2", "far", ms)
    trips.report("cite:2", "near", 2.5)
    assert sorted(trips.take("cite:2")) == [0.5, 15.0]


def test_a_bots_fastest_answer_is_forgotten_after_a_while(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr("services.ladder.admission.time.monotonic", lambda: now[0])
    trips = RoundTrips()
    trips.report("cite:2", "moved", 2.0)  # fast, then the bot moves further away
    now[0] += FLOOR_SECONDS / 2 + 1
    trips.report("cite:2", "moved", 30.0)
    assert trips.take("cite:2") == [28.0]  # the fast one still counts (half a window)
    now[0] += FLOOR_SECONDS / 2 + 1
    trips.report("cite:2", "moved", 31.0)
    assert trips.take("cite:2") == [1.0]  # now 30 ms is its fastest


def test_the_probe_sees_a_blocked_loop():
    async def main() -> list[float]:
        probe = LoopLag()
        probe.start()
        await asyncio.sleep(0.1)
        probe.take()
        time.sleep(0.2)  # the loop blocked: the probe's timer is due meanwhile
        await asyncio.sleep(0.1)
        await probe.close()
        return probe.take()

    samples = asyncio.run(main())
    # Due at most one probe interval into the block, run after it: 175 ms late or more.
    assert max(samples) >= 0.175


def test_the_matchmaker_opens_fewer_sets_while_its_loop_runs_late(sqlite_url):
    # House sets only (no bots needed): the demand is always there.
    ladder = quick(tables=4, house_tables=4, target_ms=2.0)
    with ladder_server(sqlite_url, ladder) as server, Client(server.target):
        matchmaker = server.running.matchmaker
        limit = matchmaker.limits["cite:2"]
        blocking = True

        def block() -> None:  # busy for 30 ms, lets the loop go 0.5-3 ms, and again
            if blocking:
                until = time.perf_counter() + 0.03
                while time.perf_counter() < until:  # CPU work: the process is busy
                    pass
                # Not a fixed period: it could lock in step with the probe's.
                asyncio.get_running_loop().call_later(random.uniform(0.0005, 0.003), block)

        async def start_blocking() -> None:
            asyncio.get_running_loop().call_soon(block)

        server.call(start_blocking())
        wait_until(lambda: limit.limit == 1, 120, "the limit cut to one set")
        blocking = False
        wait_until(lambda: limit.limit == 4, 120, "the limit back at --ladder-tables")


def tail_tick(
    limit: TableLimit, answers: int, late: tuple[str, ...], open_sets: int, busy: float = 0.2
) -> int:
    """One tick of a lone replica whose runners reported ``answers`` round trips, the
    ``late`` ones' bots past the tail's mark; its loop and medians on time."""
    pace = Pace.measured(ON_TIME, QUICK, busy, (answers, late))
    return limit.after_tick([pace], open_sets)


def late_bots(n: int) -> tuple[str, ...]:
    return tuple(f"bot-{i % MIN_BOTS}" for i in range(n))  # from MIN_BOTS bots


def test_a_long_tail_cuts_the_limit_even_on_an_idle_process():
    limit = TableLimit("cite:2", tables=8, target_ms=2.0, tail_ms=4.0)
    assert limit.limit == START
    # More late answers than TAIL_SHARE allows of TAIL_ANSWERS: cut at once, at a fifth
    # of a core (the medians alone would let it grow: test_an_idle_process_is_never_slow).
    allowed = int(TAIL_SHARE * TAIL_ANSWERS)
    assert tail_tick(limit, 50, late_bots(allowed + 1), open_sets=START) == START - 1


def test_one_bots_late_answers_alone_do_not_cut_the_limit():
    limit = TableLimit("cite:2", tables=8, target_ms=2.0, tail_ms=4.0)
    jittery = ("far-away",) * 20  # one bot's network, not the server's queue
    assert tail_tick(limit, 100, jittery, open_sets=START) == START
    assert tail_tick(limit, 100, late_bots(3), open_sets=START) == START - 1


def test_one_more_set_waits_for_enough_answers_with_a_short_tail():
    limit = TableLimit("cite:2", tables=8, target_ms=2.0, tail_ms=4.0)
    per_tick = TAIL_ANSWERS // 4
    assert tail_tick(limit, per_tick, ("bot-0",), open_sets=START) == START  # one late
    for _ in range(2):  # the medians say grow; the tail is not known yet: hold
        assert tail_tick(limit, per_tick, (), open_sets=START) == START
    assert tail_tick(limit, per_tick, (), open_sets=START) == START + 1
    # None late at all: TAIL_CLEAN answers are enough (bots that answer seldom).
    for _ in range(TAIL_CLEAN // 5 - 1):
        assert tail_tick(limit, 5, (), open_sets=START + 1) == START + 1
    assert tail_tick(limit, 5, (), open_sets=START + 1) == START + 2
    # Measured afresh at the new limit: between half the share and the share, hold.
    some = late_bots(int(TAIL_SHARE * 0.75 * TAIL_ANSWERS * 2))
    for _ in range(8):
        assert tail_tick(limit, per_tick, some[:1], open_sets=START + 2) == START + 2


def test_after_a_cut_for_the_tail_a_set_more_is_tried_again_later_and_later():
    limit = TableLimit("cite:2", tables=8, target_ms=2.0, tail_ms=4.0)
    too_many = late_bots(int(TAIL_SHARE * TAIL_ANSWERS) + 1)

    def answers_until_growth(at: int) -> int:
        answers = 0
        while tail_tick(limit, 5, (), open_sets=at) == at:
            answers += 5
        return answers + 5

    waits = []
    for _ in range(5):  # every try of START sets has a long tail
        assert tail_tick(limit, 50, too_many, open_sets=START) == START - 1
        waits.append(answers_until_growth(START - 1))
    patience = [min(TAIL_PATIENCE, 2**n) for n in range(1, 6)]
    assert waits == [TAIL_CLEAN * p for p in patience]
    # Once START sets answer in time, trying one more is quick again.
    answers_until_growth(START)
    assert limit.limit == START + 1
    assert answers_until_growth(START + 1) == TAIL_CLEAN


def test_while_sets_drain_above_the_limit_their_tail_is_not_counted():
    limit = TableLimit("cite:2", tables=8, target_ms=2.0, tail_ms=4.0)
    too_many = late_bots(int(TAIL_SHARE * TAIL_ANSWERS) + 1)
    assert tail_tick(limit, 50, too_many, open_sets=START) == START - 1
    # The sets above the new limit finish their games: their late answers cut nothing.
    assert tail_tick(limit, 50, too_many, open_sets=START) == START - 1
    assert tail_tick(limit, 5, (), open_sets=START - 1) == START - 1  # nothing known yet


def test_without_reported_answers_or_tail_ms_the_medians_decide_alone():
    limit = TableLimit("cite:2", tables=8, target_ms=2.0, tail_ms=4.0)
    assert tail_tick(limit, 0, (), open_sets=START) == START + 1  # no runner reports
    # Once runners report, the tail decides: a tick with too few, or none, holds.
    assert tail_tick(limit, 5, (), open_sets=START + 1) == START + 1
    assert tail_tick(limit, 0, (), open_sets=START + 1) == START + 1
    off = TableLimit("cite:2", tables=8, target_ms=2.0, tail_ms=0.0)
    assert tail_tick(off, 50, (), open_sets=START) == START + 1


def test_the_tail_counts_every_answer_beyond_its_bots_fastest():
    trips = RoundTrips()
    for ms in (1.0, 6.0, 4.9, 5.5):  # its fastest 1 ms: 5 and 4.5 beyond it are late
        trips.report("cite:2", "a", ms)
    trips.report("cite:2", "b", 30.0)  # far away: its first answer is its fastest
    trips.report("cite:2", "b", 33.0)
    trips.report("catan:4", "c", 9.0)
    assert trips.take_tail("cite:2", 4.0) == (6, ("a", "a"))
    assert trips.take_tail("cite:2", 4.0) == (0, ())  # taken
    assert trips.take_tail("catan:4", 0.0) == (1, ())  # no mark: none late
    # A bot that thinks a second a move: late only past a tenth of its cycle.
    trips.report("cite:2", "thinker", 1.0, cycle_ms=1000.0)
    trips.report("cite:2", "thinker", 60.0, cycle_ms=1060.0)
    trips.report("cite:2", "thinker", 150.0, cycle_ms=1150.0)
    assert TAIL_OF_CYCLE * 1000 > 60 - 1
    assert trips.take_tail("cite:2", 4.0) == (3, ("thinker",))
