"""PlayBot: a runner's ConnectBot stream and its BotReply calls on one bidirectional call.

The directives come from ``Sessions.connect`` as on ConnectBot. Each reply is handled
by ``Sessions.reply`` in a task of its own (a slow answer holds up no other), and its
outcome goes back on the stream as an ``answer``; a reply that BotReply would refuse
gets the same status code and message in its answer, and the stream goes on. An answer
on an open stream skips what a new call costs a busy server (accepting the call and
reading its request, each a turn of the event loop: docs/ladder.md, "Under load").
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

import grpc

from gamehost.v1 import gamehost_pb2 as pb
from services.api.status import error_status
from services.errors import FailedPrecondition, InvalidArgument
from services.ladder import wire
from services.ladder.sessions import Sessions

_END = object()  # the directives ended: the server let the bot go, or it stops


async def play_bot(
    sessions_of: Callable[[], Sessions], requests: AsyncIterator[pb.PlayBotRequest]
) -> AsyncIterator[pb.PlayBotResponse]:
    """``sessions_of``: the ladder's sessions, asked for once the opening request is
    read (a malformed one is INVALID_ARGUMENT first, on a server without a ladder too)."""
    opening = await anext(requests, None)
    if opening is None or opening.WhichOneof("message") != "connect":
        raise InvalidArgument(
            "the first PlayBot request must be `connect`, with the bot's key", field="connect"
        )
    connect = opening.connect
    if connect.protocol not in (0, 1):
        raise FailedPrecondition(
            f"this server speaks bot protocol 1, not {connect.protocol}", field="connect.protocol"
        )
    sessions = sessions_of()
    out: asyncio.Queue[object] = asyncio.Queue()
    answering: set[asyncio.Task] = set()

    async def answer(reply: pb.BotReplyRequest) -> None:
        message = pb.BotAnswer(game_id=reply.game_id, version=reply.version)
        try:
            taken = await sessions.reply(
                connect.key,
                reply.game_id,
                reply.version,
                reply.line,
                reply.error,
                reply.last_round_trip_ms,
            )
            message.response.CopyFrom(wire.answered(taken))
        except Exception as exc:  # the status BotReply would have ended with
            code, message.message, _ = error_status("PlayBot", exc)
            message.code = grpc.StatusCode[code].value[0]
        out.put_nowait(pb.PlayBotResponse(answer=message))

    async def read_replies() -> None:
        async for request in requests:
            if request.WhichOneof("message") != "reply":
                raise InvalidArgument(
                    "after `connect`, every PlayBot request is a `reply`", field="reply"
                )
            task = asyncio.create_task(answer(request.reply))
            answering.add(task)
            task.add_done_callback(answering.discard)
        # The runner closed its side: no more replies, but its games go on being fed.

    async def send_directives() -> None:
        async with contextlib.aclosing(sessions.connect(connect.key, connect.concurrency)) as feed:
            async for directive in feed:
                out.put_nowait(pb.PlayBotResponse(directive=wire.directive(directive)))
        out.put_nowait(_END)

    async def into_out(work) -> None:
        try:
            await work
        except Exception as exc:  # ends the call with its status (it is re-raised below)
            out.put_nowait(exc)

    helpers = [asyncio.create_task(into_out(send_directives()))]
    helpers.append(asyncio.create_task(into_out(read_replies())))
    try:
        while True:
            item = await out.get()
            if item is _END:
                return
            if isinstance(item, Exception):
                raise item
            yield item
    finally:
        tasks = [*helpers, *answering]
        for task in tasks:
            task.cancel()
        # Wait for them to end, so none is left pending when a stopping server closes
        # its event loop.
        await asyncio.gather(*tasks, return_exceptions=True)
