"""SQLAlchemy engines set up for the event store: SQLite in WAL mode with up-front write locks, or PostgreSQL."""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import create_engine, event, exc
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.pool import ConnectionPoolEntry, Pool, PoolProxiedConnection

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


class Writing:
    """An engine whose transactions write: on SQLite they take the write lock when they begin (BEGIN IMMEDIATE), and
    this process's threads take them in turn, through a lock of the process, before asking SQLite for it.

    SQLite lets one writer in at a time, and one waiting for it sleeps in its busy handler, a little longer each try
    (1 ms, then 2, 5, 10 … 100 ms), rather than being woken when the lock is free: with many campaigns' commands at
    once, a waiting append could sleep far longer than the one before it took. The process's lock wakes the next
    writer as soon as the last one committed; writers of other processes still meet SQLite's own lock."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine.execution_options(**{_BEGIN: "IMMEDIATE"})
        self._turn = _turn_of(engine) if engine.dialect.name == "sqlite" else None

    @contextmanager
    def begin(self) -> Iterator[Connection]:
        """A write transaction, committed at the end of the block (rolled back on an error)."""
        if self._turn is None:
            with self.engine.begin() as connection:
                yield connection
            return
        with self._turn, self.engine.begin() as connection:
            yield connection


# one turn per database (its engine's pool, shared by every `execution_options` copy of the engine); reentrant, so
# that a thread that begins a second write within its first meets SQLite's lock as before, not a deadlock
_TURNS: weakref.WeakKeyDictionary[Pool, threading.RLock] = weakref.WeakKeyDictionary()
_TURNS_MADE = threading.Lock()


def _turn_of(engine: Engine) -> threading.RLock:
    with _TURNS_MADE:
        turn = _TURNS.get(engine.pool)
        if turn is None:
            turn = _TURNS[engine.pool] = threading.RLock()
        return turn


def for_writing(engine: Engine) -> Writing:
    """The same engine, for transactions that write (see `Writing`)."""
    return Writing(engine)


def for_one_read(engine: Engine) -> Engine:
    """The same engine for a read of one statement, which is consistent on its own, so no transaction is begun around
    it: on PostgreSQL in autocommit (no BEGIN and no ROLLBACK go to the server: two round trips fewer), on SQLite
    with no BEGIN (sqlite3 runs the statement on its own). The read of a session's user uses it."""
    if engine.dialect.name == "sqlite":
        return engine.execution_options(**{_BEGIN: _ONE_STATEMENT})
    return engine.execution_options(isolation_level="AUTOCOMMIT")
