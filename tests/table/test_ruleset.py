"""A campaign's game is named by an open Ruleset: each game registers its own name, and the log reads it back."""

from __future__ import annotations

import pytest

from herotable.table.codec import CodecError, decode, encode
from herotable.table.state import Ruleset


def test_a_ruleset_read_back_is_equal_to_the_built_in_constant():
    back = decode(Ruleset, encode(Ruleset.LTL))
    assert back == Ruleset.LTL and isinstance(back, Ruleset) and back.value == "ltl"
    assert encode(Ruleset.CONVICTION) == "conviction"
    assert {Ruleset("conviction"): 1}[Ruleset.CONVICTION] == 1  # hashed as its name


@pytest.mark.parametrize("name", ["", "LTL", "ltl!", "9lives", "a" * 40, 3])
def test_a_ruleset_is_a_short_lower_case_name(name):
    with pytest.raises(ValueError, match="is not a game's name"):
        Ruleset(name)  # type: ignore[arg-type]
    with pytest.raises(CodecError, match="is not a Ruleset"):
        decode(Ruleset, name)
