"""Hero-level damage, dying and recovery (R-CV-8): the saves are rolled as pending checks and applied once
announced, so a Conviction re-roll can still change them (R-CV-4)."""

from __future__ import annotations

from dataclasses import replace

from herotable.conviction.character import Ability
from herotable.conviction.checks import Check, CheckKind, require_announced, roll_check
from herotable.conviction.conditions import (
    DamageKind,
    Lethal,
    after_damage,
    failure_degree,
    lapse_rounds,
    less_fatigue,
    more_fatigue,
    recovered_one_step,
    save_difficulty,
    stabilised,
)
from herotable.conviction.hero import Hero
from herotable.dice import Rng
from herotable.errors import IllegalAction

CONSTITUTION_DIFFICULTY = 10
STABLE_MARGIN = 10


def toughness_save(hero: Hero, rng: Rng, *, damage_bonus: int, kind: DamageKind) -> Check:
    """Roll a Toughness save: d20 + Toughness − bruised/hurt penalty against 15 + damage bonus (R-CV-8)."""
    modifier = hero.sheet.toughness - hero.conditions.penalty(kind)
    check = roll_check(
        rng,
        hero.name,
        f"Toughness save against {kind} damage",
        modifier,
        save_difficulty(damage_bonus),
        CheckKind.TOUGHNESS,
    )
    return replace(check, lethal=kind is DamageKind.LETHAL)


def settled_save(hero: Hero, check: Check) -> Check:
    """A pending Toughness save as it stands now: its −1 per bruised or hurt is counted from the conditions the hero
    holds when it is settled, not when it was rolled, so saves rolled together each count the ones announced before
    them (R-CV-8). Any other check is returned as it is."""
    if check.kind is not CheckKind.TOUGHNESS:
        return check
    kind = DamageKind.LETHAL if check.lethal else DamageKind.NONLETHAL
    return replace(check, modifier=hero.sheet.toughness - hero.conditions.penalty(kind))


def apply_toughness_save(hero: Hero, check: Check, *, by_enemy: bool = True) -> Hero:
    """Apply an announced Toughness save by degree of failure (R-CV-8).

    Being knocked out (unconscious or dying) by the damage, or disabled by it when `by_enemy` (the GM's
    call, default true), gives one Conviction point, even above the maximum (R-CV-13).
    Raises IllegalAction when the save is pending or not this hero's.
    """
    require_announced(check, CheckKind.TOUGHNESS, hero.name)
    check = settled_save(hero, check)
    if check.succeeded:
        return hero
    degree = max(1, failure_degree(check.margin))
    kind = DamageKind.LETHAL if check.lethal else DamageKind.NONLETHAL
    before = hero.conditions
    after = after_damage(before, degree, kind, acted_this_round=hero.turn.acted)
    knocked_out = after.unconscious and not before.unconscious and not after.dead
    disabled = after.disabled and not before.disabled and by_enemy
    gain = 1 if knocked_out or disabled else 0
    return replace(hero.with_conviction(hero.conviction + gain), conditions=after)


def stun(hero: Hero) -> Hero:
    """Stunned: only reactions, for the rest of this round, and the next one too if the hero already acted
    this round (R-CV-8)."""
    rounds = lapse_rounds(hero.conditions.stunned_rounds, hero.turn.acted)
    return replace(hero, conditions=replace(hero.conditions, stunned_rounds=rounds))


def add_fatigue(hero: Hero, steps: int = 1) -> Hero:
    """Strained → fatigued → exhausted; beyond exhausted the hero falls unconscious (R-CV-8), which gives a point of
    Conviction, even above the maximum (R-CV-2)."""
    after = more_fatigue(hero.conditions, steps)
    gain = 1 if after.unconscious and not hero.conditions.unconscious and not after.dead else 0
    return replace(hero.with_conviction(hero.conviction + gain), conditions=after)


def rest(hero: Hero, steps: int = 1) -> Hero:
    """Rest removes fatigue steps; how long it takes is the GM's call (R-CV-8, R-T-2)."""
    return replace(hero, conditions=less_fatigue(hero.conditions, steps))


def dying_check(hero: Hero, rng: Rng) -> tuple[Hero, Check]:
    """A dying hero's check for the round: Constitution against 10 (R-CV-8).

    Raises IllegalAction when the hero is not dying or already made this round's check.
    """
    if not hero.conditions.dying:
        raise IllegalAction(
            "conditions/not_dying",
            f"{hero.name} is not dying",
            ruling="R-CV-8",
            fix="dying checks are only for dying characters",
        )
    if hero.turn.dying_checked:
        raise IllegalAction(
            "conditions/dying_check_made",
            f"{hero.name} already made a dying check this round",
            ruling="R-CV-8",
            fix="make the next dying check next round",
        )
    check = roll_check(
        rng,
        hero.name,
        "dying check",
        hero.sheet.abilities.of(Ability.CONSTITUTION),
        CONSTITUTION_DIFFICULTY,
        CheckKind.DYING,
    )
    return replace(hero, turn=replace(hero.turn, dying_checked=True)), check


def apply_dying_check(hero: Hero, check: Check) -> Hero:
    """Failure: dead. Success by 10 or more: stable (disabled, unconscious). Otherwise still dying (R-CV-8).

    Raises IllegalAction when the check is pending or not this hero's, or the hero is no longer dying.
    """
    require_announced(check, CheckKind.DYING, hero.name)
    if not hero.conditions.dying:
        raise IllegalAction(
            "conditions/not_dying",
            f"{hero.name} is no longer dying",
            ruling="R-CV-8",
            fix="the check no longer applies: the hero was stabilised or died meanwhile (the table voids it, R-CV-10)",
        )
    if not check.succeeded:
        return replace(hero, conditions=replace(hero.conditions, lethal=Lethal.DEAD))
    if check.margin >= STABLE_MARGIN:
        return replace(hero, conditions=stabilised(hero.conditions))
    return hero


def recovery_refusal(hero: Hero) -> IllegalAction | None:
    """Why the hero cannot make a recovery check now, or None (R-CV-8)."""
    c = hero.conditions
    if c.dead or c.dying:
        return IllegalAction(
            "conditions/recovery_while_dying",
            f"{hero.name} is {'dead' if c.dead else 'dying'}",
            ruling="R-CV-8",
            fix="a dying character makes dying checks, or is stabilised (R-CV-10)",
        )
    if recovered_one_step(c) is None:
        return IllegalAction(
            "conditions/nothing_to_recover",
            f"{hero.name} has no damage to recover from",
            ruling="R-CV-8",
            fix="recovery checks are for bruised, hurt, dazed, wounded, staggered, disabled or unconscious characters",
        )
    return None


def recovery_check(hero: Hero, rng: Rng, *, bought_with_conviction: bool = False) -> Check:
    """A recovery check: Constitution against 10 (R-CV-8); when to make one is the GM's call (R-T-2).

    Raises IllegalAction when there is nothing to recover from or the hero is dying or dead.
    """
    refusal = recovery_refusal(hero)
    if refusal is not None:
        raise refusal
    check = roll_check(
        rng,
        hero.name,
        "recovery check",
        hero.sheet.abilities.of(Ability.CONSTITUTION),
        CONSTITUTION_DIFFICULTY,
        CheckKind.RECOVERY,
    )
    return replace(check, bought_with_conviction=bought_with_conviction)


def apply_recovery_check(hero: Hero, check: Check) -> Hero:
    """A success improves the worst damage condition by one step (R-CV-8). If a Conviction-bought check ends
    Disabled, the hero may spend no more Conviction this round (R-CV-3).

    Raises IllegalAction when the check is pending or not this hero's.
    """
    require_announced(check, CheckKind.RECOVERY, hero.name)
    if check.bought_with_conviction:  # its wait is over (R-CV-3)
        hero = replace(hero, turn=replace(hero.turn, recovery_pending=False))
    if not check.succeeded or hero.conditions.dying or hero.conditions.dead:
        return hero
    better = recovered_one_step(hero.conditions)
    if better is None:
        return hero
    turn = hero.turn
    if check.bought_with_conviction and hero.conditions.disabled and not better.disabled:
        turn = replace(turn, spending_closed=True)
    return replace(hero, conditions=better, turn=turn)
