"""`herotable odds …` and `herotable sim …`: JSON shapes with exact and float probabilities."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from herotable.cli import app

runner = CliRunner()


def _json(*args: str) -> dict[str, object]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_odds_exchange_json():
    doc = _json("odds", "exchange", "d4", "d4", "--json")
    assert set(doc) == {"win", "tie", "lose", "crit_success", "crit_failure"}
    assert doc["win"] == {"exact": "3/8", "float": 0.375}
    assert doc["tie"] == {"exact": "1/4", "float": 0.25}


def test_odds_exchange_rerolls_and_text():
    doc = _json("odds", "exchange", "d8", "d12", "--rerolls", "1", "--json")
    assert doc["win"]["exact"] == "77/192"
    text = runner.invoke(app, ["odds", "exchange", "d8", "d12"])
    assert text.exit_code == 0 and "win" in text.output


def test_odds_exchange_refuses_dice_off_the_ladder():
    result = runner.invoke(app, ["odds", "exchange", "d7", "d8"])
    assert result.exit_code == 2 and "d7 is not on the ladder" in result.output


def test_odds_conflict_json():
    doc = _json("odds", "conflict", "d10", "d10", "--json")
    assert {"a_wins", "b_wins", "expected_rounds"} <= set(doc)
    assert doc["a_wins"] == {"exact": "1/2", "float": 0.5}
    assert isinstance(doc["outcomes"], list)


def test_odds_check_json():
    doc = _json("odds", "check", "--bonus", "5", "--dc", "15", "--json")
    assert doc == {"success": {"exact": "11/20", "float": 0.55}}
    doc = _json("odds", "check", "--bonus", "0", "--dc", "20", "--conviction-reroll", "--json")
    assert doc["success"]["exact"] == "29/200"
    assert _json("odds", "check", "--bonus", "5", "--dc", "15", "--wit", "--json")["success"]["exact"] == "13/20"


def test_sim_conflict_json():
    doc = _json("sim", "conflict", "d8,d6", "d10", "--trials", "3000", "--seed", "4", "--json")
    assert doc["method"] == "monte_carlo" and doc["trials"] == 3000
    for key in ("a_wins", "b_wins", "draw", "expected_rounds"):
        assert set(doc[key]) == {"estimate", "low", "high"}
    assert doc == _json("sim", "conflict", "d8,d6", "d10", "--trials", "3000", "--seed", "4", "--json")
