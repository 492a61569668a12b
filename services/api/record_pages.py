"""GetRecord's pages: the page size a request gets, and page tokens.

A token is opaque to clients: it names the game, whether views were asked for and the
first entry of the next page, so a token sent with another request is refused rather
than read as a place in some other record. Entries are only ever appended to a game's
log, so an offset stays valid while the game goes on.
"""

from __future__ import annotations

import base64
import binascii

from services.errors import InvalidArgument

DEFAULT_PAGE_SIZE = 250  # entries
# 500 entries with views: about 2.7 MB in Endeavor (the largest views, ~5.3 KB each),
# under gRPC's default 4 MiB message limit.
MAX_PAGE_SIZE = 500
_PREFIX = "r1"


def page_size(requested: int) -> int:
    """0: the default; over the maximum: the maximum (google's AIP-158 reading)."""
    return DEFAULT_PAGE_SIZE if requested <= 0 else min(requested, MAX_PAGE_SIZE)


def page_token(game_id: str, include_views: bool, offset: int) -> str:
    raw = f"{_PREFIX}:{game_id}:{int(include_views)}:{offset}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def offset_of(token: str, game_id: str, include_views: bool) -> int:
    """The first entry a page token names (0 for no token); INVALID_ARGUMENT for a
    token this server did not give for this request."""
    if not token:
        return 0
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        prefix, game, views, offset = raw.split(":")
        number = int(offset)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidArgument(
            "not a page token this server gave: send the previous page's next_page_token",
            field="page_token",
        ) from None
    if prefix != _PREFIX or number < 0:
        raise InvalidArgument("not a page token this server gave", field="page_token")
    if game != game_id or views != str(int(include_views)):
        raise InvalidArgument(
            "this page token belongs to another request: send it with the same game_id "
            "and include_views",
            field="page_token",
        )
    return number
