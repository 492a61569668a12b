"""Exporting what ``services.metrics`` counts: the gRPC interceptor (``grpc_metrics``),
the store probes (``store_metrics``, ``store_health``) and the Prometheus endpoint
(``metrics_export``)."""
