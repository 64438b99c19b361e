"""Spending Conviction (R-CV-3 … R-CV-10): the spending limit and every use that acts on the spender alone
or on one ally. Exiting a scene is in `exit_scene.py`, Quotable Wit in `quotable_wit.py`.

Each use checks that it is legal before anything is paid; a refused spend raises and changes nothing.
"""

from __future__ import annotations

from dataclasses import replace
from enum import StrEnum

from herotable.conviction.character import Role
from herotable.conviction.checks import Check, CheckKind, reroll_refusal, rerolled
from herotable.conviction.conditions import Fatigue, stabilised
from herotable.conviction.damage import recovery_check, recovery_refusal
from herotable.conviction.feats import Catalogue, acquisition_problems
from herotable.conviction.hero import Effect, EffectKind, Hero, Lasts
from herotable.conviction.rounds import ActionKind, Initiative
from herotable.dice import D20, Rng
from herotable.errors import IllegalAction, NotEnough, RulesError

EXPERTISE_RANKS = 4


class ShakeOff(StrEnum):
    STUNNED = "stunned"
    STRAINED = "strained"


def spending_refusal(hero: Hero, *, recovery_reroll: bool = False) -> RulesError | None:
    """Why the hero cannot spend a Conviction point right now, or None (R-CV-2, R-CV-3). `recovery_reroll`: the
    point re-rolls the hero's pending Conviction-bought recovery check, the one spend its wait allows."""
    if hero.conditions.dead:
        return IllegalAction(
            "conviction/dead",
            f"{hero.name} is dead",
            ruling="R-CV-3",
            fix="the dead spend no Conviction",
        )
    if hero.conviction < 1:
        return NotEnough(
            "conviction/none_left",
            f"{hero.name} has no Conviction left",
            ruling="R-CV-2",
            fix="regain Conviction by acting on Nature or after a dramatic scene (R-CV-13)",
        )
    if hero.turn.recovery_pending and not recovery_reroll:
        return IllegalAction(
            "conviction/recovery_pending",
            f"{hero.name}'s Conviction-bought recovery check is still pending",
            ruling="R-CV-3",
            fix="announce it first; until then the only point to spend is a re-roll of that check",
        )
    if hero.turn.spending_closed:
        return IllegalAction(
            "conviction/recovered_from_disabled",
            f"{hero.name} recovered from Disabled with a Conviction recovery check and can spend no more this round",
            ruling="R-CV-3",
            fix="wait for the next round",
        )
    if hero.turn.spent >= 1 and not hero.conditions.disabled:
        return IllegalAction(
            "conviction/once_per_round",
            f"{hero.name} has already spent a Conviction point this round",
            ruling="R-CV-3",
            fix="wait for the next round; only a Disabled character spends more than one a round",
        )
    return None


def can_spend(hero: Hero, *, recovery_reroll: bool = False) -> bool:
    """Whether one more Conviction point may be spent this round (R-CV-3)."""
    return spending_refusal(hero, recovery_reroll=recovery_reroll) is None


def pay(hero: Hero, *, recovery_reroll: bool = False) -> Hero:
    """Spend one point, counting it against this round's limit (R-CV-3).

    Raises NotEnough with no points left, IllegalAction when the limit or death forbids it.
    """
    refusal = spending_refusal(hero, recovery_reroll=recovery_reroll)
    if refusal is not None:
        raise refusal
    paid = hero.with_conviction(hero.conviction - 1)
    return replace(paid, turn=replace(hero.turn, spent=hero.turn.spent + 1))


def reroll(hero: Hero, check: Check, rng: Rng) -> tuple[Hero, Check]:
    """Re-roll one of your own pending rolls and keep the better; 1–10 on the re-roll count +10 (R-CV-4).

    Raises IllegalAction for someone else's roll, an announced roll or a second re-roll; the spending
    errors of `pay`.
    """
    if check.roller != hero.name:
        raise IllegalAction(
            "conviction/not_your_roll",
            f"{hero.name} cannot re-roll {check.roller}'s {check.label}",
            ruling="R-CV-4",
            fix="spend Conviction to re-roll only a roll you made",
        )
    refusal = reroll_refusal(check)
    if refusal is not None:
        raise refusal
    paid = pay(hero, recovery_reroll=is_bought_recovery(check))
    return paid, rerolled(check, rng)


def reroll_initiative(hero: Hero, roll: Initiative, rng: Rng) -> tuple[Hero, Initiative]:
    """Re-roll one's initiative while it is still pending, before the GM begins the first turn: 1–10 count +10, the
    better kept; it is the round's one point (R-CV-4 amended 2026-12-02, R-CV-3).

    Raises IllegalAction for a second re-roll; the spending errors of `pay`.
    """
    if roll.second is not None:
        raise IllegalAction(
            "conviction/initiative_rerolled",
            f"{hero.name} has already re-rolled initiative this round",
            ruling="R-CV-4",
            fix="a roll takes one Conviction re-roll; spend the point on something else",
        )
    return pay(hero), replace(roll, second=rng.roll(D20))


def is_bought_recovery(check: Check) -> bool:
    """A recovery check bought with Conviction: while pending, the only spend its hero may make is its re-roll."""
    return check.kind is CheckKind.RECOVERY and check.bought_with_conviction


def _able_to_act(hero: Hero, use: str) -> None:
    c = hero.conditions
    if c.unconscious or c.dead or c.stunned or c.dazed:
        raise IllegalAction(
            "conviction/cannot_act",
            f"{hero.name} cannot act ({', '.join(c.names())}), so {use} would be wasted",
            ruling="R-CV-5",
            fix="shake off a stun first (R-CV-9), or wait until the hero can act again",
        )


def surge(hero: Hero, action: ActionKind) -> Hero:
    """One extra standard or move action this round, before or after the normal ones; the hero keeps their
    place in the initiative order (R-CV-5).

    Raises IllegalAction for other kinds of action or a hero who cannot act; the spending errors of `pay`.
    """
    if action not in (ActionKind.STANDARD, ActionKind.MOVE):
        raise IllegalAction(
            "conviction/surge_kind",
            f"a surge gives a standard or a move action, not a {action} action",
            ruling="R-CV-5",
            fix="surge for a standard action and use it to start or finish a full-round action",
        )
    _able_to_act(hero, "a surge")
    paid = pay(hero)
    t = paid.turn
    turn = (
        replace(t, extra_standard=t.extra_standard + 1)
        if action is ActionKind.STANDARD
        else replace(t, extra_move=t.extra_move + 1)
    )
    return replace(paid, turn=turn)


def heroic_feat(hero: Hero, feat_name: str, catalogue: Catalogue) -> Hero:
    """Gain a feat for this round: its category must be open to one of the hero's roles and the sheet must
    meet its prerequisites; a repeatable feat gains one more acquisition (R-CV-6).

    Raises IllegalAction naming every reason the feat is out of reach; the spending errors of `pay`.
    """
    feat = catalogue.get(feat_name)
    if feat is None:
        raise IllegalAction(
            "conviction/unknown_feat",
            f"{feat_name!r} is not in the feats catalogue ({catalogue.source})",
            ruling="R-CV-6",
            fix="choose a feat from the campaign's catalogue",
        )
    if not feat.repeatable and hero.feat_count(feat.name) > 0:
        raise IllegalAction(
            "conviction/feat_already_held",
            f"{hero.name} already has {feat.name}, which is not repeatable",
            ruling="R-CV-6",
            fix="choose a feat the hero does not have, or a repeatable one",
        )
    reasons = acquisition_problems(hero.sheet, feat)
    if reasons:
        raise IllegalAction(
            "conviction/feat_out_of_reach",
            "; ".join(reasons),
            ruling="R-CV-6",
            fix="choose a feat open to the hero's roles whose prerequisites the sheet meets",
        )
    paid = pay(hero)
    lasts = Lasts.NEXT_ROUND if hero.turn.acted else Lasts.ROUND  # until the same point of the next round (R-CV-3)
    return replace(paid, effects=(*paid.effects, Effect(EffectKind.FEAT, feat.name, lasts)))


def _core_role(hero: Hero, role: Role, ability: str) -> None:
    if hero.sheet.first_role is not role:
        raise IllegalAction(
            "conviction/not_first_role",
            f"{ability} is the {role} core ability; {hero.name} took {hero.sheet.first_role} at 1st level",
            ruling="R-CV-7",
            fix=f"only a hero whose 1st-level role is {role} can use {ability}",
        )


def the_talent(hero: Hero, *, power: str | None = None) -> Hero:
    """Adept core ability: one use (this scene) of a power the hero lacks, or, with no power named, clear
    power-fatigue (the fatigue track) (R-CV-7).

    Raises IllegalAction for a non-Adept, a power already on the sheet, or no fatigue to clear; the
    spending errors of `pay`.
    """
    _core_role(hero, Role.ADEPT, "The Talent")
    if power is not None and not power.strip():
        raise IllegalAction(
            "conviction/blank_power",
            "The Talent names no power",
            ruling="R-CV-7",
            fix="name the power to use once, or leave it out to clear power fatigue",
        )
    if power is None:
        if hero.conditions.fatigue is Fatigue.NONE:
            raise IllegalAction(
                "conviction/no_power_fatigue",
                f"{hero.name} has no fatigue to clear",
                ruling="R-CV-7",
                fix="name a power the hero lacks to use it once instead",
            )
        paid = pay(hero)
        return replace(paid, conditions=replace(paid.conditions, fatigue=Fatigue.NONE))
    if hero.sheet.feat_count(power) > 0:
        raise IllegalAction(
            "conviction/power_already_known",
            f"{hero.name} already has {power}",
            ruling="R-CV-7",
            fix="The Talent grants a power the hero lacks",
        )
    paid = pay(hero)
    return replace(paid, effects=(*paid.effects, Effect(EffectKind.POWER_USE, power, Lasts.SCENE)))


def use_talent_power(hero: Hero, power: str) -> Hero:
    """Use the power The Talent granted; the use is gone afterwards (R-CV-7).

    Raises IllegalAction when no such use is held.
    """
    wanted = power.casefold()
    for index, effect in enumerate(hero.effects):
        if effect.kind is EffectKind.POWER_USE and effect.name.casefold() == wanted:
            return replace(hero, effects=hero.effects[:index] + hero.effects[index + 1 :])
    raise IllegalAction(
        "conviction/no_power_use",
        f"{hero.name} holds no use of {power}",
        ruling="R-CV-7",
        fix="spend Conviction on The Talent first",
    )


def expertise(hero: Hero, skill: str) -> Hero:
    """Expert core ability: +4 ranks in any skill until the end of the scene (R-CV-7).

    Raises IllegalAction for a non-Expert or a skill that already has Expertise this scene; the spending
    errors of `pay`.
    """
    _core_role(hero, Role.EXPERT, "Expertise")
    if not skill.strip():
        raise IllegalAction(
            "conviction/blank_skill", "Expertise names no skill", ruling="R-CV-7", fix="name the skill to boost"
        )
    wanted = skill.casefold()
    if any(e.kind is EffectKind.SKILL_RANKS and e.name.casefold() == wanted for e in hero.effects):
        raise IllegalAction(
            "conviction/expertise_held",
            f"{hero.name} already has Expertise in {skill} this scene",
            ruling="R-CV-7",
            fix="use Expertise on another skill, or in a later scene",
        )
    paid = pay(hero)
    boost = Effect(EffectKind.SKILL_RANKS, skill, Lasts.SCENE, EXPERTISE_RANKS)
    return replace(paid, effects=(*paid.effects, boost))


def determination(hero: Hero) -> Hero:
    """Warrior core ability: remove every bruised and hurt condition (R-CV-7).

    Raises IllegalAction for a non-Warrior or a hero with nothing to remove; the spending errors of `pay`.
    """
    _core_role(hero, Role.WARRIOR, "Determination")
    if hero.conditions.bruised == 0 and hero.conditions.hurt == 0:
        raise IllegalAction(
            "conviction/nothing_to_remove",
            f"{hero.name} is neither bruised nor hurt",
            ruling="R-CV-7",
            fix="use Determination after taking bruised or hurt results",
        )
    paid = pay(hero)
    return replace(paid, conditions=replace(paid.conditions, bruised=0, hurt=0))


def shake_off(hero: Hero, condition: ShakeOff) -> Hero:
    """Recover: shake off a stunned or strained condition at once (R-CV-9).

    Raises IllegalAction when the hero does not hold that condition; the spending errors of `pay`.
    """
    c = hero.conditions
    if condition is ShakeOff.STUNNED:
        if not c.stunned:
            raise IllegalAction(
                "conviction/not_stunned",
                f"{hero.name} is not stunned",
                ruling="R-CV-9",
                fix="nothing to shake off",
            )
        paid = pay(hero)
        return replace(paid, conditions=replace(c, stunned_rounds=0))
    if c.fatigue is not Fatigue.STRAINED:
        state = "not fatigued at all" if c.fatigue is Fatigue.NONE else f"{c.fatigue.name.lower()}, beyond strained"
        raise IllegalAction(
            "conviction/not_strained",
            f"{hero.name} is {state}",
            ruling="R-CV-9",
            fix="Conviction shakes off only the strained step; rest for the rest",
        )
    paid = pay(hero)
    return replace(paid, conditions=replace(c, fatigue=Fatigue.NONE))


def recover_now(hero: Hero, rng: Rng) -> tuple[Hero, Check]:
    """Recover: an immediate recovery check, in addition to the normal ones (R-CV-9). If it ends Disabled,
    no more Conviction may be spent this round (R-CV-3; applied by `apply_recovery_check`).

    Raises IllegalAction when there is nothing to recover from; the spending errors of `pay`.
    """
    refusal = recovery_refusal(hero)
    if refusal is not None:
        raise refusal
    paid = pay(hero)
    waiting = replace(paid, turn=replace(paid.turn, recovery_pending=True))
    return waiting, recovery_check(paid, rng, bought_with_conviction=True)


def strenuous_guard(hero: Hero) -> Hero:
    """Recover: while Disabled, take strenuous actions this round without dropping to dying (R-CV-9).

    Raises IllegalAction when the hero is not Disabled or is already guarded; the spending errors of `pay`.
    """
    if not hero.conditions.disabled:
        raise IllegalAction(
            "conviction/not_disabled",
            f"{hero.name} is not Disabled",
            ruling="R-CV-9",
            fix="this use is only for a Disabled character",
        )
    if hero.turn.strenuous_guard:
        raise IllegalAction(
            "conviction/already_guarded",
            f"{hero.name} is already guarded against dying this round",
            ruling="R-CV-9",
            fix="one point covers the whole round",
        )
    paid = pay(hero)
    return replace(paid, turn=replace(paid.turn, strenuous_guard=True))


def escape_death(spender: Hero, target: Hero | None = None, *, assisting: bool = False) -> tuple[Hero, Hero]:
    """Stabilise a dying character at once: the spender, or one they are assisting (R-CV-10). Stable means
    disabled and unconscious; further damage still applies. Returns (spender, target).

    Raises IllegalAction when the target is not dying or is another character the spender is not
    assisting (the GM's call); the spending errors of `pay`.
    """
    dying = spender if target is None or target.name == spender.name else target
    if dying is not spender and not assisting:
        raise IllegalAction(
            "conviction/not_assisting",
            f"{spender.name} is not assisting {dying.name}",
            ruling="R-CV-10",
            fix="only a character assisting the dying one (at their side, tending them) may spend",
        )
    if not dying.conditions.dying:
        raise IllegalAction(
            "conviction/not_dying",
            f"{dying.name} is not dying",
            ruling="R-CV-10",
            fix="escape death only stabilises a dying character",
        )
    paid = pay(spender)
    if dying is spender:
        saved = replace(paid, conditions=stabilised(paid.conditions))
        return saved, saved
    return paid, replace(dying, conditions=stabilised(dying.conditions))
