"""Campaign options for Larger Than Life: every GM choice the rulings leave open, with its default."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class RerollMode(StrEnum):
    """R-LTL-9: a re-roll keeps the better result, or (campaign option) the new result stands."""

    KEEP_BETTER = "keep_better"
    NEW_STANDS = "new_stands"


class Initiative(StrEnum):
    """R-LTL-12: actions are simultaneous, or initiative is rolled each round or once per conflict."""

    SIMULTANEOUS = "simultaneous"
    EACH_ROUND = "each_round"
    ONCE = "once"


class QuickTies(StrEnum):
    """R-LTL-13: a tie for first in a quick contest is re-rolled among the tied, or shared."""

    REROLL = "reroll"
    SHARED = "shared"


@dataclass(frozen=True)
class LtlOptions:
    """The campaign's Larger Than Life options. Defaults are those of the rulings."""

    reroll_mode: RerollMode = RerollMode.KEEP_BETTER
    effect_cap: int = 3  # R-LTL-7: total levels of effect one exchange can deal
    exploding: bool = False  # R-LTL-18
    stun_on_damage: bool = False  # R-LTL-18
    initiative: Initiative = Initiative.SIMULTANEOUS  # R-LTL-12
    quick_ties: QuickTies = QuickTies.REROLL  # R-LTL-13
    hidden_odds: bool = False  # R-T-2: players see their odds against a character whose sheet the GM hides

    def __post_init__(self) -> None:
        if self.effect_cap < 1:
            raise ValueError("effect_cap must be at least 1 level")


DEFAULT_OPTIONS = LtlOptions()
