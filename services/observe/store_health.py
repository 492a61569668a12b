"""Store reachability: a check at start-up and a monitor that drives the gRPC health
status, so load balancers stop sending calls while the store cannot answer them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence

from grpc_health.v1 import health, health_pb2

from services import metrics
from services.errors import infrastructure_errors
from services.stores import Deployment

log = logging.getLogger(__name__)

PING_TIMEOUT = 2.0


class StoreUnreachable(Exception):
    """The store did not answer at start-up; the message is one line for the operator."""


async def check_store(store: Deployment, where: str) -> None:
    """Raise StoreUnreachable unless ``store`` answers a ping within PING_TIMEOUT."""
    try:
        await asyncio.wait_for(store.ping(), PING_TIMEOUT)
    except (TimeoutError, *infrastructure_errors(), OSError) as exc:
        detail = str(exc) or type(exc).__name__
        raise StoreUnreachable(f"cannot reach the store at {where}: {detail}") from None


class StoreMonitor:
    """Pings the store every ``interval`` seconds; sets ``names`` NOT_SERVING while it
    does not answer and SERVING again once it does, and sets ``gamehost_store_up``."""

    def __init__(
        self,
        store: Deployment,
        servicer: health.aio.HealthServicer,
        names: Sequence[str],
        interval: float = 1.0,
    ) -> None:
        self.store = store
        self.servicer = servicer
        self.names = list(names)
        self.interval = interval
        self.serving = True
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        metrics.STORE_UP.set(1)  # the start-up check has just seen it answer
        self._task = asyncio.create_task(self._run(), name="store health monitor")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await asyncio.wait_for(self.store.ping(), PING_TIMEOUT)
                up = True
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # any failure to answer means "not serving"
                if self.serving:
                    log.warning("store unreachable, health NOT_SERVING: %r", exc)
                up = False
            metrics.STORE_UP.set(1 if up else 0)
            if up != self.serving:
                if up:
                    log.warning("store reachable again, health SERVING")
                await self._set(up)

    async def _set(self, up: bool) -> None:
        self.serving = up
        status = (
            health_pb2.HealthCheckResponse.SERVING
            if up
            else health_pb2.HealthCheckResponse.NOT_SERVING
        )
        for name in self.names:
            await self.servicer.set(name, status)
