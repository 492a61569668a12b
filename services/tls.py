"""TLS for the server: a certificate chain and private key in PEM files."""

from __future__ import annotations

from pathlib import Path

import grpc


def server_credentials(cert_file: str, key_file: str) -> grpc.ServerCredentials:
    return grpc.ssl_server_credentials(
        [(Path(key_file).read_bytes(), Path(cert_file).read_bytes())]
    )
