"""Server-sent events (the WHATWG EventSource format): one message per streamed protobuf
message, ``id:`` its event id so a reconnecting EventSource resumes after it."""

from __future__ import annotations

import re

from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message

HEARTBEAT = b": keep-alive\n\n"  # a comment: keeps proxies from closing an idle stream
RETRY = b"retry: 2000\n\n"  # milliseconds an EventSource waits before reconnecting
END = b"event: end\ndata: {}\n\n"  # the stream is complete: close the EventSource
# A failure after the stream started (data: the error body). Not "error": that name is
# EventSource's own event for a lost connection.
FAILED = "rpc-error"


def event_name(descriptor: Descriptor) -> str:
    """GameEvent -> "game-event", TournamentEvent -> "tournament-event"."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", descriptor.name).lower()


def event_id(message: Message) -> str:
    field = message.DESCRIPTOR.fields_by_name.get("event_id")
    return str(message.event_id) if field is not None else ""


def frame(name: str, data: str, id_: str = "") -> bytes:
    """One SSE message; ``data`` is one line of JSON (json.dumps never writes newlines)."""
    head = f"id: {id_}\n" if id_ else ""
    return f"{head}event: {name}\ndata: {data}\n\n".encode()
