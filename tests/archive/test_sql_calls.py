"""An archive's SQL calls in processes of their own (``gamehost serve
--database-processes N``, services/archive/calls.py): they run there, on that
process's engine, on each database; a refusal comes back as the same error with its
message and field; a database process killed under load costs the calls in flight
(answered UNAVAILABLE) and no later one."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from services.archive.archive import Archive
from services.errors import AlreadyExists, InvalidArgument, Unavailable
from services.ladder.accounts import Accounts


def _refuse(field: str) -> None:
    raise InvalidArgument("not this one", field=field)


@pytest.fixture
def archive_in_processes(archive_url):
    archive = Archive.open(archive_url, create=True, processes=1)
    yield archive
    archive.close()


def test_calls_run_in_a_database_process_and_refusals_come_back_whole(archive_in_processes):
    archive = archive_in_processes
    accounts = Accounts(archive.engine)

    async def calls():
        elsewhere = await archive.calls(os.getpid)
        key = await archive.calls(accounts.register, "bot-a", "cite:2", "owner")
        found = await archive.calls(accounts.get, "bot-a")  # written there, read there
        with pytest.raises(AlreadyExists, match="'bot-a' exists"):
            await archive.calls(accounts.register, "bot-a", "cite:2", "owner")
        with pytest.raises(InvalidArgument) as refused:
            await archive.calls(_refuse, "seats[1]")
        return elsewhere, key, found, refused.value

    elsewhere, key, found, refused = asyncio.run(calls())
    assert elsewhere != os.getpid()
    assert key and found is not None and found.name == "bot-a"
    assert (str(refused), refused.field) == ("not this one", "seats[1]")
    assert accounts.get("bot-a") == found  # and it is in the database, seen from here


def test_a_killed_database_process_costs_only_the_calls_in_flight(archive_in_processes):
    archive = archive_in_processes
    accounts = Accounts(archive.engine)

    async def calls():
        victim = await archive.calls(os.getpid)
        os.kill(victim, signal.SIGKILL)
        with pytest.raises(Unavailable, match="try again"):
            await archive.calls(os.getpid)
        # A new process answers from the next call on.
        key = await archive.calls(accounts.register, "bot-b", "cite:2", "owner")
        return victim, await archive.calls(os.getpid), key

    victim, replacement, key = asyncio.run(calls())
    assert replacement not in (victim, os.getpid())
    assert key and accounts.get("bot-b") is not None
