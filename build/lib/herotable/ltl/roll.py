"""Rolling dice for a task: explosions, re-rolls, and who wins (R-LTL-3, R-LTL-8, R-LTL-9, R-LTL-18).

A `Throw` is one side's roll for one task with every re-roll kept in order, so the table can show each
face and replay never rolls again. `compare` decides the task from two throws.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from herotable.dice import Rng
from herotable.ltl.options import LtlOptions, RerollMode

# a roll budget: no chain of exploding maxima goes on for ever, whatever the generator does
MAX_EXPLOSIONS = 100


class RerollSource(StrEnum):
    """Where a re-roll comes from (R-LTL-9, R-LTL-17, R-LTL-8)."""

    TRY_AGAIN = "try_again"  # a Karma token
    SPECIALTY = "specialty"
    MOTIVATION = "motivation"
    CRITICAL = "critical"  # a critical success's advantage: re-roll next round


@dataclass(frozen=True)
class DieRoll:
    """One roll of one die; with exploding maxima (R-LTL-18) it may hold several faces that add up."""

    sides: int
    faces: tuple[int, ...]

    @property
    def natural(self) -> int:
        """The first face: criticals are judged on it (R-LTL-18: criticals unchanged)."""
        return self.faces[0]

    @property
    def total(self) -> int:
        return sum(self.faces)


def roll_die(sides: int, rng: Rng, options: LtlOptions) -> DieRoll:
    """Roll one die; under the exploding option roll again and add while it shows its maximum."""
    faces = [rng.roll(sides)]
    while options.exploding and sides > 1 and faces[-1] == sides and len(faces) <= MAX_EXPLOSIONS:
        faces.append(rng.roll(sides))
    return DieRoll(sides, tuple(faces))


@dataclass(frozen=True)
class Throw:
    """One side's roll for a task, with its re-rolls and their sources (R-LTL-9)."""

    sides: int
    rolls: tuple[DieRoll, ...]
    sources: tuple[RerollSource, ...] = ()
    kept: int = 0  # index into rolls of the result that counts
    penalty: int = 0  # how much lower the result counts: 1 for a d4 under a -1 die type (R-LTL-8)

    @property
    def result(self) -> DieRoll:
        return self.rolls[self.kept]

    @property
    def total(self) -> int:
        """The result as it counts; criticals look at `natural` instead (R-LTL-8)."""
        return self.result.total - self.penalty

    @property
    def natural(self) -> int:
        return self.result.natural


def throw(sides: int, rng: Rng, options: LtlOptions, *, penalty: int = 0) -> Throw:
    return Throw(sides, (roll_die(sides, rng, options),), penalty=penalty)


def rethrow(t: Throw, source: RerollSource, rng: Rng, options: LtlOptions) -> Throw:
    """Roll the same die again; keep the better result, or the new one under 'new result stands'."""
    new = roll_die(t.sides, rng, options)
    rolls = (*t.rolls, new)
    if options.reroll_mode is RerollMode.NEW_STANDS or new.total > t.result.total:
        kept = len(rolls) - 1
    else:
        kept = t.kept
    return replace(t, rolls=rolls, sources=(*t.sources, source), kept=kept)


class Outcome(StrEnum):
    """A task from the roller's side: higher wins, a tie changes nothing (R-LTL-3)."""

    WIN = "win"
    TIE = "tie"
    LOSE = "lose"


class Critical(StrEnum):
    NONE = "none"
    SUCCESS = "success"  # your die's maximum against a 1 (R-LTL-8)
    FAILURE = "failure"  # a 1 against the opposing die's maximum


@dataclass(frozen=True)
class Comparison:
    outcome: Outcome
    critical: Critical


def compare(mine: Throw, theirs: Throw) -> Comparison:
    """Decide a task between two throws (R-LTL-3) and spot criticals on natural faces (R-LTL-8)."""
    if mine.total > theirs.total:
        outcome = Outcome.WIN
    elif mine.total < theirs.total:
        outcome = Outcome.LOSE
    else:
        outcome = Outcome.TIE
    critical = Critical.NONE
    if mine.natural == mine.sides and theirs.natural == 1 and outcome is Outcome.WIN:
        critical = Critical.SUCCESS
    elif mine.natural == 1 and theirs.natural == theirs.sides and outcome is Outcome.LOSE:
        critical = Critical.FAILURE
    return Comparison(outcome, critical)
