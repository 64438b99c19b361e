"""Teamwork at the table (R-LTL-14): several characters act together on one task and roll one die.

The GM calls the team task (R-T-3), naming its members: a team challenge against a difficulty outside a conflict
(`ltl.team.challenge`), or a team attack on one opponent inside one (`ltl.team.attack`). The team rolls its highest
member's current base Power (the first named among equals), raised one level per two members, at most two; every
member must be within one die type of every other. That member's controller rolls it (`ltl.team.roll`), declaring
what only they may declare: Automatic Success, and in an attack Going For Broke, paid from their own base Power.
From then on the roll is theirs like any other: re-rolls, buying success and settling (`ltl.settle`); a lost exchange
is their loss. In a conflict every member spends this round's action on the attack, so each must be free to act.

A hidden member's die never reaches the players: the call names the members only, a refusal a player gets never
names a rating, and when a hidden member rolls for the team its dice are the GM's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated

from herotable.dice import Rating, die_name
from herotable.errors import IllegalAction
from herotable.ltl import conflict as cf
from herotable.ltl import teamwork as tw
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import Hero, LossType
from herotable.ltl.task import Stance
from herotable.table.codec import evolved
from herotable.table.commands import (
    LABEL_LENGTH,
    NAME_LENGTH,
    Command,
    Ctx,
    Decision,
    Text,
    controls,
    handles,
    require_controls,
    require_gm,
)
from herotable.table.facts import Emitted, Fact, fact
from herotable.table.game import Choice, Domain, Flag, IntRange, LegalAction, Subset, TextDomain, acting_for
from herotable.table.kit import Names, registrar
from herotable.table.ltl.commands import BROKE, DifficultyName
from herotable.table.ltl.decide import _opened, changes, difficulty, table_of
from herotable.table.ltl.evolve import _EVOLVE
from herotable.table.ltl.facts import FighterActed
from herotable.table.ltl.legal import DIFFICULTIES
from herotable.table.ltl.render import PURPOSES, TITLES, WORDING
from herotable.table.ltl.state import LtlTable, OpenTask, OpenTeam, from_rules, rules_conflict
from herotable.table.state import Ruleset, TableError, TableState
from herotable.table.views import may_see_sheet

RULING = "R-LTL-14"
LTL = Ruleset.LTL
CHALLENGE, ATTACK = "team_challenge", "team_attack"  # the purposes of the rolls they open

# --- commands ---


@dataclass(frozen=True)
class CallTeamChallenge(Command):
    """The GM calls a team challenge: `members` act together on one task against `difficulty` (R-LTL-14, R-T-3)."""

    type = "ltl.team.challenge"
    members: Annotated[tuple[str, ...], Text(NAME_LENGTH)]
    difficulty: DifficultyName
    label: Annotated[str, Text(LABEL_LENGTH)] = ""


@dataclass(frozen=True)
class CallTeamAttack(Command):
    """The GM calls a team attack in the conflict: fighters of one side, `members`, attack `target` together; each
    spends this round's action (R-LTL-14, R-LTL-12)."""

    type = "ltl.team.attack"
    members: Annotated[tuple[str, ...], Text(NAME_LENGTH)]
    target: str


@dataclass(frozen=True)
class RollTeam(Command):
    """The rolling member's controller rolls the called team task (`character`: the team's highest member), with
    Automatic Success and, in an attack, Going For Broke paid from that member's own base Power (R-LTL-14)."""

    type = "ltl.team.roll"
    character: str
    broke: Annotated[int, BROKE] = 0
    auto_success: bool = False


@dataclass(frozen=True)
class CancelTeam(Command):
    """The GM calls the team task off before it is rolled."""

    type = "ltl.team.cancel"


# --- facts ---


@fact
@dataclass(frozen=True)
class TeamCalled(Fact):
    """The GM called a team task: a challenge against `difficulty` (a ladder position), or an attack on `target`."""

    type = "ltl.team_called"
    team: str
    members: tuple[str, ...]
    difficulty: int | None = None
    target: str | None = None
    label: str = ""


@fact
@dataclass(frozen=True)
class TeamRolled(Fact):
    """The team's task is rolled by `roller`, the member whose die the team rolls; its roll is `team` (the task)."""

    type = "ltl.team_rolled"
    team: str
    roller: str
    members: tuple[str, ...]


@fact
@dataclass(frozen=True)
class TeamCancelled(Fact):
    type = "ltl.team_cancelled"
    team: str


# --- deciding ---


def _open(table: LtlTable) -> OpenTeam:
    if table.team is None:
        raise TableError("ltl/no_team", "no team task is called", fix="ask the GM to call one", ruling=RULING)
    return table.team


def _not_open(table: LtlTable) -> None:
    if table.team is not None:
        raise TableError(
            "ltl/team_open",
            "a team task is already called",
            fix="let its rolling member roll it, or call it off",
            ruling=RULING,
        )


def _heroes(state: TableState, table: LtlTable, members: tuple[str, ...]) -> list[tuple[str, Hero]]:
    for cid in members:
        state.character(cid)
    return [(cid, table.hero(cid)) for cid in members]


def _masked(state: TableState, user: str, members: tuple[str, ...], err: IllegalAction) -> TableError | IllegalAction:
    """The refusal as `user` may read it: a player who may not see a member's sheet is not told its die (R-T-2)."""
    if all(may_see_sheet(state, user, cid) for cid in members):
        return err
    return TableError(
        "ltl/team_cannot_form",
        "the team as called cannot act now: a member is out of range or cannot act",
        fix="ask the GM to call the team again",
        ruling=RULING,
    )


@handles(CallTeamChallenge, LTL)
def _call_challenge(state: TableState, cmd: CallTeamChallenge, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)  # difficulties are the GM's, and so is who may help (R-T-3)
    table = table_of(state)
    _not_open(table)
    if table.conflict is not None:
        raise TableError(
            "ltl/in_conflict",
            "a conflict is running: a team acts in it by attacking together",
            fix="call a team attack, or end the conflict first",
            ruling=RULING,
        )
    rating = difficulty(cmd.difficulty).rating
    if rating is None:
        raise TableError(
            "ltl/impossible", "an Impossible task allows no roll", fix="choose a difficulty up to d20", ruling="R-LTL-2"
        )
    tw.team_rating(tw.base_ratings(_heroes(state, table, cmd.members)))
    called = OpenTeam(ctx.command_id, cmd.members, rating.position, label=cmd.label)
    facts = [Emitted(TeamCalled(ctx.command_id, cmd.members, rating.position, label=cmd.label))]
    return Decision(facts, replace(table, team=called))


@handles(CallTeamAttack, LTL)
def _call_attack(state: TableState, cmd: CallTeamAttack, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    table = table_of(state)
    _not_open(table)
    if table.conflict is None:
        raise TableError(
            "ltl/no_conflict", "no conflict is running", fix="call a team challenge instead", ruling="R-LTL-12"
        )
    _heroes(state, table, (*cmd.members, cmd.target))
    tw.check_team_attack(rules_conflict(table), cmd.members, cmd.target)
    called = OpenTeam(ctx.command_id, cmd.members, target=cmd.target)
    return Decision([Emitted(TeamCalled(ctx.command_id, cmd.members, target=cmd.target))], replace(table, team=called))


def defence_style(table: LtlTable, target: str) -> str | None:
    """The Style the target defends with: its standing defence, as against any attack (None: base Power; R-T-3)."""
    assert table.conflict is not None  # a team attack is called in a conflict
    return table.conflict.defence(target)


@handles(RollTeam, LTL)
def _roll(state: TableState, cmd: RollTeam, ctx: Ctx) -> Decision:
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    team = _open(table)
    if cmd.character not in team.members:
        raise TableError(
            "ltl/not_in_team",
            f"{state.character(cmd.character).name} is not in the team",
            fix="the team's highest member rolls for it",
            ruling=RULING,
        )
    members = _heroes(state, table, team.members)
    try:
        if team.target is None:
            if table.conflict is not None:
                raise TableError(
                    "ltl/in_conflict",
                    "a conflict has started since the GM called this team challenge",
                    fix="ask the GM to call it off, or to call a team attack",
                    ruling=RULING,
                )
            leader = tw.team_rating(tw.base_ratings(members)).leader
        else:
            if table.conflict is None:
                raise TableError(
                    "ltl/no_conflict",
                    "the conflict this team attack was called in is over",
                    fix="ask the GM to call it off",
                    ruling="R-LTL-12",
                )
            leader = tw.check_team_attack(rules_conflict(table), team.members, team.target).leader
    except IllegalAction as err:
        raise _masked(state, ctx.user, team.members, err) from None
    if cmd.character != leader:
        named = may_see_sheet(state, ctx.user, leader)
        raise TableError(
            "ltl/not_team_roller",
            f"{state.character(cmd.character).name} does not roll for the team: "
            + (f"{state.character(leader).name}, its highest member, does" if named else "its highest member does"),
            fix="let the highest member's controller roll",
            ruling=RULING,
        )
    stance = Stance(None, cmd.broke, cmd.auto_success)
    rolled = TeamRolled(team.id, leader, team.members)
    if team.target is None:
        assert team.difficulty is not None
        against = Difficulty(Rating(team.difficulty))
        roll = tw.team_challenge(members, against, ctx.rng, table.options, stance=stance)
        # the settle names the team, not only the member who rolled for it
        names = [state.character(m).name for m in team.members]
        together = f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else names[0]
        label = f"{team.label} ({together} as a team)" if team.label else f"{together} as a team"
        opened = OpenTask(ctx.command_id, leader, roll.task, CHALLENGE, detail=label)
        after = replace(table.with_hero(leader, roll.hero), tasks=(*table.tasks, opened), team=None)
        facts = [Emitted(rolled), *changes(state, table, after, "automatic_success")]
        facts += _opened(state, ctx.command_id, CHALLENGE, roll.task, detail=label)
        return Decision(facts, after)
    target_style = defence_style(table, team.target)
    assert table.conflict is not None
    theirs = table.conflict.situation(team.target)  # the defender's standing situational modifier (R-T-2 amended)
    c, _ = tw.team_attack(
        rules_conflict(table),
        team.members,
        team.target,
        ctx.rng,
        table.options,
        stance=stance,
        target_stance=Stance(target_style, shift=theirs[0]),
    )
    assert c.open is not None
    after = replace(from_rules(table, c, ctx.command_id), team=None)
    facts = [Emitted(rolled), *(Emitted(FighterActed(cid)) for cid in team.members if cid != leader)]
    facts += changes(
        state, table, after, "exchange", causes={"karma": "automatic_success", "losses": "going_for_broke"}
    )
    facts += _opened(
        state,
        ctx.command_id,
        ATTACK,
        c.open.task,
        target_style=target_style,
        in_conflict=True,
        target=team.target,
        target_situation=theirs,
    )
    return Decision(facts, after)


@handles(CancelTeam, LTL)
def _cancel(state: TableState, cmd: CancelTeam, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    table = table_of(state)
    team = _open(table)
    return Decision([Emitted(TeamCancelled(team.id))], replace(table, team=None))


# --- folding ---

_on = registrar(_EVOLVE)


@_on(TeamCalled)
def _called(table: LtlTable, f: TeamCalled) -> LtlTable:
    return evolved(table, team=OpenTeam(f.team, f.members, f.difficulty, f.target, f.label))


@_on(TeamRolled)
@_on(TeamCancelled)
def _closed(table: LtlTable, f: Fact) -> LtlTable:
    return evolved(table, team=None)


# --- in words ---

TITLES.update({TeamCalled.type: "Teamwork", TeamRolled.type: "Teamwork", TeamCancelled.type: "Teamwork"})
PURPOSES.update({CHALLENGE: "a team challenge", ATTACK: "a team attack"})


@WORDING.says(TeamCalled)
def _say_called(f: TeamCalled, n: Names) -> str:
    if f.target is not None:
        return f"The GM calls a team attack: {WORDING.names(n, f.members)} attack {WORDING.name(n, f.target)} together"
    about = f" ({f.label})" if f.label else ""
    against = f" against {die_name(f.difficulty)}" if f.difficulty is not None else ""
    return f"The GM calls a team challenge{about}{against}: {WORDING.names(n, f.members)} act together"


@WORDING.says(TeamRolled)
def _say_rolled(f: TeamRolled, n: Names) -> str:
    return f"{WORDING.name(n, f.roller)} rolls for the team of {WORDING.names(n, f.members)}"


@WORDING.says(TeamCancelled)
def _say_cancelled(f: TeamCancelled, n: Names) -> str:
    return "The GM calls the team task off"


# --- what may be done now ---


def team_view(state: TableState, user: str) -> dict[str, object] | None:
    """The called team task: who is in it and what it faces (the members' dice are no part of it)."""
    team = table_of(state).team
    if team is None:
        return None
    return {
        "id": team.id,
        "members": list(team.members),
        "difficulty": None if team.difficulty is None else die_name(team.difficulty),
        "target": team.target,
        "label": team.label,
    }


def _pools(candidates: list[tuple[str, Rating]]) -> list[tuple[str, ...]]:
    """The largest groups whose members are all within one die type of each other (R-LTL-14 amended), two or more:
    every group of two or more drawn from one of them can team up, and every team that can is drawn from one."""
    pools: list[tuple[str, ...]] = []
    for low in range(1, 6):
        pool = tuple(cid for cid, rating in candidates if tw.die_type(rating) in (low, low + 1))
        if len(pool) >= 2 and not any(set(pool) <= set(p) for p in pools):
            pools.append(pool)
    return pools


def _band(members: tuple[str, ...], table: LtlTable, stakes: LossType | None) -> str:
    types = sorted({tw.die_type(table.hero(cid).base_now(stakes)) for cid in members})
    names = [Rating(7 if t == 6 else t).name for t in types]
    return names[0] if len(names) == 1 else f"{names[0]} to {names[-1]}"


def team_actions(state: TableState, user: str) -> list[LegalAction]:
    """Calling a team task (the GM): one action per group of characters within one die type of each other; rolling it
    (the controller of the team's highest member, while the team can act); calling it off (the GM)."""
    table = table_of(state)
    if acting_for(state, user, table.heroes) is None:
        return []
    gm = state.is_gm(user)
    team = table.team
    if team is None:
        return _calls(state, table) if gm else []
    out: list[LegalAction] = []
    roll = _roll_action(state, table, team)
    if roll is not None and controls(state, user, roll[0]):
        out.append(roll[1])
    if gm:
        out.append(LegalAction(CancelTeam.type, "Call the team task off", group="Teamwork", rule=RULING))
    return out


def _calls(state: TableState, table: LtlTable) -> list[LegalAction]:
    out: list[LegalAction] = []
    c = table.conflict
    if c is None:
        able = [(cid, hero.base_now()) for cid, hero in table.heroes.items() if hero.can_act()]
        for pool in _pools(able):
            names = tuple(state.character(cid).name for cid in pool)
            fields: dict[str, Domain] = {
                "members": Subset(pool, names, min_size=2),
                "difficulty": DIFFICULTIES,
                "label": TextDomain(LABEL_LENGTH),
            }
            label = f"Call a team challenge ({_band(pool, table, None)})"
            out.append(LegalAction(CallTeamChallenge.type, label, fields=fields, group="Teamwork", rule=RULING))
        return out
    rules = rules_conflict(table)
    if rules.open is not None:
        return out
    for side in rules.sides:
        free = [
            (f.id, f.hero.base_now(rules.stakes)) for f in rules.fighters if f.side == side and cf.may_act(rules, f.id)
        ]
        targets = tuple(f.id for f in rules.fighters if f.side != side and not rules.is_out(f.id))
        if not targets:
            continue
        for pool in _pools(free):
            names = tuple(state.character(cid).name for cid in pool)
            fields = {
                "members": Subset(pool, names, min_size=2),
                "target": Choice(targets, tuple(state.character(cid).name for cid in targets)),
            }
            label = f"Call a team attack ({side}, {_band(pool, table, rules.stakes)})"
            out.append(LegalAction(CallTeamAttack.type, label, fields=fields, group="Teamwork", rule=RULING))
    return out


def _roll_action(state: TableState, table: LtlTable, team: OpenTeam) -> tuple[str, LegalAction] | None:
    """Who rolls the called team task and how, when the team can act now; None when it cannot (the GM calls it
    off)."""
    members = [(cid, table.hero(cid)) for cid in team.members]
    fields: dict[str, Domain] = {}
    try:
        if team.target is None:
            if table.conflict is not None:
                return None
            leader = tw.team_rating(tw.base_ratings(members)).leader
        else:
            if table.conflict is None:
                return None
            leader = tw.check_team_attack(rules_conflict(table), team.members, team.target).leader
    except (IllegalAction, TableError):
        return None
    hero = table.hero(leader)
    if team.target is not None:
        top = min(table.options.effect_cap - 1, hero.base_now(table.stakes).position - 1)
        if top > 0:
            fields["broke"] = IntRange(0, top)
    if hero.karma.usable:
        fields["auto_success"] = Flag()
    label = f"{state.character(leader).name}: roll for the team"
    return leader, LegalAction(RollTeam.type, label, {"character": leader}, fields, "Teamwork", RULING)
