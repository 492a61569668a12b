"""``gamehost serve --processes 2 --metrics-port``: one endpoint for the process group,
counting the calls of both processes (PROMETHEUS_MULTIPROC_DIR)."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from gamehost import Client
from tests.fixtures.metrics import scrape
from tests.procs import RedisServer, Replica, free_port, wait_until

GAMES = 6


def created_games_counted(port: int) -> float:
    total = 0.0
    for family in text_string_to_metric_families(scrape(port)):
        for sample in family.samples:
            if (
                sample.name == "grpc_server_handled_total"
                and sample.labels.get("grpc_method") == "CreateGame"
            ):
                total += sample.value
    return total


def test_one_endpoint_sums_the_process_group(tmp_path):
    redis = RedisServer(tmp_path / "redis").start()
    metrics_port = free_port()
    samples_dir = tmp_path / "metrics"
    (samples_dir).mkdir()
    (samples_dir / "counter_999999.db").write_bytes(b"stale")  # a previous run's: removed
    replica = Replica(
        tmp_path / "replica.log",
        ["--redis", redis.url, "--processes", "2", "--bot-workers", "1"]
        + ["--metrics-port", str(metrics_port)],
        env={"PROMETHEUS_MULTIPROC_DIR": str(samples_dir)},
    )
    try:
        replica.start().wait_serving()
        for seed in range(GAMES):  # a connection each: the kernel spreads them
            with Client(replica.target) as client:
                client.create_game("cite", ["human"] * 3, seed=seed)
        wait_until(
            lambda: created_games_counted(metrics_port) == GAMES, 20, "the group's CreateGame count"
        )
        # Each serving process wrote its own samples (the parent only aggregates them).
        assert not (samples_dir / "counter_999999.db").exists()
        writers = {path.stem.rsplit("_", 1)[-1] for path in samples_dir.glob("counter_*.db")}
        assert len(writers) >= 2, writers
    finally:
        replica.kill_group()
        redis.stop()
