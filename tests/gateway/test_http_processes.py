"""``gamehost serve --processes 2 --http-port N``: every serving process listens on the
shared HTTP port (SO_REUSEPORT, as for gRPC), and a stream served by either process
sees moves made through the other."""

from __future__ import annotations

from gamehost import Client
from tests.fixtures.http_client import Http
from tests.procs import Replica, free_port, wait_until

STREAMS = 6


def test_each_process_serves_http_on_the_shared_port(tmp_path, redis_url, redis_prefix):
    http_port = free_port()
    replica = Replica(
        tmp_path / "replica.log",
        ["--redis", redis_url, "--redis-prefix", redis_prefix, "--processes", "2"]
        + ["--bot-workers", "1", "--http-port", str(http_port)],
    )
    base = f"http://127.0.0.1:{http_port}"
    try:
        replica.start().wait_serving()
        wait_until(
            lambda: replica.output().count(f"HTTP API on {base}/") == 2,
            30,
            "both processes to listen on the HTTP port",
        )
        clients = [Http(base) for _ in range(STREAMS)]  # a connection each: the kernel spreads them
        created = (
            clients[0]
            .post("/v1/games", {"gameType": "cite", "seats": [{"kind": "HUMAN"}] * 2, "seed": "9"})
            .json()
        )
        game_id = created["gameId"]
        newest = int(created["state"]["lastEventId"])
        streams = [c.stream(f"/v1/games/{game_id}/events?afterEventId={newest}") for c in clients]
        assert all(s.status == 200 for s in streams)
        with Client(replica.target) as grpc_client:
            joined = grpc_client.join(game_id, seat=0)
        for stream in streams:
            event = stream.events("game-event", 1)[0].json()
            assert event["kind"] == "SEAT_JOINED" and event["actor"]["seat"] == joined.seat
            stream.close()
        for client in clients:
            client.close()
    finally:
        replica.kill_group()
