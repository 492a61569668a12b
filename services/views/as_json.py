"""A view message as the HTTP API's JSON, fast: exactly what
``json_format.MessageToDict(message, always_print_fields_with_no_presence=True)``
returns, keys in the same order, built by a plan compiled once per message type.

The ladder sends each bot's act with its seat's view in that JSON, hundreds of times a
second on the server's event loop, and json_format's generic walk (a descriptor
look-up and a type dispatch per field, per message) took about half of building an
act. A message type with a field this plan does not cover (64-bit integers, floats,
bytes, maps, well-known types) is handed to json_format whole."""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

_AS_IS = {  # JSON numbers, booleans and strings, unchanged
    FieldDescriptor.TYPE_INT32,
    FieldDescriptor.TYPE_SINT32,
    FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_FIXED32,
    FieldDescriptor.TYPE_BOOL,
    FieldDescriptor.TYPE_STRING,
}

_Convert = Callable[[Any], Any]
_Plan = Callable[[Message], dict[str, Any]]
_plans: dict[str, _Plan | None] = {}


def view_dict(message: Message) -> dict[str, Any]:
    plan = _plan_of(message.DESCRIPTOR)
    if plan is None:
        return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    return plan(message)


def _plan_of(descriptor: Descriptor) -> _Plan | None:
    name = descriptor.full_name
    if name.startswith("google.protobuf."):
        return None  # well-known types have JSON forms of their own
    if name not in _plans:
        _plans[name] = None  # a message that contains itself is json_format's
        _plans[name] = _compile(descriptor)
    return _plans[name]


def _converter(field: FieldDescriptor) -> _Convert | None:
    if field.type in _AS_IS:
        return lambda value: value
    if field.type == FieldDescriptor.TYPE_ENUM:
        names = {number: value.name for number, value in field.enum_type.values_by_number.items()}
        return lambda value: names.get(value, value)  # an unknown value stays a number
    if field.type == FieldDescriptor.TYPE_MESSAGE and not field.message_type.GetOptions().map_entry:
        return _plan_of(field.message_type)
    return None


def _compile(descriptor: Descriptor) -> _Plan | None:
    # Per field, in field-number order: name, JSON name, converter, repeated, has
    # presence, default, place in the declared order. The fields set come first in
    # field-number order (json_format walks ListFields()), then the fields left at
    # their defaults in the declared order.
    fields = []
    for field in descriptor.fields:
        convert = _converter(field)
        if convert is None:
            return None
        repeated = field.is_repeated
        fields.append((field, convert, repeated))
    by_number = sorted(fields, key=lambda entry: entry[0].number)
    declared = {entry[0].name: index for index, entry in enumerate(fields)}
    in_order = [entry[0] for entry in by_number] == [entry[0] for entry in fields]
    plan = [
        (f.name, f.json_name, convert, repeated, f.has_presence, f.default_value, declared[f.name])
        for f, convert, repeated in by_number
    ]

    def as_dict(message: Message) -> dict[str, Any]:
        found: dict[str, Any] = {}
        defaults: list[tuple[int, str, Any]] = []
        for name, json_name, convert, repeated, presence, default, order in plan:
            if repeated:
                values = getattr(message, name)
                if values:
                    found[json_name] = [convert(v) for v in values]
                else:
                    defaults.append((order, json_name, []))
            elif presence:
                if message.HasField(name):
                    found[json_name] = convert(getattr(message, name))
            else:
                value = getattr(message, name)
                if value != default:
                    found[json_name] = convert(value)
                else:
                    defaults.append((order, json_name, convert(value)))
        for _, json_name, value in defaults if in_order else sorted(defaults, key=itemgetter(0)):
            found[json_name] = value
        return found

    return as_dict
