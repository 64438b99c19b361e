"""Checks: d20 + modifiers against a Difficulty (R-CV-1), pending until the Narrator announces them (R-CV-4).

A check is *pending* from the moment it is rolled: only the roller and the GM see it, and it may still be
re-rolled with Conviction or given a Quotable Wit bonus. `announce` makes it public and final; the
consequences of toughness, dying, recovery and regain checks apply only to announced checks.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from herotable.dice import Rng
from herotable.errors import IllegalAction

D20 = 20
REROLL_FLOOR = 10


class CheckKind(StrEnum):
    CHECK = "check"
    TOUGHNESS = "toughness save"
    DYING = "dying check"
    RECOVERY = "recovery check"
    REGAIN = "Conviction regain check"


@dataclass(frozen=True)
class Bonus:
    source: str
    amount: int


@dataclass(frozen=True)
class Override:
    """A GM's ruling that replaces the computed success (R-T-2), logged with who made it."""

    succeeded: bool
    by: str
    reason: str = ""


@dataclass(frozen=True)
class Check:
    """One d20 roll with its raw faces. `second` is the raw face of a Conviction re-roll, if any."""

    roller: str
    label: str
    modifier: int
    difficulty: int
    first: int
    kind: CheckKind = CheckKind.CHECK
    second: int | None = None
    bonuses: tuple[Bonus, ...] = ()
    announced: bool = False
    bought_with_conviction: bool = False
    lethal: bool | None = None
    override: Override | None = None

    @property
    def second_counts(self) -> int | None:
        """What the re-roll counts as: 1–10 count 11–20 (R-CV-4)."""
        return None if self.second is None else second_roll_counts(self.second)

    @property
    def die(self) -> int:
        """The d20 result kept: the better of the first roll and the counted re-roll."""
        return self.first if self.second_counts is None else max(self.first, self.second_counts)

    @property
    def total(self) -> int:
        return self.die + self.modifier + sum(bonus.amount for bonus in self.bonuses)

    @property
    def margin(self) -> int:
        """Total minus Difficulty: 0 or more succeeds, below 0 fails by that much."""
        return self.total - self.difficulty

    @property
    def succeeded(self) -> bool:
        """Meeting the Difficulty succeeds (R-CV-1), unless the GM ruled otherwise (R-T-2)."""
        if self.override is not None:
            return self.override.succeeded
        return self.margin >= 0

    def visible_to(self, viewer: str, *, is_gm: bool) -> bool:
        """A pending roll is seen by its roller and the GM only; an announced one by everyone (R-CV-4)."""
        return self.announced or is_gm or viewer == self.roller


def second_roll_counts(face: int) -> int:
    """The value a Conviction re-roll counts as: a face of 1–10 gets +10, 11–20 stays (R-CV-4).

    Raises ValueError for a face a d20 cannot show.
    """
    if not 1 <= face <= D20:
        raise ValueError(f"a d20 cannot show {face}")
    return face + REROLL_FLOOR if face <= REROLL_FLOOR else face


def roll_check(
    rng: Rng, roller: str, label: str, modifier: int, difficulty: int, kind: CheckKind = CheckKind.CHECK
) -> Check:
    """Roll d20 + modifier against a Difficulty the GM set; the check starts pending (R-CV-1, R-CV-4)."""
    return Check(roller=roller, label=label, modifier=modifier, difficulty=difficulty, first=rng.roll(D20), kind=kind)


def _pending_refusal(check: Check, what: str) -> IllegalAction | None:
    if not check.announced:
        return None
    return IllegalAction(
        "check/announced",
        f"{what} is only possible before the result of {check.roller}'s {check.label} is announced",
        ruling="R-CV-4",
        fix="do it while the roll is still pending, before the Narrator announces it",
    )


def reroll_refusal(check: Check) -> IllegalAction | None:
    """Why the check cannot take a Conviction re-roll (announced, re-rolled already, or ruled by the GM), or None
    (R-CV-4)."""
    if check.override is not None:
        return IllegalAction(
            "conviction/overridden",
            f"the GM has ruled {check.roller}'s {check.label} a {'success' if check.override.succeeded else 'failure'}"
            ", so a re-roll could change nothing",
            ruling="R-CV-4",
            fix="keep the point; announce the check as the GM ruled it",
        )
    if check.second is not None:
        return IllegalAction(
            "conviction/already_rerolled",
            f"{check.roller}'s {check.label} has already been re-rolled with Conviction",
            ruling="R-CV-4",
            fix="a roll takes one Conviction re-roll; spend the point on something else",
        )
    return _pending_refusal(check, "a re-roll")


def rerolled(check: Check, rng: Rng) -> Check:
    """The check with its one Conviction re-roll made (R-CV-4); `conviction.spending.reroll` pays for it.

    Raises IllegalAction when the check is announced or was already re-rolled.
    """
    refusal = reroll_refusal(check)
    if refusal is not None:
        raise refusal
    return replace(check, second=rng.roll(D20))


def with_bonus(check: Check, bonus: Bonus) -> Check:
    """The pending check with a bonus added (Quotable Wit, R-CV-12).

    Raises IllegalAction when the check has been announced.
    """
    refusal = _pending_refusal(check, f"adding {bonus.source}")
    if refusal is not None:
        raise refusal
    return replace(check, bonuses=(*check.bonuses, bonus))


def announce(check: Check) -> Check:
    """The Narrator announces the result: it becomes public and final (R-CV-4).

    Raises IllegalAction when it was already announced.
    """
    if check.announced:
        raise IllegalAction(
            "check/already_announced",
            f"{check.roller}'s {check.label} was already announced",
            ruling="R-CV-4",
            fix="announce each roll once",
        )
    return replace(check, announced=True)


def gm_override(check: Check, *, succeeded: bool, by: str, reason: str = "") -> Check:
    """The GM rules the check a success or a failure regardless of the dice (R-T-2)."""
    return replace(check, override=Override(succeeded, by, reason))


def require_announced(check: Check, kind: CheckKind, roller: str) -> None:
    """Refuse to apply a check that is pending, of another kind, or someone else's (R-CV-4).

    Raises IllegalAction.
    """
    if check.kind is not kind or check.roller != roller:
        raise IllegalAction(
            "check/wrong_check",
            f"this is {check.roller}'s {check.kind}, not {roller}'s {kind}",
            ruling="R-CV-1",
            fix=f"apply {roller}'s own {kind}",
        )
    if not check.announced:
        raise IllegalAction(
            "check/pending",
            f"{check.roller}'s {check.label} is still pending",
            ruling="R-CV-4",
            fix="announce the result first; until then it may still be re-rolled",
        )
