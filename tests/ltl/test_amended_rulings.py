"""The rulings amended on 2026-12-01, each pinned where the engine once read the texts otherwise."""

from __future__ import annotations

import pytest

from herotable.dice import ScriptedRng
from herotable.errors import IllegalAction
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.karma import power_stunt
from herotable.ltl.options import LtlOptions
from herotable.ltl.task import buy_success_after

OPTS = LtlOptions()


def test_a_power_stunt_rolls_karma_and_never_burns_it(hero_of):
    # R-LTL-10: "You can roll Karma (but not burn it) to attempt a new Power Stunt"
    hero = hero_of(karma="d12", superpowers=[{"name": "Flight", "stunts": []}])
    with ScriptedRng([(12, 2), (10, 9)]) as rng:
        task = power_stunt(hero, "Flight", "Sonic Boom", Difficulty.named("Hard"), rng, OPTS)
    with pytest.raises(IllegalAction) as err:
        buy_success_after(hero, task)
    assert err.value.code == "karma/stunt_no_burn"
    assert "R-LTL-10" in str(err.value)
