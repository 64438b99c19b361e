"""Larger Than Life's odds beside each roll a player is about to make, read off the rules' own dice: a challenge or
Karma roll the GM called for (each Style against the called difficulty), a Push (its price: the die it must beat,
or the Heroism it burns), Recovery, a team's roll (R-LTL-14) and a quick contest's Style (R-LTL-13). The exchange
odds of an attack are a panel of their own (`ltl_odds`).

Every line is the chance of the roll as it stands, before any re-roll, as exact fractions turned into whole
percentages; it says only what the viewer already knows (their own sheet, the difficulty the GM called)."""

from __future__ import annotations

from fractions import Fraction

from markupsafe import Markup, escape

from herotable.dice import Rating, rolled_sides, shifted
from herotable.ltl import teamwork as tw
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import Hero
from herotable.ltl.heroism import push_target, recovery_difficulty
from herotable.ltl.options import LtlOptions, QuickTies
from herotable.ltl.task import round_rating, scene_roll
from herotable.odds.distributions import ExchangeOdds, dice_exchange, tail, total_pmf
from herotable.server.actions import Action, Panel
from herotable.table.ltl.commands import CallKind, Challenge, KarmaRoll, Push, Recover
from herotable.table.ltl.contests import EnterContest
from herotable.table.ltl.decide import table_of
from herotable.table.ltl.state import CalledRoll, LtlTable, rules_conflict
from herotable.table.ltl.teamwork import RollTeam, defence_style
from herotable.table.state import TableState
from herotable.table.views import may_see_sheet


def percent(p: Fraction) -> str:
    """A chance as people say it: whole percent, never 0% or 100% for what can still go either way."""
    if p <= 0 or p >= 1:
        return f"{int(p * 100)}%"
    return f"{min(99, max(1, round(p * 100)))}%"


def _odds(die: Rating, against: Rating, options: LtlOptions, *, shift: int = 0) -> ExchangeOdds:
    position, penalty = shifted(die.position, shift)
    return dice_exchange(
        rolled_sides(position), rolled_sides(against.position), exploding=options.exploding, penalty=penalty
    )


def _as_it_rolls(table: LtlTable, cid: str) -> Hero:
    """The hero as its next roll finds it: outside a conflict, the critical effects waiting for it come into force
    (R-LTL-8 amended)."""
    hero = table.hero(cid)
    return hero if table.conflict is not None else scene_roll(hero)


def _called_line(table: LtlTable, cid: str, call: CalledRoll, kind: str) -> str | None:
    if not call.difficulty or call.difficulty == "Impossible":
        return None
    against = Difficulty.named(call.difficulty).rating
    assert against is not None
    hero = _as_it_rolls(table, cid)
    options = table.options
    shift = call.shift
    situation = f" with the GM's {shift:+d} die type{'s' if abs(shift) > 1 else ''}" if shift else ""
    head = f"Against {call.difficulty} (d{against.sides}){situation}, before any re-roll:"
    if kind == KarmaRoll.type:
        karma = round_rating(hero.karma, hero.this_round)
        if not karma.usable:
            return None
        return f"{head} Karma d{karma.sides} succeeds {percent(_odds(karma, against, options, shift=shift).win)}."
    stakes = table.stakes
    choices = [("base Power", None), *((s.name, s.name) for s in hero.sheet.styles)]
    parts = []
    for label, style in choices:
        die = round_rating(hero.rating_for(style, stakes), hero.this_round)
        if die.usable:
            parts.append(f"{label} d{die.sides} {percent(_odds(die, against, options, shift=shift).win)}")
    return f"{head} {', '.join(parts)} to succeed; a tie changes nothing." if parts else None


def _push_line(table: LtlTable, cid: str) -> str | None:
    hero = table.hero(cid)
    target = push_target(hero, table.stakes)
    if not target.usable or hero.heroism.sides is None:
        return None
    burn = 2 if target.sides == 20 else 1
    roll = dice_exchange(hero.heroism.sides, target.sides or 4, exploding=table.options.exploding)
    miss = f" ({percent(roll.crit_failure)}: a critical failure, -1 die type next round)" if roll.crit_failure else ""
    return (
        f"Heroism d{hero.heroism.sides} must beat d{target.sides}, the highest die the Push creates: "
        f"{percent(roll.win)} to push every die one type up for a challenge or a round{miss}. Burning pushes for "
        f"sure and costs {burn} Heroism level{'s' if burn > 1 else ''}."
    )


def _recovery_line(table: LtlTable, cid: str) -> str | None:
    hero = table.hero(cid)
    against = recovery_difficulty(hero).rating
    if against is None or against.sides is None or hero.heroism.sides is None:
        return None
    below = hero.below_d4_by_any_loss()
    burn = 2 if below else 1
    why = "Inconceivable: taken below d4" if below else "levels lost + 1"
    roll = dice_exchange(hero.heroism.sides, against.sides, exploding=table.options.exploding)
    return (
        f"Heroism d{hero.heroism.sides} must beat d{against.sides} ({why}): {percent(roll.win)} to shake "
        f"off every loss. Burning recovers for sure and costs {burn} Heroism level"
        f"{'s' if burn > 1 else ''}."
    )


def _sees(state: TableState, viewer: str, cid: str) -> bool:
    """Whether odds may count this character's dice: a sheet the viewer reads, or the GM's `hidden_odds` leave."""
    return may_see_sheet(state, viewer, cid) or table_of(state).options.hidden_odds


HIDDEN = "{}'s sheet is hidden, so no odds against it are shown; the GM may show them in the campaign's settings."


def _team_line(state: TableState, viewer: str) -> str | None:
    """The team's die against the called difficulty, or against its target's standing defence (R-LTL-14): what the
    leader rolls for it, before any re-roll. A member's hidden sheet keeps the team's die the GM's."""
    table = table_of(state)
    team = table.team
    if team is None or not all(may_see_sheet(state, viewer, cid) for cid in team.members):
        return None
    members = [(cid, table.hero(cid)) for cid in team.members]
    options = table.options
    if team.target is None:
        if team.difficulty is None:
            return None
        die = tw.team_rating(tw.base_ratings(members)).rating
        against = Rating(team.difficulty)
        win = _odds(die, against, options).win
        return (
            f"The team rolls d{die.sides} against d{against.sides}, before any re-roll: {percent(win)} to succeed; "
            "a tie changes nothing."
        )
    conflict = table.conflict
    if conflict is None:
        return None
    die = tw.check_team_attack(rules_conflict(table), team.members, team.target).rating
    name = state.character(team.target).name
    if not _sees(state, viewer, team.target):
        return HIDDEN.format(name)
    defender = table.hero(team.target)
    style = defence_style(table, team.target)
    theirs = round_rating(defender.rating_for(style, conflict.stakes), defender.this_round)
    shift = conflict.situation(team.target)[0]
    odds = _odds(theirs, die, options, shift=shift).flipped()
    guard = f"{style} " if style else "base Power "
    return (
        f"The team's d{die.sides} against {name}'s {guard}d{theirs.sides}, before any re-roll: {percent(odds.win)} "
        f"to win the exchange, {percent(odds.tie)} a tie."
    )


def _highest(mine: int, others: list[int], exploding: bool) -> Fraction:
    """P(a d`mine` rolls higher than every one of `others` at once): the quick contest's outright win (R-LTL-13)."""
    top = max(mine, *others) * (12 if exploding else 1)
    total = Fraction(0)
    for t in range(1, top + 1):
        p = total_pmf(mine, t, exploding)
        for sides in others:
            p *= 1 - tail(sides, t - 1, exploding)
        total += p
    return total


def _contest_line(state: TableState, viewer: str, cid: str) -> str | None:
    """Each Style's chance to roll highest outright against the dice declared so far that the viewer may count."""
    table = table_of(state)
    contest = table.contest
    if contest is None:
        return None
    known = [(other, pos) for other, pos in contest.entries if other != cid and _sees(state, viewer, other)]
    unknown = [other for other, _ in contest.entries if other != cid and not _sees(state, viewer, other)]
    # one still to declare whose sheet the viewer reads counts at its best die: the chance is then the least it is
    best = []
    for other in contest.waiting:
        if other == cid:
            continue
        them = table.hero(other)
        dice = [them.rating_for(style) for style in (None, *(st.name for st in them.sheet.styles))]
        usable = [r.position for r in dice if r.usable]
        if _sees(state, viewer, other) and usable:
            best.append((other, max(usable)))
        else:
            unknown.append(other)
    if not known and not best:
        return None
    hero = table.hero(cid)
    against = [rolled_sides(pos) for _, pos in known + best]
    exploding = table.options.exploding
    parts = []
    for label, style in [("base Power", None), *((s.name, s.name) for s in hero.sheet.styles)]:
        die = hero.rating_for(style)
        if die.usable:
            parts.append(f"{label} d{die.sides} {percent(_highest(rolled_sides(die.position), against, exploding))}")
    names = ", ".join(
        [f"{state.character(o).name}'s d{rolled_sides(p)}" for o, p in known]
        + [f"{state.character(o).name}'s best, d{rolled_sides(p)} (not declared yet)" for o, p in best]
    )
    ties = "shared" if table.options.quick_ties is QuickTies.SHARED else "rolled again"
    left = ""
    if unknown:
        left = f" Not counted: {', '.join(state.character(o).name for o in unknown)}, whose die you do not know yet."
    return f"Against {names}: {', '.join(parts)} to roll highest outright (a tie for first is {ties}).{left}"


def _line(state: TableState, viewer: str, table: LtlTable, cid: str, a: Action) -> str | None:
    fixed = dict(a.fixed)
    if a.type == RollTeam.type:
        return _team_line(state, viewer)
    if a.type == EnterContest.type:
        return _contest_line(state, viewer, cid)
    if a.type == Push.type:
        return _push_line(table, cid)
    if a.type == Recover.type:
        return _recovery_line(table, cid)
    if a.type in (Challenge.type, KarmaRoll.type) and fixed.get("call"):
        call = next((c for c in table.calls if c.id == fixed["call"]), None)
        if call is None or call.kind not in (CallKind.CHALLENGE, CallKind.KARMA, CallKind.STUNT):
            return None
        return _called_line(table, cid, call, a.type)
    return None


def chances(state: TableState, user: str, laid: Panel) -> dict[str, Markup]:
    """The line of odds beside each roll on the viewer's cards, by action key."""
    table = table_of(state)
    out: dict[str, Markup] = {}
    for cid, card in laid.cards.items():
        for a in card.own:
            line = _line(state, user, table, cid, a)
            if line:
                out[a.key] = escape(line)
    return out
