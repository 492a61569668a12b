"""Where a serving process's SQL calls run: in its threads (the default), or in
processes of their own (``gamehost serve --database-processes N``).

Each call's Python half (SQLAlchemy building the statement and reading the rows, the
driver's conversions) holds the GIL for a millisecond or several at a time, and the
serving process's event loop waits for it: under the ladder's load that is the
largest part of a move's round trip at p99 beyond what the stack itself costs
(docs/ladder.md, "The floor"). In a process of its own a call costs the serving
process only the pickling of its arguments and its result.

A call is a function and its arguments, pickled to a database process. An engine
travels as its URL and is made once in each database process (``_engine``), so the
objects that hold one (``Archive``, ``Accounts``, ``Ledger``, ``LadderService``)
travel with their bound methods and run there on that process's engine.
"""

from __future__ import annotations

import asyncio
import copyreg
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

import sqlalchemy as sa

from services.archive.database import make_engine
from services.children import exit_with
from services.errors import Unavailable

T = TypeVar("T")

_engines: dict[str, sa.Engine] = {}  # in a database process: its engine for each URL


def _engine(url: str) -> sa.Engine:
    engine = _engines.get(url)
    if engine is None:
        engine = _engines[url] = make_engine(url)
    return engine


def _reduce_engine(engine: sa.Engine) -> tuple[Callable[[str], sa.Engine], tuple[str]]:
    return _engine, (engine.url.render_as_string(hide_password=False),)


copyreg.pickle(sa.Engine, _reduce_engine)


class SqlCalls:
    """Runs blocking SQL calls off the event loop: ``await calls(fn, *args)``."""

    def __init__(self, processes: int = 0) -> None:
        self.processes = processes
        self._pool = self._new_pool() if processes > 0 else None

    def _new_pool(self) -> ProcessPoolExecutor:
        # forkserver: safe to start from a process that already runs threads (gRPC).
        return ProcessPoolExecutor(
            max_workers=self.processes,
            mp_context=multiprocessing.get_context("forkserver"),
            initializer=exit_with,
            initargs=(os.getpid(),),
        )

    async def __call__(self, call: Callable[..., T], *args: Any) -> T:
        pool = self._pool
        if pool is None:
            return await asyncio.to_thread(call, *args)
        try:
            return await asyncio.get_running_loop().run_in_executor(pool, call, *args)
        except BrokenProcessPool:
            # A database process died (killed, out of memory): the calls in flight are
            # lost, as a dropped connection's are; the next ones go to a new pool.
            if self._pool is pool:
                self._pool = self._new_pool()
                pool.shutdown(wait=False, cancel_futures=True)
            raise Unavailable("a database process ended under this call; try again") from None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
