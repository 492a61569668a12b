"""Alembic's environment for the archive: runs on the connection that
``services.archive.database`` hands it (``config.attributes["connection"]``)."""

from __future__ import annotations

from alembic import context

from services.archive.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
