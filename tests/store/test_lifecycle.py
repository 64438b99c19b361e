"""The database's life across upgrades: `herotable db current | check | upgrade`, read-only commands that never
migrate, a server that upgrades SQLite by itself but a database server only when told, refuses a newer schema in
one sentence, and waits a while for a database server still starting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.script import ScriptDirectory
from typer.testing import CliRunner

from herotable.cli import app as cli
from herotable.server.app import app_when_database_answers, create_app
from herotable.server.settings import Settings
from herotable.store import StoreError, open_store
from herotable.store.engine import create_store_engine
from herotable.store.migrate import _config, head_revision, upgrade
from herotable.store.sql import parse_database_url
from isolation import CHEAP_HASHES

from .helpers import CREATED

KEY = "lifecycle-tests-secret-0123456789abcdef"
EARLIER = sorted(s.revision for s in ScriptDirectory.from_config(_config()).walk_revisions() if s.revision)[:-1]


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'old.db'}"
    url: str = request.getfixturevalue("postgres_schema")()
    return url


def at_revision(url: str, revision: str) -> None:
    """The database at `revision`, holding a campaign."""
    engine = create_store_engine(parse_database_url(url))
    upgrade(engine, revision)
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO campaigns (campaign_id, name, ruleset, created_at, head) "
                "VALUES ('old', 'Kept', 'ltl', :at, 0)"
            ),
            {"at": CREATED},
        )
    engine.dispose()


def revision_of(url: str) -> str | None:
    engine = sa.create_engine(parse_database_url(url))
    try:
        with engine.connect() as connection:
            return connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar_one_or_none()
    finally:
        engine.dispose()


def campaigns_in(url: str) -> list[tuple[str, str]]:
    engine = sa.create_engine(parse_database_url(url))
    try:
        with engine.connect() as connection:
            return [tuple(r) for r in connection.exec_driver_sql("SELECT campaign_id, name FROM campaigns")]
    finally:
        engine.dispose()


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def test_the_earlier_revisions_are_all_there() -> None:
    assert [f"{n:04d}" for n in range(1, int(head_revision()))] == EARLIER


@pytest.mark.parametrize("revision", EARLIER)
def test_from_every_earlier_revision_db_upgrade_brings_it_to_head_with_its_data(db_url: str, revision: str) -> None:
    at_revision(db_url, revision)
    current = run("db", "current", "--json", "--database", db_url)
    assert current.exit_code == 0 and f'"revision": "{revision}"' in current.stdout and '"behind"' in current.stdout
    check = run("db", "check", "--database", db_url)
    assert check.exit_code == 1 and f"is at revision {revision} and this herotable needs {head_revision()}" in (
        check.stderr
    )
    exported = run("export", "old", "--database", db_url)  # a read-only command: refuses, never migrates
    assert exported.exit_code == 1 and "Tip: back it up, then run `herotable db upgrade`" in exported.stderr
    assert revision_of(db_url) == revision

    upgraded = run("db", "upgrade", "--database", db_url)
    assert upgraded.exit_code == 0 and f"upgraded from revision {revision} to {head_revision()}" in upgraded.stdout
    assert revision_of(db_url) == head_revision()
    assert campaigns_in(db_url) == [("old", "Kept")]
    assert run("db", "check", "--database", db_url).exit_code == 0
    again = run("db", "upgrade", "--database", db_url)
    assert again.exit_code == 0 and "nothing to do" in again.stdout


def test_db_commands_on_a_database_that_is_not_there_make_nothing(tmp_path: Path) -> None:
    missing = f"sqlite:///{tmp_path / 'none.db'}"
    for args in (("db", "current"), ("db", "check"), ("export", "c1")):
        result = run(*args, "--database", missing)
        assert result.exit_code == 1 and "there is no database at" in result.stderr, args
    assert not (tmp_path / "none.db").exists()
    made = run("db", "upgrade", "--database", missing)
    assert made.exit_code == 0 and f"upgraded from revision none to {head_revision()}" in made.stdout


def test_a_server_upgrades_sqlite_by_itself_but_a_database_server_only_when_told(
    tmp_path: Path, postgres_schema: Any
) -> None:
    sqlite = f"sqlite:///{tmp_path / 'old.db'}"
    at_revision(sqlite, EARLIER[-1])
    create_app(Settings(database_url=sqlite, secret_key=KEY, **CHEAP_HASHES))
    assert revision_of(sqlite) == head_revision()

    postgres = postgres_schema()
    at_revision(postgres, EARLIER[-1])
    with pytest.raises(StoreError, match=rf"is at schema revision {EARLIER[-1]}, and this herotable needs"):
        create_app(Settings(database_url=postgres, secret_key=KEY, **CHEAP_HASHES))
    assert revision_of(postgres) == EARLIER[-1]
    serve = CliRunner().invoke(cli, ["serve"], env={"HEROTABLE_DATABASE_URL": postgres, "HEROTABLE_SECRET_KEY": KEY})
    assert serve.exit_code == 1
    assert serve.stderr.count("\n") == 1 and "Tip: back it up, then run `herotable db upgrade`" in serve.stderr
    create_app(Settings(database_url=postgres, secret_key=KEY, migrate=True, **CHEAP_HASHES))
    assert revision_of(postgres) == head_revision() and campaigns_in(postgres) == [("old", "Kept")]


def test_a_newer_schema_stops_the_server_in_one_sentence(db_url: str, tmp_path: Path) -> None:
    open_store(db_url).close()  # type: ignore[attr-defined]
    engine = sa.create_engine(parse_database_url(db_url))
    with engine.begin() as connection:
        connection.exec_driver_sql("UPDATE alembic_version SET version_num = '0099'")
    engine.dispose()
    env = {"HEROTABLE_DATABASE_URL": db_url, "HEROTABLE_SECRET_KEY": KEY, "HEROTABLE_DATA_DIR": str(tmp_path)}
    for args in (["serve"], ["serve", "--migrate"], ["db", "upgrade"], ["db", "check"]):
        result = CliRunner().invoke(cli, args, env=env)
        assert result.exit_code == 1, args
        assert result.stderr.count("\n") == 1 and "'0099', which this herotable does not know" in result.stderr, args
    assert revision_of(db_url) == "0099"


def test_a_database_server_still_starting_is_waited_for_then_named_in_one_sentence() -> None:
    settings = Settings(database_url="postgresql://nobody@127.0.0.1:1/none", secret_key=KEY, db_wait_s=3)
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    with pytest.raises(StoreError) as gave_up:
        app_when_database_answers(settings, sleep=sleep, ticks=lambda: now[0])
    assert slept == [1.0, 1.0, 1.0]
    message = str(gave_up.value)
    assert "\n" not in message and "cannot open the database" in message and message.endswith("(tried for 3 s)")
    assert "Connection refused" in message

    serve = CliRunner().invoke(cli, ["serve", "--db-wait-s", "0"], env={"HEROTABLE_DATABASE_URL": settings.database_url,
                                                                        "HEROTABLE_SECRET_KEY": KEY})  # fmt: skip
    assert serve.exit_code == 1 and serve.stderr.count("\n") == 1 and "cannot open the database" in serve.stderr


def test_a_bad_url_is_not_waited_for() -> None:
    slept: list[float] = []
    with pytest.raises(StoreError, match="unsupported database URL scheme"):
        app_when_database_answers(
            Settings(database_url="mysql://x@y/z", secret_key=KEY, db_wait_s=30), sleep=slept.append
        )
    assert slept == []


def test_accounts_made_before_revision_0009_come_through_enabled_and_not_admins(db_url: str) -> None:
    from herotable.store.accounts import accounts_for

    at_revision(db_url, "0008")
    engine = create_store_engine(parse_database_url(db_url))
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO users (user_id, username, display_name, password_hash, created_at) "
                "VALUES ('u1', 'gwen', 'Gwen', 'hash', :at)"
            ),
            {"at": CREATED},
        )
        # a live session and a reset point at the account: the upgrade must not copy the table away from them
        connection.execute(
            sa.text(
                "INSERT INTO sessions (sid_hash, user_id, created_at, expires_at) VALUES ('s1', 'u1', :at, '9999')"
            ),
            {"at": CREATED},
        )
        connection.execute(
            sa.text(
                "INSERT INTO password_resets (token_hash, user_id, created_at, expires_at) "
                "VALUES ('r1', 'u1', :at, '9999')"
            ),
            {"at": CREATED},
        )
    engine.dispose()
    assert run("db", "upgrade", "--database", db_url).exit_code == 0
    store = open_store(db_url, migrate="check")
    try:
        accounts = accounts_for(store)
        [gwen] = accounts.users()
        assert (gwen.username, gwen.admin, gwen.disabled_at, gwen.password_hash) == ("gwen", False, None, "hash")
        assert accounts.session_user("s1", CREATED) == gwen  # its session still logs it in
    finally:
        store.close()


def test_a_database_server_that_answers_no_is_not_waited_for(needs: Any) -> None:
    import os

    raw = os.environ.get("HEROTABLE_TEST_POSTGRES_URL")
    if not raw:
        needs("needs HEROTABLE_TEST_POSTGRES_URL")
        return
    missing = str(sa.make_url(raw).set(database="ht_no_such_database"))
    slept: list[float] = []
    settings = Settings(database_url=missing, secret_key=KEY, db_wait_s=30)
    with pytest.raises(StoreError, match="does not exist") as refused:
        app_when_database_answers(settings, sleep=slept.append, ticks=lambda: 0.0)
    assert slept == [] and "tried for" not in str(refused.value)
