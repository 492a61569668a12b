"""A bare grpc.aio echo server: the baseline every gamehost figure is compared with
(benchmarks/service_bench.py and the load test both start it).

    python -m loadtest.echo PORT
"""

from __future__ import annotations

import asyncio
import sys

import grpc

SERVICE, METHOD = "bench.Echo", "Echo"
FULL_METHOD = f"/{SERVICE}/{METHOD}"


async def serve(port: int) -> None:
    async def echo(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return request

    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler(
        SERVICE, {METHOD: grpc.unary_unary_rpc_method_handler(echo)}
    )
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


if __name__ == "__main__":
    asyncio.run(serve(int(sys.argv[1])))
