"""``gamehost_open_streams`` follows WatchGame streams as they open and close."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from gamehost import Client
from tests.fixtures.metrics import scrape
from tests.procs import wait_until


def open_watch_streams(port: int) -> float:
    for family in text_string_to_metric_families(scrape(port)):
        for sample in family.samples:
            if sample.name == "gamehost_open_streams" and sample.labels == {
                "grpc_method": "WatchGame"
            }:
                return sample.value
    return 0.0


def test_open_streams_gauge_counts_streams(stack):
    port = stack.replica_metrics_port
    wait_until(lambda: open_watch_streams(port) == 0, 10, "no stream open")
    with Client(stack.replica.target) as client:
        game = client.create_game("cite", ["human"] * 3, seed=9).game_id
        streams = [client.watch(game) for _ in range(2)]
        for stream in streams:
            next(stream)  # the stream is open on the server once an event came back
        assert open_watch_streams(port) == 2
        for stream in streams:
            stream.close()
    wait_until(lambda: open_watch_streams(port) == 0, 10, "the streams to close")
