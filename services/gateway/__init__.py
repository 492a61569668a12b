"""The browser-facing HTTP/JSON gateway (docs/http-api.md): google.api.http-style routes
onto the GameHost RPCs, protobuf's JSON mapping for bodies, server-sent events for
streams, served by the same process (and the same handlers) as the gRPC API."""
