"""Offline checks of the deployment files: every Kubernetes object against the API
schemas (kubernetes-validate, strict), the kustomize overlay rendered, and the
docker-compose file checked by `docker-compose config` (Debian's, which validates it against
the Compose Specification without a Docker daemon) and its structure, all without Docker."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from tests.deploy.conftest import DEPLOY, ROOT
from tests.deploy.manifests import kubectl_kustomize, render
from workers.app import MAX_SEARCH_SECONDS, app

K8S = DEPLOY / "k8s"
KUBERNETES_VERSION = "1.30.0"  # native gRPC probes are GA since 1.27
KEDA = "keda.sh/v1alpha1"  # a CRD: no published schema, checked by hand below


def by_kind(objects: list[dict]) -> dict[tuple[str, str], dict]:
    return {(o["kind"], o["metadata"]["name"]): o for o in objects}


@pytest.fixture(scope="module", params=["base", "overlays/example"])
def rendered(request) -> list[dict]:
    return render(K8S / request.param)


def test_every_object_is_valid_for_the_kubernetes_api(rendered):
    for obj in rendered:
        if obj["apiVersion"] == KEDA:
            continue
        kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)


def test_validation_catches_a_wrong_field(rendered):
    deployment = by_kind(rendered)[("Deployment", "gamehost-replica")]
    broken = {**deployment, "spec": {**deployment["spec"], "replica": 2}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSION, strict=True)


def test_our_renderer_matches_kubectl_kustomize_when_present():
    for directory in (K8S / "base", K8S / "overlays/example"):
        from_kubectl = kubectl_kustomize(directory)
        if from_kubectl is None:
            continue  # no kubectl: our renderer alone (validated above)
        assert by_kind(from_kubectl) == by_kind(render(directory)), directory


def test_replicas_have_native_grpc_probes_and_limits(rendered):
    objects = by_kind(rendered)
    pod = objects[("Deployment", "gamehost-replica")]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["readinessProbe"]["grpc"]["port"] == 50051
    assert container["livenessProbe"]["grpc"]["port"] == 50051
    for name in ("gamehost-replica", "gamehost-worker"):
        for container in objects[("Deployment", name)]["spec"]["template"]["spec"]["containers"]:
            assert {"cpu", "memory"} <= set(container["resources"]["requests"])
            assert {"cpu", "memory"} <= set(container["resources"]["limits"])
    assert objects[("Service", "gamehost-replica-headless")]["spec"]["clusterIP"] == "None"


def test_workers_outlive_the_longest_search(rendered):
    worker = by_kind(rendered)[("Deployment", "gamehost-worker")]
    grace = worker["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    assert grace > app.conf.task_time_limit >= MAX_SEARCH_SECONDS


def test_disruption_budgets_select_the_deployments(rendered):
    objects = by_kind(rendered)
    for name in ("gamehost-replica", "gamehost-worker"):
        labels = objects[("Deployment", name)]["spec"]["template"]["metadata"]["labels"]
        selector = objects[("PodDisruptionBudget", name)]["spec"]["selector"]["matchLabels"]
        assert selector.items() <= labels.items()


def test_keda_scales_the_workers_on_the_celery_queue(rendered):
    objects = by_kind(rendered)
    scaled = objects[("ScaledObject", "gamehost-worker")]
    assert scaled["spec"]["scaleTargetRef"]["name"] == "gamehost-worker"
    (trigger,) = scaled["spec"]["triggers"]
    settings = objects[("ConfigMap", "gamehost-settings")]["data"]
    assert trigger["type"] == "redis"
    assert trigger["metadata"]["listName"] == settings["GAMEHOST_CELERY_QUEUE"]
    assert trigger["metadata"]["addressFromEnv"] in settings
    auth = objects[("TriggerAuthentication", trigger["authenticationRef"]["name"])]
    for ref in auth["spec"]["secretTargetRef"]:
        assert ref["key"] in objects[("Secret", ref["name"])]["stringData"]
    # The prefetch pitfall: queue length is the waiting work only with prefetch 1.
    assert app.conf.worker_prefetch_multiplier == 1 and app.conf.task_acks_late


# --- docker-compose.yml ---------------------------------------------------------

COMPOSE = ROOT / "docker-compose.yml"


def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())  # resolves anchors and << merges


def test_compose_services_are_healthchecked_and_wait_for_health():
    services = compose()["services"]
    assert {"redis", "service-a", "service-b", "worker", "prometheus", "grafana"} <= set(services)
    assert "celery-exporter" in services
    for name, service in services.items():
        assert "healthcheck" in service, f"{name} has no healthcheck"
        for dependency, condition in service.get("depends_on", {}).items():
            assert condition == {"condition": "service_healthy"}, f"{name} -> {dependency}"
            assert "healthcheck" in services[dependency]
    for replica in ("service-a", "service-b"):
        test = services[replica]["healthcheck"]["test"]
        assert test[:4] == ["CMD", "gamehost", "health", "--target"]


def test_compose_redis_persists_and_is_not_published_without_a_password():
    redis = compose()["services"]["redis"]
    command = " ".join(redis["command"])
    assert "--appendonly yes" in command
    assert "--requirepass" in command
    assert "ports" not in redis  # reachable only on the compose network


def test_compose_writes_each_command_once():
    text = COMPOSE.read_text()
    assert text.count("gamehost serve") == 1  # both replicas share an anchor
    services = compose()["services"]
    assert services["service-a"]["command"] == services["service-b"]["command"]


def compose_errors(document: dict, tmp_path: Path) -> str:
    """What ``docker-compose config`` (Debian's docker-compose, installed by
    scripts/test.sh; it validates against the Compose Specification's JSON schema and
    needs no Docker daemon) finds wrong in ``document``: "" when it is valid."""
    written = tmp_path / "docker-compose.yml"
    written.write_text(yaml.safe_dump(document))
    secrets = {"REDIS_PASSWORD": "x", "POSTGRES_PASSWORD": "x", "GRAFANA_ADMIN_PASSWORD": "x"}
    done = subprocess.run(
        ["docker-compose", "--project-directory", str(ROOT), "-f", str(written), "config", "-q"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **secrets},
    )
    return "" if done.returncode == 0 else done.stderr or done.stdout or "invalid"


def test_compose_is_valid_for_the_compose_specification(tmp_path):
    assert compose_errors(compose(), tmp_path) == ""


def test_compose_validation_catches_a_wrong_field(tmp_path):
    document = compose()
    document["services"]["worker"]["restart"] = 5
    errors = compose_errors(document, tmp_path)
    assert "services.worker.restart contains an invalid type" in errors, errors


def test_compose_mounts_and_builds_what_the_checkout_holds():
    """What ``docker compose config`` would refuse beyond the schema: a bind mount or a
    build context that is not in the checkout."""
    services = compose()["services"]
    sources = [
        volume.split(":")[0]
        for service in services.values()
        for volume in service.get("volumes", [])
        if isinstance(volume, str) and volume.startswith(".")
    ]
    sources += [s["build"] for s in services.values() if isinstance(s.get("build"), str)]
    assert sources  # the check can fail: there are local paths to check
    assert [s for s in sources if not (ROOT / s).exists()] == []


def test_dockerfile_runs_unprivileged_with_a_healthcheck():
    text = (ROOT / "Dockerfile").read_text()
    assert "\nUSER " in text and "USER root" not in text
    assert "HEALTHCHECK" in text and 'gamehost", "health' in text
