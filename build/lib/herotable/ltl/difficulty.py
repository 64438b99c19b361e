"""Difficulties for unopposed tasks (R-LTL-2)."""

from __future__ import annotations

from dataclasses import dataclass

from herotable.dice import MAX_POSITION, Rating, step_up
from herotable.errors import IllegalAction

# default names of R-LTL-2 (a campaign may rename them); Impossible has no die
NAMED_DIFFICULTIES: dict[str, int] = {
    "easy": 1,
    "average": 2,
    "challenging": 3,
    "hard": 4,
    "formidable": 5,
    "inconceivable": MAX_POSITION,
}
_NAME_OF = {v: k.capitalize() for k, v in NAMED_DIFFICULTIES.items()}


@dataclass(frozen=True)
class Difficulty:
    """The die the GM rolls against an unopposed task, or Impossible (no roll, no Karma). R-LTL-2."""

    rating: Rating | None  # None means Impossible

    @classmethod
    def named(cls, name: str) -> Difficulty:
        key = name.strip().lower()
        if key == "impossible":
            return IMPOSSIBLE
        if key not in NAMED_DIFFICULTIES:
            choices = ", ".join([*(n.capitalize() for n in NAMED_DIFFICULTIES), "Impossible"])
            raise ValueError(f"unknown difficulty {name!r}; use one of {choices}, or a number of levels")
        return cls(Rating(NAMED_DIFFICULTIES[key]))

    @classmethod
    def levels(cls, n: int) -> Difficulty:
        """A numeric difficulty of n levels: the die at position n; 6 or more is Inconceivable (d20)."""
        if n < 1:
            raise ValueError(f"a difficulty of {n} levels is below Easy; the lowest is 1 (d4)")
        return cls(Rating(MAX_POSITION if n >= 6 else n))

    @classmethod
    def die(cls, die: str | int) -> Difficulty:
        return cls(Rating.of(die))

    @property
    def impossible(self) -> bool:
        return self.rating is None

    @property
    def sides(self) -> int:
        """Sides of the difficulty die; Impossible raises, since nothing may be rolled against it."""
        if self.rating is None or self.rating.sides is None:
            raise IllegalAction(
                "challenge/impossible",
                "an Impossible task cannot be attempted, and no Karma can buy success at it",
                ruling="R-LTL-2",
                fix="choose another approach, or ask the GM for a task that is merely Inconceivable",
            )
        return self.rating.sides

    def harder(self) -> Difficulty:
        """The next named difficulty up (Last Chance, R-LTL-10): Formidable becomes Inconceivable."""
        if self.rating is None:
            return self
        return Difficulty(Rating(step_up(self.rating.position)))

    @property
    def name(self) -> str:
        if self.rating is None:
            return "Impossible"
        return _NAME_OF.get(self.rating.position, "Inconceivable") + f" ({self.rating.name})"

    def __str__(self) -> str:
        return self.name


IMPOSSIBLE = Difficulty(None)
