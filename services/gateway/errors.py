"""gRPC status codes as HTTP statuses (the google.rpc / grpc-gateway table), and the one
JSON shape of every error answer: ``{"code": 5, "status": "NOT_FOUND", "message": ...}``."""

from __future__ import annotations

import json

import grpc

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


def error_body(code: grpc.StatusCode, message: str) -> dict:
    return {"code": code.value[0], "status": code.name, "message": message}


def error_json(code: grpc.StatusCode, message: str) -> str:
    return json.dumps(error_body(code, message))
