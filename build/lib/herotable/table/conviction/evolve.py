"""Folding Conviction facts into the table: pure bookkeeping, no dice, no rules decisions."""

from __future__ import annotations

from collections.abc import Callable

from herotable.conviction.character import Ability
from herotable.conviction.checks import Bonus, Check, CheckKind, Override
from herotable.conviction.exit_scene import ExitBid
from herotable.conviction.quotable_wit import QuotableWit
from herotable.conviction.rounds import Initiative
from herotable.table.codec import evolved
from herotable.table.conviction import facts as cf
from herotable.table.conviction.state import CalledCheck, CvTable, OpenCheck
from herotable.table.facts import Fact
from herotable.table.kit import Step, folder, registrar

_CHECK = Check("", "", 0, 0, 1)  # prototypes: the fold's checks are copies of them
_OPEN = OpenCheck("", "", _CHECK)
_CHECK_KIND = {k.value: k for k in CheckKind}
_ABILITY = {a.value: a for a in Ability}
_EVOLVE: dict[str, Step] = {}
_on = registrar(_EVOLVE)
evolve: Callable[[CvTable, Fact], CvTable] = folder(_EVOLVE, cf.HERO_STEPS, "Conviction")


@_on(cf.SheetRecorded)
def _sheet(table: CvTable, f: cf.SheetRecorded) -> CvTable:
    return table.with_hero(f.character, cf.stored_character(f.sheet))


# --- checks ---


def _with_check(table: CvTable, check_id: str, change: Callable[[Check], Check]) -> CvTable:
    return evolved(
        table, checks=tuple(evolved(c, check=change(c.check)) if c.id == check_id else c for c in table.checks)
    )


@_on(cf.CheckRolled)
def _rolled(table: CvTable, f: cf.CheckRolled) -> CvTable:
    check = evolved(
        _CHECK,
        roller=f.roller,
        label=f.label,
        modifier=f.modifier,
        difficulty=f.difficulty,
        first=f.first,
        kind=_CHECK_KIND[f.kind],
        bought_with_conviction=f.bought_with_conviction,
        lethal=f.lethal,
    )
    opened = evolved(_OPEN, id=f.check, character=f.character, check=check, secret=f.secret, by_enemy=f.by_enemy)
    return evolved(table, checks=(*table.checks, opened))


@_on(cf.CheckRerolled)
def _rerolled(table: CvTable, f: cf.CheckRerolled) -> CvTable:
    return _with_check(table, f.check, lambda c: evolved(c, second=f.face))


@_on(cf.CheckBonus)
def _bonus(table: CvTable, f: cf.CheckBonus) -> CvTable:
    return _with_check(table, f.check, lambda c: evolved(c, bonuses=(*c.bonuses, Bonus(f.source, f.amount))))


@_on(cf.CheckOverridden)
def _overridden(table: CvTable, f: cf.CheckOverridden) -> CvTable:
    return _with_check(table, f.check, lambda c: evolved(c, override=Override(f.succeeded, f.by, f.reason)))


@_on(cf.CheckAnnounced)
def _announced(table: CvTable, f: cf.CheckAnnounced) -> CvTable:
    return evolved(table, checks=tuple(c for c in table.checks if c.id != f.check))


@_on(cf.CheckCalled)
def _called(table: CvTable, f: cf.CheckCalled) -> CvTable:
    ability = None if f.ability is None else _ABILITY[f.ability]
    called = CalledCheck(f.call, f.character, f.label, f.difficulty, f.modifier, ability, f.skill, f.reason)
    return evolved(table, calls=(*table.calls, called))


@_on(cf.CallClosed)
def _call_closed(table: CvTable, f: cf.CallClosed) -> CvTable:
    return evolved(table, calls=tuple(c for c in table.calls if c.id != f.call))


@_on(cf.CheckVoided)
def _voided(table: CvTable, f: cf.CheckVoided) -> CvTable:
    return evolved(table, checks=tuple(c for c in table.checks if c.id != f.check))


# --- exits and Quotable Wit ---


def _bid(table: CvTable) -> ExitBid:
    assert table.exit_bid is not None, "an exit fact without an exit being bid on"
    return table.exit_bid


@_on(cf.ExitStarted)
def _exit_started(table: CvTable, f: cf.ExitStarted) -> CvTable:
    return evolved(table, exit_bid=ExitBid(f.name, exit_passed=True))


@_on(cf.ExitInterfered)
def _interfered(table: CvTable, f: cf.ExitInterfered) -> CvTable:
    bid = _bid(table)
    counted = dict(bid.interference)
    counted[f.name] = counted.get(f.name, 0) + 1
    bid = evolved(bid, interference=tuple(counted.items()), exit_passed=False, interference_passed=True)
    return evolved(table, exit_bid=bid)


@_on(cf.ExitPressed)
def _pressed(table: CvTable, f: cf.ExitPressed) -> CvTable:
    bid = _bid(table)
    return evolved(
        table, exit_bid=evolved(bid, exit_points=bid.exit_points + 1, exit_passed=True, interference_passed=False)
    )


@_on(cf.ExitPassed)
def _passed(table: CvTable, f: cf.ExitPassed) -> CvTable:
    bid = _bid(table)
    bid = evolved(bid, exit_passed=True) if f.side == "exit" else evolved(bid, interference_passed=True)
    return evolved(table, exit_bid=bid)


@_on(cf.ExitResolved)
def _resolved(table: CvTable, f: cf.ExitResolved) -> CvTable:
    return evolved(table, exit_bid=None, left=(*table.left, f.character) if f.exits else table.left)


@_on(cf.ExitsCleared)
def _exits_cleared(table: CvTable, f: cf.ExitsCleared) -> CvTable:
    return evolved(table, left=())


@_on(cf.WitDesignated)
def _designated(table: CvTable, f: cf.WitDesignated) -> CvTable:
    wit = QuotableWit(f.wit, f.text, f.speaker, f.designated_by, frozenset(f.heard_by))
    return evolved(table, wits=evolved(table.wits, wits=(*table.wits.wits, wit)))


@_on(cf.WitUsed)
def _wit_used(table: CvTable, f: cf.WitUsed) -> CvTable:
    wits = tuple(evolved(w, used_by=f.by, hijacked=f.hijacked) if w.number == f.wit else w for w in table.wits.wits)
    return evolved(table, wits=evolved(table.wits, wits=wits, session_uses=table.wits.session_uses + 1))


@_on(cf.WitsRefreshed)
def _refreshed(table: CvTable, f: cf.WitsRefreshed) -> CvTable:
    return evolved(table, wits=evolved(table.wits, session_uses=0))


# --- presence, sides and the initiative order (R-CV-14) ---


@_on(cf.PresenceSet)
def _presence(table: CvTable, f: cf.PresenceSet) -> CvTable:
    return evolved(table, absent=f.absent)


@_on(cf.SidesSet)
def _sides(table: CvTable, f: cf.SidesSet) -> CvTable:
    return evolved(table, sides=dict(f.sides))


@_on(cf.InitiativeRolled)
def _initiative(table: CvTable, f: cf.InitiativeRolled) -> CvTable:
    """A fresh roll: the standing order no longer stands, and the roll waits for the first turn (R-CV-4 amended)."""
    roll = Initiative(table.hero(f.character).name, f.face, f.modifier)
    return evolved(
        table,
        order=(),
        initiative={**table.initiative, f.character: f.total},
        initiative_rolls=(*table.initiative_rolls, (f.character, roll)),
    )


@_on(cf.InitiativeRerolled)
def _initiative_rerolled(table: CvTable, f: cf.InitiativeRerolled) -> CvTable:
    rolls = tuple((c, evolved(r, second=f.face) if c == f.character else r) for c, r in table.initiative_rolls)
    return evolved(table, initiative={**table.initiative, f.character: f.total}, initiative_rolls=rolls)


@_on(cf.InitiativeOrder)
def _order(table: CvTable, f: cf.InitiativeOrder) -> CvTable:
    rolled = f.how in ("rolled", "kept")  # an entered order, or none, has no totals
    return evolved(
        table,
        order=f.order,
        initiative={c: t for c, t in table.initiative.items() if rolled and c in f.order},
        initiative_rolls=(),
    )
