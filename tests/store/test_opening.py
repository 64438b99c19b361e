"""Opening a store: choosing the backend from a URL or the environment, migrating, SQLite settings."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.runtime.migration import MigrationContext

from herotable.store import MemoryEventStore, SqlEventStore, StoreError, open_store
from herotable.store.chain import chain_problems
from herotable.store.engine import create_store_engine
from herotable.store.migrate import head_revision, upgrade
from herotable.store.sql import parse_database_url

from .helpers import AT, CREATED, command


def test_memory_url_gives_a_memory_store() -> None:
    assert isinstance(open_store("memory://"), MemoryEventStore)


def test_without_a_url_the_store_is_a_sqlite_file_in_the_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HEROTABLE_DATABASE_URL", raising=False)
    monkeypatch.setenv("HEROTABLE_DATA_DIR", str(tmp_path / "not-yet" / "data"))
    store = open_store()
    store.create_campaign("c1", "N", "ltl", CREATED)
    store.close()
    assert (tmp_path / "not-yet" / "data" / "herotable.db").is_file()


def test_the_default_data_directory_is_data_under_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HEROTABLE_DATABASE_URL", raising=False)
    monkeypatch.delenv("HEROTABLE_DATA_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    open_store().close()
    assert (tmp_path / "data" / "herotable.db").is_file()


def test_the_environment_url_is_used_when_none_is_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEROTABLE_DATABASE_URL", f"sqlite:///{tmp_path / 'env.db'}")
    store = open_store()
    assert isinstance(store, SqlEventStore)
    store.close()
    assert (tmp_path / "env.db").is_file()
    monkeypatch.setenv("HEROTABLE_DATABASE_URL", "memory://")
    assert isinstance(open_store(), MemoryEventStore)


def test_a_plain_postgresql_url_gets_the_psycopg_driver() -> None:
    assert parse_database_url("postgresql://u@db:5432/t").drivername == "postgresql+psycopg"
    assert parse_database_url("postgresql+psycopg://u@db/t").drivername == "postgresql+psycopg"


@pytest.mark.parametrize(
    "url, complaint",
    [
        ("mysql://u@db/t", "unsupported database URL scheme 'mysql'"),
        ("postgresql+psycopg2://u@db/t", "unsupported database URL scheme 'postgresql\\+psycopg2'"),
        ("not a url", "cannot read the database URL"),
        ("sqlite://", "use memory://"),
        ("sqlite:///:memory:", "use memory://"),
    ],
)
def test_a_bad_url_says_which_forms_are_accepted(url: str, complaint: str) -> None:
    with pytest.raises(StoreError, match=complaint) as raised:
        open_store(url)
    assert "Accepted forms: memory://, sqlite:///" in str(raised.value)
    assert "postgresql+psycopg://" in str(raised.value)


def test_an_unreachable_server_is_a_store_error_without_the_password() -> None:
    with pytest.raises(StoreError, match="cannot open the database") as raised:
        open_store("postgresql://someone:s3cret@127.0.0.1:1/none?connect_timeout=2")
    assert "s3cret" not in str(raised.value)


def test_a_sqlite_store_uses_wal_foreign_keys_and_a_busy_timeout(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    open_store(f"sqlite:///{path}").close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    engine = create_store_engine(sa.make_url(f"sqlite:///{path}"))
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30_000
    engine.dispose()


def test_the_database_refuses_a_second_event_at_the_same_seq(tmp_path: Path) -> None:
    # The guarantee lives in the schema itself, not only in the store's own checks.
    path = tmp_path / "h.db"
    store = open_store(f"sqlite:///{path}")
    store.create_campaign("c1", "N", "ltl", CREATED)
    store.append("c1", 0, command("k1", 1))
    store.close()
    with sqlite3.connect(path) as raw, pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        raw.execute(
            "INSERT INTO events (campaign_id, seq, type, version, command_id, at, visibility, data) "
            "VALUES ('c1', 1, 't', 1, 'k2', ?, 'public', '{}')",
            (AT,),
        )


def _revision(path: Path) -> str | None:
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.connect() as connection:
        revision = MigrationContext.configure(connection).get_current_revision()
    engine.dispose()
    return revision


def test_a_database_at_the_first_revision_is_migrated_and_keeps_its_data(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    engine = create_store_engine(sa.make_url(f"sqlite:///{path}"))
    upgrade(engine, "0001")
    engine.dispose()
    assert _revision(path) == "0001"
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT name FROM sqlite_master WHERE name = 'snapshots'").fetchall() == []
        raw.execute("INSERT INTO campaigns VALUES ('old', 'From before snapshots', 'ltl', ?, 2)", (CREATED,))
        raw.executemany(
            "INSERT INTO events (campaign_id, seq, type, version, command_id, at, actor, visibility, owner, data) "
            "VALUES ('old', ?, 'ltl.karma_spent', 1, 'k1', ?, 'p1', 'public', NULL, ?)",
            [(1, AT, '{"part":0,"of":2}'), (2, AT, '{"part":1,"of":2}')],
        )
    store = open_store(f"sqlite:///{path}")
    assert _revision(path) == head_revision()
    assert store.head("old") == 2
    assert [(e.seq, e.actor, dict(e.data)) for e in store.load("old")] == [
        (1, "p1", {"part": 0, "of": 2}),
        (2, "p1", {"part": 1, "of": 2}),
    ]
    store.save_snapshot("old", 2, {"karma": "d8"}, 1)
    store.append("old", 2, command("k2", 2))
    store.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT campaign_id, seq FROM snapshots").fetchall() == [("old", 2)]


def test_opening_a_current_database_again_changes_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.db'}"
    store = open_store(url)
    store.create_campaign("c1", "N", "ltl", CREATED)
    store.append("c1", 0, command("k1", 2))
    store.close()
    again = open_store(url)
    assert again.head("c1") == 2
    assert _revision(tmp_path / "h.db") == head_revision()
    again.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def old_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database URL on each SQL backend, to migrate from an older revision."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'facts.db'}"
    url: str = request.getfixturevalue("postgres_schema")()
    return url


def test_a_database_before_facts_is_migrated_and_keeps_its_campaigns_unread(old_url: str) -> None:
    # revision 0004: events gain their chain, rules version, command record and stream place; campaigns
    # recorded before are marked as such and kept, never rewritten
    engine = create_store_engine(parse_database_url(old_url))
    upgrade(engine, "0003")
    with engine.begin() as connection:
        mark = "%s" if engine.dialect.name == "postgresql" else "?"
        connection.exec_driver_sql(
            "INSERT INTO campaigns (campaign_id, name, ruleset, created_at, head) "
            f"VALUES ('old', 'Old', 'ltl', {mark}, 3)",
            (CREATED,),
        )
        rows = [
            (1, "campaign.create", "k1", None, "public", None, '{"summary":{"text":"created"}}'),
            (2, "ltl.challenge", "k2", "p1", "owner", "p1", '{"faces":[[10,7],[8,2]]}'),
            (3, "ltl.settle", "k3", "p1", "public", None, '{"summary":{"outcome":"win"}}'),
        ]
        for seq, kind, command_id, actor, visibility, owner, data in rows:
            connection.execute(
                sa.text(
                    "INSERT INTO events (campaign_id, seq, type, version, command_id, at, actor, visibility, owner, "
                    "data) VALUES ('old', :seq, :kind, 1, :cid, :at, :actor, :vis, :owner, :data)"
                ),
                {
                    "seq": seq,
                    "kind": kind,
                    "cid": command_id,
                    "at": AT,
                    "actor": actor,
                    "vis": visibility,
                    "owner": owner,
                    "data": data,
                },
            )
    engine.dispose()
    store = open_store(old_url)
    try:
        assert store.campaign("old").log_version == 1
        log = store.load("old")
        assert [(e.seq, e.type, e.version, dict(e.data)) for e in log] == [
            (1, "campaign.create", 1, {"summary": {"text": "created"}}),
            (2, "ltl.challenge", 1, {"faces": [[10, 7], [8, 2]]}),
            (3, "ltl.settle", 1, {"summary": {"outcome": "win"}}),
        ]
        assert [e.stream_pos for e in log] == [1, 1, 2]
        assert chain_problems(log) == []
        assert [e.seq for e in store.read_stream("old", "p2")] == [1, 3]
        new = store.create_campaign("new", "New", "ltl", CREATED)
        assert new.log_version == 2
        appended = store.append("old", 3, command("k4", 1))
        assert appended[0].prev_hash == log[-1].hash and appended[0].stream_pos == 3
    finally:
        store.close()


def test_a_database_of_a_newer_herotable_is_refused_naming_its_revision_and_left_alone(old_url: str) -> None:
    store = open_store(old_url)
    store.create_campaign("c1", "N", "ltl", CREATED)
    store.append("c1", 0, command("k1", 2))
    store.close()
    engine = sa.create_engine(old_url)
    with engine.begin() as connection:
        connection.exec_driver_sql("UPDATE alembic_version SET version_num = 'ffff_newer'")
    with pytest.raises(StoreError, match=r"schema revision 'ffff_newer'.*newer herotable.*Tip: ") as refused:
        open_store(old_url)
    assert head_revision() in str(refused.value)
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar_one() == "ffff_newer"
        assert connection.exec_driver_sql("SELECT head FROM campaigns").scalar_one() == 2
    engine.dispose()


def _backend_pid(engine: sa.Engine) -> int:
    with engine.connect() as connection:
        pid: int = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
    return pid


def _terminate(url: str, pid: int) -> None:
    killer = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with killer.connect() as connection:
            connection.exec_driver_sql(f"SELECT pg_terminate_backend({pid})")
    finally:
        killer.dispose()


def test_a_postgresql_connection_closed_while_idle_is_replaced_before_use(
    postgres_schema: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pooled connection idle for more than PING_AFTER_IDLE_S is checked first: one the server closed meanwhile (a
    restart) is replaced, and the request never sees it. One used a moment ago is taken unchecked."""
    from herotable.store import engine as engines

    url = postgres_schema()
    engine = create_store_engine(parse_database_url(url))
    try:
        first = _backend_pid(engine)
        assert _backend_pid(engine) == first  # the pool gives the same connection back
        _terminate(url, first)
        monkeypatch.setattr(engines, "PING_AFTER_IDLE_S", 0.0)  # every connection counts as idle now
        replaced = _backend_pid(engine)  # checked, found closed, replaced: no error
        assert replaced != first
        monkeypatch.setattr(engines, "PING_AFTER_IDLE_S", 3600.0)  # every connection counts as used a moment ago
        _terminate(url, replaced)
        with pytest.raises(sa.exc.OperationalError):  # taken unchecked: the request that finds it closed fails
            _backend_pid(engine)
        assert _backend_pid(engine) not in (first, replaced)  # and the pool was renewed
    finally:
        engine.dispose()


def test_a_sqlite_database_s_writers_of_one_process_take_turns_through_one_lock(tmp_path: Path) -> None:
    """Every store of one SQLite database (events, accounts, webhooks…) shares the process's turn to write, so a
    waiting writer is woken when the last one commits rather than sleeping in SQLite's busy handler; another
    database has its own; a thread may begin a write within its own (it then meets SQLite's lock, as before)."""
    import threading

    from herotable.store.engine import for_writing

    engine = create_store_engine(parse_database_url(f"sqlite:///{tmp_path / 'one.db'}"))
    other = create_store_engine(parse_database_url(f"sqlite:///{tmp_path / 'other.db'}"))
    writing = for_writing(engine)
    assert writing._turn is for_writing(engine.execution_options(isolation_level="SERIALIZABLE"))._turn
    assert writing._turn is not for_writing(other)._turn
    with writing.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE t (n INTEGER)")
    got: list[int] = []
    with writing.begin() as connection:  # another thread's write waits for this one's commit, then sees it
        connection.exec_driver_sql("INSERT INTO t VALUES (1)")
        waiting = threading.Thread(target=lambda: _count_then_insert(writing, got))
        waiting.start()
        waiting.join(timeout=0.2)
        assert waiting.is_alive() and got == []
    waiting.join()
    assert got == [1]
    engine.dispose()
    other.dispose()


def _count_then_insert(writing: Any, got: list[int]) -> None:
    with writing.begin() as connection:
        got.append(connection.exec_driver_sql("SELECT count(*) FROM t").scalar_one())
        connection.exec_driver_sql("INSERT INTO t VALUES (2)")
