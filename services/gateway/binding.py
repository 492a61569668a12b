"""From an HTTP request to the RPC's request message, as google.api.http binds it:
path variables, then a JSON body (``body: "*"``) or the query string, then the
headers a browser can send (``Authorization: Bearer``, ``Last-Event-ID``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from services.gateway.routes import Route

MAX_BODY = 1 << 20  # bytes; every field is capped far below this (services/request_limits.py)
# What a Bearer token fills: the first of these fields the request has.
TOKEN_FIELDS = ("token", "entrant_token", "creator_token")
_RESUME_FIELD = "after_event_id"  # what Last-Event-ID fills (an EventSource reconnect)
_QUOTE = 200  # characters of a parser's message kept (it may quote the input)


class BadRequest(Exception):
    """The HTTP request cannot be read as the RPC's request (answered INVALID_ARGUMENT)."""


def bind(
    route: Route,
    message: Message,
    path_values: Mapping[str, str],
    query: Iterable[tuple[str, str]],
    body: bytes,
    headers: Mapping[str, str],
) -> None:
    """Fill ``message`` (an empty request of ``route``'s RPC) or raise BadRequest."""
    descriptor = message.DESCRIPTOR
    fields = _body_fields(descriptor, body) if route.body == "*" else {}
    if route.body == "*" and list(query):
        raise BadRequest("this route takes its fields from the JSON body, not the query string")
    if route.body != "*":
        fields = _query_fields(descriptor, query)
    for name, value in path_values.items():
        _drop(fields, descriptor.fields_by_name[name])
        fields[name] = value
    _bind_headers(descriptor, fields, headers)
    try:
        json_format.ParseDict(fields, message, ignore_unknown_fields=False)
    except (json_format.ParseError, ValueError, TypeError, RecursionError) as exc:
        raise BadRequest(f"{descriptor.name}: {_short(exc)}") from None


def _body_fields(descriptor: Descriptor, body: bytes) -> dict[str, Any]:
    if not body.strip():
        return {}
    try:
        fields = json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise BadRequest(f"the body is not valid JSON ({_short(exc)})") from None
    if not isinstance(fields, dict):
        raise BadRequest(f"the body must be a JSON object (a {descriptor.name})")
    return fields


def _query_fields(descriptor: Descriptor, query: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """``?afterEventId=5&token=...`` as a JSON-mapping dict; ``a.b=`` sets a nested field,
    a repeated parameter sets a repeated field."""
    fields: dict[str, Any] = {}
    for key, text in query:
        target, inner = fields, descriptor
        parts = key.split(".")
        for depth, part in enumerate(parts):
            field = _field(inner, part)
            if field is None:
                raise BadRequest(f"unknown query parameter {key[:64]!r} for {descriptor.name}")
            if depth < len(parts) - 1:
                if field.message_type is None or field.is_repeated:
                    raise BadRequest(f"query parameter {key[:64]!r}: {part} has no fields")
                target = target.setdefault(field.name, {})
                inner = field.message_type
                continue
            if field.message_type is not None:
                raise BadRequest(f"query parameter {key[:64]!r} is a message: send it in a body")
            value = _scalar(field, text)
            if field.is_repeated:
                target.setdefault(field.name, []).append(value)
            else:
                target[field.name] = value
    return fields


def _field(descriptor: Descriptor, name: str) -> FieldDescriptor | None:
    field = descriptor.fields_by_name.get(name)
    if field is not None:
        return field
    return next((f for f in descriptor.fields if f.json_name == name), None)


def _scalar(field: FieldDescriptor, text: str) -> Any:
    """A query string value as the JSON mapping spells it (numbers stay strings: the
    JSON parser reads strings for every integer type, and checks their range)."""
    if field.type == FieldDescriptor.TYPE_BOOL:
        if text.lower() in ("true", "1", ""):
            return True
        if text.lower() in ("false", "0"):
            return False
        raise BadRequest(f"{field.json_name} is true or false, not {text[:20]!r}")
    if field.type == FieldDescriptor.TYPE_ENUM and text.lstrip("-").isdigit():
        return int(text)
    return text


def _drop(fields: dict[str, Any], field: FieldDescriptor) -> None:
    """A path variable wins over the same field in the body."""
    fields.pop(field.name, None)
    fields.pop(field.json_name, None)


def _bind_headers(descriptor: Descriptor, fields: dict[str, Any], headers: Mapping[str, str]):
    scheme, _, credential = headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and credential.strip():
        for name in TOKEN_FIELDS:
            field = descriptor.fields_by_name.get(name)
            if field is not None:
                if name not in fields and field.json_name not in fields:
                    fields[name] = credential.strip()
                break
    resume = headers.get("Last-Event-ID", "").strip()
    field = descriptor.fields_by_name.get(_RESUME_FIELD)
    if resume and field is not None:
        # An EventSource reconnects to the same URL: the header (the last event it saw)
        # wins over the ?afterEventId= it first asked for.
        _drop(fields, field)
        fields[_RESUME_FIELD] = resume


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= _QUOTE else text[:_QUOTE] + "..."
