"""Length caps on request fields, checked once at the gRPC edge for every RPC.

A cap is per field name (the same name means the same thing in every request);
any other string field gets ``_DEFAULT``. Maps (game options) are capped in count,
key and value length. No text may hold a NUL character: PostgreSQL's text cannot, so
a filter or name with one would fail in the archive rather than find nothing. Errors
quote no input beyond a short prefix.
"""

from __future__ import annotations

from google.protobuf.message import Message

from services.errors import InvalidArgument

_CAPS = {
    "game_id": 64,
    "token": 128,
    "name": 64,
    "bot_level": 200,
    "game_type": 64,
    "notation": 256,
    "request_id": 128,
    "creator_token": 128,
    "fallback_level": 200,
    "key": 128,  # a ladder bot's key
}
_DEFAULT = 1024
MAX_OPTIONS = 32
MAX_OPTION_KEY = 64
MAX_OPTION_VALUE = 256
MAX_SEATS = 16


def check_request(message: Message, where: str = "") -> None:
    """Raise InvalidArgument for the first field over its cap (nested messages included)."""
    for field, value in message.ListFields():
        path = f"{where}{field.name}"
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            _check_map(path, value)
        elif field.type == field.TYPE_STRING:
            values = value if _repeated(field) else [value]
            for text in values:
                _check_text(path, text, _CAPS.get(field.name, _DEFAULT))
        elif field.type == field.TYPE_MESSAGE:
            items = list(value) if _repeated(field) else [value]
            if field.name == "seats" and len(items) > MAX_SEATS:
                raise InvalidArgument(
                    f"{path}: at most {MAX_SEATS} seats, got {len(items)}", field=path
                )
            for i, item in enumerate(items):
                check_request(item, f"{path}[{i}]." if _repeated(field) else f"{path}.")


def _repeated(field) -> bool:
    return field.is_repeated


def _check_map(path: str, mapping) -> None:
    if len(mapping) > MAX_OPTIONS:
        raise InvalidArgument(
            f"{path}: at most {MAX_OPTIONS} entries, got {len(mapping)}", field=path
        )
    for key, value in mapping.items():
        _check_text(f"{path} key", key, MAX_OPTION_KEY, field=path)
        if isinstance(value, str):
            _check_text(f"{path}[{key[:20]}]", value, MAX_OPTION_VALUE, field=path)


def _check_text(path: str, text: str, cap: int, field: str = "") -> None:
    if len(text) > cap:
        raise InvalidArgument(
            f"{path} is {len(text)} characters long; the limit is {cap}", field=field or path
        )
    if "\x00" in text:
        raise InvalidArgument(
            f"{path} holds a NUL character (U+0000), which no text field may hold",
            field=field or path,
        )
