"""The rulings amended on 2026-12-02, each pinned where the engine once read the texts otherwise."""

from __future__ import annotations

from dataclasses import replace

from herotable.dice import Rating, ScriptedRng
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import Defeat, LossType, lose_levels
from herotable.ltl.heroism import recover, recovery_difficulty
from herotable.ltl.options import LtlOptions

OPTS = LtlOptions()


def test_a_hero_who_gave_up_recovers_against_the_usual_difficulty(hero_of):
    # R-LTL-11 (amended 2026-12-02): conceding loses no levels and is not "below d4": a d8 hero who lost one level
    # and gave up recovers against levels lost + 1 (d6), or burns one level
    quitter = lose_levels(hero_of("Quitter", base="d8", heroism="d8"), 1, LossType.PHYSICAL)
    quitter = replace(quitter, defeat=Defeat.GIVES_UP.value)
    assert recovery_difficulty(quitter) == Difficulty.levels(2)
    with ScriptedRng([]) as rng:
        burned = recover(quitter, rng, OPTS, burn=True)
    assert burned.burned == 1 and burned.hero.heroism == Rating.of("d6") and burned.hero.losses == ()


def test_a_hero_beaten_below_d4_still_recovers_against_inconceivable(hero_of):
    # R-LTL-11 (amended 2026-12-02): "below d4" means base Power fell below d4 by levels lost, of any kind
    beaten = lose_levels(hero_of("Brick", base="d6", heroism="d8"), 2, LossType.NON_DAMAGING)
    assert recovery_difficulty(beaten) == Difficulty.named("inconceivable")
