"""Backups of a SQLite database, taken while the server runs, and restoring one.

`backup` copies the live database with SQLite's online backup API: a consistent snapshot at one moment, taken while
commands go on being written (each append is one transaction, so a backup holds whole commands only). `restore`
checks a backup before it replaces anything: the file is a SQLite database whose pages are intact, it is a herotable
database this version can read, and every campaign in it folds with its hash chain intact. PostgreSQL has its own
tools for this (`pg_dump`, see docs/storage.md).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import URL

from herotable.store import payload
from herotable.store.invariants import check_log
from herotable.store.port import LOG_VERSION, CampaignRow, StoreError
from herotable.store.sql import DATABASE_URL_ENV, default_database_url, parse_database_url

if TYPE_CHECKING:
    from herotable.service import TableService

RESTORE_ANOTHER = "Tip: restore another backup, or take a new one of the live database with `herotable backup`"
NAME_A_BACKUP = "Tip: name a file made by `herotable backup`"
PG_DUMP_TIP = (
    "this database is PostgreSQL: back it up with its own tool, e.g. `pg_dump --format=custom -f herotable.dump "
    "DBNAME`, and restore with `pg_restore` (see docs/storage.md)"
)


@dataclass(frozen=True)
class Copied:
    """What a backup or a restore holds: where, how many campaigns and events."""

    path: Path
    campaigns: int
    events: int


def sqlite_path(url: str | None) -> Path:
    """The SQLite file of `url` (else `HEROTABLE_DATABASE_URL`, else the default). Raises StoreError for another
    kind of database."""
    raw = url or os.environ.get(DATABASE_URL_ENV) or default_database_url()
    if raw == "memory://":
        raise StoreError("a store in memory has nothing to back up: name a SQLite file")
    parsed: URL = parse_database_url(raw)
    if parsed.get_backend_name() != "sqlite":
        raise StoreError(PG_DUMP_TIP)
    assert parsed.database
    return Path(parsed.database)


def _counts(connection: sqlite3.Connection) -> tuple[int, int]:
    campaigns = connection.execute("SELECT count(*) FROM campaigns").fetchone()[0]
    events = connection.execute("SELECT count(*) FROM events").fetchone()[0]
    return int(campaigns), int(events)


def _private_new_file(path: Path) -> None:
    """Create `path` empty and readable by its owner only (a backup holds password hashes)."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))


def backup(url: str | None, target: Path) -> Copied:
    """Copy the live database at `url` into the new file `target`. Raises StoreError (and leaves no file) when the
    database is missing, not SQLite, or `target` exists."""
    source = sqlite_path(url)
    if not source.exists():
        raise StoreError(f"there is no database at {source}. Tip: pass --database, or set {DATABASE_URL_ENV}")
    if target.exists():
        raise StoreError(f"{target} already exists. Tip: name a new file; a backup never overwrites one")
    partial = target.with_name(target.name + ".partial")
    try:
        _private_new_file(partial)
    except OSError as error:
        raise StoreError(f"cannot write {target}: {error.strerror}. Tip: check the directory") from error
    try:
        with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as live, sqlite3.connect(partial) as copy:
            live.backup(copy)
            if copy.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                raise StoreError(f"the copy of {source} failed SQLite's integrity check; nothing was written")
            copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            campaigns, events = _counts(copy)
        copy.close()
        live.close()
        os.replace(partial, target)
    except sqlite3.Error as error:
        raise StoreError(f"cannot back up {source}: {error}") from error
    finally:
        partial.unlink(missing_ok=True)
    return Copied(target, campaigns, events)


def _journals(path: Path) -> tuple[Path, Path]:
    """The -wal and -shm files SQLite keeps beside the database at `path`."""
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def _refused(source: Path, reason: str) -> StoreError:
    """A restore refused: `reason` says what is wrong with `source` and ends with a Tip."""
    return StoreError(f"nothing was restored from {source}: {reason}")


def _check_backup(path: Path) -> None:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            if db.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                raise _refused(path, f"it is damaged (SQLite's integrity check fails). {RESTORE_ANOTHER}")
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        db.close()
    except sqlite3.DatabaseError as error:
        raise _refused(path, f"it is not a SQLite database ({error}). {NAME_A_BACKUP}") from error
    if not {"campaigns", "events", "alembic_version"} <= tables:
        raise _refused(path, f"it is a SQLite database but not a herotable one. {NAME_A_BACKUP}")


def _read_rows(path: Path, query: str, *parameters: str) -> list[tuple[Any, ...]]:
    """Rows of the SQLite file at `path` as it keeps them: what the store's port does not hand out."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        found = db.execute(query, parameters).fetchall()
    db.close()
    return found


def _check_snapshots(row: CampaignRow, snapshots: list[tuple[Any, ...]]) -> None:
    """Raise StoreError unless every snapshot (version, seq, state text) of campaign `row` is JSON at an event of its
    log and, in this version's state format, the campaign's state after that event: the server starts from one."""
    from herotable.table.codec import CodecError
    from herotable.table.fold import STATE_VERSION, state_from_snapshot

    for version, seq, text in snapshots:
        at = f"its snapshot at event {seq!r}"
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
            raise StoreError(f"{at} names no event")
        if seq > row.head:
            raise StoreError(f"{at} is past its head at event {row.head}")
        try:
            data = payload.loads(text)
        except (TypeError, ValueError) as error:
            raise StoreError(f"{at} is not JSON ({error})") from None
        if version != STATE_VERSION:
            continue  # an older state format, never read again
        try:
            state = state_from_snapshot(data)
        except CodecError as error:
            raise StoreError(f"{at} is not a state this herotable reads ({error})") from None
        if state.campaign_id != row.campaign_id:
            raise StoreError(f"{at} holds the state of another campaign, {state.campaign_id!r}")
        if state.seq != seq:
            raise StoreError(f"{at} holds the state after event {state.seq}")


def _check_campaign(service: TableService, row: CampaignRow, head_hash: str, snapshots: list[tuple[Any, ...]]) -> int:
    """Raise StoreError naming campaign `row` unless the server can read it as it is: its log whole up to its head
    (seq and hash), its chain intact, and (a campaign recorded as facts) folding, from the start and from its newest
    snapshot, every snapshot readable. The number of its events."""
    from herotable.service import replay_events
    from herotable.table.fold import STATE_VERSION, FoldError

    named = f"campaign {row.name!r} ({row.campaign_id})"
    try:
        log = service.store.load(row.campaign_id)
    except ValueError as error:
        raise StoreError(f"{named}: its log holds an event that is not JSON ({error})") from None
    check_log(row, log, head_hash)
    if row.log_version < LOG_VERSION:
        return len(log)  # kept as it is, as the server keeps it
    try:
        replay_events(log)
        _check_snapshots(row, snapshots)
    except StoreError as error:
        raise StoreError(f"{named}: {error.reason}") from None
    if any(version == STATE_VERSION for version, _, _ in snapshots):
        try:
            service.state(row.campaign_id)
        except (FoldError, StoreError) as error:
            raise StoreError(f"{named}: the events after its newest snapshot do not fold onto it ({error})") from None
    return len(log)


def _check_campaigns(staged: Path, source: Path) -> tuple[int, int]:
    """Check every campaign of the database at `staged` (a copy of `source`) as the server will read it (see
    `_check_campaign`). The campaigns and events it holds. Raises StoreError saying what is wrong, naming the campaign
    at fault, with a Tip."""
    from herotable.service import TableService
    from herotable.store.sql import open_store

    try:
        store = open_store(f"sqlite:///{staged}")  # migrates an older backup to this version's schema
    except StoreError as error:
        raise _refused(source, error.reason) from None
    try:
        head_hashes = dict(_read_rows(staged, "SELECT campaign_id, head_hash FROM campaigns"))
        service = TableService(store)
        campaigns = store.campaigns()
        events = 0
        for row in campaigns:
            snapshots = _read_rows(
                staged, "SELECT version, seq, state FROM snapshots WHERE campaign_id = ? ORDER BY seq", row.campaign_id
            )
            try:
                events += _check_campaign(service, row, head_hashes[row.campaign_id], snapshots)
            except StoreError as error:
                raise _refused(source, f"{error.reason}. {RESTORE_ANOTHER}") from None
    finally:
        store.close()
    return len(campaigns), events


def _serving_file(database: Path) -> Path:
    """The lock file of a database, named after the file itself (symbolic links and relative paths resolved), so
    every spelling of one database shares one lock."""
    real = database.resolve()
    return real.with_name(real.name + ".serving")


_HELD: dict[Path, int] = {}  # the serving locks this process holds, by lock file: kept open until it ends


def hold_serving_lock(database: Path) -> None:
    """Mark the SQLite `database` as served by this process, for as long as it runs: a shared lock (every worker of
    a server takes one) on `<database>.serving`, which the system lets go when the process ends, however it ends. A
    restore in progress holds it exclusively: the server waits for it to finish."""
    import fcntl

    lock = _serving_file(database)
    if lock in _HELD:
        return
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_SH)
    _HELD[lock] = fd


@contextmanager
def no_server_on(database: Path) -> Iterator[None]:
    """Hold the SQLite `database` against any server for the duration; raise StoreError when a running server holds
    it now. A database no server ever served has no lock file, and none is made (a refused restore leaves nothing)."""
    import fcntl

    lock = _serving_file(database)
    try:
        fd = os.open(lock, os.O_RDWR)
    except FileNotFoundError:
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreError(
                f"a herotable server is using {database} now; nothing was changed. Tip: stop it (every worker), "
                "then restore"
            ) from None
        yield
    finally:
        os.close(fd)  # closing lets go of the lock


def restore(source: Path, url: str | None, *, replace: bool = False) -> Copied:
    """Put the backup `source` in place of the database at `url`, after checking it: intact, a herotable database
    (brought to this version's schema), every campaign's log whole up to its head and folding with its chain intact.
    The server must be stopped. Raises StoreError, changing nothing, when a check fails or a database is there and
    `replace` is not given."""
    target = sqlite_path(url)
    if not source.is_file():
        raise StoreError(f"there is no backup at {source}")
    with no_server_on(target):  # held until the backup is in place: a server starting meanwhile waits for it
        return _restore(source, target, replace)


def _restore(source: Path, target: Path, replace: bool) -> Copied:
    _check_backup(source)
    if target.exists() and target.stat().st_size and not replace:
        raise StoreError(
            f"a database is already at {target}. Tip: stop the server and pass --replace to put the backup in its "
            "place (the database there now is lost), or restore to another --database"
        )
    made = [folder for folder in (target.parent, *target.parent.parents) if not folder.exists()]
    staged = target.with_name(target.name + ".restoring")
    restored = False
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        for leftover in (*_journals(staged), staged):  # a -wal left behind would be replayed onto the new copy
            leftover.unlink(missing_ok=True)
        _private_new_file(staged)
        with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as src, sqlite3.connect(staged) as dst:
            src.backup(dst)
        src.close()
        dst.close()
        campaigns, events = _check_campaigns(staged, source)
        replaced = target.stat() if target.exists() else None
        for extra in _journals(target):
            extra.unlink(missing_ok=True)
        if replaced is not None and os.geteuid() == 0:  # restored by root: still the server's own file
            os.chown(staged, replaced.st_uid, replaced.st_gid)
        os.replace(staged, target)
        restored = True
    except sqlite3.Error as error:
        raise _refused(source, f"SQLite failed copying it ({error}). Tip: check the space left on the disk") from error
    except OSError as error:
        raise StoreError(f"cannot write {target}: {error.strerror}. Tip: check the directory") from error
    finally:
        # the copy's -wal too: a connection to it that closes late (an error's traceback held its statement) leaves one
        for leftover in (staged, *_journals(staged)):
            with suppress(OSError):
                leftover.unlink(missing_ok=True)
        if not restored:
            for folder in made:  # deepest first: a refused restore leaves no new directory behind
                with suppress(OSError):
                    folder.rmdir()
    return Copied(target, campaigns, events)
