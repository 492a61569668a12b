"""Service errors: each maps to one gRPC status code at the edge."""

from __future__ import annotations


class ServiceError(Exception):
    """Base: ``code`` names a grpc.StatusCode member."""

    code = "INTERNAL"


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


class ResourceExhausted(ServiceError):
    code = "RESOURCE_EXHAUSTED"
