"""SQLAlchemy engines set up for the event store: SQLite in WAL mode with up-front write locks, or PostgreSQL."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import create_engine, event, exc
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.pool import ConnectionPoolEntry, PoolProxiedConnection

SQLITE_BUSY_TIMEOUT_S = 30.0
PING_AFTER_IDLE_S = 1.0  # a pooled PostgreSQL connection idle longer than this is checked before it is used
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
    engine = create_engine(url)
    _ping_when_idle(engine)
    return engine


def _ping_when_idle(engine: Engine) -> None:
    """Check a pooled connection before it is used when it has been idle more than PING_AFTER_IDLE_S (SQLAlchemy's
    pre-ping, but only then), so that one the server closed meanwhile (restarted, or timed out) is replaced, with
    every other connection of the pool, rather than failing a request. A connection used a moment ago is taken as it
    is: under load, that spares every request a round trip. Should the server go away within that moment, the
    request that finds it gone fails (the web app answers 503, send it again) and the pool is renewed."""
    checked_in = "herotable_checked_in"

    @event.listens_for(engine, "checkin")
    def _returned(_dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        record.info[checked_in] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _taken(dbapi_connection: Any, record: ConnectionPoolEntry, _proxy: PoolProxiedConnection) -> None:
        since = record.info.get(checked_in)  # none for a connection made just now
        if since is None or time.monotonic() - since <= PING_AFTER_IDLE_S:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as error:
            raise exc.InvalidatePoolError(f"a pooled connection was closed while idle: {error}") from error


def for_writing(engine: Engine) -> Engine:
    """The same engine, whose transactions take SQLite's write lock when they begin (no-op elsewhere)."""
    return engine.execution_options(**{_BEGIN: "IMMEDIATE"})


def for_one_read(engine: Engine) -> Engine:
    """The same engine for a read of one statement, which is consistent on its own, so no transaction is begun around
    it: on PostgreSQL in autocommit (no BEGIN and no ROLLBACK go to the server: two round trips fewer), on SQLite
    with no BEGIN (sqlite3 runs the statement on its own). The read of a session's user uses it."""
    if engine.dialect.name == "sqlite":
        return engine.execution_options(**{_BEGIN: _ONE_STATEMENT})
    return engine.execution_options(isolation_level="AUTOCOMMIT")
