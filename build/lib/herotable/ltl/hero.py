"""A hero in play: the sheet plus everything the game has done to it so far.

Losses are kept one by one with their type (R-LTL-6), so the current die for any roll is derived, never
stored: base Power now = sheet base - levels of the losses that count for this roll (R-LTL-3, R-LTL-4).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from herotable.dice import Rating, step_up
from herotable.errors import IllegalAction
from herotable.ltl.sheet import HeroSheet


class LossType(StrEnum):
    """What a lost level represents (R-LTL-6)."""

    NON_DAMAGING = "non_damaging"  # social or mental contest; back at the end of the scene
    FATIGUE = "fatigue"  # back with rest
    STRESS = "stress"
    PHYSICAL = "physical"  # hours or days
    SEVERE = "severe"  # severe damage or disease: weeks
    BONDS = "bonds"  # entangled, paralysed: the GM decides
    MIND_CONTROL = "mind_control"  # the GM decides


# whether a loss of this type lowers the die for *other* challenges, unless the GM says otherwise (R-LTL-6)
LOWERS_ROLLS_BY_DEFAULT: dict[LossType, bool] = {
    LossType.NON_DAMAGING: False,
    LossType.FATIGUE: True,
    LossType.STRESS: True,
    LossType.PHYSICAL: True,
    LossType.SEVERE: True,
    LossType.BONDS: True,
    LossType.MIND_CONTROL: False,
}
# the kinds whose effect on other rolls the GM decides (R-LTL-6)
GM_CHOSEN_LOSSES = frozenset({LossType.BONDS, LossType.MIND_CONTROL})


class TimePassed(StrEnum):
    """How much time the GM says has passed; each heals the loss types listed in HEALS (R-LTL-6), except that physical
    damage the GM marked serious when it landed needs days (R-LTL-6 amended)."""

    MINUTES = "minutes"
    HOURS = "hours"
    DAYS = "days"
    WEEKS = "weeks"


HEALS: dict[TimePassed, frozenset[LossType]] = {
    TimePassed.MINUTES: frozenset({LossType.FATIGUE}),
    TimePassed.HOURS: frozenset({LossType.FATIGUE, LossType.STRESS, LossType.PHYSICAL}),  # serious wounds: days
    TimePassed.DAYS: frozenset({LossType.FATIGUE, LossType.STRESS, LossType.PHYSICAL}),
    TimePassed.WEEKS: frozenset({LossType.FATIGUE, LossType.STRESS, LossType.PHYSICAL, LossType.SEVERE}),
}


class Defeat(StrEnum):
    """Consequences of defeat the winner or the GM can record (R-LTL-5); free text is also allowed."""

    UNCONSCIOUS = "unconscious"
    CAPTURED = "captured"
    MIND_CONTROLLED = "mind_controlled"
    GIVES_UP = "gives_up"
    FLEES = "flees"


class NextRound(StrEnum):
    """A carried-over effect of a critical on the hero's next round (R-LTL-8)."""

    REROLL = "reroll"  # one extra re-roll
    PLUS_ONE = "plus_one"  # +1 level
    MINUS_ONE = "minus_one"  # -1 level


@dataclass(frozen=True)
class Loss:
    levels: int
    kind: LossType
    lowers_rolls: bool
    note: str = ""
    serious: bool = False  # physical damage the GM marked serious when it landed: it heals in days (R-LTL-6)


@dataclass(frozen=True)
class Hero:
    """A hero (or villain: they use the same rules) in play. Frozen; every rule returns a new Hero."""

    sheet: HeroSheet
    karma: Rating
    heroism: Rating
    losses: tuple[Loss, ...] = ()
    try_again_tokens: int = 0
    last_chance_used: bool = False
    motivation_used: bool = False  # the Motivation re-roll of this scene (R-LTL-17)
    pushed: bool = False  # a Push lasts one challenge or one round (R-LTL-11)
    collapses_after_action: bool = False  # Heroism double burn at d4 (R-LTL-11)
    unconscious: bool = False
    stunned: bool = False  # optional stun rule (R-LTL-18): no action next full round
    defeat: str | None = None  # the recorded consequence of defeat (R-LTL-5)
    next_round: tuple[NextRound, ...] = ()  # effects earned this round, for the next one (R-LTL-8)
    this_round: tuple[NextRound, ...] = ()  # effects in force during the current round
    stunts_pulled_off: tuple[str, ...] = ()  # "Power: stunt" pulled off in play with Karma (R-LTL-16)

    @classmethod
    def from_sheet(cls, sheet: HeroSheet) -> Hero:
        return cls(sheet=sheet, karma=sheet.karma, heroism=sheet.heroism)

    @property
    def name(self) -> str:
        return self.sheet.name

    def levels_lost(self, stakes: LossType | None = None) -> int:
        """Levels that count against rolls made for `stakes` (R-LTL-6).

        Losses that lower rolls always count; the others only count in a contest of their own kind
        (a lost debate weighs on the next argument, not on the next punch).
        """
        return sum(loss.levels for loss in self.losses if loss.lowers_rolls or loss.kind == stakes)

    @property
    def total_levels_lost(self) -> int:
        return sum(loss.levels for loss in self.losses)

    def base_now(self, stakes: LossType | None = None) -> Rating:
        """Current base Power for a roll with these stakes, without a Push (R-LTL-3)."""
        return self.sheet.base.lowered(self.levels_lost(stakes))

    def is_defeated(self, stakes: LossType | None = None) -> bool:
        """Base Power below d4 for these stakes, or a recorded defeat (R-LTL-5)."""
        return self.defeat is not None or not self.base_now(stakes).usable

    def below_d4_by_any_loss(self) -> bool:
        """Base Power below d4 by the levels lost, counting every kind of loss, non-damaging ones included: what
        Recovery calls "reduced below d4" (a hero out of a debate is below d4 in it; R-LTL-11 amended). A recorded
        defeat loses no levels: a hero who gave up is not below d4 (R-LTL-11 amended 2026-12-02)."""
        return not self.sheet.base.lowered(self.total_levels_lost).usable

    def rating_for(self, style: str | None = None, stakes: LossType | None = None) -> Rating:
        """The die this hero rolls: the Style's if one applies, else base Power; Styles move with base
        Power (R-LTL-4); a Push raises it one die step (R-LTL-11). Raises IllegalAction for an unknown Style.
        """
        lost = self.levels_lost(stakes)
        if style is None:
            rating = self.sheet.base.lowered(lost)
        else:
            found = self.sheet.style(style)
            if found is None:
                known = ", ".join(s.name for s in self.sheet.styles) or "none"
                raise IllegalAction(
                    "hero/unknown_style",
                    f"{self.name} has no Style named {style!r}",
                    ruling="R-LTL-4",
                    fix=f"roll base Power or one of the hero's Styles ({known})",
                )
            if not self.sheet.base.lowered(lost).usable:
                return Rating(0)
            rating = found.rating.lowered(lost)
        if self.pushed and rating.usable:
            rating = Rating(step_up(rating.position))
        return rating

    def can_act(self, stakes: LossType | None = None) -> bool:
        return not (self.unconscious or self.stunned or self.is_defeated(stakes))


def require_able(hero: Hero, stakes: LossType | None = None, *, defending: bool = False) -> None:
    """Raise IllegalAction when the hero is defeated, unconscious or stunned (R-LTL-5, R-LTL-18). A stunned hero
    still defends (`defending`): stun costs its action, not its defence (R-LTL-12 amended)."""
    if hero.is_defeated(stakes):
        raise IllegalAction(
            "hero/defeated",
            f"{hero.name} is defeated and cannot act",
            ruling="R-LTL-5",
            fix="recover lost levels first (Heroism recovery, healing, or time passing)",
        )
    if hero.unconscious:
        raise IllegalAction(
            "hero/unconscious",
            f"{hero.name} is unconscious and cannot act",
            ruling="R-LTL-11",
            fix="wait until the GM says the hero comes round",
        )
    if hero.stunned and not defending:
        raise IllegalAction(
            "hero/stunned",
            f"{hero.name} is stunned for this round",
            ruling="R-LTL-18",
            fix="wait for the next round",
        )


def lose_levels(
    hero: Hero,
    levels: int,
    kind: LossType,
    *,
    lowers_rolls: bool | None = None,
    note: str = "",
    serious: bool = False,
) -> Hero:
    """Record a loss of `levels` of the given type (R-LTL-3, R-LTL-6). `lowers_rolls` overrides the
    type's default where the GM decides (bonds, mind control); `serious` is the GM's mark on physical damage that
    needs days rather than hours (R-LTL-6 amended). Raises IllegalAction for a serious loss of another kind."""
    if levels < 0:
        raise IllegalAction(
            "loss/negative",
            f"{hero.name} cannot lose {levels} levels: levels lost are zero or more",
            ruling="R-T-5",
            fix="give the levels lost as 0 or more; recovering levels is Recovery, healing or time passing",
        )
    if serious and kind is not LossType.PHYSICAL:
        raise IllegalAction(
            "loss/serious_kind",
            f"only physical damage is marked serious, not {kind.value.replace('_', ' ')}",
            ruling="R-LTL-6",
            fix="mark a physical loss serious; severe damage already needs weeks",
        )
    if levels == 0:
        return hero
    lowers = LOWERS_ROLLS_BY_DEFAULT[kind] if lowers_rolls is None else lowers_rolls
    return replace(hero, losses=(*hero.losses, Loss(levels, kind, lowers, note, serious)))


def record_defeat(
    hero: Hero, consequence: Defeat | str, stakes: LossType | None = None, *, lost_a_contest: bool = False
) -> Hero:
    """Record what defeat means for this hero (R-LTL-5): one whose base Power fell below d4, or who lost a quick
    contest (`lost_a_contest`: every loser suffers defeat's consequences, R-LTL-13), or giving up. Raises
    IllegalAction if not defeated or no text."""
    text = str(consequence).strip()
    if not text:
        raise IllegalAction(
            "defeat/no_consequence",
            "a defeat needs a consequence",
            ruling="R-LTL-5",
            fix="name one: unconscious, captured, mind_controlled, gives_up, flees, or describe it",
        )
    if not hero.base_now(stakes).usable or lost_a_contest or text == Defeat.GIVES_UP:
        return replace(hero, defeat=text, unconscious=hero.unconscious or text == Defeat.UNCONSCIOUS)
    raise IllegalAction(
        "defeat/not_defeated",
        f"{hero.name} still has {hero.base_now(stakes)} base Power and is not defeated",
        ruling="R-LTL-5",
        fix="a hero is defeated when base Power falls below d4, by losing a quick contest, or by giving up",
    )


def clear_losses(hero: Hero, kinds: frozenset[LossType] | None = None) -> Hero:
    """Remove every loss of the given types (all losses when None); a recovered hero is no longer
    defeated or unconscious from defeat."""
    return _keeping(hero, tuple(loss for loss in hero.losses if kinds is not None and loss.kind not in kinds))


def _keeping(hero: Hero, kept: tuple[Loss, ...]) -> Hero:
    healed = replace(hero, losses=kept)
    if healed.defeat is not None and healed.sheet.base.lowered(healed.levels_lost()).usable:
        healed = replace(healed, defeat=None, unconscious=False)
    return healed


def heals_within(loss: Loss, period: TimePassed) -> bool:
    """Whether the loss heals within `period` (R-LTL-6): its kind is in HEALS, and a serious wound needs days."""
    if loss.kind not in HEALS[period]:
        return False
    return not (loss.serious and period in (TimePassed.MINUTES, TimePassed.HOURS))


def time_passes(hero: Hero, period: TimePassed) -> Hero:
    """The GM advances the healing clock (R-LTL-6): losses that heal within `period` are gone."""
    return _keeping(hero, tuple(loss for loss in hero.losses if not heals_within(loss, period)))


def end_scene(hero: Hero) -> Hero:
    """End of scene (R-LTL-6, R-LTL-17, R-T-1): non-damaging losses recover in full; Motivation's
    re-roll is available again; critical effects waiting for the hero's next roll are cleared (R-LTL-8 amended); a
    Push bought for a challenge or round that never came lapses, unrefunded (R-LTL-11 amended 2026-12-02)."""
    return replace(
        clear_losses(hero, frozenset({LossType.NON_DAMAGING})),
        motivation_used=False,
        next_round=(),
        this_round=(),
        pushed=False,
    )


def end_adventure(hero: Hero) -> Hero:
    """Start of the next adventure (R-LTL-10, R-LTL-11): burned Karma and Heroism come back in full,
    Last Chance is available again, unused Try Again tokens expire."""
    return replace(
        hero,
        karma=hero.sheet.karma,
        heroism=hero.sheet.heroism,
        last_chance_used=False,
        try_again_tokens=0,
    )


def restore_heroism(hero: Hero) -> Hero:
    """The GM restores burned Heroism before the next adventure (R-LTL-11)."""
    return replace(hero, heroism=hero.sheet.heroism)


def collapse_if_spent(hero: Hero) -> Hero:
    """An action that burned Heroism's d4 twice is over: the hero falls unconscious now (R-LTL-11). A Push, which
    lasts its own challenge or round, is left alone."""
    if not hero.collapses_after_action:
        return hero
    return replace(hero, collapses_after_action=False, unconscious=True)


def finish_action(hero: Hero) -> Hero:
    """The hero's action is over: a one-action Push ends and a d4 double burn knocks the hero out
    (R-LTL-11)."""
    if not (hero.pushed or hero.collapses_after_action):
        return hero
    return replace(
        hero,
        pushed=False,
        collapses_after_action=False,
        unconscious=hero.unconscious or hero.collapses_after_action,
    )
