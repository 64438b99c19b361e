"""Alembic migrations of the event store, run by `herotable.store.migrate.upgrade`."""
