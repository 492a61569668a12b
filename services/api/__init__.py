"""The gRPC edge: protobuf in, domain calls, status codes out (``grpc_api``), with the
message conversions (``messages``), record paging tokens (``record_pages``) and reflection."""
