"""Service errors: each maps to one gRPC status code at the edge."""

from __future__ import annotations

import functools

# The trailing metadata key that names the request field an error is about (its proto
# name, a path such as ``seats[1].bot_level``); the message then starts with it too.
FIELD_METADATA = "gamehost-field"


class ServiceError(Exception):
    """Base: ``code`` names a grpc.StatusCode member; ``field``, when the error is about
    one request field, its proto name or path."""

    code = "INTERNAL"

    def __init__(self, message: str = "", field: str = "") -> None:
        super().__init__(message)
        self.field = field


class NotFound(ServiceError):
    code = "NOT_FOUND"


class InvalidArgument(ServiceError):
    code = "INVALID_ARGUMENT"


class FailedPrecondition(ServiceError):
    code = "FAILED_PRECONDITION"


class Aborted(ServiceError):
    code = "ABORTED"


class Unauthenticated(ServiceError):
    code = "UNAUTHENTICATED"


class PermissionDenied(ServiceError):
    code = "PERMISSION_DENIED"


class AlreadyExists(ServiceError):
    code = "ALREADY_EXISTS"


class Unavailable(ServiceError):
    """An infrastructure fault (store or broker unreachable, loading, timing out):
    nothing was decided, so the same call is safe to retry."""

    code = "UNAVAILABLE"


@functools.cache  # asked on every failed call
def infrastructure_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that mean "the store, the broker or the archive is not answering right now"."""
    import kombu.exceptions
    import redis.exceptions
    import sqlalchemy.exc

    return (
        redis.exceptions.ConnectionError,  # BusyLoadingError, MaxConnectionsError included
        redis.exceptions.TimeoutError,
        redis.exceptions.ReadOnlyError,  # a primary demoted by a failover, not yet left
        # A Cluster resharding or failing over: slots moving, a primary down.
        redis.exceptions.ClusterError,
        redis.exceptions.ClusterDownError,
        redis.exceptions.TryAgainError,
        redis.exceptions.AskError,  # MovedError too (past the client's redirections)
        redis.exceptions.RedisClusterException,  # no node reachable, a slot uncovered
        kombu.exceptions.OperationalError,
        sqlalchemy.exc.OperationalError,  # the archive's database: down, unreachable, locked
        ConnectionError,
        TimeoutError,
    )


def is_infrastructure_error(exc: BaseException) -> bool:
    """Whether ``exc`` says the store, the broker or the archive is not answering."""
    if isinstance(exc, infrastructure_errors()):
        return True
    # uvloop raises RuntimeError, not ConnectionError, for a write to a connection its
    # peer closed (MagicStack/uvloop#506): redis-py meets it when a Redis node drops a
    # connection it is setting up (seen while a Cluster's slots migrate).
    return isinstance(exc, RuntimeError) and "the handler is closed" in str(exc)


class ResourceExhausted(ServiceError):
    code = "RESOURCE_EXHAUSTED"
