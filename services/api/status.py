"""How every GameHost call is admitted and answered: a request that does not parse or
breaks the request limits is refused before the call, and any error the call raises
becomes its gRPC status code (``unary``, ``streaming``)."""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc

from services import metrics
from services.errors import (
    FIELD_METADATA,
    InvalidArgument,
    ServiceError,
    is_infrastructure_error,
)
from services.limits.quotas import count_failed_authentication
from services.limits.request_limits import check_request

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MalformedRequest:
    """What the lenient deserializer (or the HTTP gateway) hands the servicer for a
    request that does not parse."""

    reason: str
    message: str = ""  # the whole answer, when the reader has a better one
    field: str = ""  # the request field it is about, when the reader knows


def lenient(parse: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    """A request deserializer that defers a parse failure to the servicer, which
    answers INVALID_ARGUMENT (grpc itself would answer INTERNAL)."""

    def deserialize(data: bytes) -> Any:
        try:
            return parse(data)
        except Exception as exc:  # DecodeError, or anything else the parser raises
            return MalformedRequest(type(exc).__name__)

    return deserialize


def _admit(request: Any) -> None:
    """Refuse requests that did not parse or whose fields are over their caps."""
    if isinstance(request, MalformedRequest):
        raise InvalidArgument(
            request.message or f"the request is not a valid protobuf message ({request.reason})",
            field=request.field,
        )
    check_request(request)


async def _answer_error(name: str, exc: Exception, context: grpc.aio.ServicerContext) -> None:
    """The one mapping of exceptions onto statuses, for unary and streaming RPCs alike."""
    field = ""
    if isinstance(exc, ServiceError):
        code, message, field = exc.code, str(exc), exc.field
        if field and not message.startswith(field):
            message = f"{field}: {message}"  # what the message is about comes first
    elif is_infrastructure_error(exc):
        # No exception names in answers: the log has them.
        code, message = "UNAVAILABLE", "the game store is not answering; retry shortly"
        log.warning("%s: %s: %s", name, type(exc).__name__, exc)
    else:
        code, message = "INTERNAL", "internal error; it is logged"
        log.error("%s failed", name, exc_info=exc)
    metrics.RPC_ERRORS.labels(name, code).inc()
    if code == "UNAUTHENTICATED":
        await count_failed_authentication()  # counted before the client hears of it
    trailing = ((FIELD_METADATA, field),) if field else ()
    await context.abort(grpc.StatusCode[code], message, trailing_metadata=trailing)


def unary(method: Callable) -> Callable:
    """Check the request, run the call, and map any failure onto a status code."""

    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            _admit(request)
            return await method(self, request, context)
        except grpc.aio.AbortError:
            raise
        except Exception as exc:
            await _answer_error(method.__name__, exc, context)

    return wrapper


def streaming(method: Callable) -> Callable:
    """``unary`` for server-streaming calls."""

    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            _admit(request)
            # aclosing: a cancelled stream ends its handler (and its feed) at once.
            async with contextlib.aclosing(method(self, request, context)) as items:
                async for item in items:
                    yield item
        except grpc.aio.AbortError:
            raise
        except Exception as exc:
            await _answer_error(method.__name__, exc, context)

    return wrapper
