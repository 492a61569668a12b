"""The rules service: game hosting logic, stores, bot execution and the gRPC edge."""
