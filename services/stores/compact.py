"""How the Redis store keeps a game's events: packed small, read back as the same dicts.

The log is internal storage (clients get protobuf messages built from it), so its
bytes can be few. ``unpack(pack(event)) == event`` for every event, and the events of
older versions (plain JSON objects) read back unchanged:

- an ``action`` event, 99 % of a log, is a JSON array of its values by position,
  ``[version, seat, action, text, to_move]``, no field names and no kind; a hidden
  action adds its ``audience`` and ``redacted`` text (``[..., [1], "discard ?"]``),
  and a ``timeout`` or a ``clock`` follow as one object at the end;
- the ``created`` event's initial state (base64 of the engine's bytes, most of the
  event) is kept deflated, as ``initial_z``;
- any other event, and any event not of those exact shapes, is its JSON object.

docs/capacity.md has the bytes this saves.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from typing import Any

from services.kinds import EventKind

# The action event's positional fields, in the order ``watch.events`` writes them.
_POSITIONAL = ("version", "seat", "action", "text", "to_move")
_HIDDEN = ("audience", "redacted")  # None both for a public action: left out then
_TYPES = (int, int, int, str, int)


def _dumps(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()


def _as_array(event: dict[str, Any]) -> list[Any] | None:
    """An action event's positional form, or None when it is not of that shape."""
    if event.get("kind") != EventKind.ACTION:
        return None
    if not all(k in event for k in (*_POSITIONAL, *_HIDDEN)):
        return None
    values = [event[k] for k in _POSITIONAL]
    if any(type(v) is not t for v, t in zip(values, _TYPES, strict=True)):
        return None  # (bool is not an int here: JSON would read it back as a bool)
    if event["audience"] is not None or event["redacted"] is not None:
        values += [event[k] for k in _HIDDEN]
    extra = {k: v for k, v in event.items() if k != "kind" and k not in (*_POSITIONAL, *_HIDDEN)}
    return [*values, extra] if extra else values


def _deflated(event: dict[str, Any]) -> dict[str, Any] | None:
    """A created event with its initial state deflated, when that is smaller."""
    initial = event.get("initial")
    if event.get("kind") != EventKind.CREATED or not isinstance(initial, str):
        return None
    try:
        raw = base64.b64decode(initial, validate=True)
    except (binascii.Error, ValueError):
        return None
    if base64.b64encode(raw).decode() != initial:
        return None  # not canonical base64: it would not read back the same
    deflated = base64.b64encode(zlib.compress(raw, 9)).decode()
    if len(deflated) >= len(initial):
        return None
    return {
        ("initial_z" if k == "initial" else k): (deflated if k == "initial" else v)
        for k, v in event.items()
    }


def pack(event: dict[str, Any]) -> bytes:
    """The stored bytes of one event."""
    if "initial_z" in event and "initial" not in event and event.get("kind") == EventKind.CREATED:
        raise ValueError("a created event's field initial_z is the packed form's own name")
    packed: Any = _as_array(event)
    if packed is None:
        packed = _deflated(event) or event
    return _dumps(packed)


def unpack(raw: bytes) -> dict[str, Any]:
    """The event ``pack`` was given (or an older store's plain JSON event)."""
    data = json.loads(raw)
    if isinstance(data, list):
        # 5 values: public; 7: hidden (audience, redacted); either with an object after.
        extra = data.pop() if isinstance(data[-1], dict) else {}
        audience, redacted = data[5:7] if len(data) == 7 else (None, None)
        event: dict[str, Any] = {"kind": EventKind.ACTION.value}
        event.update(zip(_POSITIONAL[:4], data[:4], strict=True))
        event.update(audience=audience, redacted=redacted, to_move=data[4])
        event.update(extra)
        return event
    if data.get("kind") == EventKind.CREATED and "initial_z" in data and "initial" not in data:
        raw_state = zlib.decompress(base64.b64decode(data["initial_z"]))
        initial = base64.b64encode(raw_state).decode()
        return {
            ("initial" if k == "initial_z" else k): (initial if k == "initial_z" else v)
            for k, v in data.items()
        }
    return data
