"""docs/operations.md cannot rot: every shell command it shows is run here or by the test named for it.

- every `herotable` command, in the page's order, against a fresh SQLite database (a `serve` line is not started:
  each of its options must be one `serve` takes);
- every setting it assigns (`HEROTABLE_X=…`) names a setting and holds a value the server takes;
- the PostgreSQL lines (`createuser`, `createdb`, `pg_dump`, `pg_restore`) against the test server, with the
  database name swapped for a fresh one, and a user made in between comes back from the dump;
- a program not run here is listed below with the test that covers it, or why no test may run it; a new program
  in the page fails this test until it is."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from herotable.cli import app as cli
from herotable.server.settings import Settings, SettingsError

DOCS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
HEROTABLES = ("herotable", "/opt/herotable/bin/herotable")
POSTGRES = ("createuser", "createdb", "pg_dump", "pg_restore")
ELSEWHERE = {
    "python3": "tests/server/test_wheel.py builds the wheel, makes a venv and installs it; the key recipe runs here",
    "/opt/herotable/bin/pip": "tests/server/test_wheel.py installs the wheel into a fresh venv",
    "mkdir": "a directory; tests/server/test_wheel.py serves from a new empty one",
    "cd": "the directory serve starts in: tests/server/test_wheel.py starts it from an empty one",
    "useradd": "not run by a test: it adds an account to the machine (the unit's User= is checked by systemd-analyze)",
    "chown": "not run by a test: it needs the account useradd makes",
    "chmod": "not run by a test: it needs the file the account owns",
    "cat": "writes the admin wrapper, which test_the_admin_wrapper_finds_the_services_database runs",
    "umask": "a shell builtin: the PostgreSQL test dumps under it and checks the dump's mode",
}


def commands() -> Iterator[list[str]]:
    """Each command of the page's `sh` blocks, as words (comments dropped, `a && b` as two, a here-document's body
    left to the test that runs what it writes)."""
    for block in re.findall(r"```sh\n(.*?)```", DOCS.read_text(), re.S):
        block = re.sub(r"<<'END'\n.*?\nEND\n", "\n", block, flags=re.S)
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            while words:
                cut = words.index("&&") if "&&" in words else len(words)
                if words[:cut]:
                    yield words[:cut]
                words = words[cut + 1 :]


def program(words: list[str]) -> tuple[dict[str, str], list[str]]:
    """The settings a command assigns (`export X=…`, `X=… herotable …`) and the command after them."""
    settings: dict[str, str] = {}
    rest = words[1:] if words[0] == "export" else words
    while rest and re.fullmatch(r"[A-Z_]+=.*", rest[0]):
        name, value = rest[0].split("=", 1)
        settings[name] = value
        rest = rest[1:]
    return settings, rest


def test_every_program_in_the_page_is_run_or_accounted_for() -> None:
    seen = set()
    for words in commands():
        _, rest = program(words)
        if rest:
            seen.add(rest[0])
            assert rest[0] in (*HEROTABLES, *POSTGRES, *ELSEWHERE), (
                f"{rest[0]!r} in docs/operations.md is run by no test"
            )
    assert {"herotable", "pg_dump", "pg_restore", "useradd"} <= seen


def test_every_setting_the_page_assigns_is_one_the_server_takes(monkeypatch: pytest.MonkeyPatch) -> None:
    assigned: dict[str, str] = {}
    for words in commands():
        assigned.update(program(words)[0])
    assert {"HEROTABLE_PUBLIC_URL", "HEROTABLE_DATABASE_URL", "HEROTABLE_REDIS_URL"} <= set(assigned)
    for name, value in assigned.items():
        assert name.removeprefix("HEROTABLE_").lower() in Settings.model_fields, name
        monkeypatch.setenv(name, value)
    try:
        Settings.load()
    except SettingsError as err:
        pytest.fail(f"docs/operations.md sets a value the server refuses: {err}")


def test_every_herotable_command_of_the_page_runs_in_its_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("HEROTABLE_") and not name.startswith("HEROTABLE_TEST_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HEROTABLE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HEROTABLE_HASH_MEMORY_KIB", "256")
    monkeypatch.setenv("HEROTABLE_HASH_ROUNDS", "1")
    backups = tmp_path / "backups"
    backups.mkdir()
    runner = CliRunner()
    assert runner.invoke(cli, ["db", "upgrade"]).exit_code == 0  # the database a running server would have made
    serve_help = runner.invoke(cli, ["serve", "--help"], env={"COLUMNS": "300"}).output
    ran = []
    for words in commands():
        _, rest = program(words)
        if not rest or rest[0] not in HEROTABLES:
            continue
        args = [w.replace("/var/backups/herotable", str(backups)) for w in rest[1:]]
        if args[:1] == ["serve"]:
            for option in (a for a in args if a.startswith("--")):
                assert re.search(rf"{re.escape(option)}(?![\w-])", serve_help), f"serve takes no {option}"
            continue
        given = "pw-long-enough\n" * 2 if args[:2] == ["users", "create"] else None
        result = runner.invoke(cli, args, input=given)
        assert result.exit_code == 0, f"herotable {shlex.join(args)}: {result.output}"
        ran.append(" ".join(args[:2]))
    assert {"db current", "db check", "users create", "users disable", "backup", "restore", "campaigns list"} <= set(
        [r if r.split()[0] in ("db", "users", "campaigns") else r.split()[0] for r in ran]
    )


def test_the_key_recipe_makes_a_key_the_server_takes(tmp_path: Path) -> None:
    [recipe] = [w for w in commands() if w[:2] == ["python3", "-c"]]
    key = subprocess.run([sys.executable, "-c", recipe[2]], capture_output=True, text=True, check=True).stdout.strip()
    (tmp_path / "secret_key").write_text(key + "\n")
    settings = Settings(database_url="postgresql://x@y/z", secret_key_file=tmp_path / "secret_key").with_secret()
    assert settings.secret_key == key and len(key) >= 32


def test_the_postgresql_lines_make_dump_and_restore_a_database(tmp_path: Path, needs: Callable[[str], None]) -> None:
    raw = os.environ.get("HEROTABLE_TEST_POSTGRES_URL")
    if not raw:
        needs("the PostgreSQL lines need HEROTABLE_TEST_POSTGRES_URL (.ci/run sets it)")
        return
    server = make_url(raw)
    name = f"ht_doc_{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "PGHOST": server.host or "127.0.0.1",
        "PGPORT": str(server.port or 5432),
        "PGUSER": server.username or "postgres",
    }
    url = f"postgresql+psycopg://{name}@{env['PGHOST']}:{env['PGPORT']}/{name}"
    lines = [w for w in commands() if w and w[0] in POSTGRES]
    assert [w[0] for w in lines] == ["createuser", "createdb", "pg_dump", "pg_restore"]

    def shell(words: list[str]) -> None:
        swapped = [w.replace("herotable.dump", str(tmp_path / "herotable.dump")) for w in words]
        swapped = [re.sub(r"(^|=)herotable$", rf"\g<1>{name}", w) for w in swapped]
        done = subprocess.run(swapped, env=env, capture_output=True, text=True, preexec_fn=lambda: os.umask(0o077))
        assert done.returncode == 0, f"{shlex.join(swapped)}: {done.stderr}"

    runner = CliRunner()
    try:
        shell(lines[0])
        shell(lines[1])
        assert runner.invoke(cli, ["db", "upgrade", "--database", url]).exit_code == 0
        made = runner.invoke(cli, ["users", "create", "gwen", "--database", url], input="pw-long-enough\n" * 2)
        assert made.exit_code == 0, made.output
        shell(lines[2])  # pg_dump, under the page's `umask 077`
        assert (tmp_path / "herotable.dump").stat().st_mode & 0o777 == 0o600
        engine = sa.create_engine(url)
        with engine.begin() as connection:
            connection.exec_driver_sql("DELETE FROM users")
        engine.dispose()
        shell(lines[3])  # pg_restore
        listed = runner.invoke(cli, ["users", "list", "--database", url])
        assert listed.exit_code == 0 and "gwen" in listed.stdout
        assert runner.invoke(cli, ["db", "check", "--database", url]).exit_code == 0
    finally:
        admin = sa.create_engine(server.set(drivername="postgresql+psycopg"), isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            connection.exec_driver_sql(f"DROP ROLE IF EXISTS {name}")
        admin.dispose()


def test_the_admin_wrapper_finds_the_services_database(tmp_path: Path) -> None:
    script = re.search(r"<<'END'\n(.*?)\nEND\n", DOCS.read_text(), re.S)
    assert script is not None
    home, etc = tmp_path / "var-lib-herotable", tmp_path / "etc-herotable"
    home.mkdir()
    etc.mkdir()
    (etc / "herotable.env").write_text(
        f"HEROTABLE_DATABASE_URL=sqlite:///{tmp_path / 'service.db'}\nHEROTABLE_HASH_MEMORY_KIB=256\n"
    )
    wrapper = tmp_path / "herotable-admin"
    wrapper.write_text(
        script.group(1)
        .replace("/var/lib/herotable", str(home))
        .replace("/etc/herotable", str(etc))
        .replace("/opt/herotable/bin/herotable", str(Path(sys.executable).with_name("herotable")))
    )
    wrapper.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEROTABLE_")}
    assert subprocess.run([str(wrapper), "db", "upgrade"], env=env, capture_output=True).returncode == 0
    listed = subprocess.run([str(wrapper), "users", "list"], env=env, capture_output=True, text=True, cwd="/")
    assert listed.returncode == 0 and "0 accounts" in listed.stdout, listed.stderr
    assert (tmp_path / "service.db").exists() and not (home / "data").exists()  # the service's database, not ./data
