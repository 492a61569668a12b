"""Alembic's environment for the archive: runs on the connection that
``services.archive.database`` hands it (``config.attributes["connection"]``)."""

from __future__ import annotations

from alembic import context

from services.archive.schema import metadata

# The accounts and the ladder's tables share the database and ``metadata``; importing them puts them on it,
# so autogenerate sees every table. (This file is Alembic's, outside the package graph:
# the archive's code itself never imports the ladder.)
import services.accounts.schema  # noqa: E402, F401  # isort: skip
import services.ladder.schema  # noqa: E402, F401  # isort: skip

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
