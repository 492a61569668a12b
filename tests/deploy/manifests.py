"""Rendering the kustomize overlay without a cluster: ``kubectl kustomize`` when kubectl
is installed, else a small renderer for the features deploy/k8s uses (resources,
namespace, images, strategic-merge patches of maps, common labels)."""

from __future__ import annotations

import copy
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml


def kubectl_kustomize(directory: Path) -> list[dict[str, Any]] | None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        return None
    done = subprocess.run(
        [kubectl, "kustomize", str(directory)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


def _merge(base: dict, patch: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _load(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def render(directory: Path) -> list[dict[str, Any]]:
    """The objects a kustomization produces (the subset of kustomize deploy/k8s uses)."""
    spec = yaml.safe_load((directory / "kustomization.yaml").read_text())
    known = {"apiVersion", "kind", "resources", "namespace", "images", "patches", "labels"}
    assert set(spec) <= known, f"renderer does not know {set(spec) - known}"
    objects: list[dict[str, Any]] = []
    for entry in spec.get("resources", []):
        path = directory / entry
        objects += render(path) if path.is_dir() else _load(path)
    for patch_entry in spec.get("patches", []):
        for patch in _load(directory / patch_entry["path"]):
            key = (patch["kind"], patch["metadata"]["name"])
            targets = [o for o in objects if (o["kind"], o["metadata"]["name"]) == key]
            assert targets, f"patch {patch_entry['path']} matches nothing"
            for target in targets:
                objects[objects.index(target)] = _merge(target, patch)
    for label_set in spec.get("labels", []):
        for obj in objects:
            obj["metadata"].setdefault("labels", {}).update(label_set["pairs"])
    for obj in objects:
        if "namespace" in spec and obj["kind"] != "Namespace":
            obj["metadata"]["namespace"] = spec["namespace"]
        for image in spec.get("images", []):
            pod = obj.get("spec", {}).get("template", {}).get("spec", {})
            for container in pod.get("containers", []):
                name, _, _ = container["image"].partition(":")
                if name == image["name"]:
                    container["image"] = f"{image['newName']}:{image['newTag']}"
    return objects
