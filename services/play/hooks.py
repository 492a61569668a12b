"""What ``GameHost`` hands the parts it is made of (seating, reading, submitting): its
own loader, read check and questions, as plain callables, so a part names exactly what
it uses of the host."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from services.stores import Snapshot

Loader = Callable[..., Awaitable[Snapshot]]  # GameHost.load: NotFound, InvalidArgument
Viewer = Callable[..., "int | None"]  # GameHost.viewer (access.reader): the token's seat
AllOver = Callable[[Sequence[str]], Awaitable[bool]]  # GameHost.all_over
KickBots = Callable[..., None]  # GameHost.kick_bots: wake the sweeper if a bot is to move
