"""Who may do what: API keys, the caller's identity, invite codes and seed mixing.

All of it is off unless configured: with no API keys, anyone may create games
(the embedded ``make run``); a game is public unless its creator asks otherwise.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from pathlib import Path

API_KEY_HEADER = "x-api-key"
_MAX_SEED = (1 << 63) - 1


def load_api_keys(path: str | Path) -> dict[str, str]:
    """An API key file: one key per line, optionally followed by whitespace and a name
    (used in logs); blank lines and lines starting with '#' are skipped.
    Returns key -> name."""
    keys: dict[str, str] = {}
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, _, name = line.partition(" ")
        if len(key) < 16:
            raise ValueError(f"{path}:{number}: an API key needs at least 16 characters")
        keys[key] = name.strip() or f"key{number}"
    if not keys:
        raise ValueError(f"{path}: no API keys in the file")
    return keys


def api_key_of(metadata: Mapping[str, str] | None) -> str:
    return (metadata or {}).get(API_KEY_HEADER, "")


def client_id(api_key: str, peer: str) -> str:
    """Who a caller is for quotas: its API key (hashed: keys never reach the store),
    else its address without the port ("ipv4:1.2.3.4:5678" -> "ip:1.2.3.4")."""
    if api_key:
        return "key:" + hashlib.sha256(api_key.encode()).hexdigest()[:24]
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6"):  # "ipv6:[::1]:5678" -> "ip:::1"
        return f"ip:{rest.rsplit(':', 1)[0].strip('[]')}"
    return f"peer:{peer}"


def hash_token(token: str) -> str:
    """What the store keeps of a seat's or a creator's token."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_invite_code() -> str:
    return secrets.token_urlsafe(18)


def hash_code(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def seat_for_invite(invites: Mapping[str, str], code: str) -> int | None:
    """The seat an invite code opens (invites: seat as str -> code hash), or None."""
    digest = hash_code(code)
    for seat, stored in invites.items():
        if hmac.compare_digest(stored, digest):
            return int(seat)
    return None


def mix_seed(secret: bytes, seed: int, game_id: str) -> int:
    """A client's seed combined with the server secret and the game id: still one fixed
    seed per game (the game replays from its stored seed), but one the client cannot
    foresee, not even by replaying an earlier game it created with the same seed."""
    digest = hmac.new(secret, f"seed:{seed}:{game_id}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") & _MAX_SEED
