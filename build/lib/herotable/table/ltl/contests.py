"""Quick contests and races at the table (R-LTL-13): the GM calls one, each participant's controller declares the
Style they roll (R-T-3), and when the last has declared the dice are rolled together by the engine
(`herotable.ltl.contest`), ties re-rolled among the tied (or shared, by the campaign's option).

The winner of a quick contest is named and everyone else suffers defeat's consequences, which the GM records as for
any defeat (`ltl.defeat`, R-LTL-5); a race places every participant. A hidden character's die would give its
sheet away, so when one takes part the dice are the GM's and the table sees the result alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated

from herotable.dice import Rating, die_name
from herotable.ltl.contest import quick_contest, race
from herotable.table.codec import evolved
from herotable.table.commands import (
    LABEL_LENGTH,
    NAME_LENGTH,
    Command,
    Ctx,
    Decision,
    Text,
    audience,
    controls,
    handles,
    require_controls,
    require_gm,
)
from herotable.table.facts import Emitted, Fact, Visibility, fact
from herotable.table.game import Choice, Domain, LegalAction, Subset, TextDomain, acting_for
from herotable.table.kit import Names, registrar
from herotable.table.ltl.decide import table_of
from herotable.table.ltl.evolve import _EVOLVE
from herotable.table.ltl.render import TITLES, WORDING
from herotable.table.ltl.state import LtlTable, OpenContest
from herotable.table.state import Ruleset, TableError, TableState
from herotable.table.views import may_see_sheet

RULING = "R-LTL-13"
CONTEST, RACE = "contest", "race"
KIND = Choice((CONTEST, RACE), ("a quick contest: the highest roll wins", "a race: the rolls give the order"))

# --- commands ---


@dataclass(frozen=True)
class CallContest(Command):
    """The GM calls a quick contest (`kind` "contest") or a race ("race") between `participants`."""

    type = "ltl.contest.call"
    participants: Annotated[tuple[str, ...], Text(NAME_LENGTH)]
    kind: str = CONTEST
    label: Annotated[str, Text(LABEL_LENGTH)] = ""


@dataclass(frozen=True)
class EnterContest(Command):
    """A participant's controller declares the Style they roll (None: base Power)."""

    type = "ltl.contest.enter"
    character: str
    style: Annotated[str | None, Text(NAME_LENGTH)] = None


@dataclass(frozen=True)
class CancelContest(Command):
    """The GM calls off the open contest before its dice are rolled."""

    type = "ltl.contest.cancel"


# --- facts ---


@fact
@dataclass(frozen=True)
class ContestCalled(Fact):
    type = "ltl.contest_called"
    contest: str
    race: bool
    participants: tuple[str, ...]
    label: str = ""


@fact
@dataclass(frozen=True)
class ContestEntered(Fact):
    """A participant has declared (seen by all, so the table knows whom it waits for)."""

    type = "ltl.contest_entered"
    contest: str
    character: str


@fact
@dataclass(frozen=True)
class ContestDeclared(Fact):
    """What a participant declared: the die they roll (a ladder position) and the Style it comes from (the GM's
    alone for a hidden character: it gives the sheet away)."""

    type = "ltl.contest_declared"
    contest: str
    character: str
    rating: int
    style: str | None = None


@fact
@dataclass(frozen=True)
class ContestRolled(Fact):
    """Every die of the contest, in the order rolled: one round with everyone, then re-rolls among the tied.
    `rounds` holds, per round, (participant, sides, faces)."""

    type = "ltl.contest_rolled"
    commit = True
    rolled = True
    inert = True
    contest: str
    rounds: tuple[tuple[tuple[str, int, tuple[int, ...]], ...], ...]

    def dice_faces(self) -> tuple[tuple[int, int], ...]:
        return tuple((sides, face) for r in self.rounds for _, sides, faces in r for face in faces)


@fact
@dataclass(frozen=True)
class ContestDecided(Fact):
    """The places, first first: a place of several is shared. In a quick contest the first place wins and every
    other participant is defeated."""

    type = "ltl.contest_decided"
    contest: str
    race: bool
    places: tuple[tuple[str, ...], ...]

    @property
    def losers(self) -> tuple[str, ...]:
        """Everyone after the first place: in a quick contest they suffer defeat's consequences (R-LTL-13)."""
        return tuple(cid for place in self.places[1:] for cid in place)


@fact
@dataclass(frozen=True)
class ContestCancelled(Fact):
    type = "ltl.contest_cancelled"
    contest: str


# --- deciding ---


def _open(table: LtlTable) -> OpenContest:
    if table.contest is None:
        raise TableError("ltl/no_contest", "no contest is open", fix="ask the GM to call one", ruling=RULING)
    return table.contest


@handles(CallContest, Ruleset.LTL)
def _call(state: TableState, cmd: CallContest, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)  # the GM calls for rolls (R-T-3)
    table = table_of(state)
    if table.contest is not None:
        raise TableError(
            "ltl/contest_open", "a contest is already open", fix="let it finish, or call it off", ruling=RULING
        )
    if table.conflict is not None:
        raise TableError(
            "ltl/in_conflict", "a conflict is running", fix="end the conflict first, or fight it out", ruling=RULING
        )
    if cmd.kind not in (CONTEST, RACE):
        raise TableError("ltl/contest_kind", f"{cmd.kind!r} is neither kind", fix="use contest or race", ruling=RULING)
    if len(cmd.participants) < 2:
        raise TableError(
            "contest/too_few",
            f"a quick contest needs at least two participants, not {len(cmd.participants)}",
            fix="add an opponent, or make it an unopposed task against a difficulty",
            ruling=RULING,
        )
    for cid in cmd.participants:
        if not table.hero(cid).can_act():
            raise TableError(
                "contest/cannot_act",
                f"{state.character(cid).name} cannot take part: out of action",
                fix="leave defeated or unconscious characters out",
                ruling=RULING,
            )
    called = OpenContest(ctx.command_id, cmd.kind == RACE, cmd.participants, label=cmd.label)
    facts = [Emitted(ContestCalled(ctx.command_id, called.race, cmd.participants, cmd.label))]
    return Decision(facts, replace(table, contest=called))


@handles(EnterContest, Ruleset.LTL)
def _enter(state: TableState, cmd: EnterContest, ctx: Ctx) -> Decision:
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    contest = _open(table)
    if cmd.character not in contest.waiting:
        done = any(cid == cmd.character for cid, _ in contest.entries)
        raise TableError(
            "ltl/not_waiting",
            f"{state.character(cmd.character).name} " + ("has already declared" if done else "is not in this contest"),
            fix="wait for the dice" if done else "only the participants the GM called declare",
            ruling=RULING,
        )
    rating = table.hero(cmd.character).rating_for(cmd.style)
    if not rating.usable:
        raise TableError(
            "contest/below_d4",
            f"{state.character(cmd.character).name}'s {cmd.style or 'base Power'} is below d4: there is no die to roll",
            fix="declare another Style, or ask the GM to call the contest off",
            ruling=RULING,
        )
    declared = ContestDeclared(contest.id, cmd.character, rating.position, cmd.style)
    facts = [Emitted(ContestEntered(contest.id, cmd.character)), Emitted(declared, audience(state, cmd.character))]
    waiting = tuple(cid for cid in contest.waiting if cid != cmd.character)
    entries = (*contest.entries, (cmd.character, rating.position))
    if waiting:
        return Decision(facts, replace(table, contest=replace(contest, waiting=waiting, entries=entries)))
    field = [(cid, Rating(position)) for cid, position in entries]
    if contest.race:
        result = race(field, ctx.rng, table.options)
        places = result.places
        rounds = result.rounds
    else:
        decided = quick_contest(field, ctx.rng, table.options)
        places = (decided.winners, *((cid,) for cid in decided.losers))
        rounds = decided.rounds
    hidden = any(state.character(cid).hidden for cid, _ in entries)
    dice = tuple(tuple((cid, roll.sides, roll.faces) for cid, roll in r.rolls) for r in rounds)
    facts.append(Emitted(ContestRolled(contest.id, dice), Visibility.GM if hidden else Visibility.PUBLIC))
    decided_fact = ContestDecided(contest.id, contest.race, places)
    facts.append(Emitted(decided_fact))
    return Decision(facts, _decided(table, decided_fact))


@handles(CancelContest, Ruleset.LTL)
def _cancel(state: TableState, cmd: CancelContest, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    table = table_of(state)
    contest = _open(table)
    return Decision([Emitted(ContestCancelled(contest.id))], replace(table, contest=None))


# --- folding ---

_on = registrar(_EVOLVE)


@_on(ContestCalled)
def _called(table: LtlTable, f: ContestCalled) -> LtlTable:
    return evolved(table, contest=OpenContest(f.contest, f.race, f.participants, label=f.label))


def _contest(table: LtlTable) -> OpenContest:
    assert table.contest is not None, "a contest fact without a contest"
    return table.contest


@_on(ContestEntered)
def _entered(table: LtlTable, f: ContestEntered) -> LtlTable:
    contest = _contest(table)
    return evolved(table, contest=evolved(contest, waiting=tuple(c for c in contest.waiting if c != f.character)))


@_on(ContestDeclared)
def _declared(table: LtlTable, f: ContestDeclared) -> LtlTable:
    contest = _contest(table)
    return evolved(table, contest=evolved(contest, entries=(*contest.entries, (f.character, f.rating))))


@_on(ContestDecided)
def _decided(table: LtlTable, f: ContestDecided) -> LtlTable:
    return evolved(table, contest=None, contest_losers=() if f.race else f.losers)  # R-LTL-13


@_on(ContestCancelled)
def _closed(table: LtlTable, f: Fact) -> LtlTable:
    return evolved(table, contest=None)


# --- in words ---

TITLES.update(
    {
        ContestCalled.type: "Quick contest",
        ContestEntered.type: "Quick contest",
        ContestDeclared.type: "Quick contest",
        ContestRolled.type: "Quick contest",
        ContestDecided.type: "Quick contest",
        ContestCancelled.type: "Quick contest",
    }
)


@WORDING.says(ContestCalled)
def _say_called(f: ContestCalled, n: Names) -> str:
    what = "a race" if f.race else "a quick contest"
    about = f" ({f.label})" if f.label else ""
    return f"The GM calls {what}{about} between {WORDING.names(n, f.participants)}: each declares the Style they roll"


@WORDING.says(ContestEntered)
def _say_entered(f: ContestEntered, n: Names) -> str | None:
    return None  # the declaration says it, to whoever may see it


@WORDING.says(ContestDeclared)
def _say_declared(f: ContestDeclared, n: Names) -> str:
    return f"{WORDING.name(n, f.character)} rolls {die_name(f.rating)} ({f.style or 'base Power'})"


@WORDING.says(ContestRolled)
def _say_rolled(f: ContestRolled, n: Names) -> str:
    parts = []
    for number, r in enumerate(f.rounds):
        rolls = ", ".join(f"{WORDING.name(n, cid)} d{sides}: {'+'.join(map(str, faces))}" for cid, sides, faces in r)
        parts.append(rolls if number == 0 else f"tie re-rolled: {rolls}")
    return "; ".join(parts)


@WORDING.says(ContestDecided)
def _say_decided(f: ContestDecided, n: Names) -> str:
    if f.race:
        return "Race order: " + "; ".join(
            f"{i}. {WORDING.names(n, place)}" + (" (shared)" if len(place) > 1 else "")
            for i, place in enumerate(f.places, 1)
        )
    winners, losers = f.places[0], f.losers
    won = f"{WORDING.names(n, winners)} {'share the win' if len(winners) > 1 else 'wins'}"
    return f"{won}; {WORDING.names(n, losers)} {'suffers' if len(losers) == 1 else 'suffer'} defeat's consequences"


@WORDING.says(ContestCancelled)
def _say_cancelled(f: ContestCancelled, n: Names) -> str:
    return "The GM calls the contest off"


# --- what may be done now ---


def contest_view(state: TableState, user: str) -> dict[str, object] | None:
    """The open contest as `user` may see it: who is called, who has declared, and the dice of those whose sheet
    they may read."""
    contest = table_of(state).contest
    if contest is None:
        return None
    return {
        "id": contest.id,
        "race": contest.race,
        "label": contest.label,
        "waiting": list(contest.waiting),
        "declared": [
            {"character": cid, **({"rating": position} if may_see_sheet(state, user, cid) else {})}
            for cid, position in contest.entries
        ],
    }


def contest_actions(state: TableState, user: str) -> list[LegalAction]:
    """Calling a contest (the GM, with no conflict or contest running), declaring for a waiting participant one
    controls, calling it off (the GM)."""
    table = table_of(state)
    if acting_for(state, user, table.heroes) is None:
        return []
    gm = state.is_gm(user)
    contest = table.contest
    out: list[LegalAction] = []
    if contest is None:
        able = tuple(cid for cid, hero in table.heroes.items() if hero.can_act())
        if gm and table.conflict is None and len(able) >= 2:
            names = tuple(state.character(cid).name for cid in able)
            fields: dict[str, Domain] = {
                "participants": Subset(able, names, min_size=2),
                "kind": KIND,
                "label": TextDomain(LABEL_LENGTH),
            }
            out.append(
                LegalAction(CallContest.type, "Call a quick contest or race", fields=fields, group="Calls", rule=RULING)
            )
        return out
    for cid in contest.waiting:
        if not controls(state, user, cid):
            continue
        hero = table.hero(cid)
        usable = [s for s in hero.sheet.styles if hero.rating_for(s.name).usable]
        # each die as it would roll now, after the losses that lower it, not as the sheet has it
        options: list[tuple[str | None, str]] = [(s.name, f"{s.name} ({hero.rating_for(s.name).name})") for s in usable]
        if hero.rating_for(None).usable:
            options.insert(0, (None, f"base Power ({hero.rating_for(None).name})"))
        if not options:
            continue  # nothing left to roll: the GM calls the contest off
        style = Choice(tuple(v for v, _ in options), tuple(label for _, label in options))
        out.append(
            LegalAction(
                EnterContest.type,
                f"{state.character(cid).name}: declare the Style for the contest",
                fixed={"character": cid},
                fields={"style": style},
                rule=RULING,
            )
        )
    if gm:
        out.append(LegalAction(CancelContest.type, "Call the contest off", group="Calls", rule=RULING))
    return out
