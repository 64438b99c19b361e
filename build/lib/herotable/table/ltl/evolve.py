"""Folding Larger Than Life facts into the table: pure bookkeeping, no dice, no rules decisions."""

from __future__ import annotations

from collections.abc import Callable

from herotable.dice import Rating
from herotable.ltl.conflict import PendingLoss
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import Hero, LossType
from herotable.ltl.roll import DieRoll, RerollSource, Throw
from herotable.ltl.sheet import stored_sheet
from herotable.ltl.task import Phase, Side, Task
from herotable.table.codec import evolved
from herotable.table.facts import Fact
from herotable.table.kit import Step, folder, registrar
from herotable.table.ltl import facts as lf
from herotable.table.ltl.state import (
    CalledRoll,
    ConflictState,
    CritDue,
    FailedTask,
    Fighter,
    LtlTable,
    OpenAction,
    OpenTask,
    RecoveryLeave,
    failures_after_settling,
)

_NO_THROW = Throw(0, ())
_RATING = tuple(Rating(p) for p in range(8))
_DIFFICULTY = tuple(Difficulty(r) for r in _RATING)
_LOSS_TYPE = {k.value: k for k in LossType}
_SOURCE = {s.value: s for s in RerollSource}
_SIDE = Side(None, Rating(0), _NO_THROW)  # prototypes: the fold's values are copies of them
_TASK = Task(_SIDE, _SIDE)
_ROLL = DieRoll(1, (1,))
_OPEN_TASK = OpenTask("", "", _TASK)
_EVOLVE: dict[str, Step] = {}
_on = registrar(_EVOLVE)
evolve: Callable[[LtlTable, Fact], LtlTable] = folder(_EVOLVE, lf.HERO_STEPS, "Larger Than Life")


@_on(lf.SheetRecorded)
def _sheet(table: LtlTable, f: lf.SheetRecorded) -> LtlTable:
    return table.with_hero(f.character, Hero.from_sheet(stored_sheet(f.sheet)))


# --- rolls ---


@_on(lf.TaskOpened)
def _task_opened(table: LtlTable, f: lf.TaskOpened) -> LtlTable:
    task = evolved(
        _TASK,
        actor=evolved(_SIDE, who=f.actor, broke=f.broke, auto_success=f.auto_success),
        opposition=evolved(_SIDE, who=f.target),
        difficulty=None if f.difficulty is None else _DIFFICULTY[f.difficulty],
        stakes=None if f.stakes is None else _LOSS_TYPE[f.stakes],
        must_succeed=f.must_succeed,
        power_stunt=f.purpose == "stunt",
    )
    if f.in_conflict:
        assert table.conflict is not None
        return evolved(table, conflict=evolved(table.conflict, open=OpenAction(f.task, f.actor, f.target, task)))
    opened = evolved(
        _OPEN_TASK, id=f.task, character=f.actor, task=task, purpose=f.purpose, secret=f.secret, detail=f.detail
    )
    return evolved(table, tasks=(*table.tasks, opened))


def _with_task(table: LtlTable, roll: str, change: Callable[[Task], Task]) -> LtlTable:
    c = table.conflict
    if c is not None and c.open is not None and c.open.id == roll:
        # a changed exchange is everyone's to answer again: the acceptances given before it changed lapse
        return evolved(table, conflict=evolved(c, open=evolved(c.open, task=change(c.open.task), accepted=())))
    return evolved(table, tasks=tuple(evolved(t, task=change(t.task)) if t.id == roll else t for t in table.tasks))


def _with_side(task: Task, side: str, change: Callable[[Side], Side]) -> Task:
    if side == "actor":
        return evolved(task, actor=change(task.actor))
    return evolved(task, opposition=change(task.opposition))


@_on(lf.DieRolled)
def _die_rolled(table: LtlTable, f: lf.DieRolled) -> LtlTable:
    # a rating of 0 rolled as a die is a d4 under a -1 die type: its face counts one lower (R-LTL-8)
    throw = evolved(_NO_THROW, sides=f.die, rolls=(evolved(_ROLL, sides=f.die, faces=f.faces),), penalty=f.penalty)
    rating = _RATING[f.rating]
    c = table.conflict
    o = c.open if c is not None else None
    task = o.task if o is not None and o.id == f.roll else next(t.task for t in table.tasks if t.id == f.roll)
    if f.side == "actor":
        task = evolved(task, actor=evolved(task.actor, rating=rating, throw=throw, karma_roll=f.karma_roll))
    else:
        task = evolved(task, opposition=evolved(task.opposition, rating=rating, throw=throw, karma_roll=f.karma_roll))
    if c is not None and o is not None and o.id == f.roll:
        return evolved(table, conflict=evolved(c, open=evolved(o, task=task, accepted=())))
    return evolved(table, tasks=tuple(evolved(t, task=task) if t.id == f.roll else t for t in table.tasks))


@_on(lf.DieRerolled)
def _die_rerolled(table: LtlTable, f: lf.DieRerolled) -> LtlTable:
    source = _SOURCE[f.source]

    def rerolled(s: Side) -> Side:
        t = s.throw
        roll = evolved(_ROLL, sides=f.die, faces=f.faces)
        throw = evolved(t, rolls=(*t.rolls, roll), sources=(*t.sources, source), kept=f.kept)
        s = evolved(s, throw=throw)
        if source is RerollSource.TRY_AGAIN:
            s = evolved(s, try_again_used=True)
        if f.specialty is not None:
            s = evolved(s, specialties_used=(*s.specialties_used, f.specialty))
        return s

    return _with_task(table, f.roll, lambda t: _with_side(t, f.side, rerolled))


@_on(lf.RollAccepted)
def _roll_accepted(table: LtlTable, f: lf.RollAccepted) -> LtlTable:
    c = table.conflict
    assert c is not None and c.open is not None and c.open.id == f.roll
    return evolved(table, conflict=evolved(c, open=evolved(c.open, accepted=(*c.open.accepted, *f.characters))))


@_on(lf.AcceptancesLapsed)
def _acceptances_lapsed(table: LtlTable, f: lf.AcceptancesLapsed) -> LtlTable:
    c = table.conflict
    assert c is not None and c.open is not None and c.open.id == f.roll
    return evolved(table, conflict=evolved(c, open=evolved(c.open, accepted=())))


@_on(lf.SuccessBought)
def _success_bought(table: LtlTable, f: lf.SuccessBought) -> LtlTable:
    return _with_task(table, f.roll, lambda t: _with_side(t, f.side, lambda s: evolved(s, auto_success=True)))


@_on(lf.TaskSettled)
def _settled(table: LtlTable, f: lf.TaskSettled) -> LtlTable:
    if f.in_conflict:
        assert table.conflict is not None
        return evolved(table, conflict=evolved(table.conflict, open=None))
    opened = next(t for t in table.tasks if t.id == f.task)
    failure = None
    if f.failed_must_succeed:
        settled = evolved(opened.task, phase=Phase.SETTLED)
        failure = FailedTask(opened.character, settled, f.outcome, opened.secret)
    failed = failures_after_settling(table.failed, opened.character, opened.secret, failure)
    return evolved(table, tasks=tuple(t for t in table.tasks if t.id != f.task), failed=failed)


@_on(lf.LastChanceTaken)
def _last_chance(table: LtlTable, f: lf.LastChanceTaken) -> LtlTable:
    return evolved(table, failed=tuple(x for x in table.failed if x.character != f.character))


@_on(lf.FailuresForgotten)
def _forgotten(table: LtlTable, f: lf.FailuresForgotten) -> LtlTable:
    return evolved(table, failed=())


# --- calls and leave (R-T-3) ---


@_on(lf.RollCalled)
def _called(table: LtlTable, f: lf.RollCalled) -> LtlTable:
    called = CalledRoll(f.call, f.character, f.kind, f.difficulty, f.label, f.must_succeed, f.power, f.stunt)
    called = evolved(called, harder=f.harder, shift=f.shift, reason=f.reason)
    return evolved(table, calls=(*table.calls, called))


@_on(lf.CallClosed)
def _call_closed(table: LtlTable, f: lf.CallClosed) -> LtlTable:
    return evolved(table, calls=tuple(c for c in table.calls if c.id != f.call))


@_on(lf.RecoveryAllowed)
def _allowed(table: LtlTable, f: lf.RecoveryAllowed) -> LtlTable:
    others = tuple(r for r in table.recovery if r.character != f.character)
    return evolved(table, recovery=(*others, RecoveryLeave(f.character, f.scope, f.tries)))


@_on(lf.RecoveryTried)
def _tried(table: LtlTable, f: lf.RecoveryTried) -> LtlTable:
    leave = tuple(evolved(r, used=r.used + 1) if r.character == f.character else r for r in table.recovery)
    return evolved(table, recovery=leave)


@_on(lf.RecoveryLapsed)
def _lapsed(table: LtlTable, f: lf.RecoveryLapsed) -> LtlTable:
    return evolved(table, recovery=tuple(r for r in table.recovery if r.character != f.character))


# --- conflicts ---


def _conflict(table: LtlTable) -> ConflictState:
    assert table.conflict is not None, "a conflict fact outside a conflict"
    return table.conflict


def _fighters(table: LtlTable, change: Callable[[Fighter], Fighter], who: str | None = None) -> LtlTable:
    c = _conflict(table)
    fighters = tuple(change(f) if who is None or f.id == who else f for f in c.fighters)
    return evolved(table, conflict=evolved(c, fighters=fighters))


@_on(lf.ConflictStarted)
def _started(table: LtlTable, f: lf.ConflictStarted) -> LtlTable:
    fighters = tuple(
        Fighter(cid, side, karma_initiative=karma, initiative_power=cid in f.initiative_power)
        for cid, side, karma in f.fighters
    )
    return evolved(table, conflict=ConflictState(fighters, LossType(f.stakes), fatigue=f.fatigue))


@_on(lf.SituationalSet)
def _situational(table: LtlTable, f: lf.SituationalSet) -> LtlTable:
    c = _conflict(table)
    kept = tuple(s for s in c.situational if s[0] != f.character)
    now = (*kept, (f.character, f.shift, f.reason)) if f.shift else kept
    o = None if c.open is None else evolved(c.open, accepted=())  # the exchange's odds changed: ask again
    return evolved(table, conflict=evolved(c, situational=now, open=o))


@_on(lf.DefenceSet)
def _defence(table: LtlTable, f: lf.DefenceSet) -> LtlTable:
    c = _conflict(table)
    defences = (*(d for d in c.defences if d[0] != f.character), (f.character, f.style))
    return evolved(table, conflict=evolved(c, defences=defences))


@_on(lf.InitiativeOrder)
def _order(table: LtlTable, f: lf.InitiativeOrder) -> LtlTable:
    c = evolved(_conflict(table), order=f.order, initiative_rolls=(), initiative_used=(), initiative_first=())
    return evolved(table, conflict=c)


@_on(lf.InitiativeRolled)
def _initiative(table: LtlTable, f: lf.InitiativeRolled) -> LtlTable:
    c = _conflict(table)
    rolls = (*c.initiative_rolls, (f.character, DieRoll(f.die, f.faces)))
    return evolved(table, conflict=evolved(c, initiative_rolls=rolls))


@_on(lf.InitiativeRerolled)
def _initiative_rerolled(table: LtlTable, f: lf.InitiativeRerolled) -> LtlTable:
    c = _conflict(table)
    new = DieRoll(f.die, f.faces)
    rolls = tuple((cid, new if cid == f.character and f.kept else r) for cid, r in c.initiative_rolls)
    used = (*c.initiative_used, (f.character, f.source, f.specialty or ""))
    return evolved(table, conflict=evolved(c, initiative_rolls=rolls, initiative_used=used))


@_on(lf.InitiativeBought)
def _initiative_bought(table: LtlTable, f: lf.InitiativeBought) -> LtlTable:
    c = _conflict(table)
    return evolved(table, conflict=evolved(c, initiative_first=(*c.initiative_first, f.character)))


@_on(lf.InitiativeReordered)
def _reordered(table: LtlTable, f: lf.InitiativeReordered) -> LtlTable:
    return evolved(table, conflict=evolved(_conflict(table), order=f.order))


@_on(lf.LossPending)
def _pending(table: LtlTable, f: lf.LossPending) -> LtlTable:
    c = _conflict(table)
    loss = PendingLoss(f.character, f.levels, LossType(f.kind), f.dealt_by)
    return evolved(table, conflict=evolved(c, pending=(*c.pending, loss)))


@_on(lf.FighterActed)
def _acted(table: LtlTable, f: lf.FighterActed) -> LtlTable:
    return _fighters(table, lambda x: evolved(x, acted=True), f.character)


_on(lf.FighterPassed)(_acted)


@_on(lf.FighterGaveUp)
def _gave_up(table: LtlTable, f: lf.FighterGaveUp) -> LtlTable:
    return _fighters(table, lambda x: evolved(x, gave_up=True, acted=True), f.character)


@_on(lf.RoundEnded)
def _round_ended(table: LtlTable, f: lf.RoundEnded) -> LtlTable:
    table = _fighters(table, lambda x: evolved(x, acted=False))
    c = _conflict(table)
    # the GM's leave to try Recovery "every round" comes back with each round (R-LTL-11 amended)
    leave = tuple(evolved(r, used=0) if r.scope == "round" else r for r in table.recovery)
    return evolved(table, conflict=evolved(c, pending=(), round=c.round + 1), recovery=leave)


@_on(lf.CritRewardDue)
def _crit_due(table: LtlTable, f: lf.CritRewardDue) -> LtlTable:
    due = CritDue(f.roll, f.character, f.loser, f.effect, f.loser_minus_one, f.in_conflict, f.opposed)
    return evolved(table, crit_due=(*table.crit_due, due))


@_on(lf.CritRewardChosen)
def _crit_chosen(table: LtlTable, f: lf.CritRewardChosen | lf.CritRewardLapsed) -> LtlTable:
    return evolved(table, crit_due=tuple(d for d in table.crit_due if d.roll != f.roll))


_on(lf.CritRewardLapsed)(_crit_chosen)


@_on(lf.ConflictEnded)
def _ended(table: LtlTable, f: lf.ConflictEnded) -> LtlTable:
    return evolved(table, conflict=None)
