"""Healing Powers: a hero with healing, regeneration, first aid or surgery removes lost levels (R-LTL-15).

Only a Superpower the sheet marks as healing may heal, and the roll uses that Power's Style (the Style of the same
name), else base Power. The difficulty is Heroism recovery's (levels lost + 1, R-LTL-11), lowered one level unless
the GM says otherwise for this attempt: lowered, a difficulty of as many levels as were lost. A patient beaten below
d4 needs an Inconceivable roll. The GM's difficulty throw is the opposing roll and a tie fails. Success removes every
loss of the kinds being healed.
"""

from __future__ import annotations

from dataclasses import dataclass

from herotable.dice import DIE_SIDES, Rating, Rng
from herotable.errors import IllegalAction
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import Hero, LossType, clear_losses, require_able
from herotable.ltl.options import LtlOptions
from herotable.ltl.roll import Comparison, Outcome, Throw, compare, throw
from herotable.ltl.sheet import Superpower

RULING = "R-LTL-15"
WOUNDS: frozenset[LossType] = frozenset({LossType.PHYSICAL, LossType.SEVERE})
INCONCEIVABLE = Difficulty.named("inconceivable")


@dataclass(frozen=True)
class HealingResult:
    """A healing attempt: the Power and Style used, both throws, the outcome and the patient afterwards."""

    power: str  # the healing Superpower
    style: str | None  # the Style rolled, None for base Power
    rating: Rating  # the die the healer rolled
    difficulty: Difficulty
    healer_throw: Throw
    difficulty_throw: Throw
    comparison: Comparison
    levels_healed: int  # 0 when the attempt failed
    patient: Hero

    @property
    def healed(self) -> bool:
        return self.comparison.outcome is Outcome.WIN


def healing_difficulty(patient: Hero, kinds: frozenset[LossType] = WOUNDS, *, lowered: bool = True) -> Difficulty:
    """The difficulty to heal the patient's losses of these kinds (R-LTL-15): levels lost + 1, one level lower when
    `lowered` (the GM's choice, lowered by default), so as many levels as were lost; d20 from six levels;
    Inconceivable below d4. Raises IllegalAction when there is nothing of those kinds to heal."""
    levels = _levels_of(patient, kinds)
    if levels == 0:
        named = ", ".join(sorted(kinds)) or "no kind"
        raise IllegalAction(
            "healing/nothing_to_heal",
            f"{patient.name} has lost no levels of the kinds being healed ({named})",
            ruling=RULING,
            fix="heal a patient who has such losses, or choose the kinds of loss the Power heals",
        )
    if not patient.base_now().usable:
        return INCONCEIVABLE
    return Difficulty.levels(levels if lowered else levels + 1)


def healing_powers(hero: Hero) -> tuple[Superpower, ...]:
    """The hero's Superpowers the sheet marks as healing (R-LTL-15)."""
    return tuple(p for p in hero.sheet.superpowers if p.healing)


def healing_power(hero: Hero, power: str | None = None) -> Superpower:
    """The healing Superpower named (any case), or the hero's only one when None (R-LTL-15).
    Raises IllegalAction when the hero has no such healing Power, or several and none is named."""
    powers = healing_powers(hero)
    if power is not None:
        key = power.strip().casefold()
        found = next((p for p in powers if p.name.strip().casefold() == key), None)
        if found is not None:
            return found
    elif len(powers) == 1:
        return powers[0]
    if power is None and powers:
        raise IllegalAction(
            "healing/which_power",
            f"{hero.name} has several healing Powers",
            ruling=RULING,
            fix=f"name the one that heals: {', '.join(p.name for p in powers)}",
        )
    named = f" named {power!r}" if power is not None else ""
    raise IllegalAction(
        "healing/no_power",
        f"{hero.name} has no healing Superpower{named}",
        ruling=RULING,
        fix=(
            f"heal with one of {', '.join(p.name for p in powers)}"
            if powers
            else "only a Superpower the sheet marks as healing (healing, regeneration, first aid, surgery) may heal"
        ),
    )


def power_style(hero: Hero, power: Superpower) -> str | None:
    """The Style a healing Power rolls: the hero's Style of the Power's name, else None for base Power (R-LTL-15)."""
    style = hero.sheet.style(power.name)
    return None if style is None else style.name


def heal(
    healer: Hero,
    patient: Hero,
    rng: Rng,
    options: LtlOptions,
    *,
    power: str | None = None,
    lowered: bool = True,
    kinds: frozenset[LossType] = WOUNDS,
) -> HealingResult:
    """The healer rolls a healing Superpower's Style (base Power when the Power has no Style of its name) against
    the healing difficulty, lowered one level unless the GM says otherwise; a win clears the patient's losses of
    those kinds (R-LTL-15). `power` names the healing Power (the healer's only one when None). Raises
    IllegalAction when the healer cannot act or has no such healing Power, or the patient has nothing to heal."""
    require_able(healer)
    chosen = healing_power(healer, power)
    difficulty = healing_difficulty(patient, kinds, lowered=lowered)
    style = power_style(healer, chosen)
    rating = healer.rating_for(style)
    healer_throw = throw(DIE_SIDES[rating.position], rng, options)  # require_able: at least d4
    difficulty_throw = throw(difficulty.sides, rng, options)
    comparison = compare(healer_throw, difficulty_throw)
    won = comparison.outcome is Outcome.WIN
    return HealingResult(
        power=chosen.name,
        style=style,
        rating=rating,
        difficulty=difficulty,
        healer_throw=healer_throw,
        difficulty_throw=difficulty_throw,
        comparison=comparison,
        levels_healed=_levels_of(patient, kinds) if won else 0,
        patient=clear_losses(patient, kinds) if won else patient,
    )


def _levels_of(patient: Hero, kinds: frozenset[LossType]) -> int:
    return sum(loss.levels for loss in patient.losses if loss.kind in kinds)
