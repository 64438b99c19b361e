"""`herotable user reset-password`: the server's owner lets a user back in, by a one-time link or a new password;
either way every session of the account ends."""

from __future__ import annotations

import re
from typing import Any

import pytest
from typer.testing import CliRunner

from herotable.cli import app as cli
from herotable.store import open_store

from .clients import anonymous, make_app, register
from .test_account_security import PASSWORD, login


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'reset.db'}"
    url: str = request.getfixturevalue("postgres_schema")()
    return url


def test_a_one_time_link_sets_a_new_password_and_ends_every_session(db_url: str) -> None:
    app = make_app(store=open_store(db_url))
    gwen = register(app, "gwen")
    run = CliRunner().invoke(
        cli, ["user", "reset-password", "GWEN", "--database", db_url, "--base-url", "https://table.example/"]
    )
    assert run.exit_code == 0, run.output
    link = re.search(r"https://table\.example/reset/(\S+)", run.output)
    assert link is not None and "works once, within the hour" in run.output
    path = f"/reset/{link.group(1)}"
    visitor = anonymous(app)
    page = visitor.get(path)
    assert page.status_code == 200 and "Choose a new password for gwen" in page.text
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
    short = visitor.post(path, data={"csrf_token": token, "new_password": "short"})
    assert short.status_code == 422 and "8 to 200 characters" in short.text
    assert gwen.get("/api/v1/me").status_code == 200  # nothing changed, and the link still works
    done = visitor.post(path, data={"csrf_token": token, "new_password": "back in again"})
    assert done.status_code == 200 and "every session of the account ended" in done.text
    assert gwen.get("/api/v1/me").status_code == 401
    assert login(anonymous(app), "gwen", PASSWORD).status_code == 401
    assert login(anonymous(app), "gwen", "back in again").status_code == 200
    again = visitor.post(path, data={"csrf_token": token, "new_password": "and once more"})
    assert again.status_code == 410 and "unknown, used or expired" in again.text
    assert visitor.get("/reset/made-up-token").status_code == 410


def test_the_owner_can_set_a_new_password_directly(db_url: str) -> None:
    app = make_app(store=open_store(db_url))
    gwen = register(app, "gwen")
    other = anonymous(app)
    login(other, "gwen", PASSWORD)
    run = CliRunner().invoke(
        cli, ["user", "reset-password", "gwen", "--set-password", "--database", db_url], input="back in again\n" * 2
    )
    assert run.exit_code == 0, run.output
    assert "The password of gwen is set; 2 sessions ended." in run.output
    assert gwen.get("/api/v1/me").status_code == 401 and other.get("/api/v1/me").status_code == 401
    assert login(anonymous(app), "gwen", "back in again").status_code == 200


def test_a_reset_for_an_unknown_user_or_a_short_password_changes_nothing(db_url: str) -> None:
    app = make_app(store=open_store(db_url))
    gwen = register(app, "gwen")
    unknown = CliRunner().invoke(cli, ["user", "reset-password", "nobody", "--database", db_url])
    assert unknown.exit_code == 1 and "there is no user 'nobody'" in unknown.output
    short = CliRunner().invoke(
        cli, ["user", "reset-password", "gwen", "--set-password", "--database", db_url], input="short\nshort\n"
    )
    assert short.exit_code == 2 and "8 to 200 characters; nothing was changed" in short.output
    assert gwen.get("/api/v1/me").status_code == 200
    assert login(anonymous(app), "gwen", PASSWORD).status_code == 200


def test_the_link_is_on_the_public_url_and_no_link_is_guessed_without_one(db_url: str, monkeypatch) -> None:
    app = make_app(store=open_store(db_url))
    register(app, "gwen")
    monkeypatch.delenv("HEROTABLE_PUBLIC_URL", raising=False)
    guessed = CliRunner().invoke(cli, ["user", "reset-password", "gwen", "--database", db_url])
    assert guessed.exit_code == 2 and "Tip: pass --base-url https://table.example" in guessed.output
    monkeypatch.setenv("HEROTABLE_PUBLIC_URL", "https://Table.Example/")
    run = CliRunner().invoke(cli, ["user", "reset-password", "gwen", "--database", db_url])
    assert run.exit_code == 0 and re.search(r"^https://table\.example/reset/\S+$", run.output, re.M), run.output
