"""Conviction facts: what happened to characters, checks, the Wit ledger and exits, with every raw d20 face.

The rules know characters by name (a check's roller, a Wit's listeners, an exit's leaver), so facts that feed
those values carry the names too. `hero_facts` describes how a character changed and `HERO_STEPS` replays it.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from herotable.conviction.character import Character
from herotable.conviction.conditions import Conditions, Fatigue, Lethal, NonLethal
from herotable.conviction.hero import Effect, EffectKind, Hero, Lasts, Turn
from herotable.table.codec import decode_as, encode, evolved, evolved_field
from herotable.table.facts import Fact, fact, upcaster

# --- characters ---


@fact
@dataclass(frozen=True)
class SheetRecorded(Fact):
    """A character's sheet as it came to the table (GM-only when hidden)."""

    type = "cv.sheet_recorded"
    character: str
    sheet: dict[str, Any]


@fact
@dataclass(frozen=True)
class ConvictionSpent(Fact):
    type = "cv.conviction_spent"
    character: str
    points: int
    conviction: int  # after
    use: str


@fact
@dataclass(frozen=True)
class ConvictionGained(Fact):
    type = "cv.conviction_gained"
    character: str
    points: int
    conviction: int
    reason: str


@fact
@dataclass(frozen=True)
class LevelRaised(Fact):
    """The GM raised the character's level (R-CV-2); the point an odd level gives is `cv.conviction_gained`."""

    type = "cv.level_raised"
    news = True
    character: str
    level: int


@fact
@dataclass(frozen=True)
class ConditionsChanged(Fact):
    """The conditions that changed, with their new values (R-CV-8)."""

    type = "cv.conditions_changed"
    character: str
    changes: dict[str, int]
    cause: str


@fact
@dataclass(frozen=True)
class TurnChanged(Fact):
    """This round's bookkeeping that changed: actions used, surges, points spent (R-CV-3, R-CV-5)."""

    type = "cv.turn_changed"
    character: str
    changes: dict[str, int | bool]


@fact
@dataclass(frozen=True)
class EffectGained(Fact):
    type = "cv.effect_gained"
    character: str
    kind: str
    name: str
    lasts: str
    amount: int = 0


@fact
@dataclass(frozen=True)
class EffectsEnded(Fact):
    """Effects gone, by their place in the character's list."""

    type = "cv.effects_ended"
    character: str
    removed: tuple[int, ...]
    names: tuple[str, ...]
    cause: str


@fact
@dataclass(frozen=True)
class RegainOffered(Fact):
    """Whether the dramatic-scene regain check is open to the character (R-CV-13)."""

    type = "cv.regain_offered"
    character: str
    due: bool


# --- checks (R-CV-1, R-CV-4) ---


@fact
@dataclass(frozen=True)
class CheckRolled(Fact):
    """A check rolled, pending (R-CV-4). Version 3 names the d20's face `first`, as `cv.check_announced` and the
    rules' `Check` do (version 2 called it `face`)."""

    type = "cv.check_rolled"
    version = 3
    commit = True
    rolled = True
    check: str
    character: str
    roller: str  # the character's name, as the rules know it
    kind: str
    label: str
    modifier: int
    difficulty: int
    first: int
    lethal: bool | None = None
    secret: bool = False
    by_enemy: bool = True
    bought_with_conviction: bool = False

    def dice_faces(self) -> tuple[tuple[int, int], ...]:
        return ((20, self.first),)


@upcaster(CheckRolled.type, 2)
def _first_face(payload: dict[str, Any]) -> dict[str, Any]:
    """Version 2 → 3: the d20's face was `face`; it is `first`."""
    upcast = {k: v for k, v in payload.items() if k != "face"}
    upcast["first"] = payload["face"]
    return upcast


@fact
@dataclass(frozen=True)
class CheckRerolled(Fact):
    """The Conviction re-roll's raw face; 1–10 count 11–20 (R-CV-4). Its roller sees it, and what a roller has seen
    of a re-roll is knowledge: a GM undo returns the check marked as seen, never to be re-rolled again (R-T-4
    amended 2026-12-02)."""

    type = "cv.check_rerolled"
    commit = True
    rolled = True
    reveals = "check"
    check: str
    face: int

    def dice_faces(self) -> tuple[tuple[int, int], ...]:
        return ((20, self.face),)


@fact
@dataclass(frozen=True)
class CheckBonus(Fact):
    type = "cv.check_bonus"
    commit = True
    check: str
    source: str
    amount: int


@fact
@dataclass(frozen=True)
class CheckOverridden(Fact):
    type = "cv.check_overridden"
    news = True
    commit = True
    check: str
    succeeded: bool
    by: str
    reason: str


@fact
@dataclass(frozen=True)
class CheckAnnounced(Fact):
    """A check made public and final, with everything it was made of."""

    type = "cv.check_announced"
    commit = True
    news = True  # the check's outcome, which the others hear of at once (the roll itself was its roller's)
    reveals = "check"
    check: str
    character: str
    kind: str
    label: str
    first: int
    second: int | None
    modifier: int
    bonuses: tuple[tuple[str, int], ...]
    total: int
    difficulty: int
    succeeded: bool
    overridden: bool = False

    def dice_faces(self) -> tuple[tuple[int, int], ...]:
        return ((20, self.first),) + (((20, self.second),) if self.second is not None else ())


@fact
@dataclass(frozen=True)
class CheckCalled(Fact):
    """The GM called for a check: its Difficulty and situational modifier are the GM's (R-T-3, R-CV-1), the modifier
    with its `reason`, which the roller sees (R-T-2 amended 2026-12-02; version 2 had none: upcast to "")."""

    type = "cv.check_called"
    version = 3
    call: str
    character: str
    label: str
    difficulty: int
    modifier: int = 0
    ability: str | None = None
    skill: str | None = None
    reason: str = ""


@upcaster(CheckCalled.type, 2)
def _call_without_reason(payload: dict[str, Any]) -> dict[str, Any]:
    """Version 2 → 3: a call recorded before modifiers had reasons has none."""
    return {**payload, "reason": ""}


@fact
@dataclass(frozen=True)
class CallClosed(Fact):
    """A called check was rolled, or it `lapsed` unrolled when the scene ended."""

    type = "cv.call_closed"
    call: str
    character: str
    lapsed: bool


@fact
@dataclass(frozen=True)
class CheckVoided(Fact):
    """A pending check that no longer applies, taken off the table unannounced: a dying check whose character was
    stabilised or died meanwhile (R-CV-10). `reason`: stabilised | dead."""

    type = "cv.check_voided"
    check: str
    character: str
    reason: str


# --- rounds, actions, exits, Quotable Wit ---


@fact
@dataclass(frozen=True)
class RoundStarted(Fact):
    type = "cv.round_started"
    inert = True
    characters: tuple[str, ...]


@fact
@dataclass(frozen=True)
class PresenceSet(Fact):
    """Who is out of the running scene: the GM's call, or nobody once the scene ends (`cause`: gm | end_of_scene)
    (R-CV-14)."""

    type = "cv.presence_set"
    absent: tuple[str, ...]
    cause: str = "gm"


@fact
@dataclass(frozen=True)
class SidesSet(Fact):
    """The sides the GM named, as (character, side); everyone else is on their default side (R-CV-14)."""

    type = "cv.sides_set"
    sides: tuple[tuple[str, str], ...]


@fact
@dataclass(frozen=True)
class InitiativeRolled(Fact):
    """One character's initiative: d20 `face` + Dexterity `modifier` (R-CV-14). Pending for its roller's player and
    the GM until the GM begins the first turn (R-CV-4 amended 2026-12-02); GM-only for an NPC. Recorded before that
    amendment it was public (GM-only for a hidden sheet), with the order right after it."""

    type = "cv.initiative_rolled"
    commit = True
    rolled = True
    character: str
    face: int
    modifier: int
    total: int

    def dice_faces(self) -> tuple[tuple[int, int], ...]:
        return ((20, self.face),)


@fact
@dataclass(frozen=True)
class InitiativeRerolled(Fact):
    """A Conviction re-roll of a pending initiative before the first turn: its raw `face` (1–10 count 11–20, the
    better kept) and the `total` it leaves (R-CV-4 amended 2026-12-02). Its roller and the GM see it, and what its
    roller saw is knowledge: a GM undo leaves `roll` (the character's initiative of that round) marked as seen, never
    to be re-rolled again (R-T-4 amended)."""

    type = "cv.initiative_rerolled"
    commit = True
    rolled = True
    reveals = "roll"
    character: str
    face: int
    total: int
    roll: str = ""

    def dice_faces(self) -> tuple[tuple[int, int], ...]:
        return ((20, self.face),)


@fact
@dataclass(frozen=True)
class InitiativeOrder(Fact):
    """The order the round's characters act in, first to act first (R-CV-14). `how`: rolled | entered (by the GM) |
    kept (the standing order, less those no longer in the rounds) | ended (the scene is over: no order stands)."""

    type = "cv.initiative_order"
    order: tuple[str, ...]
    how: str


@fact
@dataclass(frozen=True)
class ActionTaken(Fact):
    type = "cv.action_taken"
    inert = True
    character: str
    action: str
    strenuous: bool
    what: str
    dropped_to_dying: bool = False


@fact
@dataclass(frozen=True)
class ConditionApplied(Fact):
    """The GM or an attacker stunned or tired a character, or the character rested (R-CV-8)."""

    type = "cv.condition_applied"
    news = True
    inert = True
    character: str
    condition: str  # stun | fatigue | rest
    steps: int = 1
    attacker: str | None = None


@fact
@dataclass(frozen=True)
class Spent(Fact):
    """What a Conviction point bought (the point itself is `cv.conviction_spent`)."""

    type = "cv.spent"
    inert = True
    character: str
    use: str
    detail: str = ""
    target: str | None = None


@fact
@dataclass(frozen=True)
class ExitStarted(Fact):
    type = "cv.exit_started"
    character: str
    name: str


@fact
@dataclass(frozen=True)
class ExitInterfered(Fact):
    type = "cv.exit_interfered"
    character: str
    name: str


@fact
@dataclass(frozen=True)
class ExitPressed(Fact):
    type = "cv.exit_pressed"
    character: str


@fact
@dataclass(frozen=True)
class ExitPassed(Fact):
    type = "cv.exit_passed"
    side: str


@fact
@dataclass(frozen=True)
class ExitResolved(Fact):
    type = "cv.exit_resolved"
    news = True
    character: str
    exits: bool
    exit_points: int
    interfering_points: int


@fact
@dataclass(frozen=True)
class ExitsCleared(Fact):
    """The scene ended: the characters who had exited it take part in the next one (R-CV-11)."""

    type = "cv.exits_cleared"
    characters: tuple[str, ...]


@fact
@dataclass(frozen=True)
class WitDesignated(Fact):
    type = "cv.wit_designated"
    wit: int
    text: str
    speaker: str
    designated_by: str
    heard_by: tuple[str, ...]


@fact
@dataclass(frozen=True)
class WitUsed(Fact):
    type = "cv.wit_used"
    wit: int
    by: str
    hijacked: bool


@fact
@dataclass(frozen=True)
class WitsRefreshed(Fact):
    """A game session boundary: three more Quotable Wit uses (R-CV-12)."""

    type = "cv.wits_refreshed"


@fact
@dataclass(frozen=True)
class Overridden(Fact):
    type = "cv.overridden"
    inert = True
    character: str
    reason: str
    by: str


# --- a character's changes as facts, and back ---

SHEET_FACTS = (
    SheetRecorded,
    LevelRaised,
    ConvictionSpent,
    ConvictionGained,
    TurnChanged,
    EffectGained,
    EffectsEnded,
    RegainOffered,
)  # facts that reveal a sheet: GM-only for a hidden character
_CONDITION_TYPES: dict[str, Any] = {"lethal": Lethal, "nonlethal": NonLethal, "fatigue": Fatigue}


def _changed(before: Any, after: Any) -> dict[str, Any]:
    return {
        f.name: (int(v) if isinstance(v, int) else v)
        for f in dataclasses.fields(after)
        if (v := getattr(after, f.name)) != getattr(before, f.name)
    }


def hero_facts(cid: str, before: Hero, after: Hero, cause: str) -> list[Fact]:
    """How a character changed, as facts; `cause` says why."""
    if before is after or before == after:
        return []
    out: list[Fact] = []
    if after.sheet != before.sheet:
        expected = replace(before.sheet, conviction=after.sheet.conviction, level=after.sheet.level)
        assert expected == after.sheet, "only the level and Conviction change"
        if after.sheet.level != before.sheet.level:
            out.append(LevelRaised(cid, after.sheet.level))
        points = after.conviction - before.conviction
        if points < 0:
            out.append(ConvictionSpent(cid, -points, after.conviction, cause))
        elif points > 0:
            out.append(ConvictionGained(cid, points, after.conviction, cause))
    if after.conditions != before.conditions:
        out.append(ConditionsChanged(cid, _changed(before.conditions, after.conditions), cause))
    if after.turn != before.turn:
        out.append(TurnChanged(cid, _changed(before.turn, after.turn)))
    if after.effects != before.effects:
        removed: list[int] = []
        j = 0
        for i, effect in enumerate(before.effects):
            if j < len(after.effects) and after.effects[j] == effect:
                j += 1
            else:
                removed.append(i)
        if removed:
            out.append(EffectsEnded(cid, tuple(removed), tuple(before.effects[i].name for i in removed), cause))
        out.extend(EffectGained(cid, e.kind.value, e.name, e.lasts.value, e.amount) for e in after.effects[j:])
    if after.regain_check_due != before.regain_check_due:
        out.append(RegainOffered(cid, after.regain_check_due))
    return out


_EFFECT_KIND = {k.value: k for k in EffectKind}
_LASTS = {k.value: k for k in Lasts}
_ENUM_VALUES = {name: {int(v): v for v in enum} for name, enum in _CONDITION_TYPES.items()}
_EFFECT = Effect(EffectKind.FEAT, "", Lasts.ROUND)  # a prototype: the fold's effects are copies of it


def _conviction(hero: Hero, f: Any) -> Hero:
    return evolved_field(hero, "sheet", evolved_field(hero.sheet, "conviction", f.conviction))


def _conditions(hero: Hero, f: ConditionsChanged) -> Hero:
    typed: dict[str, Any] = {k: _ENUM_VALUES[k][v] if k in _ENUM_VALUES else v for k, v in f.changes.items()}
    return evolved_field(hero, "conditions", evolved(hero.conditions, **typed))


_TURN_FLAGS = frozenset(name for name, kind in typing.get_type_hints(Turn).items() if kind is bool)


def _turn(hero: Hero, f: TurnChanged) -> Hero:
    # `_changed` records a flag as 1 or 0, as it records every count: the turn keeps it a bool
    changes = {k: bool(v) if k in _TURN_FLAGS else v for k, v in f.changes.items()}
    return evolved_field(hero, "turn", evolved(hero.turn, **changes))


def _effect(hero: Hero, f: EffectGained) -> Hero:
    effect = evolved(_EFFECT, kind=_EFFECT_KIND[f.kind], name=f.name, lasts=_LASTS[f.lasts], amount=f.amount)
    return evolved(hero, effects=(*hero.effects, effect))


def _effects_ended(hero: Hero, f: EffectsEnded) -> Hero:
    gone = set(f.removed)
    return evolved(hero, effects=tuple(e for i, e in enumerate(hero.effects) if i not in gone))


HERO_STEPS: dict[str, Callable[[Hero, Any], Hero]] = {
    LevelRaised.type: lambda hero, f: evolved_field(hero, "sheet", evolved_field(hero.sheet, "level", f.level)),
    ConvictionSpent.type: _conviction,
    ConvictionGained.type: _conviction,
    ConditionsChanged.type: _conditions,
    TurnChanged.type: _turn,
    EffectGained.type: _effect,
    EffectsEnded.type: _effects_ended,
    RegainOffered.type: lambda hero, f: evolved(hero, regain_check_due=f.due),
}


def sheet_record(sheet: Character) -> dict[str, Any]:
    data: dict[str, Any] = encode(sheet)
    return data


def stored_character(data: dict[str, Any]) -> Hero:
    """A character from its recorded sheet, unvalidated (a log is history)."""
    return Hero(decode_as(Character, data), Conditions(), Turn())
