"""Running Locust users in steps and reading what they and the servers measured.

Latencies are kept raw per RPC name for each step's measuring window (Locust's own
statistics round them), and the servers' histograms are read from their metrics
endpoints, as Prometheus would."""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import gevent
from locust.env import Environment

from loadtest.grpc_user import GrpcUser
from loadtest.parts import process_cpu_seconds


@dataclass
class Window:
    """One RPC name's calls in one measuring window."""

    latencies_ms: list[float] = field(default_factory=list)
    failures: int = 0


class Collector:
    """Raw latencies per RPC name, since the last ``reset``."""

    def __init__(self, environment: Environment) -> None:
        self.windows: dict[str, Window] = defaultdict(Window)
        environment.events.request.add_listener(self._on_request)

    def _on_request(self, name: str, response_time: float, exception: Any = None, **_: Any):
        window = self.windows[name]
        if exception is None:
            window.latencies_ms.append(response_time)
        else:
            window.failures += 1

    def reset(self) -> None:
        self.windows = defaultdict(Window)

    def take(self) -> dict[str, Window]:
        taken, self.windows = self.windows, defaultdict(Window)
        return dict(taken)


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


@dataclass
class Step:
    users: int
    seconds: float
    name: str  # the RPC this step is about
    calls: int
    failures: int
    p50_ms: float
    p99_ms: float
    harness_cpu: float = math.nan  # the harness process's CPU time / wall time (1.0: one core)
    server_cpu: float = math.nan  # the loaded server processes' CPU time / wall time
    redis_cpu: float = math.nan  # Redis's CPU time / wall time

    @property
    def per_second(self) -> float:
        return self.calls / self.seconds


def summary(users: int, seconds: float, name: str, window: Window | None) -> Step:
    window = window or Window()
    lat = window.latencies_ms
    return Step(
        users, seconds, name, len(lat), window.failures, percentile(lat, 50), percentile(lat, 99)
    )


class CpuMeter:
    """CPU time (seconds, every thread) of the loaded server processes and of Redis,
    so a step shows which part ran out of CPU first."""

    def __init__(self, pids: Iterable[int], redis_cpu: Callable[[], float]) -> None:
        self._pids = list(pids)
        self._redis_cpu = redis_cpu

    def read(self) -> tuple[float, float]:
        return sum(process_cpu_seconds(pid) for pid in self._pids), self._redis_cpu()


def ramp(
    user_class: type,
    steps: Iterable[int],
    warmup: float,
    seconds: float,
    name: str,
    meter: CpuMeter | None = None,
) -> list[Step]:
    """Step the users of ``user_class`` up through ``steps``; after each step's warm-up,
    measure ``name``'s calls for ``seconds`` (and, with ``meter``, the servers' CPU)."""
    environment = Environment(user_classes=[user_class])
    collector = Collector(environment)
    runner = environment.create_local_runner()
    out = []
    try:
        for users in steps:
            runner.start(users, spawn_rate=min(max(users, 1) * 10, 100))
            gevent.sleep(warmup)  # users starting and the servers' caches filling
            collector.reset()
            cpu = time.process_time()
            servers = meter.read() if meter is not None else None
            gevent.sleep(seconds)  # the measuring window itself
            step = summary(users, seconds, name, collector.take().get(name))
            step.harness_cpu = (time.process_time() - cpu) / seconds
            if servers is not None:
                after = meter.read()
                step.server_cpu = (after[0] - servers[0]) / seconds
                step.redis_cpu = (after[1] - servers[1]) / seconds
            out.append(step)
    finally:
        runner.quit()
        GrpcUser.close_channels()
    return out


def mixed(
    user_classes: list[type],
    warmup: float,
    seconds: float,
    sample: Callable[[], None],
    every: float = 1.0,
    harness_cpu: list[float] | None = None,
) -> dict[str, Window]:
    """Run every class at once (each with its ``fixed_count``) and call ``sample``
    every ``every`` seconds while measuring; returns the calls by RPC name (and puts
    the harness's CPU share of the window in ``harness_cpu[0]``)."""
    harness_cpu = harness_cpu if harness_cpu is not None else [0.0]
    environment = Environment(user_classes=user_classes)
    collector = Collector(environment)
    runner = environment.create_local_runner()
    total = sum(c.fixed_count for c in user_classes)
    try:
        runner.start(total, spawn_rate=max(total / max(warmup, 1), 1))
        gevent.sleep(warmup)
        collector.reset()
        cpu = time.process_time()
        ticks = max(1, round(seconds / every))
        for _ in range(ticks):
            gevent.sleep(seconds / ticks)  # the measuring window, in sampling ticks
            sample()
        harness_cpu[0] = (time.process_time() - cpu) / seconds
        return collector.take()
    finally:
        runner.quit()
        GrpcUser.close_channels()


# Server metrics: loadtest.scrape (no gevent there, so other benchmarks use it too).
from loadtest.scrape import (  # noqa: E402, F401  (re-exported for the harness)
    bucket_delta,
    buckets,
    gauge_sum,
    histogram_quantile,
    samples,
)
