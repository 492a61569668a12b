"""Who may do what: API keys, the caller's identity, invite codes, seed mixing and
who may read a game.

All of it is off unless configured: with no API keys, anyone may create games
(the embedded ``make run``); a game is public unless its creator asks otherwise.

Reading a game's content (its state, record, events, hints, export line) has one
rule, ``reader``: a seat's token reads as that seat; without a token, only a game
open to anyone (``open_to_anyone``: public, spectators admitted) is read, as a
spectator. Bulk reads (ListGames, the export) hold only games open to anyone.

What a reader sees of a game's hidden actions has one rule too, ``log_public``: they
are public once the game is over and so is every game of its deal (a ladder set's
rotations, a tournament's duplicate group), never before: a finished rotation would
show the cards a sibling still holds.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path

from services.errors import PermissionDenied, Unauthenticated
from services.kinds import GameStatus
from services.stores import Snapshot
from services.stores.records import GameMeta

API_KEY_HEADER = "x-api-key"
_MAX_SEED = (1 << 63) - 1
SPECTATOR = None  # the reader with no seat

# What opens a game to anyone, a GameMeta field -> the value it needs. The archive
# filters its columns of the same names with it (``Archive.find_games``).
OPEN_TO_ANYONE: Mapping[str, bool] = {"private": False, "spectators": True}


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


def bearer_of(authorization: str) -> str:
    """The credential of an ``Authorization: Bearer <credential>`` header (gRPC:
    ``authorization`` metadata); "" for none or another scheme."""
    scheme, _, credential = authorization.partition(" ")
    return credential.strip() if scheme.lower() == "bearer" else ""


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


def account_seat_token(seat_secret: str, game_id: str, seat: int) -> str:
    """The seat token of an account's seat: derived from the account's seat secret, so
    that the account gets the same token back on any device (GetMySeat) while the store
    keeps only its hash, as for every token."""
    digest = hmac.new(seat_secret.encode(), f"{game_id}:{seat}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(digest.digest()).decode().rstrip("=")


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


def open_to_anyone(meta: GameMeta) -> bool:
    """Whether any caller, with no token, may read the game's content; the games that
    ListGames and the export hold."""
    return all(getattr(meta, name) == value for name, value in OPEN_TO_ANYONE.items())


def reader(snapshot: Snapshot, token: str, required: bool = False) -> int | None:
    """The one read check: the seat ``token`` holds, or SPECTATOR (None) with no token
    where the game is open to anyone. ``required``: a seat's call, no token refused.

    Raises Unauthenticated (no token where one is required, or a token no seat
    holds) or PermissionDenied (no token for a private game, or one that admits no
    spectators)."""
    if not token:
        if required:
            raise Unauthenticated(
                "this call needs a seat token: get one from JoinGame", field="token"
            )
        meta = snapshot.info
        if meta.private:
            raise PermissionDenied(
                f"game {snapshot.game_id} is private: only its seats read it; send a seat token"
            )
        if not open_to_anyone(meta):
            raise PermissionDenied(
                f"game {snapshot.game_id} admits no spectators: send a seat token"
            )
        return SPECTATOR
    digest = hash_token(token)
    for seat, stored in snapshot.tokens.items():
        if hmac.compare_digest(stored, digest):
            return seat
    raise Unauthenticated(f"the token is not valid for game {snapshot.game_id}", field="token")


async def log_public(
    snapshot: Snapshot, all_over: Callable[[Sequence[str]], Awaitable[bool]]
) -> bool:
    """Whether the game's whole log (every hidden action, the final hands) is public:
    once it is over and so is every other game of its deal (``GameMeta.deal_games``),
    which ``all_over`` tells from the store, else the archive. Until then a finished
    game reads as a running one, and the bulk reads hold it back."""
    if snapshot.status != GameStatus.FINISHED:
        return False
    # A sibling not made yet (a tournament table waiting for its turn), or lost, is not over.
    others = [g for g in snapshot.info.deal_games if g != snapshot.game_id]
    return not others or await all_over(others)
