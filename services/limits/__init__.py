"""Who may ask and how much: tokens, invite codes and API keys (``access``), per-client
quotas at the gRPC edge (``quotas``) and request-size bounds (``request_limits``)."""
