"""Larger Than Life at the table: every action of the engine as a command (R-LTL-2 … R-LTL-18).

Rolls open as tasks that only the roller and the GM see; settling announces them to the table. In a
conflict the open exchange lives in the conflict itself.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from herotable.dice import Rating
from herotable.ltl import conflict as cf
from herotable.ltl.advancement import (
    AddPowerStunt,
    AddSpecialty,
    Improvement,
    NewStyle,
    RaiseBase,
    RaiseHeroism,
    RaiseKarma,
    RaiseStyle,
    RemoveComplication,
    award_hero_points,
    spend_hero_points,
)
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.healing import heal
from herotable.ltl.hero import Defeat, LossType, TimePassed, finish_action, lose_levels, record_defeat, time_passes
from herotable.ltl.heroism import push, recover
from herotable.ltl.karma import Fortune, fortune_by_burning, karma_task, last_chance, power_stunt, stunt_pulled_off
from herotable.ltl.karma import try_again as karma_try_again
from herotable.ltl.options import Initiative
from herotable.ltl.roll import Outcome as Result
from herotable.ltl.roll import RerollSource, Throw
from herotable.ltl.task import (
    CritBonus,
    CritPenalty,
    Settlement,
    Stance,
    Task,
    buy_success_after,
    challenge,
    reroll,
    settle,
)
from herotable.table.commands import Command, Ctx, Outcome, handles, require_controls, require_gm
from herotable.table.model import FailedTask, OpenTask, TableError, TableState, Visibility


def parse_difficulty(text: str) -> Difficulty:
    """A difficulty by name ('Hard'), die ('d10') or number of levels ('4'). Raises TableError."""
    t = text.strip()
    try:
        if t.isdigit():
            return Difficulty.levels(int(t))
        if t.lower().startswith("d"):
            return Difficulty.die(t)
        return Difficulty.named(t)
    except ValueError as err:
        raise TableError(
            "ltl/difficulty", str(err), fix="write Easy … Inconceivable, a die like d8, or a number"
        ) from None


def throw_json(t: Throw) -> dict[str, Any]:
    return {
        "die": f"d{t.sides}",
        "rolls": [list(r.faces) for r in t.rolls],
        "sources": [s.value for s in t.sources],
        "total": t.total,
    }


def task_json(state: TableState, task: Task) -> dict[str, Any]:
    def name(who: str | None) -> str:
        return "GM" if who is None else state.hero(who).name

    return {
        "actor": {
            "character": task.actor.who,
            "name": name(task.actor.who),
            "rating": task.actor.rating.name,
            **throw_json(task.actor.throw),
        },
        "opposition": {
            "character": task.opposition.who,
            "name": name(task.opposition.who),
            "rating": task.opposition.rating.name,
            **throw_json(task.opposition.throw),
        },
        "difficulty": task.difficulty.name if task.difficulty else None,
    }


def settlement_json(state: TableState, s: Settlement) -> dict[str, Any]:
    return {
        "outcome": s.outcome.value,
        "winner": s.winner,
        "loser": s.loser,
        "effect": s.effect,
        "automatic": s.automatic,
        "actor_critical": s.actor_critical.value,
        "opposition_critical": s.opposition_critical.value,
    }


def _about(state: TableState, summary: dict[str, Any], *cids: str) -> Outcome:
    """An event about these characters: GM-only when any of them has a hidden sheet, since its Karma,
    Heroism and spends would reveal that sheet; public otherwise."""
    hidden = any(state.character(cid).hidden for cid in cids)
    return Outcome(state, summary, Visibility.GM if hidden else Visibility.PUBLIC)


def _private(state: TableState, user: str, secret: bool, summary: dict[str, Any]) -> Outcome:
    if secret:
        return Outcome(state, summary, Visibility.GM)
    return Outcome(state, summary, Visibility.OWNER, user)


# --- challenges and their re-rolls ---


@dataclass(frozen=True)
class Challenge(Command):
    """Roll an unopposed task (R-LTL-2, R-LTL-3). `secret` keeps it GM-only even once settled."""

    name = "ltl.challenge"
    character: str
    difficulty: str
    style: str | None = None
    auto_success: bool = False
    must_succeed: bool = False
    secret: bool = False


@handles(Challenge)
def _challenge(state: TableState, cmd: Challenge, ctx: Ctx) -> Outcome:
    require_controls(state, ctx.user, cmd.character)
    if cmd.secret or cmd.must_succeed:
        require_gm(state, ctx.user)
    owner = state.character(cmd.character).owner
    hero, task = challenge(
        state.hero(cmd.character),
        parse_difficulty(cmd.difficulty),
        ctx.rng,
        state.ltl_options,
        stance=Stance(cmd.style, auto_success=cmd.auto_success),
        who=cmd.character,
        must_succeed=cmd.must_succeed,
    )
    opened = OpenTask(ctx.command_id, cmd.character, owner, task, secret=cmd.secret)
    new = replace(state.with_hero(cmd.character, hero), tasks=(*state.tasks, opened))
    return _private(new, owner, cmd.secret, {"task": ctx.command_id, **task_json(new, task)})


@dataclass(frozen=True)
class Reroll(Command):
    """Re-roll in an open task, or in the conflict's open exchange when `task` is None (R-LTL-9)."""

    name = "ltl.reroll"
    character: str
    source: RerollSource
    task: str | None = None
    specialty: str | None = None


def _conflict_open(state: TableState) -> cf.Conflict:
    if state.conflict is None or state.conflict.open is None:
        raise TableError("ltl/nothing_open", "no exchange is being rolled", fix="name the open roll's task id")
    return state.conflict


@handles(Reroll)
def _reroll(state: TableState, cmd: Reroll, ctx: Ctx) -> Outcome:
    require_controls(state, ctx.user, cmd.character)
    owner = state.character(cmd.character).owner
    if cmd.task is None and state.conflict is not None and state.conflict.open is not None:
        c = cf.conflict_reroll(
            _conflict_open(state), cmd.character, cmd.source, ctx.rng, state.ltl_options, specialty=cmd.specialty
        )
        new = replace(state, conflict=c)
        assert c.open is not None
        return _private(new, owner, False, task_json(new, c.open.task))
    opened = state.task(cmd.task)
    hero, task = reroll(
        state.hero(cmd.character),
        opened.task,
        cmd.source,
        ctx.rng,
        state.ltl_options,
        who=cmd.character,
        specialty=cmd.specialty,
    )
    new = _with_task(state.with_hero(cmd.character, hero), replace(opened, task=task))
    return _private(new, opened.owner, opened.secret, {"task": opened.id, **task_json(new, task)})


def _with_task(state: TableState, opened: OpenTask) -> TableState:
    return replace(state, tasks=tuple(opened if t.id == opened.id else t for t in state.tasks))


@dataclass(frozen=True)
class BuySuccess(Command):
    """Burn two levels of Karma after seeing the roll (R-LTL-10)."""

    name = "ltl.buy_success"
    character: str
    task: str | None = None


@handles(BuySuccess)
def _buy(state: TableState, cmd: BuySuccess, ctx: Ctx) -> Outcome:
    require_controls(state, ctx.user, cmd.character)
    owner = state.character(cmd.character).owner
    if cmd.task is None and state.conflict is not None and state.conflict.open is not None:
        c = cf.conflict_buy_success(_conflict_open(state), cmd.character)
        return _private(replace(state, conflict=c), owner, False, {"text": "Automatic Success bought after the roll"})
    opened = state.task(cmd.task)
    hero, task = buy_success_after(state.hero(cmd.character), opened.task, who=cmd.character)
    new = _with_task(state.with_hero(cmd.character, hero), replace(opened, task=task))
    return _private(new, opened.owner, opened.secret, {"task": opened.id, "text": "Automatic Success bought"})


@dataclass(frozen=True)
class Settle(Command):
    """Settle and announce an open roll; in a conflict, resolve the open exchange (R-LTL-3, R-LTL-8, R-LTL-12)."""

    name = "ltl.settle"
    task: str | None = None
    crit_bonus: CritBonus = CritBonus.EXTRA_LEVEL
    crit_penalty: CritPenalty = CritPenalty.MINUS_ONE_NEXT


def _crit_choices(state: TableState, user: str, task: Task, cmd: Settle) -> tuple[CritBonus, CritPenalty]:
    """The roller who wins chooses a critical success's reward (R-LTL-8); a mishap instead of -1 next round is
    the GM's call. Whoever settles for the other side gets the defaults, so nobody chooses for an opponent."""
    gm = state.is_gm(user)
    _, probe = settle(task, state.ltl_options, crit_bonus=CritBonus.OTHER)
    winner = probe.winner
    mine = winner is not None and state.character(winner).owner == user
    if gm or mine:
        bonus = cmd.crit_bonus
    else:
        bonus = CritBonus.EXTRA_LEVEL if probe.effect < state.ltl_options.effect_cap else CritBonus.PLUS_ONE_NEXT
    return bonus, cmd.crit_penalty if gm else CritPenalty.MINUS_ONE_NEXT


@handles(Settle)
def _settle(state: TableState, cmd: Settle, ctx: Ctx) -> Outcome:
    if cmd.task is None and state.conflict is not None and state.conflict.open is not None:
        c = state.conflict
        assert c.open is not None
        require_controls(state, ctx.user, c.open.actor)
        task = c.open.task
        bonus, penalty = _crit_choices(state, ctx.user, task, cmd)
        c, result = cf.resolve(c, state.ltl_options, crit_bonus=bonus, crit_penalty=penalty)
        new = replace(state, conflict=c)
        return Outcome(new, {**task_json(new, task), **settlement_json(new, result)})
    opened = state.task(cmd.task)
    require_controls(state, ctx.user, opened.character)
    bonus, penalty = _crit_choices(state, ctx.user, opened.task, cmd)
    task, result = settle(opened.task, state.ltl_options, crit_bonus=bonus, crit_penalty=penalty)
    new = replace(state, tasks=tuple(t for t in state.tasks if t.id != opened.id))
    hero = state.hero(opened.character)
    if opened.purpose == "stunt" and result.outcome is Result.WIN:
        power, stunt = opened.detail.split(": ", 1)
        hero = stunt_pulled_off(hero, power, stunt, result)
    failed = tuple(f for f in new.failed if f.character != opened.character)
    if task.must_succeed and result.outcome is not Result.WIN:
        failed = (*failed, FailedTask(opened.character, task, result.outcome.value, opened.secret))
    new = replace(new.with_hero(opened.character, finish_action(hero)), failed=failed)
    summary = {"task": opened.id, "purpose": opened.purpose, **task_json(new, task), **settlement_json(new, result)}
    if opened.secret:
        return Outcome(new, summary, Visibility.GM)
    if opened.purpose != "challenge":  # a Karma roll shows the Karma die
        return _about(new, summary, opened.character)
    return Outcome(new, summary)


# --- conflicts (R-LTL-12) ---


@dataclass(frozen=True)
class StartConflict(Command):
    name = "ltl.conflict.start"
    fighters: tuple[tuple[str, str], ...]  # (character, side)
    stakes: LossType = LossType.PHYSICAL
    karma_initiative: tuple[str, ...] = ()


@handles(StartConflict)
def _start_conflict(state: TableState, cmd: StartConflict, ctx: Ctx) -> Outcome:
    require_gm(state, ctx.user)
    if state.conflict is not None:
        raise TableError("ltl/conflict_open", "a conflict is already running", fix="end it first")
    fighters = [(cid, state.character(cid).hero, side) for cid, side in cmd.fighters]
    c = cf.start_conflict(
        fighters, ctx.rng, state.ltl_options, stakes=cmd.stakes, karma_initiative=cmd.karma_initiative
    )
    rolls = {fid: list(r.faces) for fid, r in c.initiative_rolls}
    summary = {"text": "A conflict begins", "order": [list(g) for g in c.order], "initiative": rolls}
    rolled = [fid for fid, _ in c.initiative_rolls]  # initiative dice would reveal a hidden sheet's Power
    return _about(replace(state, conflict=c), summary, *rolled)


@dataclass(frozen=True)
class Attack(Command):
    """Open an exchange against an opponent. The defender's Style defaults to its best one."""

    name = "ltl.attack"
    actor: str
    target: str
    style: str | None = None
    broke: int = 0
    auto_success: bool = False
    target_style: str | None = None


def _best_style(state: TableState, cid: str) -> str | None:
    styles = state.hero(cid).sheet.styles
    return max(styles, key=lambda s: s.rating).name if styles else None


@handles(Attack)
def _attack(state: TableState, cmd: Attack, ctx: Ctx) -> Outcome:
    require_controls(state, ctx.user, cmd.actor)
    c = _need_conflict(state)
    target_style = cmd.target_style if cmd.target_style is not None else _best_style(state, cmd.target)
    c = cf.attack(
        c,
        cmd.actor,
        cmd.target,
        ctx.rng,
        state.ltl_options,
        actor_stance=Stance(cmd.style, cmd.broke, cmd.auto_success),
        target_stance=Stance(target_style),
    )
    new = replace(state, conflict=c)
    assert c.open is not None
    return _private(new, state.character(cmd.actor).owner, False, task_json(new, c.open.task))


@dataclass(frozen=True)
class Attempt(Command):
    """A challenge inside a conflict; failure costs fatigue (R-LTL-12)."""

    name = "ltl.attempt"
    actor: str
    difficulty: str
    style: str | None = None


@handles(Attempt)
def _attempt(state: TableState, cmd: Attempt, ctx: Ctx) -> Outcome:
    require_controls(state, ctx.user, cmd.actor)
    c = cf.attempt(
        _need_conflict(state),
        cmd.actor,
        parse_difficulty(cmd.difficulty),
        ctx.rng,
        state.ltl_options,
        stance=Stance(cmd.style),
    )
    new = replace(state, conflict=c)
    assert c.open is not None
    return _private(new, state.character(cmd.actor).owner, False, task_json(new, c.open.task))


def _need_conflict(state: TableState) -> cf.Conflict:
    if state.conflict is None:
        raise TableError("ltl/no_conflict", "no conflict is running", fix="the GM starts one")
    return state.conflict


@dataclass(frozen=True)
class EndRound(Command):
    name = "ltl.conflict.end_round"


@handles(EndRound)
def _end_round(state: TableState, cmd: EndRound, ctx: Ctx) -> Outcome:
    require_gm(state, ctx.user)
    c, report = cf.end_round(_need_conflict(state), ctx.rng, state.ltl_options)
    opts = state.ltl_options
    # initiative re-rolls and stun checks roll hidden fighters' dice too
    rolled = [f.id for f in c.fighters] if opts.initiative is Initiative.EACH_ROUND or opts.stun_on_damage else []
    return _about(
        replace(state, conflict=c),
        {
            "round": report.round,
            "losses": [{"character": p.target, "levels": p.levels, "kind": p.kind.value} for p in report.losses],
            "stunned": list(report.stunned),
            "defeated": list(report.defeated),
            "over": c.over,
            "winner": c.winner,
            "order": [list(g) for g in c.order],
        },
        *rolled,
    )


@dataclass(frozen=True)
class GiveUp(Command):
    name = "ltl.conflict.give_up"
    character: str


@handles(GiveUp)
def _give_up(state: TableState, cmd: GiveUp, ctx: Ctx) -> Outcome:
    require_controls(state, ctx.user, cmd.character)
    c = cf.give_up(_need_conflict(state), cmd.character)
    return Outcome(replace(state, conflict=c), {"text": f"{state.hero(cmd.character).name} gives up"})


@dataclass(frozen=True)
class PassTurn(Command):
    name = "ltl.conflict.pass"
    character: str


@handles(PassTurn)
def _pass(state: TableState, cmd: PassTurn, ctx: Ctx) -> Outcome:
    require_controls(state, ctx.user, cmd.character)
    c = cf.pass_turn(_need_conflict(state), cmd.character)
    return Outcome(replace(state, conflict=c), {"text": f"{state.hero(cmd.character).name} waits"})


@dataclass(frozen=True)
class EndConflict(Command):
    """The GM ends the conflict; every fighter goes back to the roster as the conflict left them."""

    name = "ltl.conflict.end"


@handles(EndConflict)
def _end_conflict(state: TableState, cmd: EndConflict, ctx: Ctx) -> Outcome:
    require_gm(state, ctx.user)
    c = _need_conflict(state)
    if c.open is not None:
        raise TableError("ltl/exchange_open", "an exchange is still being rolled", fix="settle it first")
    heroes = {f.id: f.hero for f in c.fighters}
    chars = tuple(replace(ch, hero=heroes.get(ch.id, ch.hero)) for ch in state.characters)
    return Outcome(replace(state, conflict=None, characters=chars), {"text": "The conflict ends", "winner": c.winner})


# --- Karma (R-LTL-10) ---


@dataclass(frozen=True)
class TryAgain(Command):
    name = "ltl.karma.try_again"
    character: str


@handles(TryAgain)
def _try_again(state: TableState, cmd: TryAgain, ctx: Ctx) -> Outcome:
    require_controls(state, ctx.user, cmd.character)
    hero = karma_try_again(state.hero(cmd.character))
    text = f"{hero.name} burns Karma for two Try Again tokens"
    return _about(state.with_hero(cmd.character, hero), {"text": text, "karma": hero.karma.name}, cmd.character)


@dataclass(frozen=True)
class FortuneBurn(Command):
    """Deus Ex Machina or Narrative Power for the levels the GM sets (R-LTL-10)."""

    name = "ltl.karma.fortune"
    character: str
    use: Fortune
    levels: int


@handles(FortuneBurn)
def _fortune(state: TableState, cmd: FortuneBurn, ctx: Ctx) -> Outcome:
    require_gm(state, ctx.user)  # the GM sets the cost and agrees to the change (R-T-2)
    hero = fortune_by_burning(state.hero(cmd.character), cmd.use, cmd.levels)
    text = f"{hero.name}: {cmd.use.value.replace('_', ' ')}"
    return _about(state.with_hero(cmd.character, hero), {"text": text, "karma": hero.karma.name}, cmd.character)


@dataclass(frozen=True)
class KarmaRoll(Command):
    """Roll Karma against a GM difficulty: a Power Stunt, Deus Ex Machina or Narrative Power (R-LTL-10)."""

    name = "ltl.karma.roll"
    character: str
    difficulty: str
    purpose: str = "karma"  # karma | stunt
    power: str = ""
    stunt: str = ""


@handles(KarmaRoll)
def _karma_roll(state: TableState, cmd: KarmaRoll, ctx: Ctx) -> Outcome:
    require_controls(state, ctx.user, cmd.character)
    hero = state.hero(cmd.character)
    difficulty = parse_difficulty(cmd.difficulty)
    detail = ""
    if cmd.purpose == "stunt":
        task = power_stunt(hero, cmd.power, cmd.stunt, difficulty, ctx.rng, state.ltl_options)
        power = next(p.name for p in hero.sheet.superpowers if p.name.lower() == cmd.power.strip().lower())
        detail = f"{power}: {cmd.stunt.strip()}"
    elif cmd.purpose == "karma":
        task = karma_task(hero, difficulty, ctx.rng, state.ltl_options)
    else:
        raise TableError("ltl/karma_purpose", f"unknown Karma roll {cmd.purpose!r}", fix="use 'karma' or 'stunt'")
    task = replace(task, actor=replace(task.actor, who=cmd.character))
    owner = state.character(cmd.character).owner
    opened = OpenTask(ctx.command_id, cmd.character, owner, task, purpose=cmd.purpose, detail=detail)
    new = replace(state, tasks=(*state.tasks, opened))
    return _private(new, owner, False, {"task": ctx.command_id, **task_json(new, task)})


@dataclass(frozen=True)
class LastChance(Command):
    name = "ltl.karma.last_chance"
    character: str
    burn: bool = False
    harder: bool = False


@handles(LastChance)
def _last_chance(state: TableState, cmd: LastChance, ctx: Ctx) -> Outcome:
    require_controls(state, ctx.user, cmd.character)
    failed = next((f for f in state.failed if f.character == cmd.character), None)
    if failed is None:
        raise TableError(
            "ltl/no_failed_task",
            "there is no failed must-succeed task to follow",
            fix="fail one first",
            ruling="R-LTL-10",
        )
    chance = last_chance(
        state.hero(cmd.character),
        failed.task,
        Result(failed.outcome),
        ctx.rng,
        state.ltl_options,
        burn=cmd.burn,
        harder=cmd.harder,
    )
    new = replace(
        state.with_hero(cmd.character, chance.hero),
        failed=tuple(f for f in state.failed if f.character != cmd.character),
    )
    if chance.task is None:
        return Outcome(new, {"text": f"{chance.hero.name} burns Karma: Last Chance succeeds outright"})
    owner = state.character(cmd.character).owner
    opened = OpenTask(ctx.command_id, cmd.character, owner, chance.task, purpose="last_chance")
    new = replace(new, tasks=(*new.tasks, opened))
    return _private(new, owner, False, {"task": ctx.command_id, **task_json(new, chance.task)})


# --- Heroism (R-LTL-11) ---


@dataclass(frozen=True)
class Push(Command):
    name = "ltl.heroism.push"
    character: str
    burn: bool = False


@dataclass(frozen=True)
class Recover(Command):
    name = "ltl.heroism.recover"
    character: str
    burn: bool = False


def _heroism_summary(result: Any, text: str) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "text": text,
        "succeeded": result.succeeded,
        "burned": result.burned,
        "heroism": result.hero.heroism.name,
    }
    if result.roll is not None:
        summary["rolls"] = {
            "heroism": list(result.roll.mine.result.faces),
            "difficulty": f"d{result.roll.theirs.sides}",
            "against": list(result.roll.theirs.result.faces),
        }
    return summary


@handles(Push)
def _push(state: TableState, cmd: Push, ctx: Ctx) -> Outcome:
    require_controls(state, ctx.user, cmd.character)
    stakes = state.conflict.stakes if state.conflict else None
    result = push(state.hero(cmd.character), ctx.rng, state.ltl_options, burn=cmd.burn, stakes=stakes)
    summary = _heroism_summary(result, f"{result.hero.name} pushes")
    return _about(state.with_hero(cmd.character, result.hero), summary, cmd.character)


@handles(Recover)
def _recover(state: TableState, cmd: Recover, ctx: Ctx) -> Outcome:
    require_controls(state, ctx.user, cmd.character)
    result = recover(state.hero(cmd.character), ctx.rng, state.ltl_options, burn=cmd.burn)
    summary = _heroism_summary(result, f"{result.hero.name} tries to recover")
    return _about(state.with_hero(cmd.character, result.hero), summary, cmd.character)


# --- defeat, time, healing, Hero Points, overrides ---


@dataclass(frozen=True)
class RecordDefeat(Command):
    name = "ltl.defeat"
    character: str
    consequence: str = Defeat.UNCONSCIOUS.value


@handles(RecordDefeat)
def _defeat(state: TableState, cmd: RecordDefeat, ctx: Ctx) -> Outcome:
    require_gm(state, ctx.user)
    stakes = state.conflict.stakes if state.conflict else None
    hero = record_defeat(state.hero(cmd.character), cmd.consequence, stakes)
    return Outcome(state.with_hero(cmd.character, hero), {"text": f"{hero.name}: {cmd.consequence}"})


@dataclass(frozen=True)
class TimePasses(Command):
    name = "ltl.time_passes"
    period: TimePassed
    characters: tuple[str, ...] = ()


@handles(TimePasses)
def _time(state: TableState, cmd: TimePasses, ctx: Ctx) -> Outcome:
    require_gm(state, ctx.user)
    for cid in cmd.characters:
        state.character(cid)
    who = set(cmd.characters) or {c.id for c in state.characters}
    new = state
    for cid in sorted(who):
        new = new.with_hero(cid, time_passes(new.hero(cid), cmd.period))
    return Outcome(new, {"text": f"Time passes: {cmd.period.value}"})


@dataclass(frozen=True)
class Heal(Command):
    name = "ltl.heal"
    healer: str
    patient: str
    style: str | None = None


@handles(Heal)
def _heal(state: TableState, cmd: Heal, ctx: Ctx) -> Outcome:
    require_controls(state, ctx.user, cmd.healer)
    result = heal(state.hero(cmd.healer), state.hero(cmd.patient), ctx.rng, state.ltl_options, power_style=cmd.style)
    summary = {
        "healed": result.healed,
        "levels": result.levels_healed,
        "healer": throw_json(result.healer_throw),
        "difficulty": throw_json(result.difficulty_throw),
    }
    return _about(state.with_hero(cmd.patient, result.patient), summary, cmd.healer, cmd.patient)


@dataclass(frozen=True)
class AwardHeroPoints(Command):
    name = "ltl.hero_points.award"
    character: str
    points: int


@handles(AwardHeroPoints)
def _award(state: TableState, cmd: AwardHeroPoints, ctx: Ctx) -> Outcome:
    require_gm(state, ctx.user)
    hero = award_hero_points(state.hero(cmd.character), cmd.points)
    return _about(
        state.with_hero(cmd.character, hero), {"text": f"{hero.name} earns {cmd.points} Hero Points"}, cmd.character
    )


IMPROVEMENTS: dict[str, type[Any]] = {
    "raise_style": RaiseStyle,
    "new_style": NewStyle,
    "raise_base": RaiseBase,
    "raise_heroism": RaiseHeroism,
    "raise_karma": RaiseKarma,
    "add_specialty": AddSpecialty,
    "add_power_stunt": AddPowerStunt,
    "remove_complication": RemoveComplication,
}


@dataclass(frozen=True)
class SpendHeroPoints(Command):
    """Buy an improvement (R-LTL-16): kind is one of IMPROVEMENTS; `target` and `detail` name what."""

    name = "ltl.hero_points.spend"
    character: str
    kind: str
    target: str = ""
    detail: str = ""


def improvement(cmd: SpendHeroPoints) -> Improvement:
    cls = IMPROVEMENTS.get(cmd.kind)
    if cls is None:
        raise TableError(
            "ltl/improvement",
            f"unknown improvement {cmd.kind!r}",
            fix=f"use one of {', '.join(IMPROVEMENTS)}",
            ruling="R-LTL-16",
        )
    if cls in (RaiseBase, RaiseHeroism, RaiseKarma):
        return cls()  # type: ignore[no-any-return]
    if cls is AddPowerStunt:
        return AddPowerStunt(cmd.target, cmd.detail)
    return cls(cmd.target)  # type: ignore[no-any-return]


@handles(SpendHeroPoints)
def _spend(state: TableState, cmd: SpendHeroPoints, ctx: Ctx) -> Outcome:
    require_controls(state, ctx.user, cmd.character)
    if state.conflict is not None:
        raise TableError(
            "ltl/spend_in_conflict",
            "Hero Points are spent between adventures, not mid-fight",
            fix="end the conflict first",
            ruling="R-LTL-16",
        )
    hero = spend_hero_points(state.hero(cmd.character), improvement(cmd))
    last = hero.sheet.history[-1]
    summary = {"text": f"{hero.name} spends {last.cost} Hero Points", "spend": vars(last)}
    return _about(state.with_hero(cmd.character, hero), summary, cmd.character)


@dataclass(frozen=True)
class Override(Command):
    """The GM overrides a computed result (R-T-2): set Karma or Heroism, add or clear losses, set flags."""

    name = "ltl.override"
    character: str
    reason: str
    karma: str | None = None
    heroism: str | None = None
    lose: int = 0
    lose_kind: LossType = LossType.PHYSICAL
    clear_losses: bool = False
    unconscious: bool | None = None
    defeat: str | None = None
    try_again_tokens: int | None = None


@handles(Override)
def _override(state: TableState, cmd: Override, ctx: Ctx) -> Outcome:
    require_gm(state, ctx.user)
    if not cmd.reason.strip():
        raise TableError("ltl/override_reason", "an override needs a reason for the log", fix="say why", ruling="R-T-2")
    hero = state.hero(cmd.character)
    try:
        if cmd.karma is not None:
            hero = replace(hero, karma=Rating.of(cmd.karma) if cmd.karma != "below d4" else Rating(0))
        if cmd.heroism is not None:
            hero = replace(hero, heroism=Rating.of(cmd.heroism) if cmd.heroism != "below d4" else Rating(0))
    except ValueError as err:
        raise TableError(
            "ltl/override_die", str(err), fix="write a die like d8, or 'below d4'", ruling="R-T-2"
        ) from None
    if cmd.clear_losses:
        hero = replace(hero, losses=())
    if cmd.lose:
        hero = lose_levels(hero, cmd.lose, cmd.lose_kind, note="GM override")
    if cmd.unconscious is not None:
        hero = replace(hero, unconscious=cmd.unconscious)
    if cmd.defeat is not None:
        hero = replace(hero, defeat=cmd.defeat or None)
    if cmd.try_again_tokens is not None:
        hero = replace(hero, try_again_tokens=max(0, cmd.try_again_tokens))
    return _about(
        state.with_hero(cmd.character, hero), {"text": f"GM override on {hero.name}: {cmd.reason}"}, cmd.character
    )
