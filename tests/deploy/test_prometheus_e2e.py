"""A real Prometheus scrapes a running replica; a series comes back through its API."""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.parse
import urllib.request

import yaml

from tests.procs import free_port, wait_until


def query(port: int, promql: str) -> list[dict]:
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
    try:
        with urllib.request.urlopen(url, timeout=2) as reply:
            return json.load(reply)["data"]["result"]
    except OSError:
        return []  # not listening yet


def test_prometheus_scrapes_a_replica(stack, tmp_path):
    binary = shutil.which("prometheus")
    assert binary, "prometheus is missing: scripts/test.sh installs it (apt-get install prometheus)"
    config = {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "scrape_configs": [
            {
                "job_name": "gamehost",
                "static_configs": [{"targets": [f"127.0.0.1:{stack.replica_metrics_port}"]}],
            }
        ],
    }
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
    port = free_port()
    log = open(tmp_path / "prometheus.log", "wb")  # noqa: SIM115 (closed below)
    process = subprocess.Popen(
        [
            binary,
            f"--config.file={tmp_path / 'prometheus.yml'}",
            f"--storage.tsdb.path={tmp_path / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        promql = 'grpc_server_handled_total{job="gamehost",grpc_method="CreateGame",grpc_code="OK"}'
        result = wait_until(lambda: query(port, promql), 30, "Prometheus to return the series")
        assert float(result[0]["value"][1]) >= 2  # the traffic created two games
        up = query(port, 'up{job="gamehost"}')
        assert up and up[0]["value"][1] == "1"
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()
