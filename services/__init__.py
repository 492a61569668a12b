"""The rules service: game hosting logic, stores, bot execution and the gRPC edge.

May import: ``games``, ``bots``, and from ``gamehost`` only the generated protobuf
code ``gamehost.v1``. Never ``workers`` (it sits on top: the Celery executor and the
server's command line live there). pyproject.toml's import contracts check it.
"""
