"""Healing Powers: a hero with healing, regeneration, first aid or surgery removes lost levels (R-LTL-15).

The difficulty is Heroism recovery's (levels lost + 1, R-LTL-11) lowered one level, which is a difficulty of
as many levels as were lost; a patient beaten below d4 needs an Inconceivable roll. The GM's difficulty
throw is the opposing roll and a tie fails. Success removes every loss of the kinds being healed.
"""

from __future__ import annotations

from dataclasses import dataclass

from herotable.dice import DIE_SIDES, Rating, Rng
from herotable.errors import IllegalAction
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import Hero, LossType, clear_losses, require_able
from herotable.ltl.options import LtlOptions
from herotable.ltl.roll import Comparison, Outcome, Throw, compare, throw

RULING = "R-LTL-15"
WOUNDS: frozenset[LossType] = frozenset({LossType.PHYSICAL, LossType.SEVERE})
INCONCEIVABLE = Difficulty.named("inconceivable")


@dataclass(frozen=True)
class HealingResult:
    """A healing attempt: both throws, the outcome and the patient afterwards."""

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


def healing_difficulty(patient: Hero, kinds: frozenset[LossType] = WOUNDS) -> Difficulty:
    """The difficulty to heal the patient's losses of these kinds (R-LTL-15): as many levels as were lost
    (d20 from six), Inconceivable below d4. Raises IllegalAction when there is nothing of those kinds to heal."""
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
    return Difficulty.levels(levels)


def heal(
    healer: Hero,
    patient: Hero,
    rng: Rng,
    options: LtlOptions,
    *,
    power_style: str | None,
    kinds: frozenset[LossType] = WOUNDS,
) -> HealingResult:
    """The healer rolls the healing Power's Style (base Power for None) against the healing difficulty;
    a win clears the patient's losses of those kinds (R-LTL-15). Raises IllegalAction when the healer
    cannot act, has no such Style, or the patient has nothing of those kinds to heal."""
    require_able(healer)
    difficulty = healing_difficulty(patient, kinds)
    rating = healer.rating_for(power_style)
    healer_throw = throw(DIE_SIDES[rating.position], rng, options)  # require_able: at least d4
    difficulty_throw = throw(difficulty.sides, rng, options)
    comparison = compare(healer_throw, difficulty_throw)
    won = comparison.outcome is Outcome.WIN
    return HealingResult(
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
