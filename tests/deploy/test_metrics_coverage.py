"""Every metric the dashboard and the alert rules read exists in real scrapes: a
replica's and a Celery worker's (prefork, multiprocess mode), after traffic."""

from __future__ import annotations

import json

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from gamehost import Client, GameError
from tests.deploy.conftest import DEPLOY, wait_for_names
from tests.deploy.promql import metric_names
from tests.fixtures.metrics import scrape

# Series that gamehost does not export: Prometheus's own, and the Celery exporter's
# (danihodovic/celery-exporter, in docker-compose.yml and deploy/k8s).
FROM_PROMETHEUS = {"up"}
FROM_CELERY_EXPORTER = {
    "celery_queue_length",
    "celery_task_succeeded_total",
    "celery_task_failed_total",
}
# Recorded where bot turns run: on the workers.
WORKER_PREFIXES = ("gamehost_bot_turn_phase_seconds", "gamehost_bot_decisions_total")


def dashboard_exprs() -> list[str]:
    dashboard = json.loads((DEPLOY / "grafana/dashboards/gamehost.json").read_text())
    return [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]


def alert_exprs() -> list[str]:
    rules = yaml.safe_load((DEPLOY / "prometheus/alerts.yml").read_text())
    return [r["expr"] for g in rules["groups"] for r in g["rules"]]


def used_names() -> set[str]:
    return {name for expr in dashboard_exprs() + alert_exprs() for name in metric_names(expr)}


def test_the_files_use_the_names_this_test_knows():
    names = used_names()
    assert {"grpc_server_handled_total", "gamehost_store_up"} <= names
    assert names & FROM_CELERY_EXPORTER <= FROM_CELERY_EXPORTER
    unknown = {n for n in names if n.startswith("celery_")} - FROM_CELERY_EXPORTER
    assert not unknown, f"celery-exporter metrics not listed here: {unknown}"


def test_every_used_metric_is_exported(stack):
    names = used_names() - FROM_PROMETHEUS - FROM_CELERY_EXPORTER
    on_worker = {n for n in names if n.startswith(WORKER_PREFIXES)}
    on_replica = names - on_worker
    replica_seen = wait_for_names(stack.replica_metrics_port, on_replica)
    worker_seen = wait_for_names(stack.worker_metrics_port, on_worker)
    assert on_replica - replica_seen == set(), "missing on the replica"
    assert on_worker - worker_seen == set(), "missing on the worker"


def samples(text: str, name: str) -> list[dict[str, str]]:
    """The label sets of every sample called ``name`` in a scrape."""
    return [
        sample.labels
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name
    ]


def test_grpc_metrics_carry_codes_and_types(stack):
    with Client(stack.replica.target) as client, pytest.raises(GameError) as refused:
        client.state("no-such-game")
    text = scrape(stack.replica_metrics_port)
    handled = samples(text, "grpc_server_handled_total")
    service = "gamehost.v1.GameHost"
    assert {
        "grpc_type": "unary",
        "grpc_service": service,
        "grpc_method": "GetState",
        "grpc_code": refused.value.code.name,  # the status the client saw
    } in handled
    assert any(
        s["grpc_method"] == "WatchGame" and s["grpc_type"] == "server_stream" for s in handled
    )
    assert {"grpc_type": "unary", "grpc_service": service, "grpc_method": "CreateGame"} in (
        samples(text, "grpc_server_started_total")
    )


def test_the_worker_records_every_bot_turn_phase(stack):
    wait_for_names(stack.worker_metrics_port, {"gamehost_bot_turn_phase_seconds_count"})
    text = scrape(stack.worker_metrics_port)
    for phase in ("queue", "search", "commit"):
        assert f'phase="{phase}"' in text, f"no {phase} phase in the worker's scrape"
