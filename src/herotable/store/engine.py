"""SQLAlchemy engines set up for the event store: SQLite in WAL mode with up-front write locks, or PostgreSQL."""

from __future__ import annotations

from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Connection, Engine

SQLITE_BUSY_TIMEOUT_S = 30.0
_BEGIN = "herotable_begin"
_ONE_STATEMENT = "none"  # `_BEGIN` of a read of one statement: no transaction


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    # sqlite3 must not issue its own BEGIN: `_sqlite_begin` chooses the kind of transaction.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA synchronous = FULL")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    # IMMEDIATE takes the write lock before the first read, so two writers never act on the same head. A read of one
    # statement (`for_one_read`) begins nothing: sqlite3 runs it on its own, consistent by itself.
    kind = connection.get_execution_options().get(_BEGIN, "DEFERRED")
    if kind != _ONE_STATEMENT:
        connection.exec_driver_sql(f"BEGIN {kind}")


def create_store_engine(url: URL) -> Engine:
    """An engine for `url`; SQLite connections wait up to 30 s for a lock instead of failing."""
    if url.get_backend_name() == "sqlite":
        engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S})
        event.listen(engine, "connect", _sqlite_connect)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    return create_engine(url, pool_pre_ping=True)


def for_writing(engine: Engine) -> Engine:
    """The same engine, whose transactions take SQLite's write lock when they begin (no-op elsewhere)."""
    return engine.execution_options(**{_BEGIN: "IMMEDIATE"})


def for_one_read(engine: Engine) -> Engine:
    """The same engine for a read of one statement, which is consistent on its own, so no transaction is begun around
    it: on PostgreSQL in autocommit (no BEGIN and no ROLLBACK go to the server: two round trips fewer), on SQLite
    with no BEGIN (sqlite3 runs the statement on its own). The hot read of every request, a session's user, uses
    it."""
    if engine.dialect.name == "sqlite":
        return engine.execution_options(**{_BEGIN: _ONE_STATEMENT})
    return engine.execution_options(isolation_level="AUTOCOMMIT")
