"""The die ladder of R-LTL-1.

Positions 1..7 stand for d4, d6, d8, d10, d12, (d20 that has lost one level), d20; position 0 is
"below d4". Every rung is one level except d12 -> d20, which is two, so counting levels is plain
arithmetic on positions. Position 6 still rolls a d20; one more lost level makes it a d12.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_POSITION = 7
D20 = 20
LADDER_DICE: tuple[int, ...] = (4, 6, 8, 10, 12, 20)
# sides of the die rolled at each position; position 0 rolls nothing
DIE_SIDES: dict[int, int] = {1: 4, 2: 6, 3: 8, 4: 10, 5: 12, 6: 20, 7: 20}
_POSITION_OF_DIE: dict[int, int] = {4: 1, 6: 2, 8: 3, 10: 4, 12: 5, 20: 7}
_DIE_TEXT = re.compile(r"^\s*d(\d+)\s*$", re.IGNORECASE)


def position_of_die(sides: int) -> int:
    """Ladder position of a full die (d20 is position 7). Raises ValueError off the ladder."""
    try:
        return _POSITION_OF_DIE[sides]
    except KeyError:
        raise ValueError(
            f"d{sides} is not on the ladder; use one of {', '.join(f'd{s}' for s in LADDER_DICE)}"
        ) from None


def die_name(position: int) -> str:
    """Human name of a position: 'd12', 'd20', 'd20 (lost one level)', 'below d4'."""
    if position <= 0:
        return "below d4"
    if position == 6:
        return "d20 (lost one level)"
    return f"d{DIE_SIDES[min(position, MAX_POSITION)]}"


def step_up(position: int) -> int:
    """The position one die step higher (d12 -> d20 is one step); d20 stays d20. R-LTL-11 Pushing."""
    return MAX_POSITION if position >= 5 else position + 1


def step_down(position: int) -> int:
    """The position one die type lower (R-LTL-1, R-LTL-8): a d20 (position 7 or 6) rolls d12; a d4 has no lower
    type, so it goes to 0, which is *rolled* as a d4 whose face counts one lower (`penalty_at`)."""
    return 5 if position >= 6 else max(0, position - 1)


def rolled_sides(position: int) -> int:
    """Sides of the die rolled at a position reached by temporary die-type changes: position 0 here is a d4 under
    a -1 (R-LTL-8), which still rolls a d4."""
    return DIE_SIDES.get(position, 4)


MAX_PENALTY = 2  # a d4 under -1 or -2 die types counts its face one or two lower, never more (R-T-2 amended)


def shifted(position: int, steps: int) -> tuple[int, int]:
    """A die moved `steps` die types (R-LTL-1), last of all its changes (R-T-2 amended 2026-12-02): the position it
    rolls at and how much lower its face counts. Up: a d12 +1 rolls d20, a d20 stays. Down: a d20 -1 rolls d12, and
    below a d4 there is no lower type, so the d4's face counts one lower per step past it, two at most."""
    extra = 0
    for _ in range(max(0, steps)):
        position = step_up(position)
    for _ in range(max(0, -steps)):
        if position <= 0:
            extra += 1
        position = step_down(position)
    return position, min(MAX_PENALTY, penalty_at(position) + extra)


def penalty_at(position: int) -> int:
    """How much lower each face counts at a position reached by temporary die-type changes: 1 for a d4 under a -1
    (R-LTL-8: a 1 counts 0), else 0."""
    return 1 if position <= 0 else 0


@dataclass(frozen=True, order=True)
class Rating:
    """A point on the ladder. Immutable; lowering and raising return new ratings. R-LTL-1."""

    position: int

    def __post_init__(self) -> None:
        if not 0 <= self.position <= MAX_POSITION:
            raise ValueError(f"ladder position {self.position} is outside 0..{MAX_POSITION}")

    @classmethod
    def of(cls, die: str | int) -> Rating:
        """A full die, as text ('d10') or sides (10)."""
        known = _FULL_DICE.get(die) if cls is Rating else None  # ratings are values: one per die is enough
        if known is not None:
            return known
        if isinstance(die, str):
            m = _DIE_TEXT.match(die)
            if not m:
                raise ValueError(f"{die!r} is not a die; write it like 'd8'")
            die = int(m.group(1))
        return cls(position_of_die(die))

    @property
    def sides(self) -> int | None:
        """Sides of the die this rating rolls, or None below d4."""
        return DIE_SIDES.get(self.position)

    @property
    def usable(self) -> bool:
        return self.position > 0

    @property
    def name(self) -> str:
        return die_name(self.position)

    def lowered(self, levels: int) -> Rating:
        """Lose `levels` levels; the floor is position 0 (below d4)."""
        if levels < 0:
            raise ValueError("levels to lower must be zero or more")
        return Rating(max(0, self.position - levels))

    def raised(self, levels: int) -> Rating:
        """Gain `levels` levels, never above d20. A single level on a d12 is wasted (R-LTL-1)."""
        if levels < 0:
            raise ValueError("levels to raise must be zero or more")
        target = min(MAX_POSITION, self.position + levels)
        if target == 6 and self.position < 6:
            target = 5  # one level into the two-level d12 -> d20 step is wasted
        return Rating(target)

    def __str__(self) -> str:
        return self.name


# each full die as its sides and as its usual text, for `Rating.of`: stored sheets name a rating per trait
_FULL_DICE: dict[str | int, Rating] = {
    **{sides: Rating(position) for sides, position in _POSITION_OF_DIE.items()},
    **{f"d{sides}": Rating(position) for sides, position in _POSITION_OF_DIE.items()},
}
