"""`herotable demo`: Captain Comet and Doctor Entropy fight a whole Larger Than Life conflict.

Every decision is made by a simple table-side policy and carried out by the real rules engine; every die
rolled is narrated. `run_demo` returns the narration so it can be printed (Rich) or checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from herotable.dice import RecordingRng, Rng, penalty_at, rolled_sides
from herotable.errors import RulesError
from herotable.ltl.conflict import (
    Conflict,
    attack,
    conflict_buy_success,
    conflict_reroll,
    end_round,
    resolve,
    start_conflict,
)
from herotable.ltl.hero import Defeat, Hero, LossType, NextRound, record_defeat
from herotable.ltl.heroism import push, recover
from herotable.ltl.karma import try_again
from herotable.ltl.options import LtlOptions
from herotable.ltl.roll import Critical, DieRoll, RerollSource, Throw
from herotable.ltl.samples import sample_sheets
from herotable.ltl.task import CritBonus, Side, Stance, round_rating

STYLE = {"comet": "Fisticuffs", "entropy": "Decay"}
SPECIALTY = {"entropy": "Physics"}  # the GM agrees Physics applies to Decay blasts (R-LTL-17)
MAX_ROUNDS = 40


@dataclass
class Narration:
    """Lines of Rich markup, grouped by round, and every die face they show."""

    rounds: list[tuple[str, list[str]]] = field(default_factory=list)
    shown: list[tuple[int, int]] = field(default_factory=list)
    conflict: Conflict | None = None

    def section(self, title: str) -> None:
        self.rounds.append((title, []))

    def say(self, text: str) -> None:
        self.rounds[-1][1].append(text)

    def dice(self, *rolls: DieRoll) -> str:
        parts = []
        for r in rolls:
            self.shown.extend((r.sides, f) for f in r.faces)
            parts.append(f"d{r.sides}→{'+'.join(map(str, r.faces))}" if len(r.faces) > 1 else f"d{r.sides}→{r.total}")
        return ", ".join(parts)

    def throw(self, t: Throw) -> str:
        return self.dice(t.rolls[-1])


def _status(h: Hero) -> str:
    parts = [
        f"Power {h.base_now()}",
        f"{_style_of(h)} {h.rating_for(_style_of(h))}",
        f"Karma {h.karma}",
        f"Heroism {h.heroism}",
    ]
    if h.try_again_tokens:
        parts.append(f"{h.try_again_tokens} Try Again")
    return ", ".join(parts)


def _style_of(h: Hero) -> str:
    return STYLE["comet" if h.name == "Captain Comet" else "entropy"]


def _story(hero: Hero, style: str, stakes: LossType, broke: int) -> str:
    """How the die a fighter rolls comes about, by the engine's own steps (R-LTL-4): the sheet die, then the levels
    lost and Going For Broke, then a Push, then a critical's +1 / -1 from last round (R-LTL-8)."""
    found = hero.sheet.style(style)
    assert found is not None
    steps = [f"{style} {found.rating} on the sheet"]
    plain = replace(hero, pushed=False)
    before_broke = replace(plain, losses=plain.losses[:-1]) if broke else plain
    lost = before_broke.levels_lost(stakes)
    if lost:
        steps.append(f"{lost} level{'s' if lost > 1 else ''} lost → {before_broke.rating_for(style, stakes)}")
    if broke:
        steps.append(f"Going For Broke {broke} → {plain.rating_for(style, stakes)}")
    rating = hero.rating_for(style, stakes)
    if hero.pushed:
        steps.append(f"Pushed → {rating}")
    plus, minus = NextRound.PLUS_ONE in hero.this_round, NextRound.MINUS_ONE in hero.this_round
    rolled = round_rating(rating, hero.this_round)
    face = f"d{rolled_sides(rolled.position)}" + (", each face one lower" if penalty_at(rolled.position) else "")
    if plus and minus:
        steps.append("+1 and -1 die type from last round's criticals cancel")
    elif plus:
        steps.append(f"+1 die type from last round's critical → {face}")
    elif minus:
        steps.append(f"-1 die type from last round's critical → {face}")
    return "; ".join(steps)


def _side_text(n: Narration, side: Side, hero: Hero, stakes: LossType) -> str:
    story = _story(hero, _style_of(hero), stakes, side.broke)
    return f"{hero.name} rolls d{side.throw.sides} [{story}] ({n.throw(side.throw)})"


def _fight_for_the_roll(n: Narration, c: Conflict, who: str, rng: Rng, opts: LtlOptions) -> Conflict:
    """The losing side of the open exchange spends what the policy allows to turn it around."""
    for _ in range(4):
        assert c.open is not None
        task = c.open.task
        mine, theirs = task.side(who), (task.opposition if task.actor.who == who else task.actor)
        if mine.auto_success or mine.throw.total > theirs.throw.total:
            return c
        hero = c.fighter(who).hero
        name = hero.name
        try:
            if hero.try_again_tokens and not mine.try_again_used:
                c = conflict_reroll(c, who, RerollSource.TRY_AGAIN, rng, opts)
                assert c.open is not None
                n.say(
                    f"  {name} spends a Try Again token: re-roll {n.throw(c.open.task.side(who).throw)}, "
                    f"keeps {c.open.task.side(who).throw.total}"
                )
            elif who in SPECIALTY and SPECIALTY[who] not in mine.specialties_used:
                c = conflict_reroll(c, who, RerollSource.SPECIALTY, rng, opts, specialty=SPECIALTY[who])
                assert c.open is not None
                n.say(
                    f"  {name} claims the {SPECIALTY[who]} Specialty: re-roll "
                    f"{n.throw(c.open.task.side(who).throw)}, keeps {c.open.task.side(who).throw.total}"
                )
            elif not hero.motivation_used and who == "comet":
                c = conflict_reroll(c, who, RerollSource.MOTIVATION, rng, opts)
                assert c.open is not None
                n.say(
                    f"  {name} fights for his Motivation ({hero.sheet.motivation}): re-roll "
                    f"{n.throw(c.open.task.side(who).throw)}, keeps {c.open.task.side(who).throw.total}"
                )
            elif hero.karma.position >= 3 and hero.base_now(c.stakes).position <= 2:
                c = conflict_buy_success(c, who)
                n.say(
                    f"  {name} burns two levels of Karma after the roll: Automatic Success "
                    f"(Karma now {c.fighter(who).hero.karma})"
                )
                return c
            elif hero.karma.position >= 3 and not hero.try_again_tokens and not mine.try_again_used:
                c = c.with_hero(who, try_again(hero))
                n.say(
                    f"  {name} burns a level of Karma for two Try Again tokens (Karma now {c.fighter(who).hero.karma})"
                )
            else:
                return c
        except RulesError as err:
            n.say(f"  [dim]{name} cannot: {err.reason}[/dim]")
            return c
    return c


def _maybe_push(n: Narration, c: Conflict, who: str, rng: Rng, opts: LtlOptions) -> Conflict:
    hero = c.fighter(who).hero
    if hero.base_now(c.stakes).position > 2 or not hero.heroism.usable or hero.pushed:
        return c
    result = push(hero, rng, opts, stakes=c.stakes)
    assert result.roll is not None
    n.say(
        f"  {hero.name} Pushes with Heroism: {n.dice(result.roll.mine.result)} against "
        f"{n.dice(result.roll.theirs.result)} — {'the Push holds' if result.succeeded else 'not enough'}"
    )
    if not result.succeeded and hero.heroism.position >= 2:
        result = push(hero, rng, opts, burn=True, stakes=c.stakes)
        n.say(
            f"  {hero.name} burns {result.burned} level(s) of Heroism to Push anyway (Heroism now "
            f"{result.hero.heroism})"
        )
    if result.succeeded:
        n.say(f"  {hero.name}'s base Power is pushed to {result.hero.rating_for(None, c.stakes)} for this round")
    return c.with_hero(who, result.hero)


def _try_to_recover(n: Narration, c: Conflict, who: str, rng: Rng, opts: LtlOptions) -> Conflict:
    hero = c.fighter(who).hero
    if not hero.heroism.usable:
        return c
    result = recover(hero, rng, opts)
    assert result.roll is not None
    n.say(
        f"  {hero.name} refuses to stay down: Heroism {n.dice(result.roll.mine.result)} against Inconceivable "
        f"{n.dice(result.roll.theirs.result)} — {'back on his feet at full Power!' if result.succeeded else 'no'}"
    )
    return c.with_hero(who, result.hero)


def run_demo(rng: Rng, options: LtlOptions | None = None) -> Narration:
    """Fight the demo conflict with `rng` and narrate it (R-LTL-3 … R-LTL-12)."""
    opts = options or LtlOptions()
    rec = RecordingRng(rng)
    n = Narration()
    comet, entropy = (Hero.from_sheet(s) for s in sample_sheets())
    c = start_conflict([("comet", comet, "heroes"), ("entropy", entropy, "villains")], rec, opts)
    n.section("The scene")
    n.say("Doctor Entropy's Decay Field is eating the Harbour Bridge. Captain Comet dives out of the sky.")
    for f in c.fighters:
        n.say(f"  [bold]{f.hero.name}[/bold]: {_status(f.hero)}")
    recovered: set[str] = set()
    while not c.over and c.round <= MAX_ROUNDS:
        n.section(f"Round {c.round}")
        actor, target = ("comet", "entropy") if c.round % 2 else ("entropy", "comet")
        for fid in (actor, target):
            c = _maybe_push(n, c, fid, rec, opts)
        them = c.fighter(target).hero
        finishing = them.base_now(c.stakes).position <= 2 and c.fighter(actor).hero.base_now(c.stakes).position >= 4
        broke = 1 if finishing else 0
        if broke:
            n.say(f"  {c.fighter(actor).hero.name} Goes For Broke, paying {broke} level of Power")
        c = attack(
            c,
            actor,
            target,
            rec,
            opts,
            actor_stance=Stance(STYLE[actor], broke=broke),
            target_stance=Stance(STYLE[target]),
        )
        assert c.open is not None
        task = c.open.task
        n.say(
            f"  {_side_text(n, task.actor, c.fighter(actor).hero, c.stakes)} against "
            f"{_side_text(n, task.opposition, c.fighter(target).hero, c.stakes)}"
        )
        for fid in (actor, target):
            c = _fight_for_the_roll(n, c, fid, rec, opts)
        c, result = resolve(c, opts, crit_bonus=CritBonus.EXTRA_LEVEL if not broke else CritBonus.PLUS_ONE_NEXT)
        for side, crit in ((actor, result.actor_critical), (target, result.opposition_critical)):
            if crit is not Critical.NONE:
                n.say(f"  [yellow]Critical {crit.value} for {c.fighter(side).hero.name}![/yellow]")
        if result.winner is None:
            n.say("  A tie: nothing changes.")
        else:
            n.say(
                f"  {c.fighter(result.winner).hero.name} wins the exchange"
                f"{' automatically' if result.automatic else ''}: {c.fighter(str(result.loser)).hero.name} "
                f"will lose {result.effect} level(s) at the end of the round"
            )
        c, report = end_round(c, rec, opts)
        for f in c.fighters:
            n.say(
                f"  [bold]{f.hero.name}[/bold]: {_status(f.hero)}"
                if not c.is_out(f.id)
                else f"  [bold red]{f.hero.name} is below d4 and defeated[/bold red]"
            )
        for fid in report.defeated:
            if fid not in recovered:
                recovered.add(fid)
                c = _try_to_recover(n, c, fid, rec, opts)
    n.section("Outcome")
    if c.winner is None:
        n.say(f"After {MAX_ROUNDS} rounds the GM calls it a stalemate.")
    else:
        loser = next(f for f in c.fighters if f.side != c.winner)
        consequence = Defeat.CAPTURED if loser.id == "entropy" else Defeat.UNCONSCIOUS
        c = c.with_hero(loser.id, record_defeat(loser.hero, consequence, c.stakes))
        winner = next(f for f in c.fighters if f.side == c.winner)
        n.say(
            f"[bold green]{winner.hero.name} wins after {c.round - 1} rounds.[/bold green] "
            f"{loser.hero.name} is {consequence.value.replace('_', ' ')}."
        )
    n.conflict = replace(c)
    assert n.shown == rec.rolled, "every die rolled is narrated"
    return n
