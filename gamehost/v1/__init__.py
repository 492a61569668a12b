"""The generated gamehost.v1 API (protoc from proto/gamehost/v1; do not edit): imports
only protobuf and grpcio, so any layer may use it."""
