"""A bot runner's PlayBot call (``Client.play_bot``): the server's directives in, the
bot's answers out, each answer's outcome matched back to the thread that sent it.

One thread reads ``directives()``; any thread may ``reply()``, which blocks until its
outcome comes back on the stream (or the stream ends, or ``timeout`` passes).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from gamehost.errors import GameError
from gamehost.v1 import gamehost_pb2 as pb

_CODES = {code.value[0]: code for code in grpc.StatusCode}


def status_code(code: int) -> grpc.StatusCode:
    """A status code carried as a number (an answer's, a bot socket's end) as grpc's."""
    return _CODES.get(code, grpc.StatusCode.UNKNOWN)


_CLOSE = object()  # ends the request iterator: the runner's side of the call is done


def reply_request(
    game_id: str, version: int, line: str, error: str, last_round_trip_ms: float
) -> pb.PlayBotRequest:
    """A reply to the act at ``version``, as it goes on the PlayBot stream."""
    reply = pb.BotReplyRequest(
        game_id=game_id,
        version=version,
        line=line,
        error=error,
        last_round_trip_ms=last_round_trip_ms,
    )
    return pb.PlayBotRequest(reply=reply)


def outcome(answer: pb.BotAnswer) -> pb.BotReplyResponse:
    """An answer on the stream as BotReply's response, or its refusal as GameError."""
    if answer.code:
        raise GameError(status_code(answer.code), answer.message)
    return answer.response


class _Waiting:
    """One reply's wait for its answer."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.answer: pb.BotAnswer | None = None
        self.error: GameError | None = None


class BotLink:
    def __init__(
        self,
        method: Any,
        key: str,
        concurrency: int,
        metadata: Any,
        timeout: float,
        retries: int = 0,
        delay: Callable[[int], float] = lambda attempt: 0.0,
    ):
        self._requests: queue.SimpleQueue[object] = queue.SimpleQueue()
        connect = pb.ConnectBotRequest(key=key, concurrency=concurrency, protocol=1)
        self._requests.put(pb.PlayBotRequest(connect=connect))
        self._call = method(iter(self._requests.get, _CLOSE), metadata=metadata)
        self._timeout = timeout
        self._retries = retries  # answers UNAVAILABLE sent again, as BotReply calls are
        self._delay = delay  # the wait before retry ``attempt`` (0, 1, ...)
        self._lock = threading.Lock()
        self._waiting: dict[tuple[str, int], list[_Waiting]] = {}
        self._ended: GameError | None = None

    def directives(self) -> Iterator[pb.BotDirective]:
        """The server's directives until the stream ends (not retried: connect again;
        the server sends start again for games in progress). Errors as GameError."""
        ended = GameError(grpc.StatusCode.UNAVAILABLE, "the PlayBot stream ended before the answer")
        try:
            for message in self._call:
                if message.HasField("answer"):
                    self._answered(message.answer)
                else:
                    yield message.directive
        except grpc.RpcError as exc:
            ended = GameError(exc.code(), exc.details())
            if exc.code() != grpc.StatusCode.CANCELLED:
                raise ended from None
        finally:
            self._end(ended)

    def reply(
        self,
        game_id: str,
        version: int,
        line: str = "",
        error: str = "",
        last_round_trip_ms: float = 0.0,
    ) -> pb.BotReplyResponse:
        """BotReply's answer to one act, over the stream; its refusal as GameError.
        An UNAVAILABLE answer (the server's store did not answer) is sent again, up to
        ``retries`` times: the server plays an answer once, whoever asks twice."""
        for attempt in range(self._retries + 1):
            try:
                return self._reply_once(game_id, version, line, error, last_round_trip_ms)
            except GameError as exc:
                if exc.code != grpc.StatusCode.UNAVAILABLE or attempt == self._retries:
                    raise
                with self._lock:
                    if self._ended is not None:
                        raise
                time.sleep(self._delay(attempt))
        raise AssertionError("unreachable")

    def _reply_once(
        self, game_id: str, version: int, line: str, error: str, last_round_trip_ms: float
    ) -> pb.BotReplyResponse:
        waiting = _Waiting()
        with self._lock:
            if self._ended is not None:
                raise self._ended
            self._waiting.setdefault((game_id, version), []).append(waiting)
        request = reply_request(game_id, version, line, error, last_round_trip_ms)
        self._requests.put(request)
        if not waiting.done.wait(self._timeout):
            with self._lock:
                waits = self._waiting.get((game_id, version), [])
                if waiting in waits:
                    waits.remove(waiting)
            raise GameError(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"no answer to the reply for {game_id} at version {version} "
                f"within {self._timeout:g} s",
            )
        if waiting.error is not None:
            raise waiting.error
        answer = waiting.answer
        assert answer is not None
        return outcome(answer)

    def close(self) -> None:
        self._call.cancel()
        self._end(GameError(grpc.StatusCode.CANCELLED, "the runner closed its connection"))

    def _answered(self, answer: pb.BotAnswer) -> None:
        with self._lock:
            waits = self._waiting.get((answer.game_id, answer.version))
            if not waits:
                return  # its reply gave up waiting
            waiting = waits.pop(0)
            if not waits:
                del self._waiting[(answer.game_id, answer.version)]
        waiting.answer = answer
        waiting.done.set()

    def _end(self, error: GameError) -> None:
        with self._lock:
            if self._ended is None:
                self._ended = error
            waits = [w for ws in self._waiting.values() for w in ws]
            self._waiting.clear()
        self._requests.put(_CLOSE)
        for waiting in waits:
            waiting.error = error
            waiting.done.set()
