"""A registered bot's seat token at a ladder game: derived from the server secret, so
every replica knows it and none stores it. The matchmaker claims the seat with its
hash when it makes the game; a connected runner's session watches the game with it,
and a bot's answer is submitted with it, always for that bot's own seat."""

from __future__ import annotations

import base64
import hashlib
import hmac


def seat_token(secret: bytes, game_id: str, seat: int) -> str:
    digest = hmac.new(secret, f"ladder-seat:{game_id}:{seat}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode()
