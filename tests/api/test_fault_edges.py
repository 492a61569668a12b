"""Faults at the edges: reflection v1 and v1alpha, `serve` on an unreachable Redis, the
CLI on an unreachable target, the client's retries of UNAVAILABLE."""

from __future__ import annotations

import subprocess
import sys
import time

import grpc
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from gamehost import Client, GameError
from services.api.reflection import V1_SERVICE_NAME
from tests.procs import free_port


def _v1(name: str):
    """A v1 reflection message class, from the descriptor the server registered."""
    pool = descriptor_pool.Default()
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"grpc.reflection.{name}"))


@pytest.mark.parametrize("version", ["v1", "v1alpha"])
def test_reflection_answers_on_v1_and_v1alpha(server, version):
    request_class = _v1(f"{version}.ServerReflectionRequest")
    response_class = _v1(f"{version}.ServerReflectionResponse")
    with grpc.insecure_channel(server.target) as channel:
        call = channel.stream_stream(
            f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
            request_serializer=request_class.SerializeToString,
            response_deserializer=response_class.FromString,
        )
        requests = [
            request_class(list_services=""),
            request_class(file_containing_symbol="gamehost.v1.GameHost"),
            request_class(file_containing_symbol=V1_SERVICE_NAME),
        ]
        listed, api_file, v1_file = list(call(iter(requests), timeout=10))
    names = {s.name for s in listed.list_services_response.service}
    assert {"gamehost.v1.GameHost", "grpc.health.v1.Health", V1_SERVICE_NAME} <= names
    assert "grpc.reflection.v1alpha.ServerReflection" in names
    files = [
        descriptor_pb2.FileDescriptorProto.FromString(raw)
        for raw in api_file.file_descriptor_response.file_descriptor_proto
    ]
    assert any(s.name == "GameHost" for f in files for s in f.service)
    v1 = descriptor_pb2.FileDescriptorProto.FromString(
        v1_file.file_descriptor_response.file_descriptor_proto[0]
    )
    assert v1.package == "grpc.reflection.v1" and v1.service[0].name == "ServerReflection"


def test_serve_with_unreachable_redis_fails_at_start_with_one_line():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gamehost.cli",
            "serve",
            "--port",
            "0",
            "--redis",
            "redis://127.0.0.1:1/0",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach the store at redis://127.0.0.1:1/0" in lines[0]
    assert "serving" not in done.stdout


@pytest.mark.procs  # the CLI in a process of its own, waiting out its connect deadline
@pytest.mark.parametrize(
    "args",
    [
        ["games"],
        ["selfplay", "cite", "--players", "2", "--seed", "1"],
        ["play", "cite", "--players", "2"],
    ],
    ids=lambda a: a[0],
)
def test_cli_with_unreachable_target_says_so_in_one_line(args):
    target = f"127.0.0.1:{free_port()}"
    done = subprocess.run(
        [sys.executable, "-m", "gamehost.cli", *args, "--target", target],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"no gamehost server answers at {target}" in lines[0], lines


def test_client_retries_unavailable_with_growing_jittered_waits(monkeypatch):
    waits: list[float] = []
    monkeypatch.setattr(time, "sleep", waits.append)  # record the waits, do not take them
    with Client(f"127.0.0.1:{free_port()}", retries=4, backoff=0.1, max_backoff=0.3) as client:
        with pytest.raises(GameError) as caught:
            client.state("0" * 32)
        assert caught.value.code == grpc.StatusCode.UNAVAILABLE
        assert len(waits) == 4
        assert all(0 <= w <= cap for w, cap in zip(waits, [0.1, 0.2, 0.3, 0.3], strict=True))
        waits.clear()
        with pytest.raises(GameError):  # CreateGame is never retried
            client.create_game("cite", ["human", "human"])
        assert waits == []
