"""Hypothesis invariants: Conviction never negative; natural recovery never passes the maximum; a refused
spend changes nothing and rolls no dice (R-CV-2, R-CV-3, R-CV-13)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from herotable.conviction import (
    ActionKind,
    Check,
    Conditions,
    DamageKind,
    Fatigue,
    Hero,
    Lethal,
    NatureTrait,
    NonLethal,
    Role,
    ShakeOff,
    Turn,
    WitLedger,
    announce,
    apply_regain_check,
    apply_toughness_save,
    attempt_exit,
    award_nature,
    conviction_maximum,
    designate,
    determination,
    end_scene,
    escape_death,
    expertise,
    heroic_feat,
    recover_now,
    regain_check,
    reroll,
    roll_check,
    sample_catalogue,
    shake_off,
    start_round,
    strenuous_guard,
    surge,
    the_talent,
    toughness_save,
)
from herotable.dice import RecordingRng, Rng, ScriptedRng, SeededRng
from herotable.errors import RulesError

from .helpers import make_sheet

CATALOGUE = sample_catalogue()
FEATS = [feat.name for feat in CATALOGUE.feats]
FAST = settings(max_examples=60, deadline=None)


def own_check(hero: Hero) -> Check:
    return roll_check(ScriptedRng([9]), hero.name, "Notice", 0, 15)


SPENDS: list[tuple[str, Callable[[Hero, Rng, str], object]]] = [
    ("surge standard", lambda h, r, f: surge(h, ActionKind.STANDARD)),
    ("surge move", lambda h, r, f: surge(h, ActionKind.MOVE)),
    ("heroic feat", lambda h, r, f: heroic_feat(h, f, CATALOGUE)),
    ("talent power", lambda h, r, f: the_talent(h, power=f)),
    ("talent fatigue", lambda h, r, f: the_talent(h)),
    ("expertise", lambda h, r, f: expertise(h, "Notice")),
    ("determination", lambda h, r, f: determination(h)),
    ("shake off stun", lambda h, r, f: shake_off(h, ShakeOff.STUNNED)),
    ("shake off strain", lambda h, r, f: shake_off(h, ShakeOff.STRAINED)),
    ("recover now", lambda h, r, f: recover_now(h, r)),
    ("strenuous guard", lambda h, r, f: strenuous_guard(h)),
    ("escape death", lambda h, r, f: escape_death(h)),
    ("exit scene", lambda h, r, f: attempt_exit(h)),
    ("reroll", lambda h, r, f: reroll(h, own_check(h), r)),
    ("quotable wit", lambda h, r, f: designate(WitLedger(), h, text="Arr!", speaker="Ossa", heard_by=frozenset())),
]


def spent_hero(result: object) -> Hero:
    """The spender from whatever a spend returned."""
    if isinstance(result, Hero):
        return result
    assert isinstance(result, tuple) and isinstance(result[0], Hero)
    return result[0]


conditions = st.builds(
    Conditions,
    bruised=st.integers(0, 3),
    hurt=st.integers(0, 3),
    lethal=st.sampled_from(list(Lethal)),
    nonlethal=st.sampled_from(list(NonLethal)),
    fatigue=st.sampled_from(list(Fatigue)),
    stunned_rounds=st.integers(0, 2),
    dazed_rounds=st.integers(0, 1),
)


@st.composite
def heroes(draw: st.DrawFn, *, at_most_max: bool = False) -> Hero:
    level = draw(st.integers(1, 20))
    first = draw(st.sampled_from(list(Role)))
    ceiling = conviction_maximum(level) if at_most_max else conviction_maximum(level) + 3
    sheet = make_sheet(
        level=level,
        roles=(first,),
        first_role=first,
        conviction=draw(st.integers(0, ceiling)),
        feats=tuple(draw(st.lists(st.sampled_from(["Sea Legs", "Weapon Drill", "Spirit Sight"]), max_size=2))),
    )
    turn = Turn(
        number=1,
        spent=draw(st.integers(0, 2)),
        spending_closed=draw(st.booleans()),
        strenuous_guard=draw(st.booleans()),
    )
    return Hero(sheet, conditions=draw(conditions), turn=turn)


@FAST
@given(hero=heroes(), spend=st.sampled_from(SPENDS), feat=st.sampled_from(FEATS), seed=st.integers(0, 10**6))
def test_every_refused_spend_leaves_state_unchanged_and_a_legal_one_costs_one_point(
    hero: Hero, spend: tuple[str, Callable[[Hero, Rng, str], object]], feat: str, seed: int
) -> None:
    # R-CV-3
    before = copy.deepcopy(hero)
    rng = RecordingRng(SeededRng(seed))
    try:
        result = spend[1](hero, rng, feat)
    except RulesError:
        assert hero == before
        assert rng.rolled == []
        return
    after = spent_hero(result)
    assert hero == before
    assert after.conviction == hero.conviction - 1 >= 0
    assert after.turn.spent == hero.turn.spent + 1


Step = Callable[[Hero, Rng], Hero]


def damage(kind: DamageKind) -> Step:
    def step(hero: Hero, rng: Rng) -> Hero:
        check = toughness_save(hero, rng, damage_bonus=5, kind=kind)
        return apply_toughness_save(hero, announce(check))

    return step


def regain(hero: Hero, rng: Rng) -> Hero:
    hero, check = regain_check(end_scene(hero, dramatic=True), rng)
    return apply_regain_check(hero, announce(check))


NATURAL: list[Step] = [
    lambda h, r: award_nature(h, NatureTrait.VIRTUE),
    lambda h, r: award_nature(h, NatureTrait.VICE),
    regain,
]
OTHER: list[Step] = [
    lambda h, r: start_round(h),
    lambda h, r: surge(h, ActionKind.MOVE),
    lambda h, r: spent_hero(escape_death(h)),
    lambda h, r: spent_hero(recover_now(h, r)),
    lambda h, r: heroic_feat(h, "Sea Legs", CATALOGUE),
    damage(DamageKind.LETHAL),
    damage(DamageKind.NONLETHAL),
]


@FAST
@given(hero=heroes(), steps=st.lists(st.sampled_from([*NATURAL, *OTHER]), max_size=25), seed=st.integers(0, 10**6))
def test_conviction_is_never_negative(hero: Hero, steps: list[Step], seed: int) -> None:
    # R-CV-2, R-CV-3
    rng = SeededRng(seed)
    for step in steps:
        try:
            hero = step(hero, rng)
        except RulesError:
            continue
        assert hero.conviction >= 0


@FAST
@given(
    hero=heroes(at_most_max=True),
    steps=st.lists(st.sampled_from([*NATURAL, OTHER[0], OTHER[1]]), max_size=25),
    seed=st.integers(0, 10**6),
)
def test_natural_recovery_never_passes_the_maximum(hero: Hero, steps: list[Step], seed: int) -> None:
    # R-CV-2, R-CV-13
    hero = replace(hero, conditions=Conditions())
    rng = SeededRng(seed)
    for step in steps:
        try:
            hero = step(hero, rng)
        except RulesError:
            continue
        assert hero.conviction <= hero.conviction_max


@FAST
@given(hero=heroes(), step=st.sampled_from(NATURAL), seed=st.integers(0, 10**6))
def test_natural_recovery_never_adds_to_points_above_the_maximum(hero: Hero, step: Step, seed: int) -> None:
    # R-CV-2: points gained from setbacks may sit above the maximum, but Nature and scenes add nothing then
    before = hero.conviction
    try:
        after = step(hero, SeededRng(seed))
    except RulesError:
        return
    assert after.conviction <= max(before, hero.conviction_max)
