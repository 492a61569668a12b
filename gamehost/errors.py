"""The client's one error type (here, so that modules ``gamehost.client`` uses can
raise it without importing the client back)."""

from __future__ import annotations

import grpc


class GameError(Exception):
    """A call the service refused: ``code`` is the gRPC status, ``details`` its message."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details
