"""Health checking, reflection, game catalogue, listing, metrics."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from prometheus_client import REGISTRY

from gamehost.v1 import gamehost_pb2 as pb


def test_health_reports_serving(server):
    with grpc.insecure_channel(server.target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for service in ("", "gamehost.v1.GameHost"):
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_the_api(server):
    with grpc.insecure_channel(server.target) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        reply = next(stub.ServerReflectionInfo(iter([request]), timeout=10))
        names = {s.name for s in reply.list_services_response.service}
        assert "gamehost.v1.GameHost" in names and "grpc.health.v1.Health" in names


def test_game_types_and_levels(client):
    reply = client.game_types()
    cite = next(g for g in reply.game_types if g.name == "cite")
    assert (cite.min_players, cite.max_players) == (2, 6)
    assert cite.default_options["round_limit"] == "60"
    assert "random" in reply.bot_levels


def test_list_games_shows_free_seats(client):
    created = client.create_game("cite", ["human", "human", "bot:random"], seed=1)
    client.join(created.game_id)
    summary = next(g for g in client.list_games() if g.game_id == created.game_id)
    assert summary.players == 3 and summary.free_seats == 1
    assert summary.status == pb.IN_PROGRESS


def test_seed_never_reaches_clients(client):
    created = client.create_game("cite", ["human", "human"], seed=987654321)
    me = client.join(created.game_id)
    payloads = [
        created.SerializeToString(),
        client.state(created.game_id, me.token).SerializeToString(),
        client.record(created.game_id, me.token).SerializeToString(),
    ]
    for blob in payloads:
        assert b"987654321" not in blob
        assert (987654321).to_bytes(8, "little").rstrip(b"\0") not in blob


def test_metrics_count_actions(client):
    before = REGISTRY.get_sample_value("gamehost_actions_total", {"game": "cite"}) or 0
    created = client.create_game("cite", ["human", "human"], seed=2)
    me = client.join(created.game_id)
    client.submit(created.game_id, me.token, client.legal_actions(created.game_id, me.token)[0].id)
    after = REGISTRY.get_sample_value("gamehost_actions_total", {"game": "cite"})
    assert after == before + 1
