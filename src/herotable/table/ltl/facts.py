"""Larger Than Life facts: what happened to heroes, rolls and conflicts, with every raw die face.

Ratings are ladder positions (R-LTL-1: 1 = d4 … 5 = d12, 6 = a d20 that lost a level, 7 = d20, 0 = below d4).
`hero_facts` describes how a hero changed as facts and `HERO_STEPS` replays one: the pair is how a rule's
result becomes facts without the fold ever running the rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from herotable.dice import Rating
from herotable.ltl.hero import Hero, Loss, LossType, NextRound
from herotable.ltl.sheet import sheet_to_dict, stored_sheet
from herotable.table.codec import evolved, evolved_field
from herotable.table.facts import Fact, fact, upcaster

# --- heroes ---


@fact
@dataclass(frozen=True)
class SheetRecorded(Fact):
    """A hero's sheet as it came to the table (GM-only when hidden)."""

    type = "ltl.sheet_recorded"
    character: str
    sheet: dict[str, Any]


@fact
@dataclass(frozen=True)
class KarmaBurned(Fact):
    type = "ltl.karma_burned"
    character: str
    levels: int
    karma: int  # the rating after
    use: str


@fact
@dataclass(frozen=True)
class KarmaRestored(Fact):
    type = "ltl.karma_restored"
    character: str
    karma: int
    cause: str


@fact
@dataclass(frozen=True)
class HeroismBurned(Fact):
    type = "ltl.heroism_burned"
    character: str
    levels: int
    heroism: int
    use: str


@fact
@dataclass(frozen=True)
class HeroismRestored(Fact):
    type = "ltl.heroism_restored"
    character: str
    heroism: int
    cause: str


@fact
@dataclass(frozen=True)
class LevelsLost(Fact):
    type = "ltl.levels_lost"
    news = True
    character: str
    levels: int
    kind: str
    lowers_rolls: bool
    note: str
    cause: str


@fact
@dataclass(frozen=True)
class LossMarkedSerious(Fact):
    """The GM marked a loss serious as it landed (its place in the hero's list of losses): physical damage that
    needs days to heal, not hours (R-LTL-6 amended)."""

    type = "ltl.loss_marked_serious"
    character: str
    loss: int


@fact
@dataclass(frozen=True)
class LossesRecovered(Fact):
    """Losses gone (by their place in the hero's list of losses), `levels` in all."""

    type = "ltl.losses_recovered"
    character: str
    removed: tuple[int, ...]
    levels: int
    cause: str


@fact
@dataclass(frozen=True)
class TokensChanged(Fact):
    type = "ltl.try_again_tokens"
    character: str
    tokens: int
    cause: str


STATUSES = ("pushed", "unconscious", "stunned", "collapses_after_action", "last_chance_used", "motivation_used")


@fact
@dataclass(frozen=True)
class StatusChanged(Fact):
    """A hero's status turned on or off: one of STATUSES."""

    type = "ltl.status_changed"
    character: str
    status: str
    on: bool
    cause: str


@fact
@dataclass(frozen=True)
class DefeatRecorded(Fact):
    """The consequence of defeat (R-LTL-5), or None when the hero is no longer defeated."""

    type = "ltl.defeat_recorded"
    news = True
    character: str
    consequence: str | None
    cause: str


@fact
@dataclass(frozen=True)
class RoundEffects(Fact):
    """A hero's critical effects earned for the next round and in force this round (R-LTL-8)."""

    type = "ltl.round_effects"
    character: str
    next_round: tuple[str, ...]
    this_round: tuple[str, ...]


@fact
@dataclass(frozen=True)
class StuntPulledOff(Fact):
    type = "ltl.stunt_pulled_off"
    news = True
    character: str
    stunt: str  # "Power: stunt"


@fact
@dataclass(frozen=True)
class HeroPointsAwarded(Fact):
    type = "ltl.hero_points_awarded"
    character: str
    points: int
    total: int


@fact
@dataclass(frozen=True)
class HeroPointsSpent(Fact):
    """An improvement bought (R-LTL-16); `sheet` is the sheet after it."""

    type = "ltl.hero_points_spent"
    character: str
    improvement: str
    target: str
    cost: int
    before: str
    after: str
    sheet: dict[str, Any]


# --- rolls ---


@fact
@dataclass(frozen=True)
class TaskOpened(Fact):
    """A roll opened: a challenge, a Karma roll, a Power Stunt, a Last Chance, or a conflict's exchange (with a
    `target`) or attempt. `difficulty` is the GM's die (a position), None in an exchange."""

    type = "ltl.task_opened"
    task: str
    purpose: str
    actor: str
    target: str | None = None
    difficulty: int | None = None
    stakes: str | None = None
    must_succeed: bool = False
    secret: bool = False
    detail: str = ""
    broke: int = 0
    auto_success: bool = False
    in_conflict: bool = False


@fact
@dataclass(frozen=True)
class DieRolled(Fact):
    """One side's die in a task: `side` is "actor" or "opposition"; `roller` None is the GM's difficulty die.
    `penalty` is how much lower its face counts (a d4 under -1 or -2 die types, R-LTL-8, R-T-2), `shift` and `reason`
    the GM's situational modifier in die types and why (R-T-2 amended 2026-12-02). Version 2 had none of the three:
    its penalty was 1 at rating 0, else 0."""

    type = "dice.rolled"
    version = 3
    commit = True
    rolled = True
    roll: str
    side: str
    roller: str | None
    rating: int
    die: int
    faces: tuple[int, ...]
    style: str | None = None
    karma_roll: bool = False
    penalty: int = 0
    shift: int = 0
    reason: str = ""

    def dice_faces(self) -> tuple[tuple[int, int], ...]:
        return tuple((self.die, face) for face in self.faces)


@upcaster(DieRolled.type, 2)
def _die_without_shift(payload: dict[str, Any]) -> dict[str, Any]:
    """Version 2 → 3: no situational modifier then; the penalty was a d4 under a critical's -1 (rating 0)."""
    return {**payload, "penalty": 1 if payload["rating"] <= 0 else 0, "shift": 0, "reason": ""}


@fact
@dataclass(frozen=True)
class DieRerolled(Fact):
    """A re-roll of one side's die (R-LTL-9); `kept` is the index of the roll that now counts."""

    type = "dice.rerolled"
    commit = True
    rolled = True
    roll: str
    side: str
    roller: str
    source: str
    die: int
    faces: tuple[int, ...]
    kept: int
    specialty: str | None = None

    def dice_faces(self) -> tuple[tuple[int, int], ...]:
        return tuple((self.die, face) for face in self.faces)


@fact
@dataclass(frozen=True)
class SuccessBought(Fact):
    """Automatic Success bought after the roll (R-LTL-10); the Karma is a fact of its own."""

    type = "ltl.success_bought"
    news = True
    commit = True
    roll: str
    side: str
    roller: str


@fact
@dataclass(frozen=True)
class RollAccepted(Fact):
    """The controller of `characters` accepts the conflict's open exchange as it stands; it settles once every
    character rolling in it is accepted for, and any change to its dice asks everyone again (R-LTL-3)."""

    type = "ltl.roll_accepted"
    news = True
    roll: str
    characters: tuple[str, ...]


@fact
@dataclass(frozen=True)
class AcceptancesLapsed(Fact):
    """The conflict's open exchange changed after someone accepted it (a re-roll, a bought success): everyone is
    asked to accept it again (R-LTL-3). Public, so each viewer sees why the acceptances went; the change itself stays
    its roller's until the exchange settles."""

    type = "ltl.acceptances_lapsed"
    roll: str


@fact
@dataclass(frozen=True)
class TaskSettled(Fact):
    """A roll settled and announced (R-LTL-3, R-LTL-7, R-LTL-8), from the actor's side. `stunt` names the Power
    Stunt the roll was for ("Power: stunt"), shown with the result to everyone who sees it; None for any other roll,
    for a hidden character's stunt (its Superpowers are on the sheet the GM alone sees), and for a settle recorded
    before version 3, which did not name it. `label`: what the roll was for, as the GM called it ("Leap the gap"),
    from version 4."""

    type = "ltl.task_settled"
    news = True
    version = 4
    commit = True
    reveals = "task"
    task: str
    outcome: str
    winner: str | None
    loser: str | None
    effect: int
    automatic: bool
    actor_critical: str
    opposition_critical: str
    crit_bonus: str
    crit_penalty: str
    failed_must_succeed: bool = False
    in_conflict: bool = False
    stunt: str | None = None
    label: str = ""


@upcaster(TaskSettled.type, 3)
def _label_not_kept(payload: dict[str, Any]) -> dict[str, Any]:
    """Version 3 → 4: the settle keeps the roll's label (what the GM called it for), so the log's settled entry says
    what was settled; one recorded before it kept none."""
    return {**payload, "label": ""}


@upcaster(TaskSettled.type, 2)
def _stunt_not_named(payload: dict[str, Any]) -> dict[str, Any]:
    """Version 2 → 3: the settle names the Power Stunt it shows; one recorded before it named none, and the log
    reads as it did then."""
    return {**payload, "stunt": None}


@fact
@dataclass(frozen=True)
class CritRewardDue(Fact):
    """A critical success's reward waits for its winner's controller, who did not settle the roll (R-LTL-8 amended):
    the settle's `crit_bonus` says "due". What the choice needs of the exchange comes with it."""

    type = "ltl.crit_reward_due"
    roll: str
    character: str
    loser: str | None
    effect: int
    loser_minus_one: bool
    in_conflict: bool
    opposed: bool = True


@fact
@dataclass(frozen=True)
class CritRewardChosen(Fact):
    """The winner's controller chose the reward (R-LTL-8); an extra level follows as `LossPending`, an advantage as
    the heroes' next-round effects."""

    type = "ltl.crit_reward_chosen"
    news = True
    roll: str
    character: str
    bonus: str
    by_gm: bool = False  # the GM chose for a player's character (R-T-3: the log says so)


@fact
@dataclass(frozen=True)
class CritRewardLapsed(Fact):
    """A reward never chosen lapses with the scene, as the advantages it could give would (R-LTL-8 amended)."""

    type = "ltl.crit_reward_lapsed"
    roll: str
    character: str


@fact
@dataclass(frozen=True)
class DieRevealed(Fact):
    """A side's whole throw shown to everyone who may see it once the roll is settled."""

    type = "dice.revealed"
    inert = True
    commit = True
    roll: str
    side: str
    roller: str | None
    rating: int
    die: int
    throws: tuple[tuple[int, ...], ...]
    sources: tuple[str, ...]
    kept: int
    style: str | None = None

    def dice_faces(self) -> tuple[tuple[int, int], ...]:
        return tuple((self.die, face) for faces in self.throws for face in faces)


# --- what the GM calls for and allows (R-T-3) ---


@fact
@dataclass(frozen=True)
class RollCalled(Fact):
    """The GM called for a roll (R-T-3): its kind (challenge, attempt, karma, stunt, last_chance) and what the GM
    set; the character's controller rolls it. `difficulty` is a difficulty's name, None for a Last Chance."""

    type = "ltl.roll_called"
    version = 3
    call: str
    character: str
    kind: str
    difficulty: str | None
    label: str = ""
    must_succeed: bool = False
    power: str = ""
    stunt: str = ""
    harder: bool = False
    shift: int = 0  # the GM's situational modifier in die types, -2..+2 (R-T-2 amended)
    reason: str = ""


@upcaster(RollCalled.type, 2)
def _call_without_shift(payload: dict[str, Any]) -> dict[str, Any]:
    """Version 2 → 3: calls had no situational modifier."""
    return {**payload, "shift": 0, "reason": ""}


@fact
@dataclass(frozen=True)
class SituationalSet(Fact):
    """The GM's standing situational modifier on a fighter's die in the conflict's exchanges, attacking and
    defending, in die types (-2..+2; 0 clears it), with the reason its roller sees (R-T-2 amended 2026-12-02)."""

    type = "ltl.situational_set"
    character: str
    shift: int
    reason: str


@fact
@dataclass(frozen=True)
class CallClosed(Fact):
    """A call was rolled, or `lapsed`: not rolled before the scene (an attempt's: the conflict) ended."""

    type = "ltl.call_closed"
    call: str
    character: str
    lapsed: bool


@fact
@dataclass(frozen=True)
class RecoveryAllowed(Fact):
    """The GM's leave to try Recovery (R-LTL-11 amended): `tries` (None: as often as the hero likes; 0: none) for the
    scene, the conflict or each round of it. It replaces any leave before it."""

    type = "ltl.recovery_allowed"
    character: str
    scope: str
    tries: int | None


@fact
@dataclass(frozen=True)
class RecoveryTried(Fact):
    """A Recovery, rolled or burned, took one try of the GM's leave; `left` tries remain (None: unlimited)."""

    type = "ltl.recovery_tried"
    news = True
    character: str
    left: int | None


@fact
@dataclass(frozen=True)
class RecoveryLapsed(Fact):
    """The GM's leave to try Recovery ended with the scene or the conflict it was given for."""

    type = "ltl.recovery_lapsed"
    character: str


# --- conflicts (R-LTL-12) ---


@fact
@dataclass(frozen=True)
class ConflictStarted(Fact):
    """A conflict began. `fatigue`: failed challenges in it cost a level of fatigue (R-LTL-12 amended).
    `initiative_power`: the fighters a Power the GM allows (superspeed) gives initiative +1 die type (R-LTL-12)."""

    type = "ltl.conflict_started"
    version = 4
    fighters: tuple[tuple[str, str, bool], ...]  # (character, side, may roll Karma for initiative)
    stakes: str
    fatigue: bool
    initiative_power: tuple[str, ...] = ()


@upcaster(ConflictStarted.type, 2)
def _fatigue_chosen(payload: dict[str, Any]) -> dict[str, Any]:
    """Version 2 → 3: the GM's choice whether failed challenges cost fatigue; every conflict before it did."""
    return {**payload, "fatigue": True}


@upcaster(ConflictStarted.type, 3)
def _no_initiative_power(payload: dict[str, Any]) -> dict[str, Any]:
    """Version 3 → 4: the GM's grant of a Power's initiative bonus (R-LTL-12 amended); nobody had one before it."""
    return {**payload, "initiative_power": []}


@fact
@dataclass(frozen=True)
class DefenceSet(Fact):
    """A fighter's standing defence Style (None: base Power), rolled at once in every exchange against it (R-T-3).
    `vetoed`: the GM set it over its player's, who did not have it apply; `reason` says why."""

    type = "ltl.defence_set"
    character: str
    style: str | None
    vetoed: bool = False
    reason: str = ""


@fact
@dataclass(frozen=True)
class InitiativeOrder(Fact):
    """This round's initiative order (ties act together); the dice are facts of their own."""

    type = "ltl.initiative_order"
    round: int
    order: tuple[tuple[str, ...], ...]


@fact
@dataclass(frozen=True)
class InitiativeRolled(Fact):
    type = "ltl.initiative_rolled"
    version = 3
    commit = True
    rolled = True
    character: str
    die: int
    faces: tuple[int, ...]
    karma: bool = False
    power: bool = False  # one die type up for a Power the GM allows (R-LTL-12 amended)

    def dice_faces(self) -> tuple[tuple[int, int], ...]:
        return tuple((self.die, face) for face in self.faces)


@upcaster(InitiativeRolled.type, 2)
def _initiative_without_power(payload: dict[str, Any]) -> dict[str, Any]:
    """Version 2 → 3: whether a Power the GM allows raised the die; none did before it."""
    return {**payload, "power": False}


@fact
@dataclass(frozen=True)
class InitiativeRerolled(Fact):
    """A fighter re-rolled this round's initiative die (R-LTL-12 amended, R-LTL-17, R-LTL-10); `kept`: the new result
    is the one that counts. Any spend is a fact of its own."""

    type = "ltl.initiative_rerolled"
    commit = True
    rolled = True
    character: str
    source: str
    specialty: str | None
    die: int
    faces: tuple[int, ...]
    kept: bool

    def dice_faces(self) -> tuple[tuple[int, int], ...]:
        return tuple((self.die, face) for face in self.faces)


@fact
@dataclass(frozen=True)
class InitiativeBought(Fact):
    """A fighter bought Automatic Success on initiative: first this round (R-LTL-12 amended, R-LTL-10). The Karma
    is a fact of its own."""

    type = "ltl.initiative_first"
    commit = True
    character: str


@fact
@dataclass(frozen=True)
class InitiativeReordered(Fact):
    """This round's order after a re-roll or a purchase changed initiative; the rolls stay as they are."""

    type = "ltl.initiative_reordered"
    round: int
    order: tuple[tuple[str, ...], ...]


@fact
@dataclass(frozen=True)
class LossPending(Fact):
    """Levels the loser of an exchange loses at the end of the round (R-LTL-12)."""

    type = "ltl.loss_pending"
    character: str
    levels: int
    kind: str
    dealt_by: str | None


@fact
@dataclass(frozen=True)
class FighterActed(Fact):
    type = "ltl.fighter_acted"
    character: str


@fact
@dataclass(frozen=True)
class FighterPassed(Fact):
    type = "ltl.fighter_passed"
    character: str


@fact
@dataclass(frozen=True)
class FighterGaveUp(Fact):
    type = "ltl.fighter_gave_up"
    character: str


@fact
@dataclass(frozen=True)
class RoundEnded(Fact):
    type = "ltl.round_ended"
    round: int
    stunned: tuple[str, ...] = ()
    defeated: tuple[str, ...] = ()


@fact
@dataclass(frozen=True)
class ConflictEnded(Fact):
    type = "ltl.conflict_ended"
    news = True
    winner: str | None


# --- Heroism, healing, time, the GM ---


@fact
@dataclass(frozen=True)
class HeroismRolled(Fact):
    """A Heroism roll against a difficulty die: a Push, a Recovery or a stun check (R-LTL-11, R-LTL-18)."""

    type = "ltl.heroism_rolled"
    inert = True
    commit = True
    rolled = True
    character: str
    use: str
    die: int
    faces: tuple[int, ...]
    against: int
    against_faces: tuple[int, ...]
    outcome: str
    critical: str

    def dice_faces(self) -> tuple[tuple[int, int], ...]:
        return tuple((self.die, f) for f in self.faces) + tuple((self.against, f) for f in self.against_faces)


@fact
@dataclass(frozen=True)
class HealingRolled(Fact):
    """A healing Power's roll against the healing difficulty (R-LTL-15)."""

    type = "ltl.healing_rolled"
    inert = True
    commit = True
    rolled = True
    healer: str
    patient: str
    style: str | None
    rating: int
    die: int
    faces: tuple[int, ...]
    difficulty: int
    against: int
    against_faces: tuple[int, ...]
    healed: bool
    levels: int

    def dice_faces(self) -> tuple[tuple[int, int], ...]:
        return tuple((self.die, f) for f in self.faces) + tuple((self.against, f) for f in self.against_faces)


@fact
@dataclass(frozen=True)
class LastChanceTaken(Fact):
    """Last Chance after a failed must-succeed task (R-LTL-10): a new roll follows, or success bought outright."""

    type = "ltl.last_chance_taken"
    character: str
    burn: bool
    harder: bool


@fact
@dataclass(frozen=True)
class FailuresForgotten(Fact):
    """The scene ended: failed must-succeed tasks no longer open a Last Chance."""

    type = "ltl.failures_forgotten"


@fact
@dataclass(frozen=True)
class TimePassed(Fact):
    type = "ltl.time_passed"
    inert = True
    period: str


@fact
@dataclass(frozen=True)
class Overridden(Fact):
    """The GM overrode a hero's state, for a reason (R-T-2); the changes are facts of their own."""

    type = "ltl.overridden"
    inert = True
    character: str
    reason: str


# --- a hero's changes as facts, and back ---

SHEET_FACTS = (
    KarmaBurned,
    KarmaRestored,
    HeroismBurned,
    HeroismRestored,
    TokensChanged,
    StuntPulledOff,
    HeroPointsAwarded,
    HeroPointsSpent,
    SheetRecorded,
)  # facts that reveal a sheet: GM-only for a hidden character
# statuses that tell of a hero's resources (Heroism, Karma, Motivation); unconscious and stunned show at the table
SHEET_STATUSES = frozenset({"pushed", "collapses_after_action", "last_chance_used", "motivation_used"})


def reveals_sheet(f: Fact) -> bool:
    """Whether a hero fact tells what only those who see the sheet may know."""
    return isinstance(f, SHEET_FACTS) or (isinstance(f, StatusChanged) and f.status in SHEET_STATUSES)


def _losses_diff(before: tuple[Loss, ...], after: tuple[Loss, ...]) -> tuple[list[int], tuple[Loss, ...]]:
    """(indices of losses removed from `before`, losses appended after the kept ones)."""
    removed: list[int] = []
    j = 0
    for i, loss in enumerate(before):
        if j < len(after) and after[j] == loss:
            j += 1
        else:
            removed.append(i)
    return removed, after[j:]


def hero_facts(cid: str, before: Hero, after: Hero, cause: str, **causes: str) -> list[Fact]:
    """How a hero changed, as facts. `cause` says why; `causes` may give another per aspect (karma, heroism,
    losses, tokens, status, defeat)."""
    if before is after or before == after:
        return []
    why = {k: causes.get(k, cause) for k in ("karma", "heroism", "losses", "tokens", "status", "defeat")}
    out: list[Fact] = []
    if before.sheet != after.sheet:
        if replace(before.sheet, hero_points=after.sheet.hero_points) == after.sheet:
            points = after.sheet.hero_points - before.sheet.hero_points
            out.append(HeroPointsAwarded(cid, points, after.sheet.hero_points))
        else:
            spend = after.sheet.history[-1]
            assert len(after.sheet.history) == len(before.sheet.history) + 1, "a sheet changes by a Hero Point spend"
            out.append(
                HeroPointsSpent(
                    cid,
                    spend.improvement,
                    spend.target,
                    spend.cost,
                    spend.before,
                    spend.after,
                    sheet_to_dict(after.sheet),
                )
            )
    if after.karma != before.karma:
        if after.karma < before.karma:
            levels = before.karma.position - after.karma.position
            out.append(KarmaBurned(cid, levels, after.karma.position, why["karma"]))
        else:
            out.append(KarmaRestored(cid, after.karma.position, why["karma"]))
    if after.heroism != before.heroism:
        if after.heroism < before.heroism:
            levels = before.heroism.position - after.heroism.position
            out.append(HeroismBurned(cid, levels, after.heroism.position, why["heroism"]))
        else:
            out.append(HeroismRestored(cid, after.heroism.position, why["heroism"]))
    if after.losses != before.losses:
        removed, added = _losses_diff(before.losses, after.losses)
        if removed:
            levels = sum(before.losses[i].levels for i in removed)
            out.append(LossesRecovered(cid, tuple(removed), levels, why["losses"]))
        first = len(after.losses) - len(added)
        for i, loss in enumerate(added):
            out.append(LevelsLost(cid, loss.levels, loss.kind.value, loss.lowers_rolls, loss.note, why["losses"]))
            if loss.serious:
                out.append(LossMarkedSerious(cid, first + i))
    if after.try_again_tokens != before.try_again_tokens:
        out.append(TokensChanged(cid, after.try_again_tokens, why["tokens"]))
    for status in STATUSES:
        if getattr(after, status) != getattr(before, status):
            out.append(StatusChanged(cid, status, getattr(after, status), why["status"]))
    if after.defeat != before.defeat:
        out.append(DefeatRecorded(cid, after.defeat, why["defeat"]))
    if after.next_round != before.next_round or after.this_round != before.this_round:
        out.append(
            RoundEffects(cid, tuple(e.value for e in after.next_round), tuple(e.value for e in after.this_round))
        )
    if after.stunts_pulled_off != before.stunts_pulled_off:
        kept = len(before.stunts_pulled_off)
        assert after.stunts_pulled_off[:kept] == before.stunts_pulled_off, "stunts pulled off are only added"
        out.extend(StuntPulledOff(cid, stunt) for stunt in after.stunts_pulled_off[kept:])
    return out


_RATING = tuple(Rating(p) for p in range(8))
_LOSS_TYPE = {k.value: k for k in LossType}
_NEXT = {e.value: e for e in NextRound}
_LOSS = Loss(1, LossType.PHYSICAL, True)  # a prototype: losses the fold adds are copies of it


def _karma(hero: Hero, f: Any) -> Hero:
    return evolved_field(hero, "karma", _RATING[f.karma])


def _heroism(hero: Hero, f: Any) -> Hero:
    return evolved_field(hero, "heroism", _RATING[f.heroism])


def _lost(hero: Hero, f: LevelsLost) -> Hero:
    loss = evolved(_LOSS, levels=f.levels, kind=_LOSS_TYPE[f.kind], lowers_rolls=f.lowers_rolls, note=f.note)
    return evolved(hero, losses=(*hero.losses, loss))


def _serious(hero: Hero, f: LossMarkedSerious) -> Hero:
    losses = tuple(evolved(loss, serious=True) if i == f.loss else loss for i, loss in enumerate(hero.losses))
    return evolved(hero, losses=losses)


def _recovered(hero: Hero, f: LossesRecovered) -> Hero:
    gone = set(f.removed)
    return evolved(hero, losses=tuple(loss for i, loss in enumerate(hero.losses) if i not in gone))


def _status(hero: Hero, f: StatusChanged) -> Hero:
    status: dict[str, Any] = {f.status: f.on}
    return evolved(hero, **status)


def _effects(hero: Hero, f: RoundEffects) -> Hero:
    return evolved(
        hero, next_round=tuple(_NEXT[e] for e in f.next_round), this_round=tuple(_NEXT[e] for e in f.this_round)
    )


HERO_STEPS: dict[str, Callable[[Hero, Any], Hero]] = {
    KarmaBurned.type: _karma,
    KarmaRestored.type: _karma,
    HeroismBurned.type: _heroism,
    HeroismRestored.type: _heroism,
    LevelsLost.type: _lost,
    LossMarkedSerious.type: _serious,
    LossesRecovered.type: _recovered,
    TokensChanged.type: lambda hero, f: evolved(hero, try_again_tokens=f.tokens),
    StatusChanged.type: _status,
    DefeatRecorded.type: lambda hero, f: evolved(hero, defeat=f.consequence),
    RoundEffects.type: _effects,
    StuntPulledOff.type: lambda hero, f: evolved(hero, stunts_pulled_off=(*hero.stunts_pulled_off, f.stunt)),
    HeroPointsAwarded.type: lambda hero, f: evolved(hero, sheet=evolved(hero.sheet, hero_points=f.total)),
    HeroPointsSpent.type: lambda hero, f: evolved(hero, sheet=stored_sheet(f.sheet)),
}
