"""From an HTTP request to the RPC's request message, as google.api.http binds it:
path variables, then a JSON body (``body: "*"``) or the query string, then the
headers a browser can send (``Authorization: Bearer``, ``Last-Event-ID``)."""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from services.gateway.routes import Route
from services.limits.access import bearer_of

MAX_BODY = (
    1 << 20
)  # bytes; every field is capped far below this (services/limits/request_limits.py)
# What a Bearer token fills: the first of these fields the request has.
TOKEN_FIELDS = ("token", "entrant_token", "creator_token", "key")
# Fields refused in a query string: a bot's key is a lasting secret (a seat token dies
# with its game), and proxies and access logs keep URLs. A browser streams with fetch.
NEVER_IN_URLS = frozenset({"key"})
_RESUME_FIELD = "after_event_id"  # what Last-Event-ID fills (an EventSource reconnect)
_QUOTE = 40  # characters of a client's value quoted in a message


class BadRequest(Exception):
    """The HTTP request cannot be read as the RPC's request (answered INVALID_ARGUMENT);
    ``field``: the field it is about (its JSON name or path), when it is about one."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


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
    for name, value in route.fixed:
        _drop(fields, descriptor.fields_by_name[name])
        fields[name] = value
    _bind_headers(descriptor, fields, headers)
    check_fields(descriptor, fields)
    try:
        json_format.ParseDict(fields, message, ignore_unknown_fields=False)
    except (json_format.ParseError, ValueError, TypeError, RecursionError):
        # check_fields reads what ParseDict reads; should they ever disagree, the
        # parser's own text (Python's words) still never reaches the client.
        raise BadRequest(f"the request is not a valid {descriptor.name}") from None


def _body_fields(descriptor: Descriptor, body: bytes) -> dict[str, Any]:
    if not body.strip():
        return {}
    try:
        fields = json.loads(body)
    except UnicodeDecodeError:
        raise BadRequest("the body is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise BadRequest(
            f"the body is not valid JSON: {exc.msg.lower()} at line {exc.lineno} column {exc.colno}"
        ) from None
    except (ValueError, RecursionError):
        raise BadRequest("the body is not valid JSON (or nested too deeply)") from None
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
                raise BadRequest(
                    f"unknown query parameter; {inner.name} has {_names(inner)}", key[:64]
                )
            if field.name in NEVER_IN_URLS:
                raise BadRequest(
                    "a bot key is never sent in a URL (proxies and logs keep URLs): send it "
                    "as the header 'Authorization: Bearer <key>'",
                    field.json_name,
                )
            if depth < len(parts) - 1:
                if field.message_type is None or field.is_repeated:
                    raise BadRequest(f"{field.json_name} has no fields", key[:64])
                target = target.setdefault(field.name, {})
                inner = field.message_type
                continue
            if field.message_type is not None:
                raise BadRequest("an object: send it in a JSON body", key[:64])
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
        raise BadRequest(f"expected true or false, got {_quote(text)}", field.json_name)
    if field.type == FieldDescriptor.TYPE_ENUM and text.lstrip("-").isdigit():
        return int(text)
    return text


def _drop(fields: dict[str, Any], field: FieldDescriptor) -> None:
    """A path variable wins over the same field in the body."""
    fields.pop(field.name, None)
    fields.pop(field.json_name, None)


def _bind_headers(descriptor: Descriptor, fields: dict[str, Any], headers: Mapping[str, str]):
    credential = bearer_of(headers.get("Authorization", ""))
    if credential:
        for name in TOKEN_FIELDS:
            field = descriptor.fields_by_name.get(name)
            if field is not None:
                if name not in fields and field.json_name not in fields:
                    fields[name] = credential
                break
    resume = headers.get("Last-Event-ID", "").strip()
    field = descriptor.fields_by_name.get(_RESUME_FIELD)
    if resume and field is not None:
        # An EventSource reconnects to the same URL: the header (the last event it saw)
        # wins over the ?afterEventId= it first asked for.
        _drop(fields, field)
        fields[_RESUME_FIELD] = resume


# ---------------------------------------------------------------------- checking values
# What json_format.ParseDict accepts, checked first so that a refusal names the field
# in the API's spelling and says what it takes, in words a client developer reads.
_INTEGERS = {
    FieldDescriptor.TYPE_INT32: ("a 32-bit integer", -(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: ("a 32-bit integer", -(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: ("a 32-bit integer", -(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_UINT32: ("an unsigned 32-bit integer", 0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: ("an unsigned 32-bit integer", 0, 2**32 - 1),
    FieldDescriptor.TYPE_INT64: ("a 64-bit integer", -(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: ("a 64-bit integer", -(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: ("a 64-bit integer", -(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: ("an unsigned 64-bit integer", 0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: ("an unsigned 64-bit integer", 0, 2**64 - 1),
}
_FLOATS = {FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT}
_FLOAT_WORDS = {"NaN", "Infinity", "-Infinity"}
_DIGITS = re.compile(r"-?[0-9]+")


def check_fields(descriptor: Descriptor, fields: Any, path: str = "") -> None:
    """Raise BadRequest for the first value ``json_format.ParseDict`` would refuse."""
    if not isinstance(fields, dict):
        raise BadRequest(f"expected an object (a {descriptor.name}), got {_quote(fields)}", path)
    seen: dict[str, str] = {}  # proto name -> the key it was sent as
    chosen: dict[str, str] = {}  # oneof name -> the member sent (not null)
    for key, value in fields.items():
        field = _field(descriptor, key) if isinstance(key, str) else None
        where = f"{path}.{key}" if path else str(key)
        if field is None:
            raise BadRequest(
                f"not a field of {descriptor.name}, which has {_names(descriptor)}",
                where,
            )
        where = f"{path}.{field.json_name}" if path else field.json_name
        if field.name in seen:
            raise BadRequest(f"sent twice (as {seen[field.name]} and {key})", where)
        seen[field.name] = key
        oneof = field.containing_oneof
        if oneof is not None and not oneof.name.startswith("_") and value is not None:
            if oneof.name in chosen:
                members = ", ".join(f.json_name for f in oneof.fields)
                raise BadRequest(f"send only one of {members}", where)
            chosen[oneof.name] = field.json_name
        if value is None:
            continue  # null: the field's default
        _check_field(field, value, where)


def _check_field(field: FieldDescriptor, value: Any, where: str) -> None:
    entry = field.message_type
    if entry is not None and entry.GetOptions().map_entry:
        if not isinstance(value, dict):
            values = _kind(entry.fields_by_name["value"])
            raise BadRequest(f"expected an object (a map of {values}), got {_quote(value)}", where)
        for key, item in value.items():
            _check_single(entry.fields_by_name["value"], item, f"{where}.{key}")
        return
    if field.is_repeated:
        if not isinstance(value, list):
            raise BadRequest(f"expected a list of {_kind(field)}, got {_quote(value)}", where)
        for i, item in enumerate(value):
            if item is None:
                raise BadRequest(f"a list holds no nulls; item {i} is null", where)
            _check_single(field, item, f"{where}[{i}]")
        return
    _check_single(field, value, where)


def _check_single(field: FieldDescriptor, value: Any, where: str) -> None:
    kind = field.type
    if field.message_type is not None:
        if value is not None:
            check_fields(field.message_type, value, where)
        return
    if field.enum_type is not None:
        names = [v.name for v in field.enum_type.values]
        listed = [n for n in names if not n.endswith("_UNSPECIFIED")]
        if isinstance(value, str):
            known = value in names
        else:
            number = isinstance(value, int) and not isinstance(value, bool)
            known = number and value in field.enum_type.values_by_number
        if not known:
            raise BadRequest(f"expected one of {', '.join(listed)}, got {_quote(value)}", where)
    elif kind in _INTEGERS:
        what, low, high = _INTEGERS[kind]
        number = _integer(value)
        if number is None:
            raise BadRequest(
                f"expected {what} (a number or a string of digits), got {_quote(value)}", where
            )
        if not low <= number <= high:
            raise BadRequest(f"expected {what}: {number} is out of range ({low}..{high})", where)
    elif kind in _FLOATS:
        ok = (isinstance(value, (int, float)) and not isinstance(value, bool)) or (
            isinstance(value, str) and (value in _FLOAT_WORDS or _number(value))
        )
        if not ok:
            raise BadRequest(f"expected a number, got {_quote(value)}", where)
    elif kind == FieldDescriptor.TYPE_BOOL:
        if not isinstance(value, bool):
            raise BadRequest(f"expected true or false, got {_quote(value)}", where)
    elif kind == FieldDescriptor.TYPE_STRING:
        if not isinstance(value, str):
            raise BadRequest(f"expected a string, got {_quote(value)}", where)
    elif kind == FieldDescriptor.TYPE_BYTES and not _base64(value):
        raise BadRequest(f"expected base64 text, got {_quote(value)}", where)


def _integer(value: Any) -> int | None:
    """An integer as the JSON mapping reads one: a number without a fraction, or its
    decimal digits in a string."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _DIGITS.fullmatch(value):
        return int(value)
    return None


def _number(text: str) -> bool:
    """A finite number in a string (the infinities and NaN are spelled _FLOAT_WORDS)."""
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _base64(value: Any) -> bool:
    """Standard or URL-safe base64, padded or not (as the JSON mapping reads it)."""
    if not isinstance(value, str):
        return False
    padded = value + "=" * (-len(value) % 4)
    try:
        base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (ValueError, binascii.Error):
        return False
    return True


def _kind(field: FieldDescriptor) -> str:
    if field.message_type is not None:
        return f"{field.message_type.name} objects"
    if field.enum_type is not None:
        return f"{field.enum_type.name} names"
    if field.type in _INTEGERS:
        return "integers"
    if field.type in _FLOATS:
        return "numbers"
    words = {FieldDescriptor.TYPE_BOOL: "true or false", FieldDescriptor.TYPE_BYTES: "base64 text"}
    return words.get(field.type, "strings")


def _names(descriptor: Descriptor) -> str:
    names = [f.json_name for f in descriptor.fields]
    return "no fields" if not names else "the fields " + ", ".join(names)


def _quote(value: Any) -> str:
    """What the client sent, as JSON, cut to a short prefix."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = "?"
    return text if len(text) <= _QUOTE else text[:_QUOTE] + "..."
