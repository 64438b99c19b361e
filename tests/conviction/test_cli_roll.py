"""`herotable roll EXPR [--json]`."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from herotable.cli import app

runner = CliRunner()


def test_roll_prints_the_dice_and_the_total() -> None:
    result = runner.invoke(app, ["roll", "3d1+2"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "3d1 (1, 1, 1) + 2 = 5"


def test_roll_json_is_one_document_with_every_face() -> None:
    result = runner.invoke(app, ["roll", "2d1kh1+3", "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document == {
        "expression": "2d1kh1+3",
        "total": 4,
        "text": "2d1kh1 (1, 1) + 3 = 4",
        "dice": [{"sides": 1, "face": 1}, {"sides": 1, "face": 1}],
    }


def test_roll_with_real_dice_stays_in_range() -> None:
    result = runner.invoke(app, ["roll", "1d20", "--json"])
    document = json.loads(result.stdout)
    assert 1 <= document["total"] <= 20
    assert document["dice"][0]["sides"] == 20


def test_an_invalid_expression_is_a_clear_error_with_exit_code_2() -> None:
    result = runner.invoke(app, ["roll", "fireball"])
    assert result.exit_code == 2
    assert "cannot read 'fireball'" in result.stderr
    assert "Tip:" in result.stderr


def test_the_roll_limit_is_enforced() -> None:
    result = runner.invoke(app, ["roll", "1000d1000"])
    assert result.exit_code == 2
    assert "rolls more than 100 dice" in result.stderr


def test_errors_in_json_mode_are_a_json_document() -> None:
    result = runner.invoke(app, ["roll", "1d0", "--json"])
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["code"] == "dice/bad_value"
