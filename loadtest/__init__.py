"""The load-test harness: Locust users over gRPC, the real parts they load (Redis, two
serving processes, a Celery worker, a bare gRPC echo server for the baseline), and the
report under docs/loadtest/. Run it with ``make loadtest`` (docs/loadtest/README.md).

Also the code that benchmarks/ (its tools and studies) and the tests share, so that no
script serves as a library (benchmarks/README.md)."""
