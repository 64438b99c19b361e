"""Conflicts: rounds of simultaneous actions, initiative, losses at the end of the round, giving up, and
series of challenges (R-LTL-12), with the optional stun rule (R-LTL-18).

Each round every fighter takes one action, usually an exchange with one opponent. An exchange is mutual:
it is the target's action too unless the target has already acted this round (then the target only
defends). Losses wait until the end of the round, so the order of actions never changes what is rolled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from herotable.dice import Rating, Rng, rolled_sides, step_up
from herotable.errors import IllegalAction
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import Defeat, Hero, LossType, finish_action, lose_levels
from herotable.ltl.heroism import HeroismResult, stun_check
from herotable.ltl.options import Initiative, LtlOptions, RerollMode
from herotable.ltl.resources import burn_karma
from herotable.ltl.roll import DieRoll, Outcome, RerollSource, roll_die
from herotable.ltl.task import (
    CritBonus,
    CritPenalty,
    Settlement,
    Stance,
    Task,
    buy_success_after,
    carry_effects,
    challenge,
    exchange,
    pay_for_reroll,
    reroll,
    settle,
)

RULING = "R-LTL-12"


@dataclass(frozen=True)
class Fighter:
    id: str
    hero: Hero
    side: str
    acted: bool = False
    gave_up: bool = False
    karma_initiative: bool = False  # the GM lets this fighter roll Karma for initiative (R-LTL-10)
    initiative_power: bool = False  # a Power the GM allows (superspeed) gives initiative +1 die type (R-LTL-12)


@dataclass(frozen=True)
class PendingLoss:
    target: str
    levels: int
    kind: LossType
    dealt_by: str | None


@dataclass(frozen=True)
class OpenAction:
    actor: str
    target: str | None  # None for a challenge against a difficulty
    task: Task


@dataclass(frozen=True)
class RoundReport:
    """What the end of a round did: losses applied, stun checks, fighters newly out."""

    round: int
    losses: tuple[PendingLoss, ...]
    stunned: tuple[str, ...]
    defeated: tuple[str, ...]
    stun_checks: tuple[tuple[str, HeroismResult], ...] = ()  # each fighter's stun check, dice included


@dataclass(frozen=True)
class Conflict:
    fighters: tuple[Fighter, ...]
    stakes: LossType = LossType.PHYSICAL
    round: int = 1
    order: tuple[tuple[str, ...], ...] = ()  # initiative groups, first to act first; ties act together
    initiative_rolls: tuple[tuple[str, DieRoll], ...] = ()  # the result that counts for each fighter
    # this round's initiative re-rolls: (fighter, source, Specialty or ""), and who bought acting first with Karma
    initiative_used: tuple[tuple[str, str, str], ...] = ()
    initiative_first: tuple[str, ...] = ()
    pending: tuple[PendingLoss, ...] = ()
    open: OpenAction | None = None
    fatigue: bool = True  # failed challenges cost a level of fatigue: the GM's choice per conflict (R-LTL-12)

    def fighter(self, fid: str) -> Fighter:
        for f in self.fighters:
            if f.id == fid:
                return f
        raise IllegalAction(
            "conflict/unknown_fighter",
            f"{fid!r} is not in this conflict",
            ruling=RULING,
            fix=f"choose one of {', '.join(f.id for f in self.fighters)}",
        )

    def is_out(self, fid: str) -> bool:
        f = self.fighter(fid)
        return f.gave_up or f.hero.is_defeated(self.stakes) or f.hero.unconscious

    @property
    def sides(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.side for f in self.fighters))

    @property
    def sides_standing(self) -> tuple[str, ...]:
        return tuple(s for s in self.sides if any(f.side == s and not self.is_out(f.id) for f in self.fighters))

    @property
    def over(self) -> bool:
        """Over when one side (or none) is left standing; a series of challenges with a single side ends
        when nobody is left or the GM ends it."""
        if len(self.sides) >= 2:
            return len(self.sides_standing) <= 1
        return not self.sides_standing

    @property
    def winner(self) -> str | None:
        standing = self.sides_standing
        return standing[0] if self.over and len(standing) == 1 and len(self.sides) >= 2 else None

    def _with(self, fighter: Fighter) -> Conflict:
        return replace(self, fighters=tuple(fighter if f.id == fighter.id else f for f in self.fighters))

    def with_hero(self, fid: str, hero: Hero) -> Conflict:
        """The conflict with a fighter's hero replaced (after a Karma or Heroism use between actions)."""
        return self._with(replace(self.fighter(fid), hero=hero))


def start_conflict(
    fighters: Sequence[tuple[str, Hero, str]],
    rng: Rng,
    options: LtlOptions,
    *,
    stakes: LossType = LossType.PHYSICAL,
    karma_initiative: Sequence[str] = (),
    fatigue: bool = True,
    initiative_power: Sequence[str] = (),
) -> Conflict:
    """Start a conflict among (id, hero, side) fighters (R-LTL-12). With initiative on, everyone rolls
    Power (or Karma, with the GM's leave: `karma_initiative`); a Power the GM allows (`initiative_power`, e.g.
    superspeed) rolls it one die type higher. `fatigue`: whether failed challenges cost a level, the GM's choice
    (R-LTL-12 amended). Raises IllegalAction for duplicate ids or a grant to someone not fighting."""
    ids = [f[0] for f in fighters]
    if len(set(ids)) != len(ids) or not ids:
        raise IllegalAction(
            "conflict/fighters",
            "a conflict needs at least one fighter, each with a different id",
            ruling=RULING,
            fix="give every fighter a unique id",
        )
    for granted, what in ((karma_initiative, "Karma initiative"), (initiative_power, "a Power's initiative bonus")):
        unknown = set(granted) - set(ids)
        if unknown:
            raise IllegalAction(
                "conflict/unknown_fighter",
                f"{', '.join(sorted(unknown))} not in this conflict",
                ruling=RULING,
                fix=f"grant {what} only to fighters in the conflict",
            )
    conflict = Conflict(
        fighters=tuple(
            Fighter(
                i,
                _into_first_round(h),
                s,
                karma_initiative=i in karma_initiative,
                initiative_power=i in initiative_power,
            )
            for i, h, s in fighters
        ),
        stakes=stakes,
        fatigue=fatigue,
    )
    if options.initiative is not Initiative.SIMULTANEOUS:
        conflict = roll_initiative(conflict, rng, options)
    return conflict


def _into_first_round(hero: Hero) -> Hero:
    """Critical effects earned earlier in the scene are for the hero's next roll (R-LTL-8 amended): in a conflict,
    its first round."""
    if not hero.next_round:
        return hero
    return replace(hero, this_round=hero.next_round, next_round=())


def initiative_die(f: Fighter, stakes: LossType | None) -> int:
    """The sides of the die a fighter rolls for initiative: Power, or Karma with the GM's leave (R-LTL-10); a Power
    the GM allows moves it one die type up (R-LTL-12 amended: superspeed, +1 die type; d12 rolls d20)."""
    rating = f.hero.karma if f.karma_initiative and f.hero.karma.usable else f.hero.rating_for(None, stakes)
    if f.initiative_power and rating.usable:
        rating = Rating(step_up(rating.position))
    return rolled_sides(rating.position)


def roll_initiative(conflict: Conflict, rng: Rng, options: LtlOptions) -> Conflict:
    """Everyone able to act rolls Power (or Karma with the GM's leave) and acts in order of the rolls;
    ties act together (R-LTL-12, R-LTL-10)."""
    rolls: list[tuple[str, DieRoll]] = []
    for f in conflict.fighters:
        if conflict.is_out(f.id):
            continue
        rolls.append((f.id, roll_die(initiative_die(f, conflict.stakes), rng, options)))
    return replace(
        conflict,
        order=initiative_order(tuple(rolls)),
        initiative_rolls=tuple(rolls),
        initiative_used=(),
        initiative_first=(),
    )


def initiative_order(
    rolls: tuple[tuple[str, DieRoll], ...], first: tuple[str, ...] = ()
) -> tuple[tuple[str, ...], ...]:
    """Initiative groups: who bought acting first with Karma (together), then everyone else by their rolls, highest
    first; ties act together (R-LTL-12)."""
    bought = tuple(fid for fid, _ in rolls if fid in first)
    rest = [(fid, r) for fid, r in rolls if fid not in first]
    totals = sorted({r.total for _, r in rest}, reverse=True)
    by_roll = tuple(tuple(fid for fid, r in rest if r.total == t) for t in totals)
    return ((bought,) if bought else ()) + by_roll


def initiative_open(conflict: Conflict) -> bool:
    """Whether this round's initiative may still change: it was rolled, and nobody has acted, passed or opened an
    action since (R-LTL-12 amended)."""
    return (
        bool(conflict.initiative_rolls)
        and conflict.open is None
        and not conflict.over
        and not any(f.acted and not f.gave_up for f in conflict.fighters)
    )


def _initiative_roller(conflict: Conflict, fid: str) -> tuple[Fighter, DieRoll]:
    f = conflict.fighter(fid)
    if not initiative_open(conflict):
        raise IllegalAction(
            "initiative/closed",
            "this round's initiative is settled: it was not rolled, or someone has already acted",
            ruling=RULING,
            fix="change initiative right after it is rolled, before anyone acts",
        )
    roll = next((r for i, r in conflict.initiative_rolls if i == fid), None)
    if roll is None or conflict.is_out(fid):
        raise IllegalAction(
            "initiative/not_rolled",
            f"{fid} rolled no initiative this round",
            ruling=RULING,
            fix="only a fighter who rolled initiative changes it",
        )
    return f, roll


def initiative_reroll(
    conflict: Conflict,
    fid: str,
    source: RerollSource,
    rng: Rng,
    options: LtlOptions,
    *,
    specialty: str | None = None,
) -> tuple[Conflict, DieRoll, bool]:
    """Re-roll a fighter's initiative die (R-LTL-12 amended, R-LTL-17, R-LTL-9): a Specialty that applies (one re-roll
    each), Motivation (once a scene), or a Karma Try Again token (never on a Karma roll, never two on one roll). The
    same die is rolled again; the better result counts (or the new one, by the campaign option), and the order is
    found again. Returns the conflict, the new roll and whether it counts. Raises IllegalAction or NotEnough when the
    source is not available."""
    f, roll = _initiative_roller(conflict, fid)
    if source is RerollSource.CRITICAL:
        raise IllegalAction(
            "initiative/no_critical_reroll",
            "a critical success's re-roll is for the next round's action, not for initiative",
            ruling="R-LTL-8",
            fix="re-roll initiative with a Specialty, Motivation or a Try Again token",
        )
    used = [(src, name) for i, src, name in conflict.initiative_used if i == fid]
    hero, name = pay_for_reroll(
        f.hero,
        source,
        specialty,
        karma_roll=f.karma_initiative and f.hero.karma.usable,
        try_again_used=any(src == RerollSource.TRY_AGAIN.value for src, _ in used),
        specialties_used=[n for src, n in used if src == RerollSource.SPECIALTY.value],
        what="initiative roll",
    )
    new = roll_die(roll.sides, rng, options)
    better = options.reroll_mode is RerollMode.NEW_STANDS or new.total > roll.total
    rolls = tuple((i, new if i == fid and better else r) for i, r in conflict.initiative_rolls)
    updated = replace(
        conflict.with_hero(fid, hero),
        initiative_rolls=rolls,
        initiative_used=(*conflict.initiative_used, (fid, source.value, name)),
    )
    return replace(updated, order=initiative_order(rolls, conflict.initiative_first)), new, better


def initiative_first(conflict: Conflict, fid: str) -> Conflict:
    """Automatic Success on initiative: the fighter acts first (R-LTL-12 amended, R-LTL-10). The roll has been seen, so
    it costs two levels of Karma; several who buy it act first together. Raises NotEnough when Karma cannot pay,
    IllegalAction when the fighter already bought it."""
    f, _ = _initiative_roller(conflict, fid)
    if fid in conflict.initiative_first:
        raise IllegalAction(
            "initiative/already_first",
            f"{fid} already acts first this round",
            ruling="R-LTL-10",
            fix="nothing more to buy",
        )
    paid = burn_karma(f.hero, 2)
    first = (*conflict.initiative_first, fid)
    updated = replace(conflict.with_hero(fid, paid), initiative_first=first)
    return replace(updated, order=initiative_order(conflict.initiative_rolls, first))


def _may_act(conflict: Conflict, fid: str) -> Fighter:
    if conflict.open is not None:
        raise IllegalAction(
            "conflict/action_open",
            f"{conflict.open.actor}'s action is still being rolled",
            ruling=RULING,
            fix="settle the open action first",
        )
    f = conflict.fighter(fid)
    if conflict.over:
        raise IllegalAction("conflict/over", "the conflict is over", ruling=RULING, fix="start a new conflict")
    if conflict.is_out(fid) or f.hero.stunned:
        raise IllegalAction(
            "conflict/out",
            f"{fid} cannot act (defeated, unconscious, stunned or gave up)",
            ruling=RULING,
            fix="only fighters still able to act take actions",
        )
    if f.acted:
        raise IllegalAction(
            "conflict/already_acted",
            f"{fid} has already acted this round",
            ruling=RULING,
            fix="each participant takes one action a round; end the round to go on",
        )
    for group in conflict.order:
        if fid in group:
            break
        waiting = [g for g in group if not conflict.fighter(g).acted and not conflict.is_out(g)]
        if waiting:
            raise IllegalAction(
                "conflict/not_your_turn",
                f"{', '.join(waiting)} act(s) before {fid} in this round's initiative",
                ruling=RULING,
                fix="wait for your turn, or let the earlier fighters act or pass",
            )
    return f


def may_act(conflict: Conflict, fid: str) -> bool:
    """Whether the fighter may take its action now: in the fight, able, not yet acted, its turn (R-LTL-12)."""
    try:
        _may_act(conflict, fid)
    except IllegalAction:
        return False
    return True


def attack(
    conflict: Conflict,
    actor: str,
    target: str,
    rng: Rng,
    options: LtlOptions,
    *,
    actor_stance: Stance = Stance(),
    target_stance: Stance = Stance(),
) -> Conflict:
    """Open an exchange between two fighters on different sides (R-LTL-12, R-LTL-3). Re-roll or buy
    success with `conflict_reroll` / `conflict_buy_success`, then `resolve`."""
    a = _may_act(conflict, actor)
    t = conflict.fighter(target)
    if t.side == a.side or conflict.is_out(target):
        raise IllegalAction(
            "conflict/bad_target",
            f"{target} is not an opponent {actor} can act against",
            ruling=RULING,
            fix="choose an opponent on another side who is still in the conflict",
        )
    a_hero, t_hero, task = exchange(
        a.hero,
        t.hero,
        rng,
        options,
        actor_stance=actor_stance,
        target_stance=target_stance,
        actor_id=actor,
        target_id=target,
        stakes=conflict.stakes,
    )
    updated = conflict.with_hero(actor, a_hero).with_hero(target, t_hero)
    return replace(updated, open=OpenAction(actor, target, task))


def attempt(
    conflict: Conflict, actor: str, difficulty: Difficulty, rng: Rng, options: LtlOptions, *, stance: Stance = Stance()
) -> Conflict:
    """A challenge inside a conflict (a series of challenges): failure costs one level of fatigue at the
    end of the round, if the GM chose so for this conflict; a tie is no failure (R-LTL-12 amended)."""
    f = _may_act(conflict, actor)
    hero, task = challenge(f.hero, difficulty, rng, options, stance=stance, who=actor, stakes=conflict.stakes)
    return replace(conflict.with_hero(actor, hero), open=OpenAction(actor, None, task))


def _open(conflict: Conflict) -> OpenAction:
    if conflict.open is None:
        raise IllegalAction(
            "conflict/no_open_action",
            "no action is being rolled",
            ruling=RULING,
            fix="attack or attempt something first",
        )
    return conflict.open


def conflict_reroll(
    conflict: Conflict,
    who: str,
    source: RerollSource,
    rng: Rng,
    options: LtlOptions,
    *,
    specialty: str | None = None,
) -> Conflict:
    """Re-roll a fighter's die in the open action (R-LTL-9, R-LTL-17, R-LTL-8)."""
    act = _open(conflict)
    hero, task = reroll(conflict.fighter(who).hero, act.task, source, rng, options, who=who, specialty=specialty)
    return replace(conflict.with_hero(who, hero), open=replace(act, task=task))


def conflict_buy_success(conflict: Conflict, who: str) -> Conflict:
    """Burn two levels of Karma after seeing the roll: the fighter wins the exchange (R-LTL-10)."""
    act = _open(conflict)
    hero, task = buy_success_after(conflict.fighter(who).hero, act.task, who=who)
    return replace(conflict.with_hero(who, hero), open=replace(act, task=task))


def resolve(
    conflict: Conflict,
    options: LtlOptions,
    *,
    crit_bonus: CritBonus = CritBonus.EXTRA_LEVEL,
    crit_penalty: CritPenalty = CritPenalty.MINUS_ONE_NEXT,
) -> tuple[Conflict, Settlement]:
    """Settle the open action. The loser's levels wait for the end of the round (R-LTL-12); critical
    effects carry to the next round (R-LTL-8). The actor has acted, and so has a target that had not."""
    act = _open(conflict)
    _, result = settle(act.task, options, crit_bonus=crit_bonus, crit_penalty=crit_penalty)
    pending = list(conflict.pending)
    if act.target is not None and result.loser is not None and result.effect:
        pending.append(PendingLoss(result.loser, result.effect, conflict.stakes, result.winner))
    elif act.target is None and result.outcome is Outcome.LOSE and conflict.fatigue:
        pending.append(PendingLoss(act.actor, 1, LossType.FATIGUE, None))
    updated = replace(conflict, open=None, pending=tuple(pending))
    for fid in {act.actor, act.target} - {None}:
        assert fid is not None
        f = updated.fighter(fid)
        hero = carry_effects(f.hero, fid, result)
        updated = updated._with(replace(f, hero=hero, acted=True))
    return updated, result


def pass_turn(conflict: Conflict, fid: str) -> Conflict:
    """The fighter does nothing this round."""
    f = _may_act(conflict, fid)
    return conflict._with(replace(f, acted=True))


def give_up(conflict: Conflict, fid: str) -> Conflict:
    """The fighter gives up: out of the conflict, defeated with that consequence (R-LTL-12, R-LTL-5)."""
    f = conflict.fighter(fid)
    if f.gave_up:
        return conflict
    if conflict.open is not None and fid in (conflict.open.actor, conflict.open.target):
        raise IllegalAction(
            "conflict/action_open",
            f"{fid} is in the middle of an exchange",
            ruling=RULING,
            fix="settle the open action first",
        )
    return conflict._with(replace(f, gave_up=True, acted=True, hero=replace(f.hero, defeat=Defeat.GIVES_UP.value)))


def wounded_this_round(conflict: Conflict) -> tuple[str, ...]:
    """The fighters whose pending losses include physical damage: the GM may mark it serious (R-LTL-6)."""
    hit = {p.target for p in conflict.pending if p.kind is LossType.PHYSICAL}
    return tuple(f.id for f in conflict.fighters if f.id in hit)


def end_round(
    conflict: Conflict, rng: Rng, options: LtlOptions, *, serious: Sequence[str] = ()
) -> tuple[Conflict, RoundReport]:
    """End the round (R-LTL-12): every pending loss lands at once; Pushes end and d4 Heroism double burns
    knock out (R-LTL-11); critical effects earned this round come into force; under the optional stun rule
    each fighter who took physical damage makes a stun check (R-LTL-18); initiative is rolled again when it
    is rolled each round. The physical damage landing on the fighters named in `serious` is marked serious: it
    needs days to heal (R-LTL-6 amended). Raises IllegalAction for a name with no physical damage pending."""
    if conflict.open is not None:
        raise IllegalAction(
            "conflict/action_open",
            "an action is still being rolled",
            ruling=RULING,
            fix="settle the open action before ending the round",
        )
    wounded = wounded_this_round(conflict)
    unhurt = [fid for fid in serious if fid not in wounded]
    if unhurt:
        raise IllegalAction(
            "conflict/serious_no_wound",
            f"{', '.join(unhurt)} take(s) no physical damage this round: nothing to mark serious",
            ruling="R-LTL-6",
            fix=f"mark only {', '.join(wounded)}" if wounded else "mark nothing serious this round",
        )
    out_before = {f.id for f in conflict.fighters if conflict.is_out(f.id)}
    fighters: list[Fighter] = []
    stunned: list[str] = []
    checks: list[tuple[str, HeroismResult]] = []
    for f in conflict.fighters:
        hero = replace(finish_action(f.hero), stunned=False, this_round=f.hero.next_round, next_round=())
        lost = 0
        for loss in conflict.pending:
            if loss.target == f.id:
                grave = loss.kind is LossType.PHYSICAL and f.id in serious
                hero = lose_levels(hero, loss.levels, loss.kind, note=f"round {conflict.round}", serious=grave)
                lost += loss.levels if loss.kind is LossType.PHYSICAL else 0
        if options.stun_on_damage and lost and not hero.is_defeated(conflict.stakes):
            result = stun_check(hero, lost, rng, options)
            checks.append((f.id, result))
            hero = result.hero
            if hero.stunned:
                stunned.append(f.id)
        fighters.append(replace(f, hero=hero, acted=False))
    after = replace(conflict, fighters=tuple(fighters), pending=(), round=conflict.round + 1)
    newly_out = tuple(f.id for f in after.fighters if after.is_out(f.id) and f.id not in out_before)
    if options.initiative is Initiative.EACH_ROUND and not after.over:
        after = roll_initiative(after, rng, options)
    return after, RoundReport(conflict.round, conflict.pending, tuple(stunned), newly_out, tuple(checks))
