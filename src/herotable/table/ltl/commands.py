"""Larger Than Life commands: every action of the engine as something a member asks the table (R-LTL-2 …
R-LTL-18). Their handlers are in `decide`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, ClassVar

from herotable.ltl.hero import Defeat, LossType, TimePassed
from herotable.ltl.karma import Fortune
from herotable.ltl.roll import RerollSource
from herotable.ltl.task import CritBonus, CritPenalty
from herotable.table.commands import LABEL_LENGTH, NAME_LENGTH, PROSE_LENGTH, Command, Range, Text

BROKE = Range(0, 6)  # Going For Broke: the campaign's cap narrows it (R-T-5, R-LTL-7)
OVERRIDE_LEVELS = Range(0, 14)
TOKENS = Range(0, 20)
AWARD = Range(0, 100)
TRIES = Range(0, 20)  # Recovery tries the GM allows (R-T-5)
CharacterId = Annotated[str, Text(NAME_LENGTH, required=True)]


class DifficultyName(StrEnum):
    """The GM's difficulty names (R-LTL-2): Easy d4 … Inconceivable d20, and Impossible (no roll)."""

    EASY = "Easy"
    AVERAGE = "Average"
    CHALLENGING = "Challenging"
    HARD = "Hard"
    FORMIDABLE = "Formidable"
    INCONCEIVABLE = "Inconceivable"
    IMPOSSIBLE = "Impossible"


class CallKind(StrEnum):
    """What the GM calls for (R-T-3): each is rolled by its own command, naming the call."""

    CHALLENGE = "challenge"  # rolled with ltl.challenge
    ATTEMPT = "attempt"  # a challenge in the conflict: ltl.attempt
    KARMA = "karma"  # Deus Ex Machina, Narrative Power or any Karma roll: ltl.karma.roll
    STUNT = "stunt"  # a Power Stunt: ltl.karma.roll
    LAST_CHANCE = "last_chance"  # Last Chance's new attempt: ltl.karma.last_chance


class RecoveryScope(StrEnum):
    """How long the GM's leave to try Recovery lasts (R-LTL-11 amended)."""

    SCENE = "scene"  # until the scene ends
    CONFLICT = "conflict"  # until the conflict ends
    ROUND = "round"  # so many tries each round, until the conflict ends


class KarmaPurpose(StrEnum):
    KARMA = "karma"  # Deus Ex Machina or Narrative Power rolled, or any Karma roll the GM calls for
    STUNT = "stunt"  # a Power Stunt


class Improvement(StrEnum):
    RAISE_STYLE = "raise_style"
    NEW_STYLE = "new_style"
    RAISE_BASE = "raise_base"
    RAISE_HEROISM = "raise_heroism"
    RAISE_KARMA = "raise_karma"
    ADD_SPECIALTY = "add_specialty"
    ADD_POWER_STUNT = "add_power_stunt"
    REMOVE_COMPLICATION = "remove_complication"


class DieSetting(StrEnum):
    """A die the GM can set Karma or Heroism to (R-T-2)."""

    D4 = "d4"
    D6 = "d6"
    D8 = "d8"
    D10 = "d10"
    D12 = "d12"
    D20 = "d20"
    BELOW_D4 = "below d4"


@dataclass(frozen=True)
class CreateLtlCharacter(Command):
    """A hero for its player, or (by the GM) an NPC or villain, possibly with a hidden sheet."""

    type = "character.create_ltl"
    character: CharacterId
    sheet: Annotated[dict[str, Any], Text(PROSE_LENGTH)]
    owner: str | None = None
    npc: bool = False
    hidden: bool = False


SHIFT = Range(-2, 2)  # a situational modifier in die types (R-T-2 amended 2026-12-02)


@dataclass(frozen=True)
class SetSituational(Command):
    """The GM's standing situational modifier on a fighter's die in the conflict's exchanges, attacking and
    defending: -2..+2 die types (0 clears it), with the reason its roller sees (R-T-2 amended 2026-12-02)."""

    type = "ltl.situational"
    character: str
    shift: Annotated[int, SHIFT]
    reason: Annotated[str, Text(LABEL_LENGTH)] = ""


@dataclass(frozen=True)
class CallRoll(Command):
    """The GM calls for a roll and sets what is the GM's to set (R-T-3): the difficulty, whether a challenge must
    succeed, a Power Stunt's Superpower and stunt, whether a Last Chance is one level harder. The character's
    controller rolls it with the command of its kind, naming the call; an unrolled call lapses when the scene ends
    (an attempt's when the conflict ends)."""

    type = "ltl.call"
    character: str
    kind: CallKind = CallKind.CHALLENGE
    difficulty: DifficultyName | None = None  # every kind but a Last Chance, which keeps its task's
    label: Annotated[str, Text(LABEL_LENGTH)] = ""
    must_succeed: bool = False  # a challenge only
    power: Annotated[str, Text(NAME_LENGTH)] = ""  # a Power Stunt only
    stunt: Annotated[str, Text(NAME_LENGTH)] = ""
    harder: bool = False  # a Last Chance only
    shift: Annotated[int, SHIFT] = 0  # a situational modifier in die types on the roll, with its reason (R-T-2)
    reason: Annotated[str, Text(LABEL_LENGTH)] = ""


@dataclass(frozen=True)
class Challenge(Command):
    """Roll an unopposed task (R-LTL-2, R-LTL-3). A player rolls one the GM called for (`call`), declaring the Style
    and Automatic Success; the GM may also roll directly against a difficulty set now (R-T-3). `secret` keeps it
    GM-only even once settled."""

    type = "ltl.challenge"
    character: str
    difficulty: DifficultyName | None = None
    style: Annotated[str | None, Text(NAME_LENGTH)] = None
    auto_success: bool = False
    must_succeed: bool = False
    secret: bool = False
    call: str | None = None
    shift: Annotated[int, SHIFT] = 0  # the GM's, rolling directly: a situational modifier in die types (R-T-2)
    reason: Annotated[str, Text(LABEL_LENGTH)] = ""


@dataclass(frozen=True)
class Reroll(Command):
    """Re-roll in an open task, or in the conflict's open exchange when `task` is None (R-LTL-9)."""

    type = "ltl.reroll"
    character: str
    source: RerollSource
    task: str | None = None
    specialty: Annotated[str | None, Text(NAME_LENGTH)] = None


@dataclass(frozen=True)
class BuySuccess(Command):
    """Burn two levels of Karma after seeing the roll (R-LTL-10)."""

    type = "ltl.buy_success"
    character: str
    task: str | None = None


@dataclass(frozen=True)
class Settle(Command):
    """Accept an open roll as it stands: it settles and is announced. An exchange in a conflict settles once the
    controller of each character rolling in it has accepted (R-LTL-3, R-LTL-8, R-LTL-12); `for_everyone`: the GM
    settles it at once, for a player who is away (R-T-3)."""

    type = "ltl.settle"
    task: str | None = None
    crit_bonus: CritBonus = CritBonus.EXTRA_LEVEL
    crit_penalty: CritPenalty = CritPenalty.MINUS_ONE_NEXT
    for_everyone: bool = False


@dataclass(frozen=True)
class ChooseCritReward(Command):
    """The winner's controller chooses the reward of a critical success someone else settled (R-LTL-8 amended); the
    GM may choose for an absent player (R-T-3). `roll` names the settled roll when the character has two waiting."""

    type = "ltl.crit.choose"
    character: str
    bonus: CritBonus
    roll: str | None = None


@dataclass(frozen=True)
class StartConflict(Command):
    """The GM starts a conflict between the named fighters and their sides, with its stakes and how initiative is
    rolled (R-LTL-12)."""

    type = "ltl.conflict.start"
    fighters: Annotated[tuple[tuple[str, str], ...], Text(NAME_LENGTH)]  # (character, side)
    stakes: LossType = LossType.PHYSICAL
    karma_initiative: tuple[str, ...] = ()
    fatigue: bool = True  # failed challenges cost a level of fatigue (R-LTL-12 amended: the GM's choice)
    initiative_power: tuple[str, ...] = ()  # fighters a Power the GM allows gives initiative +1 die type (R-LTL-12)


@dataclass(frozen=True)
class Attack(Command):
    """Open an exchange against an opponent. The defender rolls its standing defence Style (`SetDefence`), never
    one the attacker names (R-T-3)."""

    type = "ltl.attack"
    retired: ClassVar[Mapping[str, str]] = {
        "target_style": "the defender rolls its standing defence Style, set by its controller (ltl.defence)"
    }
    actor: str
    target: str
    style: Annotated[str | None, Text(NAME_LENGTH)] = None
    broke: Annotated[int, BROKE] = 0
    auto_success: bool = False


@dataclass(frozen=True)
class SetDefence(Command):
    """A fighter's standing defence Style (None: base Power), which every exchange against it rolls at once
    (R-T-3). Its controller sets it when the conflict starts or between rounds; the GM sets an NPC's, and may veto a
    player's as not applying (to base Power or another Style), with a reason."""

    type = "ltl.defence"
    character: str
    style: Annotated[str | None, Text(NAME_LENGTH)] = None
    reason: Annotated[str, Text(LABEL_LENGTH)] = ""


@dataclass(frozen=True)
class Attempt(Command):
    """A challenge inside a conflict; failure costs fatigue (R-LTL-12)."""

    type = "ltl.attempt"
    actor: str
    difficulty: DifficultyName | None = None  # the GM's, rolling directly; a player rolls a call
    style: Annotated[str | None, Text(NAME_LENGTH)] = None
    call: str | None = None
    shift: Annotated[int, SHIFT] = 0  # the GM's, rolling directly: a situational modifier in die types (R-T-2)
    reason: Annotated[str, Text(LABEL_LENGTH)] = ""


@dataclass(frozen=True)
class EndRound(Command):
    """The GM ends the round; the physical damage landing on the fighters named in `serious` needs days to heal
    (R-LTL-6 amended)."""

    type = "ltl.conflict.end_round"
    serious: tuple[str, ...] = ()


@dataclass(frozen=True)
class GiveUp(Command):
    """The fighter gives up: out of the conflict, and defeated with that consequence (R-LTL-12, R-LTL-5)."""

    type = "ltl.conflict.give_up"
    character: str


@dataclass(frozen=True)
class PassTurn(Command):
    """The fighter does nothing this round (R-LTL-12)."""

    type = "ltl.conflict.pass"
    character: str


@dataclass(frozen=True)
class EndConflict(Command):
    """The GM ends the conflict."""

    type = "ltl.conflict.end"


@dataclass(frozen=True)
class TryAgain(Command):
    """Burn one level of Karma for two Try Again re-rolls, kept until used or the adventure ends (R-LTL-10)."""

    type = "ltl.karma.try_again"
    character: str


@dataclass(frozen=True)
class FortuneBurn(Command):
    """Deus Ex Machina or Narrative Power for the levels the GM sets (R-LTL-10)."""

    type = "ltl.karma.fortune"
    character: str
    use: Fortune
    levels: Annotated[int, Range(1, 2)]


@dataclass(frozen=True)
class KarmaRoll(Command):
    """Roll Karma against a GM difficulty: a Power Stunt, Deus Ex Machina or Narrative Power (R-LTL-10). A player
    rolls one the GM called for (`call`, which sets the purpose, difficulty and stunt); the GM may roll directly."""

    type = "ltl.karma.roll"
    character: str
    difficulty: DifficultyName | None = None
    purpose: KarmaPurpose = KarmaPurpose.KARMA
    power: Annotated[str, Text(NAME_LENGTH)] = ""
    stunt: Annotated[str, Text(NAME_LENGTH)] = ""
    call: str | None = None


@dataclass(frozen=True)
class LastChance(Command):
    """Last Chance after a failed must-succeed task (R-LTL-10): burn a level to succeed outright, or roll again, as
    the GM calls for it (`call`: the GM sets whether it is one level harder, R-T-3); the GM may roll it directly."""

    type = "ltl.karma.last_chance"
    character: str
    burn: bool = False
    harder: bool = False  # the GM's, rolling directly
    call: str | None = None


@dataclass(frozen=True)
class Push(Command):
    """Push base Power and every Style one die type for one challenge or round: roll Heroism against the highest die
    the Push creates, or burn a level (R-LTL-11)."""

    type = "ltl.heroism.push"
    character: str
    burn: bool = False


@dataclass(frozen=True)
class Recover(Command):
    """Recovery, rolled or burned, within the leave the GM gave (`AllowRecovery`, R-LTL-11 amended)."""

    type = "ltl.heroism.recover"
    character: str
    burn: bool = False


@dataclass(frozen=True)
class AllowRecovery(Command):
    """The GM's leave for a character to try Recovery (R-LTL-11 amended, R-T-3): `tries` (None: as often as they
    like; 0 withdraws the leave) for the scene, the conflict, or each round of the conflict. Burned Recoveries count
    too."""

    type = "ltl.recovery.allow"
    character: str
    scope: RecoveryScope = RecoveryScope.SCENE
    tries: Annotated[int | None, TRIES] = 1


@dataclass(frozen=True)
class RecordDefeat(Command):
    """The GM records what defeat means for a hero whose base Power fell below d4, who lost a quick contest, or who
    gave up (R-LTL-5, R-LTL-13)."""

    type = "ltl.defeat"
    character: str
    consequence: Annotated[str, Text(NAME_LENGTH, required=True)] = Defeat.UNCONSCIOUS.value


@dataclass(frozen=True)
class TimePasses(Command):
    """The GM advances the healing clock by a period: the losses that heal within it are gone, for the named heroes
    or all (R-LTL-6)."""

    type = "ltl.time_passes"
    period: TimePassed
    characters: tuple[str, ...] = ()


@dataclass(frozen=True)
class Heal(Command):
    """Heal with a Superpower the healer's sheet marks as healing (R-LTL-15): `power` names it (None: the only one);
    the roll uses that Power's Style. `style`, when given, must be that Style. `lowered` is the GM's choice."""

    type = "ltl.heal"
    healer: str
    patient: str
    style: Annotated[str | None, Text(NAME_LENGTH)] = None
    power: Annotated[str | None, Text(NAME_LENGTH)] = None
    lowered: bool = True


@dataclass(frozen=True)
class AwardHeroPoints(Command):
    """The GM awards Hero Points to a hero, at the end of an adventure (R-LTL-16)."""

    type = "ltl.hero_points.award"
    character: str
    points: Annotated[int, AWARD]


@dataclass(frozen=True)
class SpendHeroPoints(Command):
    """Buy an improvement (R-LTL-16). `target` names the Style, Specialty, Superpower or Complication; `detail` the
    Power Stunt."""

    type = "ltl.hero_points.spend"
    character: str
    kind: Improvement
    target: Annotated[str, Text(NAME_LENGTH)] = ""
    detail: Annotated[str, Text(NAME_LENGTH)] = ""


@dataclass(frozen=True)
class Override(Command):
    """The GM overrides a computed result (R-T-2): set Karma or Heroism, add or clear losses, set flags."""

    type = "ltl.override"
    character: str
    reason: Annotated[str, Text(LABEL_LENGTH, required=True)]
    karma: DieSetting | None = None
    heroism: DieSetting | None = None
    lose: Annotated[int, OVERRIDE_LEVELS] = 0
    lose_kind: LossType = LossType.PHYSICAL
    clear_losses: bool = False
    serious: bool = False  # the levels lost are physical damage that needs days (R-LTL-6 amended)
    # whether the levels lost (bonds or mind control: the GM's call) lower the hero's other rolls; None: the default
    lowers_rolls: bool | None = None
    unconscious: bool | None = None
    defeat: Annotated[str | None, Text(NAME_LENGTH)] = None
    try_again_tokens: Annotated[int | None, TOKENS] = None


@dataclass(frozen=True)
class InitiativeReroll(Command):
    """Re-roll a fighter's initiative die before anyone acts this round (R-LTL-12 amended, R-LTL-17): a Specialty
    that applies, Motivation, or a Karma Try Again token (R-LTL-10)."""

    type = "ltl.initiative.reroll"
    character: str
    source: RerollSource
    specialty: Annotated[str | None, Text(NAME_LENGTH)] = None


@dataclass(frozen=True)
class InitiativeFirst(Command):
    """Automatic Success on initiative: burn two levels of Karma after the roll to act first this round (R-LTL-12
    amended, R-LTL-10)."""

    type = "ltl.initiative.first"
    character: str
