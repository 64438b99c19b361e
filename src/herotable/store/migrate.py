"""Schema migrations: bring a database to the newest revision, keeping every row it holds."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

from herotable.store.engine import for_writing
from herotable.store.port import StoreError

MIGRATIONS = Path(__file__).with_name("migrations")
# Any fixed number: PostgreSQL sessions that migrate at the same time queue on this advisory lock.
_PG_MIGRATION_LOCK = 7_304_118_277


def _config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest schema revision shipped with this version of herotable."""
    head = ScriptDirectory.from_config(_config()).get_current_head()
    if head is None:
        raise StoreError(f"no schema revision found in {MIGRATIONS}; the installed package is incomplete")
    return head


def _check_known(current: str | None) -> None:
    """Raise StoreError, before anything is written, for a schema revision this herotable does not ship: the
    database was made or upgraded by a newer one, whose tables this one would misread or break."""
    known = {script.revision for script in ScriptDirectory.from_config(_config()).walk_revisions()}
    if current is None or current in known:
        return
    raise StoreError(
        f"the database is at schema revision {current!r}, which this herotable does not know (its newest is "
        f"{head_revision()!r}): a newer herotable made or upgraded it. Tip: open it with that herotable, or upgrade "
        "this one to it"
    )


def current_revision(engine: Engine) -> str | None:
    """The database's schema revision, None when it has never been migrated."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Migrate the database up to `revision` in one transaction; a no-op when it is there already.

    Concurrent callers are serialised (SQLite's write lock, a PostgreSQL advisory lock), so the second
    one finds the work done. Raises StoreError for a database at a revision this herotable does not know.
    """
    current = current_revision(engine)
    if revision == "head" and current == head_revision():
        return
    _check_known(current)
    with for_writing(engine).begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
        command.upgrade(_config(connection), revision)


def schema_status(engine: Engine) -> tuple[str | None, str]:
    """(the database's revision, this herotable's newest), raising StoreError for a revision it does not know."""
    current = current_revision(engine)
    _check_known(current)
    return current, head_revision()


def require_head(engine: Engine, shown: str) -> None:
    """Raise StoreError, in one sentence with the command that helps, unless the database is at this herotable's
    newest revision. Nothing is written."""
    current, head = schema_status(engine)
    if current == head:
        return
    if current is None:
        raise StoreError(
            f"{shown} holds no herotable tables yet. Tip: run `herotable db upgrade` to make them (or start the "
            "server with --migrate)"
        )
    raise StoreError(
        f"{shown} is at schema revision {current}, and this herotable needs {head}. Tip: back it up, then run "
        "`herotable db upgrade` (or start the server once with --migrate)"
    )
