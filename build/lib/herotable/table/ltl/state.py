"""The Larger Than Life table: every hero in play, the conflict, and the rolls still open (R-LTL-3 … R-LTL-18).

A hero lives in one place, `heroes`, whether or not it fights; the conflict keeps only who fights on which side
and how the round goes. `rules_conflict` assembles the rules engine's `Conflict` from both when a rule needs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from herotable.ltl import conflict as cf
from herotable.ltl.hero import Hero, LossType
from herotable.ltl.options import LtlOptions
from herotable.ltl.roll import DieRoll
from herotable.ltl.task import Task
from herotable.table.kit import Roster
from herotable.table.state import Role, TableError, TableState


@dataclass(frozen=True)
class OpenTask:
    """A rolled task not yet settled. `revealed`: a GM undo returned it to pending after it was settled (R-T-4)."""

    id: str  # the command that rolled it
    character: str
    task: Task
    purpose: str = "challenge"  # challenge | karma | stunt | last_chance
    secret: bool = False  # a GM roll that stays GM-only even when settled
    detail: str = ""  # a stunt's "Power: stunt"


@dataclass(frozen=True)
class FailedTask:
    """The last settled must-succeed task a character failed: what Last Chance follows (R-LTL-10)."""

    character: str
    task: Task
    outcome: str
    secret: bool = False


def failures_after_settling(
    failed: tuple[FailedTask, ...], character: str, secret: bool, failure: FailedTask | None
) -> tuple[FailedTask, ...]:
    """The failed tasks Last Chance may follow once a roll of `character` settles (`failure` when it failed a
    must-succeed task). A secret roll never touches a failure its players could see: the GM's secret roll neither
    replaces nor clears it (nor is its own failure kept while that one stands), so nothing in a player's view moves
    with a roll they cannot see (R-T-2, R-LTL-10)."""
    if not secret:
        return (*(x for x in failed if x.character != character), *((failure,) if failure else ()))
    kept = tuple(x for x in failed if x.character != character or not x.secret)
    if failure is None or any(x.character == character for x in kept):
        return kept
    return (*kept, failure)


@dataclass(frozen=True)
class CalledRoll:
    """A roll the GM called for and its controller has not rolled yet (R-T-3): what the GM set."""

    id: str  # the command that called it
    character: str
    kind: str  # a CallKind
    difficulty: str | None = None  # a DifficultyName; None for a Last Chance (its task's)
    label: str = ""
    must_succeed: bool = False
    power: str = ""
    stunt: str = ""
    harder: bool = False
    shift: int = 0  # the GM's situational modifier in die types (R-T-2 amended)
    reason: str = ""


@dataclass(frozen=True)
class RecoveryLeave:
    """The GM's leave for a character to try Recovery (R-LTL-11 amended): `tries` (None: unlimited) for the scene, the
    conflict or each round; `used` counts the tries taken, rolled or burned."""

    character: str
    scope: str  # a RecoveryScope
    tries: int | None
    used: int = 0

    @property
    def left(self) -> int | None:
        return None if self.tries is None else max(0, self.tries - self.used)


@dataclass(frozen=True)
class CritDue:
    """A critical success whose reward its winner's controller has still to choose (R-LTL-8 amended): the settle was
    someone else's. What the choice needs of the exchange is kept: the levels it deals, whether the loser already
    carries -1 from it, and whether it was in the conflict (its levels wait for the round's end)."""

    roll: str
    character: str  # the winner
    loser: str | None
    effect: int
    loser_minus_one: bool = False
    in_conflict: bool = False
    opposed: bool = True


@dataclass(frozen=True)
class Fighter:
    id: str
    side: str
    acted: bool = False
    gave_up: bool = False
    karma_initiative: bool = False
    initiative_power: bool = False  # a Power the GM allows: initiative +1 die type (R-LTL-12 amended)


@dataclass(frozen=True)
class OpenAction:
    """The conflict's action being rolled: an exchange (`target`) or a challenge against a difficulty."""

    id: str  # the command that opened it
    actor: str
    target: str | None
    task: Task
    accepted: tuple[str, ...] = ()  # the characters whose controllers accepted the exchange as it stands (R-LTL-3)


def exchange_sides(o: OpenAction) -> tuple[str, ...]:
    """The characters rolling in an exchange: its actor, and its target if it has one."""
    return (o.actor,) if o.target is None or o.target == o.actor else (o.actor, o.target)


def waiting_for(o: OpenAction) -> tuple[str, ...]:
    """The characters of the exchange nobody has accepted it for yet (R-LTL-3)."""
    return tuple(cid for cid in exchange_sides(o) if cid not in o.accepted)


def accepter(state: TableState, cid: str) -> str | None:
    """The player whose Accept a character's side of an exchange needs (R-LTL-3); None: the GM's, for a character
    no player at the table owns (an NPC, or a hero whose player left)."""
    owner = state.character(cid).owner
    return owner if owner is not None and state.role_of(owner) is Role.PLAYER else None


def accepts_for(state: TableState, user: str, cid: str) -> bool:
    """Whether `user`'s Accept is the one a character's side of an exchange needs (`accepter`)."""
    player = accepter(state, cid)
    return player == user if player is not None else state.is_gm(user)


@dataclass(frozen=True)
class ConflictState:
    fighters: tuple[Fighter, ...]
    stakes: LossType = LossType.PHYSICAL
    round: int = 1
    order: tuple[tuple[str, ...], ...] = ()
    initiative_rolls: tuple[tuple[str, DieRoll], ...] = ()
    pending: tuple[cf.PendingLoss, ...] = ()
    open: OpenAction | None = None
    fatigue: bool = True  # failed challenges cost a level of fatigue (R-LTL-12)
    initiative_used: tuple[tuple[str, str, str], ...] = ()  # this round's initiative re-rolls (R-LTL-12 amended)
    initiative_first: tuple[str, ...] = ()  # who bought acting first this round with Karma
    defences: tuple[tuple[str, str | None], ...] = ()  # standing defence Styles set so far; unset: base Power (R-T-3)
    # the GM's standing situational modifiers on fighters' dice in exchanges: (fighter, die types, reason) (R-T-2)
    situational: tuple[tuple[str, int, str], ...] = ()

    def defence(self, fid: str) -> str | None:
        """The Style the fighter defends with (None: base Power)."""
        return next((style for cid, style in self.defences if cid == fid), None)

    def situation(self, fid: str) -> tuple[int, str]:
        """The fighter's standing situational modifier in die types and its reason ((0, "") when none)."""
        return next(((shift, reason) for cid, shift, reason in self.situational if cid == fid), (0, ""))

    def between_rounds(self) -> bool:
        """Whether no action of this round has been taken yet (the conflict's start, or a round just ended)."""
        return self.open is None and not self.pending and not any(f.acted for f in self.fighters)

    def fighter(self, fid: str) -> Fighter:
        for f in self.fighters:
            if f.id == fid:
                return f
        raise TableError(
            "ltl/not_fighting",
            f"{fid!r} is not in this conflict",
            fix=f"choose one of {', '.join(f.id for f in self.fighters)}",
            ruling="R-LTL-12",
        )

    def fights(self, fid: str) -> bool:
        return any(f.id == fid for f in self.fighters)


@dataclass(frozen=True)
class OpenContest:
    """A quick contest or race the GM called (R-LTL-13): each participant's controller declares the Style they roll;
    the dice are rolled together once the last one has."""

    id: str  # the command that called it
    race: bool
    waiting: tuple[str, ...]  # participants still to declare, in the order called
    entries: tuple[tuple[str, int], ...] = ()  # (participant, ladder position of the die they roll), as declared
    label: str = ""


@dataclass(frozen=True)
class OpenTeam:
    """A team task the GM called (R-LTL-14, R-T-3), not yet rolled: a challenge against `difficulty` (a ladder
    position) outside a conflict, or an attack on `target` inside one. The team's highest member rolls it."""

    id: str  # the command that called it
    members: tuple[str, ...]
    difficulty: int | None = None
    target: str | None = None
    label: str = ""


@dataclass(frozen=True)
class LtlTable(Roster[Hero]):
    game_title = "Larger Than Life"

    options: LtlOptions = field(default_factory=LtlOptions)
    heroes: Mapping[str, Hero] = field(default_factory=dict)
    conflict: ConflictState | None = None
    tasks: tuple[OpenTask, ...] = ()
    failed: tuple[FailedTask, ...] = ()
    contest: OpenContest | None = None
    # the losers of the last quick contest decided: each suffers defeat's consequences, which the GM records (R-LTL-13)
    contest_losers: tuple[str, ...] = ()
    team: OpenTeam | None = None  # a team task called and not yet rolled (R-LTL-14)
    calls: tuple[CalledRoll, ...] = ()  # rolls the GM called for, not yet rolled (R-T-3)
    recovery: tuple[RecoveryLeave, ...] = ()  # the GM's leave to try Recovery (R-LTL-11 amended)
    crit_due: tuple[CritDue, ...] = ()  # critical rewards the winners' controllers have still to choose (R-LTL-8)

    def leave(self, cid: str) -> RecoveryLeave | None:
        return next((r for r in self.recovery if r.character == cid), None)

    @property
    def stakes(self) -> LossType | None:
        return self.conflict.stakes if self.conflict else None

    def task(self, task_id: str | None) -> OpenTask:
        """The open task with this id, or the only open one. Raises TableError naming the choices."""
        if task_id is None and len(self.tasks) == 1:
            return self.tasks[0]
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise TableError(
            "table/no_task",
            "no such open roll" if task_id else f"{len(self.tasks)} rolls are open; say which one",
            fix="settle or name one of your open rolls",
        )


def rules_conflict(table: LtlTable) -> cf.Conflict:
    """The rules engine's conflict, heroes included."""
    c = table.conflict
    assert c is not None
    o = c.open
    return cf.Conflict(
        fighters=tuple(
            cf.Fighter(f.id, table.heroes[f.id], f.side, f.acted, f.gave_up, f.karma_initiative, f.initiative_power)
            for f in c.fighters
        ),
        stakes=c.stakes,
        round=c.round,
        order=c.order,
        initiative_rolls=c.initiative_rolls,
        pending=c.pending,
        open=None if o is None else cf.OpenAction(o.actor, o.target, o.task),
        fatigue=c.fatigue,
        initiative_used=c.initiative_used,
        initiative_first=c.initiative_first,
    )


def from_rules(table: LtlTable, c: cf.Conflict, open_id: str | None = None) -> LtlTable:
    """The table after the rules changed the conflict: heroes back to the roster, the rest to the conflict. An open
    action keeps its id and mark unless `open_id` names a new one, and its acceptances while its dice stand."""
    opened = None
    if c.open is not None:
        old = table.conflict.open if table.conflict is not None else None
        if open_id is None or (old is not None and old.id == open_id):
            assert old is not None, "a new open action needs its id"
            kept = old.accepted if c.open.task == old.task else ()
            opened = OpenAction(old.id, c.open.actor, c.open.target, c.open.task, kept)
        else:
            opened = OpenAction(open_id, c.open.actor, c.open.target, c.open.task)
    state = ConflictState(
        fighters=tuple(
            Fighter(f.id, f.side, f.acted, f.gave_up, f.karma_initiative, f.initiative_power) for f in c.fighters
        ),
        stakes=c.stakes,
        round=c.round,
        order=c.order,
        initiative_rolls=c.initiative_rolls,
        pending=c.pending,
        open=opened,
        fatigue=c.fatigue,
        initiative_used=c.initiative_used,
        initiative_first=c.initiative_first,
        defences=table.conflict.defences if table.conflict is not None else (),
        situational=table.conflict.situational if table.conflict is not None else (),
    )
    return replace(table.with_heroes({f.id: f.hero for f in c.fighters}), conflict=state)
