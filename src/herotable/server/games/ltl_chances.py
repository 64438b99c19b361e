"""Larger Than Life's odds beside each roll a player is about to make, read off the rules' own dice: a challenge or
Karma roll the GM called for (each Style against the called difficulty), a Push (its price: the die it must beat,
or the Heroism it burns) and Recovery. The exchange odds of an attack are a panel of their own (`ltl_odds`).

Every line is the chance of the roll as it stands, before any re-roll, as exact fractions turned into whole
percentages; it says only what the viewer already knows (their own sheet, the difficulty the GM called)."""

from __future__ import annotations

from fractions import Fraction

from markupsafe import Markup, escape

from herotable.dice import Rating, rolled_sides, shifted
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import Hero
from herotable.ltl.heroism import push_target, recovery_difficulty
from herotable.ltl.options import LtlOptions
from herotable.ltl.task import round_rating, scene_roll
from herotable.odds.distributions import ExchangeOdds, dice_exchange
from herotable.server.actions import Action, Panel
from herotable.table.ltl.commands import CallKind, Challenge, KarmaRoll, Push, Recover
from herotable.table.ltl.decide import table_of
from herotable.table.ltl.state import CalledRoll, LtlTable
from herotable.table.state import TableState


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


def _line(table: LtlTable, cid: str, a: Action) -> str | None:
    fixed = dict(a.fixed)
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
            line = _line(table, cid, a)
            if line:
                out[a.key] = escape(line)
    return out
