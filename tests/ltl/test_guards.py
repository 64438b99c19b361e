"""Numbers out of range meet a rules error with a code and a tip, never a bare ValueError (R-T-5)."""

from __future__ import annotations

import pytest

from herotable.dice import SeededRng
from herotable.errors import RulesError
from herotable.ltl.hero import LossType, lose_levels
from herotable.ltl.heroism import stun_check
from herotable.ltl.options import LtlOptions
from herotable.ltl.resources import burn_heroism, burn_karma
from herotable.ltl.task import Stance, exchange


def _refused(call, code: str) -> None:
    with pytest.raises(RulesError) as err:
        call()
    assert not isinstance(err.value, ValueError)
    assert err.value.code == code and err.value.ruling == "R-T-5" and err.value.fix


def test_going_for_broke_with_negative_levels_is_a_rules_error(hero_of):
    # R-T-5, R-LTL-7: Going For Broke is 0..cap-1
    a, b = hero_of("A"), hero_of("B")
    _refused(lambda: exchange(a, b, SeededRng(1), LtlOptions(), actor_stance=Stance(broke=-1)), "broke/negative")


def test_losing_negative_levels_is_a_rules_error(hero_of):
    # R-T-5, R-LTL-3: levels lost are zero or more
    _refused(lambda: lose_levels(hero_of(), -2, LossType.PHYSICAL), "loss/negative")


@pytest.mark.parametrize("levels", [0, -1])
def test_burning_no_karma_or_heroism_is_a_rules_error(hero_of, levels: int):
    # R-T-5, R-LTL-10, R-LTL-11: a burn is of one level or more
    _refused(lambda: burn_karma(hero_of(), levels), "karma/burn_nothing")
    _refused(lambda: burn_heroism(hero_of(), levels), "heroism/burn_nothing")


def test_a_stun_check_without_a_loss_is_a_rules_error(hero_of):
    # R-T-5, R-LTL-18: a stun check follows the loss of at least one level
    _refused(lambda: stun_check(hero_of(), 0, SeededRng(1), LtlOptions(stun_on_damage=True)), "stun/no_loss")
