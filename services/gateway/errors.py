"""gRPC status codes as HTTP statuses (google.api's mapping, google/rpc/code.proto), and
the one JSON shape of every error answer:
``{"error": {"code": "NOT_FOUND", "message": "...", "field": "gameId"}}``.

The HTTP API speaks protobuf's JSON names (lowerCamelCase), so every request field name
in a message (``game_type``, ``seats[1].bot_level``) is written in its JSON spelling."""

from __future__ import annotations

import re

import grpc
from google.protobuf.descriptor import Descriptor

from gamehost.v1 import gamehost_pb2 as pb

HTTP_STATUS = {
    grpc.StatusCode.OK: 200,
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
    grpc.StatusCode.UNAUTHENTICATED: 401,
}


def _json_names(messages: list[Descriptor]) -> dict[str, str]:
    """proto name -> JSON name of every field of gamehost.proto's messages that has
    two spellings (the per-game views' fields never appear in error messages)."""
    names: dict[str, str] = {}
    todo = list(messages)
    while todo:
        descriptor = todo.pop()
        todo.extend(descriptor.nested_types)
        for field in descriptor.fields:
            if field.name != field.json_name:
                names[field.name] = field.json_name
    return names


_JSON_NAMES = _json_names(list(pb.DESCRIPTOR.message_types_by_name.values()))
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


def json_spelling(text: str) -> str:
    """``text`` with every request or response field name in its JSON spelling. Other
    words stay as they are: game option keys (``turn_limit``) are map keys, which the
    JSON mapping keeps as sent, and custom level parameters are part of a level string."""
    return _SNAKE.sub(lambda found: _JSON_NAMES.get(found.group(0), found.group(0)), text)


def error_body(code: grpc.StatusCode, message: str, field: str = "") -> dict:
    """``field``: the request field the error is about (a path such as
    ``seats[1].botLevel``), when it is about one; absent otherwise."""
    error = {"code": code.name, "message": json_spelling(message)}
    if field:
        error["field"] = json_spelling(field)
    return {"error": error}
