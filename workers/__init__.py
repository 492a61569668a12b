"""Celery app and tasks that run bot searches on worker machines, the executor that
hands bot turns to them, and the server's side of the command line (``workers.cli``).

The top layer: may import ``services``, ``bots``, ``games``, and from ``gamehost``
only the generated ``gamehost.v1``. Nothing imports ``workers`` but the command line,
which finds ``workers.cli`` by name when a server command runs. pyproject.toml's
import contracts check it.
"""
