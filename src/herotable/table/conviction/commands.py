"""Conviction commands: every action of the engine as something a member asks the table (R-CV-1 … R-CV-14).
Their handlers are in `decide`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from herotable.conviction.character import Abilities, Ability, Nature
from herotable.conviction.character import Role as CvRole
from herotable.conviction.conditions import Fatigue, Lethal, NonLethal
from herotable.conviction.exit_scene import Side
from herotable.conviction.regain import NatureTrait, Setback
from herotable.conviction.rounds import ActionKind
from herotable.conviction.spending import ShakeOff
from herotable.table.commands import LABEL_LENGTH, NAME_LENGTH, PROSE_LENGTH, Command, Range, Text

DIFFICULTY = Range(-10, 60)  # a Difficulty Class (R-T-5)
MODIFIER = Range(-10, 10)  # a situational modifier to the total, with its reason (R-T-2 amended 2026-12-02)
DAMAGE = Range(0, 30)
CONVICTION = Range(0, 30)
STEPS = Range(1, 3)
COUNT = Range(0, 20)
ROUNDS = Range(0, 5)
WIT = Range(1, 1000)
CharacterId = Annotated[str, Text(NAME_LENGTH, required=True)]


@dataclass(frozen=True)
class CvSheet:
    """What a player writes on a new Conviction sheet; the first role is the 1st-level role (R-CV-2, R-CV-7)."""

    name: Annotated[str, Text(NAME_LENGTH, required=True)]
    level: Annotated[int, Range(1, 20)]
    roles: tuple[CvRole, ...]
    abilities: Abilities
    toughness: int
    nature: Nature
    combat_bonus: int = 0
    skills: tuple[tuple[str, int], ...] = ()
    feats: Annotated[tuple[str, ...], Text(NAME_LENGTH)] = ()
    # feats whose catalogue numbers the values above do not include yet: the table adds them (R-CV-6 amended)
    uncounted_feats: Annotated[tuple[str, ...], Text(NAME_LENGTH)] = ()


@dataclass(frozen=True)
class CreateCvCharacter(Command):
    """A hero for its player, or (by the GM) an NPC or villain, possibly with a hidden sheet."""

    type = "character.create_cv"
    character: CharacterId
    sheet: CvSheet
    owner: str | None = None
    npc: bool = False
    hidden: bool = False


@dataclass(frozen=True)
class CallCheck(Command):
    """The GM calls for a check: the Difficulty, the modifiers and what the roll is for (R-T-3, R-CV-1). The
    character's controller rolls it (`RollCheck` with `call`), naming the ability and skill where the call leaves
    them open."""

    type = "cv.check.call"
    character: str
    difficulty: Annotated[int, DIFFICULTY]
    label: Annotated[str, Text(LABEL_LENGTH)] = ""
    modifier: Annotated[int, MODIFIER] = 0
    ability: Ability | None = None
    skill: Annotated[str | None, Text(NAME_LENGTH)] = None
    reason: Annotated[str, Text(LABEL_LENGTH)] = ""  # why the modifier: the roller sees it (R-T-2 amended)
    untrained: bool = False  # the skill is meant as named though one on the sheet is a typo away (rules version 6)


@dataclass(frozen=True)
class RollCheck(Command):
    """d20 + modifiers against the GM's Difficulty. A player rolls a check the GM called for (`call`); the GM may
    also set `difficulty` and `modifier` directly (R-T-3). `ability` and `skill` add the sheet's modifier and ranks
    (Expertise included): a skill a typo away from one on the sheet is refused unless `untrained` says it is meant
    (rules version 6). `secret` (GM only) keeps it GM-only even once announced."""

    type = "cv.check"
    character: str
    difficulty: Annotated[int | None, DIFFICULTY] = None
    label: Annotated[str, Text(LABEL_LENGTH)] = ""
    modifier: Annotated[int, MODIFIER] = 0
    ability: Ability | None = None
    skill: Annotated[str | None, Text(NAME_LENGTH)] = None
    secret: bool = False
    call: str | None = None
    reason: Annotated[str, Text(LABEL_LENGTH)] = ""
    untrained: bool = False  # as on `CallCheck`


@dataclass(frozen=True)
class Reroll(Command):
    """Spend a point to re-roll your own pending check; 1–10 on the re-roll count +10; keep the better."""

    type = "cv.reroll"
    check: str | None = None


@dataclass(frozen=True)
class Announce(Command):
    """Announce a pending check to the table; it becomes final and what it does happens."""

    type = "cv.announce"
    check: str | None = None


@dataclass(frozen=True)
class OverrideCheck(Command):
    """The GM rules a pending check a success or a failure whatever the dice say (R-T-2)."""

    type = "cv.check.override"
    succeeded: bool
    reason: Annotated[str, Text(LABEL_LENGTH, required=True)]
    check: str | None = None


@dataclass(frozen=True)
class SetPresence(Command):
    """The GM says who is in the running scene; everyone else is out of it until the scene ends (R-CV-14)."""

    type = "cv.presence.set"
    present: tuple[str, ...] = ()


@dataclass(frozen=True)
class SetSides(Command):
    """The GM names the side of each character listed; the others take their default side, heroes against NPCs
    (R-CV-14). An empty list puts everyone back on their default side."""

    type = "cv.sides.set"
    sides: Annotated[tuple[tuple[str, str], ...], Text(NAME_LENGTH)] = ()  # (character, side)


@dataclass(frozen=True)
class StartRound(Command):
    """A new round for the named characters (every character in the scene when none are named), in initiative order
    (R-CV-14): the GM's `order`, else the standing order of these rounds, else (or with `roll`) d20 + Dexterity rolled
    for each, ties by Dexterity, then in the order the characters are named. A rolled initiative stays pending for its
    rollers, who may re-roll it with Conviction, until the GM begins the first turn (`BeginTurns`, R-CV-4 amended)."""

    type = "cv.round.start"
    characters: tuple[str, ...] = ()
    roll: bool = False
    order: tuple[str, ...] = ()


@dataclass(frozen=True)
class InitiativeReroll(Command):
    """Spend Conviction to re-roll the character's initiative while it is pending, before the GM begins the first turn
    (R-CV-4 amended 2026-12-02); it is the round's one point (R-CV-3)."""

    type = "cv.initiative.reroll"
    character: str


@dataclass(frozen=True)
class BeginTurns(Command):
    """The GM begins the round's first turn: the initiative rolled for it, re-rolls included, is announced and its
    ties broken (R-CV-4 amended, R-CV-14)."""

    type = "cv.round.begin"


@dataclass(frozen=True)
class TakeAction(Command):
    """Use an action of this round's budget; `strenuous` is the GM's call for other actions while Disabled."""

    type = "cv.act"
    character: str
    action: ActionKind
    strenuous: bool = False
    what: Annotated[str, Text(LABEL_LENGTH)] = ""


@dataclass(frozen=True)
class Surge(Command):
    """One extra standard or move action this round; the character keeps their place in the initiative order
    (R-CV-5, R-CV-14)."""

    type = "cv.surge"
    character: str
    action: ActionKind = ActionKind.STANDARD


@dataclass(frozen=True)
class HeroicFeat(Command):
    """A feat for one round from the campaign's catalogue (R-CV-6)."""

    type = "cv.heroic_feat"
    character: str
    feat: Annotated[str, Text(NAME_LENGTH, required=True)]


@dataclass(frozen=True)
class TheTalent(Command):
    """Adept: one use of a power the hero lacks, or (no power named) clear power fatigue."""

    type = "cv.talent"
    character: str
    power: Annotated[str | None, Text(NAME_LENGTH)] = None


@dataclass(frozen=True)
class UseTalentPower(Command):
    """Use the power The Talent granted (R-CV-7)."""

    type = "cv.talent.use"
    character: str
    power: Annotated[str, Text(NAME_LENGTH, required=True)]


@dataclass(frozen=True)
class Expertise(Command):
    """Expertise, the Expert core ability: +4 ranks in a skill for the scene (R-CV-7)."""

    type = "cv.expertise"
    character: str
    skill: Annotated[str, Text(NAME_LENGTH, required=True)]


@dataclass(frozen=True)
class Determination(Command):
    """Determination, the Warrior core ability: every bruised and hurt condition goes (R-CV-7)."""

    type = "cv.determination"
    character: str


@dataclass(frozen=True)
class ShakeOffCondition(Command):
    """Recover: shake off stunned or strained at once (R-CV-9)."""

    type = "cv.shake_off"
    character: str
    condition: ShakeOff


@dataclass(frozen=True)
class RecoverNow(Command):
    """Recover: an extra recovery check now, opened as a pending check."""

    type = "cv.recover_now"
    character: str


@dataclass(frozen=True)
class StrenuousGuard(Command):
    """Recover: while Disabled, act strenuously this round without dropping to dying (R-CV-9)."""

    type = "cv.strenuous_guard"
    character: str


@dataclass(frozen=True)
class EscapeDeath(Command):
    """Stabilise a dying character: the spender (no target) or an ally the spender is `assisting`."""

    type = "cv.escape_death"
    character: str
    target: str | None = None
    assisting: bool = False


@dataclass(frozen=True)
class StartExit(Command):
    """Spend a point to leave the scene; the others may interfere (R-CV-11)."""

    type = "cv.exit.start"
    character: str


@dataclass(frozen=True)
class InterfereExit(Command):
    """Spend a point against someone's exit; each cancels one exit point (R-CV-11)."""

    type = "cv.exit.interfere"
    character: str


@dataclass(frozen=True)
class PressExit(Command):
    """The leaver answers interference with one more point."""

    type = "cv.exit.press"


@dataclass(frozen=True)
class PassExit(Command):
    """A side passes. The exit side: the leaver's player or the GM. The interfering side: the GM, or the
    player of a character that has interfered (`character`)."""

    type = "cv.exit.pass"
    side: Side
    character: str | None = None


@dataclass(frozen=True)
class DesignateWit(Command):
    """Spend a point to mark a line as Quotable Wit: the words, who said them (a character), who heard them."""

    type = "cv.wit.designate"
    character: str
    text: Annotated[str, Text(PROSE_LENGTH, required=True)]
    speaker: str
    heard_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class UseWit(Command):
    """The roller of a pending check uses a Wit they heard for +2. `related` is the GM's call; `hijack` marks
    an enemy of the speaker turning it around."""

    type = "cv.wit.use"
    wit: Annotated[int, WIT]
    check: str | None = None
    related: bool = True
    hijack: bool = False


@dataclass(frozen=True)
class AwardNature(Command):
    """The GM awards a point for acting on Virtue or Vice, never above the maximum (R-CV-2, R-CV-13)."""

    type = "cv.award_nature"
    character: str
    trait: NatureTrait
    note: Annotated[str, Text(LABEL_LENGTH)] = ""


@dataclass(frozen=True)
class RegainCheck(Command):
    """The Charisma check against 10 offered after a scene the GM ended as dramatic."""

    type = "cv.regain_check"
    character: str


@dataclass(frozen=True)
class RaiseLevel(Command):
    """The GM raises a character one level; an odd level gives one more point and raises the maximum (R-CV-2)."""

    type = "cv.level.raise"
    character: str


@dataclass(frozen=True)
class GainFromSetback(Command):
    """The GM gives a point for a setback at an enemy's hands, even above the maximum (R-CV-2, R-CV-13)."""

    type = "cv.setback"
    character: str
    setback: Setback


@dataclass(frozen=True)
class ToughnessSave(Command):
    """The GM calls for the target's save against damage: d20 + Toughness − bruised/hurt against 15 +
    `damage_bonus` (R-T-3, R-CV-8). `by_enemy` decides whether being disabled by it earns a point; left out, the
    attacker is an enemy when on another side as the GM set the sides (heroes against NPCs until then), and damage
    with no attacker named is an enemy's (R-CV-2, R-CV-14)."""

    type = "cv.toughness_save"
    character: str
    damage_bonus: Annotated[int, DAMAGE]
    lethal: bool = True
    attacker: str | None = None
    by_enemy: bool | None = None
    secret: bool = False
    modifier: Annotated[int, MODIFIER] = 0  # a situational modifier to the save, with its reason (R-T-2 amended)
    reason: Annotated[str, Text(LABEL_LENGTH)] = ""


@dataclass(frozen=True)
class DyingCheck(Command):
    """A dying character's Constitution check against 10, once a round (R-CV-8)."""

    type = "cv.dying_check"
    character: str


@dataclass(frozen=True)
class RecoveryCheck(Command):
    """A recovery check, Constitution against 10, when the GM says one is due (R-CV-8)."""

    type = "cv.recovery_check"
    character: str


@dataclass(frozen=True)
class Stun(Command):
    """Stunned: only reactions for a round (R-CV-8)."""

    type = "cv.stun"
    character: str
    attacker: str | None = None


@dataclass(frozen=True)
class AddFatigue(Command):
    """Strained → fatigued → exhausted; beyond, unconscious (R-CV-8)."""

    type = "cv.fatigue"
    character: str
    steps: Annotated[int, STEPS] = 1
    attacker: str | None = None


@dataclass(frozen=True)
class Rest(Command):
    """Rest removes fatigue steps; how long it takes is the GM's call (R-CV-8, R-T-2)."""

    type = "cv.rest"
    character: str
    steps: Annotated[int, STEPS] = 1


@dataclass(frozen=True)
class CvOverride(Command):
    """The GM sets a character's Conviction or conditions, with a reason for the log. Unset fields stay."""

    type = "cv.override"
    character: str
    reason: Annotated[str, Text(LABEL_LENGTH, required=True)]
    conviction: Annotated[int | None, CONVICTION] = None
    bruised: Annotated[int | None, COUNT] = None
    hurt: Annotated[int | None, COUNT] = None
    lethal: Lethal | None = None
    nonlethal: NonLethal | None = None
    fatigue: Fatigue | None = None
    stunned_rounds: Annotated[int | None, ROUNDS] = None
    dazed_rounds: Annotated[int | None, ROUNDS] = None
    regain_check_due: bool | None = None
