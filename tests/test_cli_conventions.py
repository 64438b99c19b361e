"""The command line's conventions: every command takes --json and then prints one JSON document, its refusals too;
exit codes are 0 done, 1 refused by the rules or the data, 2 a wrong command line or setting."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer.main
from typer.testing import CliRunner

from herotable.cli import app

NOT_JSON = {"serve"}  # a server: its log is JSON with HEROTABLE_LOG_FORMAT=json


def commands() -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []

    def walk(command: Any, name: str) -> None:
        subs = getattr(command, "commands", None)
        if subs:
            for sub_name, sub in subs.items():
                if not sub.hidden:
                    walk(sub, f"{name} {sub_name}".strip())
        else:
            found.append((name, command))

    walk(typer.main.get_command(app), "")
    return found


def run(*args: str, given: str | None = None) -> Any:
    return CliRunner().invoke(app, list(args), input=given)


def test_every_command_takes_json() -> None:
    names = [name for name, _ in commands()]
    assert len(names) > 25 and "users create" in names and "db check" in names
    for name, command in commands():
        if name not in NOT_JSON:
            assert any("--json" in getattr(p, "opts", ()) for p in command.params), name


def test_the_exit_codes_are_said_in_the_help() -> None:
    words = " ".join(run("--help").output.replace("│", " ").split())
    assert "0 done; 1 refused by the rules or the data; 2 a wrong command line or setting" in words


def test_with_json_a_command_says_what_it_did_and_why_it_refused_as_json(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    missing = run("db", "check", "--json", "--database", f"sqlite:///{tmp_path / 'none.db'}")
    assert missing.exit_code == 1
    assert json.loads(missing.stdout)["error"]["code"] == "refused" and missing.stderr == ""
    upgraded = json.loads(run("db", "upgrade", "--json", "--database", db).stdout)
    assert upgraded["upgraded"] is True and upgraded["from"] is None
    made = run("users", "create", "gwen", "--admin", "--json", "--database", db, given="pw-long-enough\n" * 2)
    assert made.exit_code == 0 and json.loads(made.stdout.splitlines()[-1])["admin"] is True
    refused = run("users", "promote", "nobody", "--json", "--database", db)
    assert refused.exit_code == 1
    assert json.loads(refused.stdout) == {
        "error": {
            "code": "refused",
            "message": "there is no user 'nobody'. Tip: `herotable users list` shows every account",
        }
    }
    usage = run("tokens", "create", "gwen", "--name", "x", "--scope", "admin", "--json", "--database", db)
    assert usage.exit_code == 2 and json.loads(usage.stdout)["error"]["code"] == "usage"
    disabled = json.loads(run("users", "disable", "gwen", "--json", "--database", db).stdout)
    assert disabled == {"username": "gwen", "disabled": True, "sessions_ended": 0}
    copied = json.loads(run("backup", str(tmp_path / "copy.db"), "--json", "--database", db).stdout)
    assert (copied["campaigns"], copied["events"]) == (0, 0)
    plain = run("users", "promote", "nobody", "--database", db)  # without --json: a line on standard error
    assert plain.exit_code == 1 and plain.stdout == "" and plain.stderr.startswith("error: there is no user")
