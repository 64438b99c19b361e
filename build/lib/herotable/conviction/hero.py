"""A hero in play: the sheet, the conditions held, this round's bookkeeping and temporary effects."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from herotable.conviction.character import Character
from herotable.conviction.conditions import Conditions


@dataclass(frozen=True)
class Turn:
    """This round's bookkeeping: actions used, surge actions gained, Conviction spent (R-CV-3, R-CV-5)."""

    number: int = 0
    standard_used: int = 0
    move_used: int = 0
    full_round_used: int = 0
    extra_standard: int = 0
    extra_move: int = 0
    spent: int = 0
    spending_closed: bool = False
    strenuous_guard: bool = False
    dying_checked: bool = False
    recovery_pending: bool = False  # a Conviction-bought recovery check awaits its announcement (R-CV-3)

    @property
    def acted(self) -> bool:
        return self.standard_used + self.move_used + self.full_round_used > 0


class EffectKind(StrEnum):
    FEAT = "feat"
    SKILL_RANKS = "skill ranks"
    POWER_USE = "power use"


class Lasts(StrEnum):
    ROUND = "round"  # until the next round starts
    NEXT_ROUND = "next round"  # bought after acting: through the hero's next turn, so to the round after (R-CV-3)
    SCENE = "scene"


@dataclass(frozen=True)
class Effect:
    """A temporary benefit: a heroic feat for the round, Expertise ranks or a Talent power use for the scene."""

    kind: EffectKind
    name: str
    lasts: Lasts
    amount: int = 0


@dataclass(frozen=True)
class Hero:
    """A character at the table. Every rules function returns a new Hero; none changes one in place."""

    sheet: Character
    conditions: Conditions = field(default_factory=Conditions)
    turn: Turn = field(default_factory=Turn)
    effects: tuple[Effect, ...] = ()
    regain_check_due: bool = False

    @property
    def name(self) -> str:
        return self.sheet.name

    @property
    def conviction(self) -> int:
        return self.sheet.conviction

    @property
    def conviction_max(self) -> int:
        return self.sheet.conviction_max

    def with_conviction(self, points: int) -> Hero:
        return replace(self, sheet=replace(self.sheet, conviction=points))

    def skill_rank(self, skill: str) -> int:
        """Sheet ranks plus temporary ranks (Expertise, R-CV-7)."""
        wanted = skill.casefold()
        extra = sum(e.amount for e in self.effects if e.kind is EffectKind.SKILL_RANKS and e.name.casefold() == wanted)
        return self.sheet.skill_rank(skill) + extra

    def feat_count(self, feat: str) -> int:
        """Acquisitions on the sheet plus heroic feats held this round (R-CV-6)."""
        wanted = feat.casefold()
        extra = sum(1 for e in self.effects if e.kind is EffectKind.FEAT and e.name.casefold() == wanted)
        return self.sheet.feat_count(feat) + extra

    def feats_in_force(self) -> tuple[str, ...]:
        """The feats whose numbers the table applies now, one name per acquisition: the sheet's feats it marks as not
        counted in its values, and the heroic feats held this round (R-CV-6 amended)."""
        uncounted = {f.casefold() for f in self.sheet.uncounted_feats}
        on_sheet = tuple(f for f in self.sheet.feats if f.casefold() in uncounted)
        return on_sheet + tuple(e.name for e in self.effects if e.kind is EffectKind.FEAT)

    def power_uses(self, power: str) -> int:
        """Uses of a power granted by The Talent and not yet used (R-CV-7)."""
        wanted = power.casefold()
        return sum(1 for e in self.effects if e.kind is EffectKind.POWER_USE and e.name.casefold() == wanted)
