"""One settings object: every setting an environment variable and a `serve` option, all checked at start in one
line each, the signing key never made silently for a database server, and the table in docs/operations.md."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from herotable.cli import app
from herotable.server.settings import Settings, SettingsError, settings_table, unknown_variables

DOCS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
KEY = "k" * 40


@pytest.fixture(autouse=True)
def _no_settings_from_outside(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("HEROTABLE_") and not name.startswith("HEROTABLE_TEST_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def test_a_server_keeps_as_many_campaigns_as_a_bare_service_unless_told() -> None:
    from herotable.service import CACHED_CAMPAIGNS

    assert Settings().cached_campaigns == CACHED_CAMPAIGNS


def test_the_docs_list_every_setting_as_the_code_has_it() -> None:
    text = DOCS.read_text()
    table = text.split("<!-- settings table:", 1)[1].split("-->", 1)[1].split("<!-- end of settings table -->")[0]
    assert table.strip() == settings_table()
    for name in Settings.model_fields:
        assert f"`HEROTABLE_{name.upper()}`" in table


@pytest.mark.parametrize(
    ("raw", "meant"),
    [
        ("1", True),
        ("true", True),
        ("Yes", True),
        ("ON", True),
        ("0", False),
        ("false", False),
        ("No", False),
        ("off", False),
    ],
)
def test_yes_or_no_is_read_as_people_write_it(monkeypatch: pytest.MonkeyPatch, raw: str, meant: bool) -> None:
    monkeypatch.setenv("HEROTABLE_SECURE_COOKIES", raw)
    monkeypatch.setenv("HEROTABLE_MIGRATE", raw)
    settings = Settings.load()
    assert (settings.secure_cookies, settings.migrate, settings.cookies_secure) == (meant, meant, meant)


def test_an_option_wins_over_the_environment_and_an_empty_variable_is_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEROTABLE_PORT", "9000")
    monkeypatch.setenv("HEROTABLE_PUBLIC_URL", "")
    assert Settings.load().port == 9000
    assert Settings.load({"port": "9100"}).port == 9100
    assert Settings.load().public_url is None


def test_secure_cookies_follow_an_https_public_url_unless_set() -> None:
    assert not Settings().cookies_secure
    assert Settings(public_url="https://Table.Example/").public_url == "https://table.example"
    assert Settings(public_url="https://table.example").cookies_secure
    assert not Settings(public_url="http://table.example").cookies_secure
    assert not Settings(public_url="https://table.example", secure_cookies=False).cookies_secure


def test_every_bad_setting_is_named_in_one_line_with_a_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEROTABLE_PORT", "abc")
    monkeypatch.setenv("HEROTABLE_MIGRATE", "maybe")
    monkeypatch.setenv("HEROTABLE_TRUSTED_PROXIES", "127.0.0.1,proxy.lan")
    monkeypatch.setenv("HEROTABLE_PUBLIC_URL", "table.example")
    monkeypatch.setenv("HEROTABLE_REGISTRATION", "friends")
    monkeypatch.setenv("HEROTABLE_LOG_FORMAT", "xml")
    with pytest.raises(SettingsError) as caught:
        Settings.load({"workers": "0"})
    assert caught.value.problems == [
        "HEROTABLE_PORT='abc' is not a whole number. Tip: e.g. HEROTABLE_PORT=8000",
        "--workers='0' is below 1. Tip: e.g. --workers=1",
        "HEROTABLE_MIGRATE='maybe' is not yes or no (1/0, true/false, yes/no, on/off). "
        "Tip: e.g. HEROTABLE_MIGRATE=false",
        "HEROTABLE_PUBLIC_URL='table.example' is not an http:// or https:// address. "
        "Tip: e.g. HEROTABLE_PUBLIC_URL=https://table.example",
        "HEROTABLE_TRUSTED_PROXIES='127.0.0.1,proxy.lan' holds 'proxy.lan', which is not an IP address or network. "
        "Tip: e.g. HEROTABLE_TRUSTED_PROXIES=127.0.0.1,::1",
        "HEROTABLE_REGISTRATION='friends' is not one of 'open', 'invite' or 'closed'. "
        "Tip: e.g. HEROTABLE_REGISTRATION=open",
        "HEROTABLE_LOG_FORMAT='xml' is not one of 'text' or 'json'. Tip: e.g. HEROTABLE_LOG_FORMAT=text",
    ]


def test_serve_stops_on_bad_settings_with_those_lines_and_no_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEROTABLE_PORT", "abc")
    monkeypatch.setenv("HEROTABLE_LOGIN_ATEMPTS", "3")
    result = CliRunner().invoke(app, ["serve", "--workers", "0"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert lines == [
        "error: HEROTABLE_PORT='abc' is not a whole number. Tip: e.g. HEROTABLE_PORT=8000",
        "error: --workers='0' is below 1. Tip: e.g. --workers=1",
        "warning: HEROTABLE_LOGIN_ATEMPTS names no setting and is ignored; did you mean HEROTABLE_LOGIN_ATTEMPTS?",
    ]
    assert not Path("data").exists()  # nothing was made


def test_every_setting_but_the_key_is_a_serve_option() -> None:
    result = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0
    for name in Settings.model_fields:
        option = f"--{name.replace('_', '-')}"
        assert (re.search(rf"{option}(?![\w-])", result.output) is not None) == (name != "secret_key"), name


def test_unknown_variables_are_typos_not_test_or_bench_settings() -> None:
    env = {"HEROTABLE_PORT": "1", "HEROTABLE_SECURE_COOKIE": "1", "HEROTABLE_TEST_POSTGRES_URL": "x", "PATH": "/"}
    assert unknown_variables(env) == ["HEROTABLE_SECURE_COOKIE"]


def test_sqlite_makes_its_signing_key_once_and_says_so(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="herotable")
    first = Settings(data_dir=tmp_path / "d").with_secret()
    assert "made a signing key in" in caplog.text
    assert (tmp_path / "d" / "secret_key").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "d").stat().st_mode & 0o777 == 0o700  # a new data directory is its owner's alone
    caplog.clear()
    again = Settings(data_dir=tmp_path / "d").with_secret()
    assert caplog.text == ""
    assert first.secret_key == again.secret_key and len(first.secret_key) >= 32


def test_a_database_server_needs_a_key_from_the_environment_or_a_file(tmp_path: Path) -> None:
    postgres = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    with pytest.raises(SettingsError, match="HEROTABLE_SECRET_KEY is not set, and with a database server"):
        Settings(database_url=postgres, data_dir=tmp_path).with_secret()
    assert not (tmp_path / "secret_key").exists()
    assert Settings(database_url=postgres, secret_key=KEY).with_secret().secret_key == KEY
    keyfile = tmp_path / "key"
    keyfile.write_text(KEY + "\n")
    assert Settings(database_url=postgres, secret_key_file=keyfile).with_secret().secret_key == KEY
    with pytest.raises(SettingsError, match="cannot be read"):
        Settings(database_url=postgres, secret_key_file=tmp_path / "missing").with_secret()
    keyfile.write_text("short")
    with pytest.raises(SettingsError, match="holds 5 characters"):
        Settings(database_url=postgres, secret_key_file=keyfile).with_secret()
    with pytest.raises(SettingsError, match="HEROTABLE_SECRET_KEY is 5 characters long"):
        Settings(secret_key="short").with_secret()


def test_the_demo_is_refused_on_a_public_https_server() -> None:
    result = CliRunner().invoke(app, ["serve", "--demo", "--public-url", "https://table.example"])
    assert result.exit_code == 2
    assert "--demo makes accounts whose password is published" in result.stderr


def test_a_redis_address_choices_in_any_case_and_a_typo_s_likely_meaning(monkeypatch: pytest.MonkeyPatch) -> None:
    from herotable.server.settings import meant

    with pytest.raises(SettingsError) as bad:
        Settings.load({"redis_url": "redis//127.0.0.1:6379"})
    assert bad.value.problems == [
        "--redis-url='redis//127.0.0.1:6379' is not a Redis address (redis://, rediss:// or unix://). "
        "Tip: e.g. --redis-url=redis://127.0.0.1:6379/0"
    ]
    monkeypatch.setenv("HEROTABLE_REGISTRATION", "Invite")
    monkeypatch.setenv("HEROTABLE_LOG_FORMAT", "JSON")
    assert (Settings.load().registration, Settings.load().log_format) == ("invite", "json")
    assert meant("HEROTABLE_TRUSTED_PROXY") == "HEROTABLE_TRUSTED_PROXIES"
    assert meant("HEROTABLE_SOMETHING_ELSE") is None
    assert Settings.load({"metrics_allow": ""}).metrics_allow == ("127.0.0.1", "::1")  # empty: unset, as a variable


def test_serve_says_in_one_line_that_its_port_is_taken() -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["serve", "--port", str(port)], env={"HEROTABLE_LOGIN_ATTEMPT": "3"})
    assert result.exit_code == 1  # the machine refuses, not the command line
    assert f"error: cannot listen on 127.0.0.1:{port} (Address already in use)" in result.stderr
    assert result.stderr.count("error:") == 1 and "Traceback" not in result.stderr
    nowhere = CliRunner().invoke(app, ["serve", "--host", "no-such-host.invalid", "--port", "8000"])
    assert nowhere.exit_code == 1 and "is no address of this machine" in nowhere.stderr
