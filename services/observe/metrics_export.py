"""Serving Prometheus metrics over HTTP, in one process or for a process group.

With ``PROMETHEUS_MULTIPROC_DIR`` set, every process of a group (``gamehost serve
--processes N``, a prefork Celery worker) writes its samples to files in that
directory and one exporter, in the group's main process, aggregates them: one
scrape endpoint per process group. The variable must be set before
``prometheus_client`` is first imported, so the CLI sets it before importing
anything that defines metrics.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def prepare_multiprocess_dir() -> Path:
    """Use ``$PROMETHEUS_MULTIPROC_DIR`` (made empty) or a new temporary directory, and
    export it to this process and its children. Call before importing prometheus_client."""
    given = os.environ.get(MULTIPROC_ENV)
    if given:
        directory = Path(given)
        directory.mkdir(parents=True, exist_ok=True)
        for stale in directory.glob("*.db"):  # a previous run's samples would add up
            stale.unlink()
    else:
        directory = Path(tempfile.mkdtemp(prefix="gamehost-metrics-"))
        atexit.register(shutil.rmtree, directory, ignore_errors=True)
    os.environ[MULTIPROC_ENV] = str(directory)
    return directory


def start_metrics_server(port: int, addr: str = "127.0.0.1") -> None:
    """Serve /metrics on ``port``: this process's registry, or the whole process group's
    when ``PROMETHEUS_MULTIPROC_DIR`` is set."""
    from prometheus_client import REGISTRY, CollectorRegistry, start_http_server
    from prometheus_client.multiprocess import MultiProcessCollector

    registry = REGISTRY
    if os.environ.get(MULTIPROC_ENV):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
    start_http_server(port, addr=addr, registry=registry)


def mark_process_dead(pid: int) -> None:
    """Drop a finished process's live gauges (multiprocess mode only)."""
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)
