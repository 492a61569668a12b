"""PlayBot: a runner's ConnectBot stream and its BotReply calls on one bidirectional call.

The directives come from ``Sessions.connect`` as on ConnectBot. Each reply is handled
by ``Sessions.reply``, and its outcome goes back on the stream as an ``answer``; a
reply that BotReply would refuse gets the same status code and message in its answer,
and the stream goes on. An answer on an open stream skips what a new call costs the
server (accepting the call and reading its request, each a turn of the event loop),
which is most of a move's round trip beyond the bot's time under load (docs/ladder.md).

Each turn of the event loop that an answer waits for is a chance to wait behind other
games' work, so the answer's way through the server takes as few as it can. A runner
with one copy of its program (``concurrency`` 1) sends its replies one at a time, so
each is handled in the task that read it, without a task of its own to start; a
runner with more copies gets a task per reply, so that a slow answer holds up no other.
The task that has an answer writes it on the call itself (one write at a time, in the
order they ask), rather than handing it to another task to write.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc

from gamehost.v1 import gamehost_pb2 as pb
from services.api.status import error_status
from services.errors import FailedPrecondition, InvalidArgument
from services.ladder import wire
from services.ladder.sessions import Sessions


async def play_bot(
    sessions_of: Callable[[], Sessions],
    requests: AsyncIterator[pb.PlayBotRequest],
    write: Callable[[pb.PlayBotResponse], Awaitable[None]],
) -> None:
    """``sessions_of``: the ladder's sessions, asked for once the opening request is
    read (a malformed one is INVALID_ARGUMENT first, on a server without a ladder too).
    ``write``: sends one message on the call (``context.write``). Returns when the
    directives end (the server let the bot go, or it stops); raises what ends the call
    with a status."""
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
    writing = asyncio.Lock()  # gRPC takes one write at a time on a call
    answering: set[asyncio.Task] = set()
    one_at_a_time = connect.concurrency <= 1

    async def send(message: pb.PlayBotResponse) -> None:
        async with writing:
            await write(message)

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
        await send(pb.PlayBotResponse(answer=message))

    async def read_replies() -> None:
        async for request in requests:
            if request.WhichOneof("message") != "reply":
                raise InvalidArgument(
                    "after `connect`, every PlayBot request is a `reply`", field="reply"
                )
            if one_at_a_time:
                await answer(request.reply)
                continue
            task = asyncio.create_task(answer(request.reply))
            answering.add(task)
            task.add_done_callback(answering.discard)
        # The runner closed its side: no more replies, but its games go on being fed.

    async def send_directives() -> None:
        feed = sessions.connect(connect.key, connect.concurrency)
        try:
            async for directive in feed:
                await send(pb.PlayBotResponse(directive=wire.directive(directive)))
        finally:
            await feed.aclose()

    directives = asyncio.create_task(send_directives())
    replies = asyncio.create_task(read_replies())
    try:
        running = {directives, replies}
        while directives in running:
            done, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                task.result()  # what ended it with an error ends the call with its status
    finally:
        tasks = [directives, replies, *answering]
        for task in tasks:
            task.cancel()
        # Wait for them to end, so none is left pending when a stopping server closes
        # its event loop.
        await asyncio.gather(*tasks, return_exceptions=True)
