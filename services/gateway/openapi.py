"""The OpenAPI 3 document of the gateway, built from the route table and the request and
response messages' descriptors (JSON schemas that follow protobuf's JSON mapping).
``python -m services.gateway.openapi`` prints it (docs/openapi.json is that output)."""

from __future__ import annotations

import json
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from services.gateway.binding import NEVER_IN_URLS, TOKEN_FIELDS
from services.gateway.errors import HTTP_STATUS
from services.gateway.routes import ROUTES, SERVICE, Route
from services.gateway.sse import event_name

_INT64 = {FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_SFIXED64}
_UINT64 = {FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64}
_INT32 = {FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SFIXED32}
_UINT32 = {FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32}
_ERROR = {"$ref": "#/components/schemas/Error"}
_TIMESTAMP = "google.protobuf.Timestamp"


def _ref(full_name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{full_name}"}


class _Schemas:
    """Component schemas of every message and enum reachable from the routes."""

    def __init__(self) -> None:
        self.schemas: dict[str, Any] = {}

    def message(self, descriptor: Descriptor) -> dict[str, str]:
        if descriptor.full_name not in self.schemas:
            self.schemas[descriptor.full_name] = {}  # placed first: recursion stops here
            properties = {f.json_name: self.field(f) for f in descriptor.fields}
            schema: dict[str, Any] = {"type": "object", "properties": properties}
            oneofs = [o for o in descriptor.oneofs if not o.name.startswith("_")]
            if oneofs:
                schema["description"] = "; ".join(
                    f"at most one of {', '.join(f.json_name for f in o.fields)} (oneof {o.name})"
                    for o in oneofs
                )
            self.schemas[descriptor.full_name] = schema
        return _ref(descriptor.full_name)

    def enum(self, descriptor: EnumDescriptor) -> dict[str, str]:
        self.schemas.setdefault(
            descriptor.full_name,
            {"type": "string", "enum": [v.name for v in descriptor.values]},
        )
        return _ref(descriptor.full_name)

    def field(self, field: FieldDescriptor) -> dict[str, Any]:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value = field.message_type.fields_by_name["value"]
            return {"type": "object", "additionalProperties": self._single(value)}
        single = self._single(field)
        schema = {"type": "array", "items": single} if field.is_repeated else single
        return {**schema, "deprecated": True} if field.GetOptions().deprecated else schema

    def _single(self, field: FieldDescriptor) -> dict[str, Any]:
        kind = field.type
        if field.message_type is not None and field.message_type.full_name == _TIMESTAMP:
            return {"type": "string", "format": "date-time"}  # protobuf's JSON: RFC 3339
        if field.message_type is not None:
            return self.message(field.message_type)
        if field.enum_type is not None:
            return self.enum(field.enum_type)
        if kind == FieldDescriptor.TYPE_STRING:
            return {"type": "string"}
        if kind == FieldDescriptor.TYPE_BYTES:
            return {"type": "string", "format": "byte"}
        if kind == FieldDescriptor.TYPE_BOOL:
            return {"type": "boolean"}
        if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
            return {"type": "number", "format": "double"}
        if kind in _INT64:
            return {"type": "string", "format": "int64"}
        if kind in _UINT64:
            return {"type": "string", "format": "uint64"}
        if kind in _UINT32:
            return {"type": "integer", "format": "int64", "minimum": 0, "maximum": 2**32 - 1}
        if kind in _INT32:
            return {"type": "integer", "format": "int32"}
        raise ValueError(f"no JSON schema for field type {kind} ({field.full_name})")


def _parameters(route: Route, schemas: _Schemas) -> list[dict[str, Any]]:
    descriptor = route.method.input_type
    bound = set(route.path_fields)
    parameters: list[dict[str, Any]] = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in route.path_fields
    ]
    if route.body != "*":
        for field in descriptor.fields:
            if field.name in bound or field.message_type is not None:
                continue  # nested fields (a.b=) exist but are not listed
            if field.name in NEVER_IN_URLS:
                continue  # refused in a query string: sent as Bearer
            parameters.append(
                {"name": field.json_name, "in": "query", "schema": schemas.field(field)}
            )
    if "after_event_id" in descriptor.fields_by_name:
        parameters.append(
            {
                "name": "Last-Event-ID",
                "in": "header",
                "description": "an EventSource's reconnect: resume after this event id "
                "(wins over afterEventId)",
                "schema": {"type": "string"},
            }
        )
    return parameters


def _operation_id(route: Route, routes: tuple[Route, ...]) -> str:
    """The RPC's name; a second route of the same RPC (GET /v1/bots:connect beside its
    POST) adds its verb, since OpenAPI wants every operationId once."""
    first = next(r for r in routes if r.rpc == route.rpc)
    return route.rpc if first == route else f"{route.rpc}{route.verb.capitalize()}"


def _operation(route: Route, schemas: _Schemas, operation_id: str) -> dict[str, Any]:
    method = route.method
    output = schemas.message(method.output_type)
    if route.ndjson:
        ok = {
            "description": f"NDJSON, streamed: one line per {method.output_type.name}, "
            "the JSON object its `json` field holds (docs/export.md)",
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
        }
    elif route.streaming:
        ok = {
            "description": f"server-sent events: each `event: {event_name(method.output_type)}`"
            f" with `id:` its eventId and `data:` one {method.output_type.name} as JSON; "
            "`event: end` when the stream is complete, `event: rpc-error` (data: an Error) if "
            "it fails after it started; `: keep-alive` comments in between",
            "content": {"text/event-stream": {"schema": output}},
        }
    else:
        ok = {
            "description": method.output_type.name,
            "content": {"application/json": {"schema": output}},
        }
    operation: dict[str, Any] = {
        "operationId": operation_id,
        "summary": f"{SERVICE.full_name}.{method.name} (docs/api.md)",
        "parameters": _parameters(route, schemas),
        "responses": {
            "200": ok,
            "default": {
                "description": "an error",
                "content": {"application/json": {"schema": _ERROR}},
            },
        },
    }
    tokens = [n for n in TOKEN_FIELDS if n in method.input_type.fields_by_name]
    if tokens:  # optional: no token reads as a spectator
        operation["security"] = [{}, {"seatToken": []}, {"apiKey": []}]
    if route.body == "*":
        operation["requestBody"] = {
            "required": False,
            "description": f"a {method.input_type.name} (path fields are taken from the path)",
            "content": {"application/json": {"schema": schemas.message(method.input_type)}},
        }
    else:
        schemas.message(method.input_type)
    return operation


def openapi_document(routes: tuple[Route, ...] = ROUTES) -> dict[str, Any]:
    schemas = _Schemas()
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        paths.setdefault(route.template, {})[route.verb.lower()] = _operation(
            route, schemas, _operation_id(route, routes)
        )
    schemas.schemas["Error"] = {
        "type": "object",
        "description": "every error answer: the gRPC status code's name, a message in the "
        "API's words (JSON field names), and the request field it is about when it is "
        "about one (e.g. gameType, seats[1].botLevel). HTTP statuses (google.api's mapping): "
        + ", ".join(
            f"{code.name} {status}" for code, status in HTTP_STATUS.items() if status != 200
        )
        + "; a known path with another method: 405 (UNIMPLEMENTED)",
        "properties": {
            "error": {
                "type": "object",
                "properties": {
                    "code": {
                        "type": "string",
                        "enum": [c.name for c in HTTP_STATUS if c.name != "OK"],
                    },
                    "message": {"type": "string"},
                    "field": {"type": "string"},
                },
                "required": ["code", "message"],
            }
        },
        "required": ["error"],
    }
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "gamehost HTTP/JSON API",
            "version": "v1",
            "description": "The gamehost.v1.GameHost gRPC service over HTTP/JSON "
            "(google.api.http conventions, protobuf JSON mapping, server-sent events "
            "for streams). See docs/http-api.md.",
        },
        "paths": paths,
        "security": [{}, {"apiKey": []}],  # keys are needed only where the server says so
        "components": {
            "schemas": dict(sorted(schemas.schemas.items())),
            "securitySchemes": {
                "seatToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "a seat token (JoinGame), or an entrant token "
                    "(JoinTournament); or the token / entrantToken field",
                },
                "apiKey": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
            },
        },
    }


if __name__ == "__main__":
    print(json.dumps(openapi_document(), indent=1, sort_keys=False))
