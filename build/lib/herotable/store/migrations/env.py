"""Alembic environment: migrations run on the connection (and inside the transaction) `migrate.upgrade` opened."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

connection = context.config.attributes.get("connection")
if not isinstance(connection, Connection):
    raise RuntimeError(
        "herotable's migrations run through herotable.store.migrate.upgrade (open_store calls it), "
        "not through the alembic command line"
    )
context.configure(connection=connection)
with context.begin_transaction():
    context.run_migrations()
