"""The conditions track (R-CV-8): damage by degree of failure, escalation, stun and daze, fatigue, actions allowed.

Pure functions over `Conditions`; the hero-level operations that roll dice are in `damage.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import IntEnum, StrEnum

from herotable.conviction.options import CampaignOptions, DisabledActions

SAVE_BASE = 15


class DamageKind(StrEnum):
    LETHAL = "lethal"
    NONLETHAL = "non-lethal"


class Lethal(IntEnum):
    """The lethal track; the number is the degree of failure that produces it (hurt, degree 1, stacks)."""

    NONE = 0
    WOUNDED = 2
    DISABLED = 3
    DYING = 4
    DEAD = 5


class NonLethal(IntEnum):
    """The non-lethal track; the number is the degree of failure that produces it (bruised, degree 1, stacks)."""

    NONE = 0
    DAZED = 2
    STAGGERED = 3
    UNCONSCIOUS = 4


class Fatigue(IntEnum):
    NONE = 0
    STRAINED = 1
    FATIGUED = 2
    EXHAUSTED = 3


@dataclass(frozen=True)
class Conditions:
    """Everything wrong with a character. `stunned_rounds`/`dazed_rounds` count round starts until it wears off."""

    bruised: int = 0
    hurt: int = 0
    lethal: Lethal = Lethal.NONE
    nonlethal: NonLethal = NonLethal.NONE
    fatigue: Fatigue = Fatigue.NONE
    stunned_rounds: int = 0
    dazed_rounds: int = 0

    @property
    def dead(self) -> bool:
        return self.lethal is Lethal.DEAD

    @property
    def dying(self) -> bool:
        return self.lethal is Lethal.DYING

    @property
    def disabled(self) -> bool:
        return self.lethal is Lethal.DISABLED

    @property
    def unconscious(self) -> bool:
        return self.nonlethal is NonLethal.UNCONSCIOUS or self.lethal >= Lethal.DYING

    @property
    def stable(self) -> bool:
        """Stabilised from dying: disabled and unconscious (R-CV-8)."""
        return self.disabled and self.nonlethal is NonLethal.UNCONSCIOUS

    @property
    def staggered(self) -> bool:
        return self.nonlethal is NonLethal.STAGGERED or self.disabled

    @property
    def stunned(self) -> bool:
        return self.stunned_rounds > 0

    @property
    def dazed(self) -> bool:
        return self.dazed_rounds > 0

    def penalty(self, kind: DamageKind) -> int:
        """The stacking penalty on saves against this kind of damage: bruised or hurt, −1 each (R-CV-8)."""
        return self.hurt if kind is DamageKind.LETHAL else self.bruised

    def names(self) -> tuple[str, ...]:
        """The conditions held, in words, most serious first."""
        held: list[str] = []
        if self.lethal is not Lethal.NONE:
            held.append(self.lethal.name.lower())
        if self.nonlethal is not NonLethal.NONE:
            held.append(self.nonlethal.name.lower())
        held += ["stunned"] * self.stunned + ["dazed"] * (self.dazed and self.nonlethal is not NonLethal.DAZED)
        if self.fatigue is not Fatigue.NONE:
            held.append(self.fatigue.name.lower())
        held += [f"hurt x{self.hurt}"] * (self.hurt > 0) + [f"bruised x{self.bruised}"] * (self.bruised > 0)
        return tuple(held)


def save_difficulty(damage_bonus: int) -> int:
    """A Toughness save's Difficulty: 15 + the damage bonus (R-CV-8)."""
    return SAVE_BASE + damage_bonus


def failure_degree(margin: int) -> int:
    """0 for a success; 1, 2, 3 or 4 for a failure by 1–4, 5–9, 10–14 or 15+ (R-CV-8)."""
    if margin >= 0:
        return 0
    return min(4, 1 + (-margin) // 5)


def _escalated(current: int, result: int, top: int) -> int:
    if result > current:
        return result
    if result == current:
        return min(current + 1, top)
    return current


def lapse_rounds(current: int, acted_this_round: bool) -> int:
    """Rounds a one-round condition (stunned, dazed) lasts: the rest of this round, and the next if the
    character has already acted in this one."""
    return max(current, 2 if acted_this_round else 1)


def after_damage(conditions: Conditions, degree: int, kind: DamageKind, *, acted_this_round: bool) -> Conditions:
    """Conditions after a failed Toughness save of `degree` (1–4); a result already held moves one up (R-CV-8).

    Every failure adds one bruised (non-lethal) or hurt (lethal). Raises ValueError for a degree outside 1–4.
    """
    if not 1 <= degree <= 4:
        raise ValueError(f"a failed save has a degree of 1 to 4, got {degree}")
    if conditions.dead:
        return conditions
    dazed = lapse_rounds(conditions.dazed_rounds, acted_this_round) if degree == 2 else conditions.dazed_rounds
    if kind is DamageKind.LETHAL:
        lethal = Lethal(_escalated(conditions.lethal, degree, Lethal.DEAD)) if degree > 1 else conditions.lethal
        return replace(conditions, hurt=conditions.hurt + 1, lethal=lethal, dazed_rounds=dazed)
    nonlethal = conditions.nonlethal
    if degree > 1:
        nonlethal = NonLethal(_escalated(conditions.nonlethal, degree, NonLethal.UNCONSCIOUS))
    return replace(conditions, bruised=conditions.bruised + 1, nonlethal=nonlethal, dazed_rounds=dazed)


def stabilised(conditions: Conditions) -> Conditions:
    """A dying character made stable: disabled and unconscious (R-CV-8, R-CV-10)."""
    return replace(conditions, lethal=Lethal.DISABLED, nonlethal=NonLethal.UNCONSCIOUS)


def recovered_one_step(conditions: Conditions) -> Conditions | None:
    """A successful recovery check: the worst damage condition improves one step (R-CV-8).

    Order: unconscious wakes (to staggered), then disabled → wounded → unhurt, then staggered → dazed → none,
    then one hurt, then one bruised. None when there is no damage to recover from.
    """
    if conditions.nonlethal is NonLethal.UNCONSCIOUS:
        return replace(conditions, nonlethal=NonLethal.STAGGERED)
    if conditions.lethal is Lethal.DISABLED:
        return replace(conditions, lethal=Lethal.WOUNDED)
    if conditions.lethal is Lethal.WOUNDED:
        return replace(conditions, lethal=Lethal.NONE)
    if conditions.nonlethal is NonLethal.STAGGERED:
        return replace(conditions, nonlethal=NonLethal.DAZED)
    if conditions.nonlethal is NonLethal.DAZED:
        return replace(conditions, nonlethal=NonLethal.NONE)
    if conditions.hurt:
        return replace(conditions, hurt=conditions.hurt - 1)
    if conditions.bruised:
        return replace(conditions, bruised=conditions.bruised - 1)
    return None


def more_fatigue(conditions: Conditions, steps: int = 1) -> Conditions:
    """Strained → fatigued → exhausted; fatigue beyond exhausted knocks the character out (R-CV-8)."""
    level = conditions.fatigue + steps
    if level > Fatigue.EXHAUSTED:
        return replace(conditions, fatigue=Fatigue.EXHAUSTED, nonlethal=NonLethal.UNCONSCIOUS)
    return replace(conditions, fatigue=Fatigue(level))


def less_fatigue(conditions: Conditions, steps: int = 1) -> Conditions:
    """Rest removes fatigue steps (R-CV-8)."""
    return replace(conditions, fatigue=Fatigue(max(0, conditions.fatigue - steps)))


def next_round(conditions: Conditions) -> Conditions:
    """A new round starts: stun and daze count down."""
    return replace(
        conditions,
        stunned_rounds=max(0, conditions.stunned_rounds - 1),
        dazed_rounds=max(0, conditions.dazed_rounds - 1),
    )


def action_slots(conditions: Conditions, options: CampaignOptions) -> tuple[int, int]:
    """(standard, move) actions the conditions allow in a round; a standard slot may pay for a move (R-CV-8).

    Stunned, dazed, unconscious, dying or dead: none. Disabled: one move (DPoNI), or one standard or move
    (core True20 option). Staggered: one standard or move. Otherwise one standard and one move.
    """
    if conditions.unconscious or conditions.dead or conditions.stunned or conditions.dazed:
        return (0, 0)
    if conditions.disabled:
        return (0, 1) if options.disabled_actions is DisabledActions.MOVE_ONLY else (1, 0)
    if conditions.staggered:
        return (1, 0)
    return (1, 1)
