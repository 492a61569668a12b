"""What a matchmaker's tick reads: each thing once. Its reads run on threads that take
the GIL from the bots' answers on the event loop, so a tick woken between the paced
ones (every TICK: half a second) by an archived game reads the open games and nothing
else of the bots; a paced tick reads the bots' accounts and renews the lease once as
well."""

from __future__ import annotations

from services.ladder import lease
from services.ladder.matchmaker import Matchmaker
from tests.ladder.conftest import ladder_server
from tests.procs import wait_until


def test_a_tick_reads_the_open_games_once_and_a_woken_one_no_accounts(sqlite_url, monkeypatch):
    reads: list[str] = []  # appended on the ticks' threads
    acquire = lease.acquire

    def counted_acquire(engine, name, *args, **kwargs):
        if name.startswith("ladder:"):  # the ladder's, not quick play's (its own lease)
            reads.append("lease")
        return acquire(engine, name, *args, **kwargs)

    monkeypatch.setattr(lease, "acquire", counted_acquire)
    # Paced ticks far enough apart that games archived in between wake ticks of their
    # own (a slow machine's ticks may take most of half a second).
    monkeypatch.setattr(Matchmaker, "TICK", 2.0)
    # No bot connects: the house levels play sets among themselves, and each archived
    # game wakes the matchmaker.
    with ladder_server(sqlite_url) as server:
        matchmaker = server.running.matchmaker
        ledger, accounts = matchmaker.service.ledger, matchmaker.service.accounts
        open_games, listed = ledger.open_games, accounts.list

        def counted_open_games(ladder):
            reads.append("open games")
            return open_games(ladder)

        def counted_list(ladder="", name=""):
            reads.append("accounts")
            return listed(ladder, name)

        ledger.open_games, accounts.list = counted_open_games, counted_list
        ticks: list[tuple[bool, list[str]]] = []
        tick = matchmaker.tick

        async def counted_tick(spec, full=True):
            before = len(reads)
            try:
                return await tick(spec, full)
            finally:
                ticks.append((full, reads[before:]))

        matchmaker.tick = counted_tick

        def both_kinds() -> bool:
            return sum(full for full, _ in ticks) >= 3 and sum(not f for f, _ in ticks) >= 3

        wait_until(both_kinds, 120, "paced ticks, and ticks woken by archived games")
        for full, read in list(ticks):
            assert read.count("open games") == 1, read
            if full:
                assert (read.count("accounts"), read.count("lease")) == (1, 1), read
            else:
                assert read.count("accounts") == 0, read
                assert read.count("lease") <= 1, read  # only once a second has passed
