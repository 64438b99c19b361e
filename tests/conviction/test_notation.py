"""Free-form dice notation through the d20 library, with faces from an Rng and the roll limit kept."""

from __future__ import annotations

import pytest

from herotable.dice import ScriptedRng, SeededRng
from herotable.notation import MAX_DICE, NotationError, roll_notation


def test_keep_highest_of_two_d20s_plus_three() -> None:
    with ScriptedRng([(20, 5), (20, 17)]) as rng:
        result = roll_notation("2d20kh1+3", rng)
    assert result.total == 17 + 3
    assert result.dice == ((20, 5), (20, 17))
    assert result.text.endswith("= 20")


def test_four_d6_keep_three() -> None:
    with ScriptedRng([(6, 1), (6, 4), (6, 6), (6, 3)]) as rng:
        assert roll_notation("4d6kh3", rng).total == 4 + 6 + 3


def test_exploding_dice_take_their_faces_from_the_rng() -> None:
    with ScriptedRng([6, 6, 2]) as rng:
        result = roll_notation("1d6e6", rng)
    assert result.total == 14
    assert len(result.dice) == 3


def test_rerolls_take_their_faces_from_the_rng() -> None:
    with ScriptedRng([1, 5]) as rng:
        assert roll_notation("1d6ro1", rng).total == 5


def test_too_many_dice_are_refused_before_rolling_them_all() -> None:
    with pytest.raises(NotationError) as caught:
        roll_notation("1000d1000", ScriptedRng([1] * (MAX_DICE + 1)))
    assert caught.value.code == "dice/too_many_dice"
    assert f"at most {MAX_DICE} dice" in str(caught.value)


def test_endless_explosions_stop_at_the_limit() -> None:
    with pytest.raises(NotationError) as caught:
        roll_notation("1d1e1", ScriptedRng([1] * (MAX_DICE + 1)))
    assert caught.value.code == "dice/too_many_dice"


@pytest.mark.parametrize(
    ("expression", "code"),
    [
        ("", "dice/empty"),
        ("fireball", "dice/syntax"),
        ("2d", "dice/syntax"),
        ("1d0", "dice/bad_value"),
        ("1d6/0", "dice/bad_value"),
        ("1d100000", "dice/bad_value"),
        ("1+" * 150 + "1", "dice/too_long"),
    ],
)
def test_bad_expressions_are_refused_with_a_tip(expression: str, code: str) -> None:
    with pytest.raises(NotationError) as caught:
        roll_notation(expression, ScriptedRng([1, 1, 1]))
    assert caught.value.code == code
    assert "Tip:" in str(caught.value)


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ("banana", "cannot read 'banana' from 'banana' (character 1): it could go on with a number or dice"),
        ("2d", "'2d' stops too soon: it could go on with how many faces (as in 2d6)"),
        ("3x4", "cannot read '3x4': nothing may come after '3'"),
        ("(2d6", "'(2d6' stops too soon: it could go on with a closing bracket"),
    ],
)
def test_a_bad_expression_is_told_in_words_not_the_parser_s_token_names(expression, says):
    with pytest.raises(NotationError) as caught:
        roll_notation(expression, SeededRng(1))
    assert says in caught.value.reason
    assert not any(token in str(caught.value) for token in ("INTEGER", "LPAR", "U_OP", "DICE_VALUE", "$END"))
