"""Deciding Larger Than Life commands: permissions, then the rules engine (`herotable.ltl`), then facts.

Each handler runs the rules on the current heroes and rolls, describes what changed as facts, and returns the
table the rules computed (`expected`) so tests can hold the fold of the facts to it.

Who sees what: a pending roll reaches its roller's player and the GM until it is settled (R-LTL-9); a conflict's
exchange is declared at the table (who attacks whom, Going For Broke) but its dice stay with their rollers until
settled; a GM secret roll, and everything it changes, is the GM's; a fact that would reveal a hidden sheet
(its Karma, Heroism, Hero Points, dice) is the GM's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from herotable.dice import Rating
from herotable.errors import IllegalAction
from herotable.ltl import conflict as cf
from herotable.ltl.advancement import (
    AddPowerStunt,
    AddSpecialty,
    NewStyle,
    RaiseBase,
    RaiseHeroism,
    RaiseKarma,
    RaiseStyle,
    RemoveComplication,
    award_hero_points,
    spend_hero_points,
)
from herotable.ltl.advancement import Improvement as RulesImprovement
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.healing import heal, healing_power, power_style
from herotable.ltl.hero import GM_CHOSEN_LOSSES, Hero, NextRound, finish_action, lose_levels, record_defeat, time_passes
from herotable.ltl.heroism import HeroismResult, push, recover
from herotable.ltl.karma import fortune_by_burning, karma_task, last_chance, power_stunt, stunt_pulled_off
from herotable.ltl.karma import try_again as karma_try_again
from herotable.ltl.roll import Critical, RerollSource, Throw, compare
from herotable.ltl.roll import Outcome as Result
from herotable.ltl.sheet import sheet_from_dict, sheet_to_dict
from herotable.ltl.task import (
    CritBonus,
    CritPenalty,
    Settlement,
    Stance,
    Task,
    buy_success_after,
    challenge,
    crit_reward,
    reroll,
    scene_roll,
    scene_settled,
    settle,
)
from herotable.names import meant, typo_distance
from herotable.table.commands import (
    Ctx,
    Decision,
    audience,
    controls,
    handles,
    new_character_owner,
    private,
    require_controls,
    require_gm,
)
from herotable.table.core import CharacterJoined
from herotable.table.facts import Emitted, Fact, Visibility
from herotable.table.kit import hero_changes, secret_spends_nothing
from herotable.table.ltl.commands import (
    AllowRecovery,
    Attack,
    Attempt,
    AwardHeroPoints,
    BuySuccess,
    CallKind,
    CallRoll,
    Challenge,
    ChooseCritReward,
    CreateLtlCharacter,
    DifficultyName,
    EndConflict,
    EndRound,
    FortuneBurn,
    GiveUp,
    Heal,
    Improvement,
    InitiativeFirst,
    InitiativeReroll,
    KarmaPurpose,
    KarmaRoll,
    LastChance,
    Override,
    PassTurn,
    Push,
    RecordDefeat,
    Recover,
    Reroll,
    SetDefence,
    SetSituational,
    Settle,
    SpendHeroPoints,
    StartConflict,
    TimePasses,
    TryAgain,
)
from herotable.table.ltl.evolve import evolve
from herotable.table.ltl.facts import (
    AcceptancesLapsed,
    CallClosed,
    ConflictEnded,
    ConflictStarted,
    CritRewardChosen,
    CritRewardDue,
    DefenceSet,
    DieRerolled,
    DieRevealed,
    DieRolled,
    FighterActed,
    FighterGaveUp,
    FighterPassed,
    HealingRolled,
    HeroismRolled,
    InitiativeBought,
    InitiativeOrder,
    InitiativeReordered,
    InitiativeRerolled,
    InitiativeRolled,
    LastChanceTaken,
    LossPending,
    Overridden,
    RecoveryAllowed,
    RecoveryLapsed,
    RecoveryTried,
    RollAccepted,
    RollCalled,
    RoundEnded,
    SheetRecorded,
    SituationalSet,
    SuccessBought,
    TaskOpened,
    TaskSettled,
    TimePassed,
    hero_facts,
    reveals_sheet,
)
from herotable.table.ltl.state import (
    CalledRoll,
    CritDue,
    FailedTask,
    LtlTable,
    OpenAction,
    OpenTask,
    RecoveryLeave,
    accepts_for,
    failures_after_settling,
    from_rules,
    rules_conflict,
    waiting_for,
)
from herotable.table.state import Forbidden, Ruleset, TableError, TableState

LTL = Ruleset.LTL


def table_of(state: TableState) -> LtlTable:
    game = state.game
    assert isinstance(game, LtlTable), "a Larger Than Life campaign holds a Larger Than Life table"
    return game


def difficulty(name: DifficultyName) -> Difficulty:
    return Difficulty.named(name.value)


def changes(
    state: TableState,
    before: LtlTable,
    after: LtlTable,
    cause: str,
    *,
    secret: bool = False,
    causes: Mapping[str, str] | None = None,
) -> list[Emitted]:
    """Every hero that changed between two tables, as facts with their audiences (`kit.hero_changes`); `causes` may
    name another cause per aspect (karma, heroism, losses, tokens, status, defeat)."""
    return hero_changes(
        state,
        before.heroes,
        after.heroes,
        lambda cid, old, new: hero_facts(cid, old, new, cause, **(causes or {})),
        reveals_sheet,
        secret=secret,
    )


def _private(state: TableState, cid: str | None, f: Fact, secret: bool) -> Emitted:
    if cid is None:
        return Emitted(f, Visibility.GM)
    return private(state, cid, f, secret=secret)


def _rolled(
    roll_id: str, side: str, who: str | None, t: Task, style: str | None = None, situation: tuple[int, str] = (0, "")
) -> DieRolled:
    s = t.actor if side == "actor" else t.opposition
    shift, reason = situation
    return DieRolled(
        roll_id,
        side,
        who,
        s.rating.position,
        s.throw.sides,
        s.throw.rolls[0].faces,
        style,
        s.karma_roll,
        s.throw.penalty,
        shift,
        reason.strip() if shift else "",
    )


def _revealed(roll_id: str, side: str, t: Task, style: str | None = None) -> DieRevealed:
    s = t.actor if side == "actor" else t.opposition
    th: Throw = s.throw
    return DieRevealed(
        roll_id,
        side,
        s.who,
        s.rating.position,
        th.sides,
        tuple(r.faces for r in th.rolls),
        tuple(src.value for src in th.sources),
        th.kept,
        style,
    )


def _opened(
    state: TableState,
    roll_id: str,
    purpose: str,
    t: Task,
    *,
    secret: bool = False,
    detail: str = "",
    style: str | None = None,
    target_style: str | None = None,
    in_conflict: bool = False,
    target: str | None = None,
    situation: tuple[int, str] = (0, ""),
    target_situation: tuple[int, str] = (0, ""),
) -> list[Emitted]:
    """A new roll's facts: its opening (declared at the table in a conflict), then each side's die, seen by that
    side's roller and the GM, each with the GM's situational modifier on it (R-T-2)."""
    actor = t.actor.who
    assert actor is not None
    opened = TaskOpened(
        roll_id,
        purpose,
        actor,
        target,
        None if t.difficulty is None or t.difficulty.rating is None else t.difficulty.rating.position,
        t.stakes.value if t.stakes else None,
        t.must_succeed,
        secret,
        detail,
        t.actor.broke,
        t.actor.auto_success,
        in_conflict,
    )
    first = (
        Emitted(opened, Visibility.GM)
        if secret
        else (Emitted(opened) if in_conflict else private(state, actor, opened))
    )
    opposition_roller = target if target is not None else actor  # the GM's difficulty die goes to the actor's side
    return [
        first,
        _private(state, actor, _rolled(roll_id, "actor", actor, t, style, situation), secret),
        _private(
            state, opposition_roller, _rolled(roll_id, "opposition", target, t, target_style, target_situation), secret
        ),
    ]


def _scene_effects(state: TableState, cid: str, secret: bool) -> bool:
    """Whether a roll outside a conflict takes up and leaves critical effects for the hero's next roll (R-LTL-8
    amended): every roll but a GM secret one on a character the players see, which spends nothing of it (R-T-3)."""
    return not secret or state.character(cid).hidden


def _scene_roll(state: TableState, hero: Hero, cid: str, secret: bool) -> Hero:
    """The hero as it rolls outside a conflict: the critical effects waiting for its next roll come into force
    (R-LTL-8 amended)."""
    return scene_roll(hero) if _scene_effects(state, cid, secret) else hero


def _side_of(t: Task, cid: str) -> str:
    return "actor" if t.actor.who == cid else "opposition"


def _settled(
    state: TableState,
    roll_id: str,
    t: Task,
    result: Settlement,
    bonus: str,
    penalty: CritPenalty,
    *,
    failed_must_succeed: bool = False,
    in_conflict: bool = False,
    stunt: str | None = None,
    label: str = "",
) -> TaskSettled:
    return TaskSettled(
        roll_id,
        result.outcome.value,
        result.winner,
        result.loser,
        result.effect,
        result.automatic,
        result.actor_critical.value,
        result.opposition_critical.value,
        bonus,
        penalty.value,
        failed_must_succeed,
        in_conflict,
        stunt,
        label,
    )


def _stunt_shown(state: TableState, roll: OpenTask) -> str | None:
    """The Power Stunt a settle names ("Power: stunt"): the one its roll was for, as its opening named it to the roller
    and the GM. None for another roll, and for a hidden character's stunt: its Superpowers are the GM's to see (R-T-2),
    as is the stunt it pulls off."""
    if roll.purpose != "stunt" or state.character(roll.character).hidden:
        return None
    return roll.detail


def _reveals(state: TableState, roll_id: str, t: Task, secret: bool) -> list[Emitted]:
    out = []
    for side in ("actor", "opposition"):
        who = (t.actor if side == "actor" else t.opposition).who
        f = _revealed(roll_id, side, t)
        if secret or (who is not None and state.character(who).hidden):
            out.append(Emitted(f, Visibility.GM))
        else:
            out.append(Emitted(f))
    return out


# --- characters ---


@handles(CreateLtlCharacter, LTL)
def _create(state: TableState, cmd: CreateLtlCharacter, ctx: Ctx) -> Decision:
    owner = new_character_owner(state, ctx.user, cmd.character, cmd.owner, npc=cmd.npc, hidden=cmd.hidden)
    sheet = sheet_from_dict(cmd.sheet)
    table = table_of(state)
    joined = CharacterJoined(cmd.character, owner, sheet.name, cmd.npc, cmd.hidden)
    recorded = SheetRecorded(cmd.character, sheet_to_dict(sheet))
    expected = table.with_hero(cmd.character, Hero.from_sheet(sheet))
    return Decision([Emitted(joined), Emitted(recorded, Visibility.GM if cmd.hidden else Visibility.PUBLIC)], expected)


# --- what the GM calls for (R-T-3) ---

_ROLLED_WITH = {
    CallKind.CHALLENGE: Challenge.type,
    CallKind.ATTEMPT: Attempt.type,
    CallKind.KARMA: KarmaRoll.type,
    CallKind.STUNT: KarmaRoll.type,
    CallKind.LAST_CHANCE: LastChance.type,
}
_CALL_FIELDS = {  # what each kind of call lets the GM set besides the difficulty
    CallKind.CHALLENGE: {"must_succeed"},
    CallKind.ATTEMPT: set(),
    CallKind.KARMA: set(),
    CallKind.STUNT: {"power", "stunt"},
    CallKind.LAST_CHANCE: {"harder"},
}


def _call_difficulty(cmd: CallRoll) -> None:
    if cmd.kind is CallKind.LAST_CHANCE:
        if cmd.difficulty is not None:
            raise TableError(
                "ltl/call_difficulty",
                "a Last Chance is rolled against its failed task's difficulty",
                fix="leave the difficulty out; make it one level harder with `harder`",
                ruling="R-LTL-10",
            )
        return
    if cmd.difficulty is None:
        raise TableError("ltl/no_difficulty", "a call needs a difficulty", fix="set the difficulty", ruling="R-LTL-2")
    if cmd.difficulty is DifficultyName.IMPOSSIBLE:
        raise TableError(
            "ltl/impossible",
            "no roll is allowed against Impossible, and no Karma buys it",
            fix="tell the player it cannot be done, or call for a lower difficulty",
            ruling="R-LTL-2",
        )


def known_stunts(hero: Hero, power: str | None = None) -> tuple[str, ...]:
    """The stunts a hero's Superpower (each of them, without `power`) is known for: on the sheet, or pulled off with
    Karma before (R-LTL-10, R-LTL-16)."""
    out: list[str] = []
    for p in hero.sheet.superpowers:
        if power is None or p.name == power:
            out += [s for s in p.stunts if s not in out]
    for entry in hero.stunts_pulled_off:
        of, _, stunt = entry.partition(": ")
        if (power is None or of == power) and stunt and stunt not in out:
            out.append(stunt)
    return tuple(out)


def _stunt_not_a_typo(hero: Hero, power: str, stunt: str) -> str:
    """The stunt's name as the power knows it ("clap" is its "Clap"), or as typed for a new one; a name a typo away
    from a known one is refused with the name meant (rules version 8): a misspelt retry would be remembered as a
    second stunt. Raises TableError."""
    known = known_stunts(hero, power)
    same = next((k for k in known if typo_distance(stunt, k) == 0), None)
    if same is not None:
        return same
    near = meant(stunt, known)
    if near is not None:
        raise TableError(
            "ltl/stunt_typo",
            f"{power} knows no stunt called {' '.join(stunt.split())!r}: did you mean {near}?",
            fix=f"name it {near}, or give a new stunt a name of its own",
            ruling="R-LTL-10",
        )
    return " ".join(stunt.split())


@handles(CallRoll, LTL)
def _call(state: TableState, cmd: CallRoll, ctx: Ctx) -> Decision:
    """The GM calls for a roll and sets its difficulty; the character's controller rolls it (R-T-3)."""
    require_gm(state, ctx.user)
    table = table_of(state)
    hero = table.hero(cmd.character)
    _call_difficulty(cmd)
    given = {
        name
        for name, value in (
            ("must_succeed", cmd.must_succeed),
            ("power", cmd.power.strip()),
            ("stunt", cmd.stunt.strip()),
            ("harder", cmd.harder),
        )
        if value
    }
    wrong = sorted(given - _CALL_FIELDS[cmd.kind])
    if wrong:
        raise TableError(
            "ltl/call_field",
            f"a call for {cmd.kind.value.replace('_', ' ')} sets no {', '.join(wrong)}",
            fix=f"leave {', '.join(wrong)} out",
            ruling="R-T-3",
        )
    power = stunt = ""
    if cmd.kind in (CallKind.KARMA, CallKind.STUNT, CallKind.LAST_CHANCE) and not hero.karma.usable:
        raise TableError(
            "karma/below_d4", f"{hero.name} has no usable Karma", fix="call for another roll", ruling="R-LTL-10"
        )
    if cmd.kind is CallKind.STUNT:
        power = next((p.name for p in hero.sheet.superpowers if p.name.lower() == cmd.power.strip().lower()), "")
        stunt = " ".join(cmd.stunt.split())
        if not power or not stunt:
            powers = ", ".join(p.name for p in hero.sheet.superpowers) or "none"
            raise TableError(
                "ltl/stunt_named",
                "a Power Stunt's call names one of the hero's Superpowers and the stunt",
                fix=f"name the Superpower ({powers}) and the stunt",
                ruling="R-LTL-10",
            )
        stunt = _stunt_not_a_typo(hero, power, stunt)
    if cmd.kind is CallKind.ATTEMPT:
        _need_conflict(table).fighter(cmd.character)
    failed = failed_task(state, table, cmd.character, ctx.user)
    if cmd.kind is CallKind.LAST_CHANCE and (hero.last_chance_used or failed is None):
        raise TableError(
            "ltl/no_failed_task",
            f"{hero.name} has no failed must-succeed task to follow"
            + (" (Last Chance is used this adventure)" if hero.last_chance_used else ""),
            fix="call for Last Chance after a must-succeed task fails, once an adventure",
            ruling="R-LTL-10",
        )
    if cmd.kind is CallKind.LAST_CHANCE and failed is not None and failed.secret:
        raise TableError(
            "ltl/secret_last_chance",
            "the failed task was a secret roll: a call would tell its player of it",
            fix="roll the Last Chance yourself",
            ruling="R-T-3",
        )
    difficulty_name = None if cmd.difficulty is None else cmd.difficulty.value
    label = " ".join(cmd.label.split())
    called = RollCalled(
        ctx.command_id,
        cmd.character,
        cmd.kind.value,
        difficulty_name,
        label,
        cmd.must_succeed,
        power,
        stunt,
        cmd.harder,
        cmd.shift,
        " ".join(cmd.reason.split()) if cmd.shift else "",
    )
    return Decision([private(state, cmd.character, called)], evolve(table, called))  # the call, kept as facts keep it


def _take_call(
    state: TableState, table: LtlTable, user: str, cid: str, call: str, kind: str, given: Iterable[str]
) -> tuple[CalledRoll, LtlTable, Emitted]:
    """The call a roll names among those the member may see (their characters'; the GM: all), the table without it
    and the fact closing it. Raises TableError for another character's or kind's call, Forbidden for a field the call
    sets."""
    found = next(
        (c for c in table.calls if c.id == call and c.character == cid and controls(state, user, c.character)), None
    )
    if found is None:
        raise TableError(
            "ltl/no_call",
            f"no roll called for {state.character(cid).name} goes by that name",
            fix="roll one of the rolls the GM has called for your character, or ask the GM to call for one",
            ruling="R-T-3",
        )
    command = _ROLLED_WITH[CallKind(found.kind)]
    if found.kind not in kind.split("|"):
        raise TableError(
            "ltl/call_kind",
            f"that call is for {found.kind.replace('_', ' ')}",
            fix=f"roll it with {command}",
            ruling="R-T-3",
        )
    named = sorted(given)
    if named:
        raise Forbidden(
            "ltl/called",
            f"the GM's call sets the {', '.join(named)} of this roll",
            fix=f"leave {', '.join(named)} out",
            ruling="R-T-3",
        )
    closed = private(state, cid, CallClosed(found.id, cid, False))
    return found, replace(table, calls=tuple(c for c in table.calls if c.id != found.id)), closed


def _called_difficulty(called: CalledRoll) -> DifficultyName:
    assert called.difficulty is not None, "a call for a roll against a difficulty names it"
    return DifficultyName(called.difficulty)


def _gm_sets(state: TableState, user: str, what: str) -> None:
    """A roll without a call: only the GM sets its difficulty (R-T-3)."""
    if not state.is_gm(user):
        raise Forbidden(
            "ltl/gm_sets_difficulty",
            f"the difficulty of {what} is the GM's to set",
            fix="roll one the GM has called for (name its call), or ask the GM to call for one",
            ruling="R-T-3",
        )


def _direct(name: DifficultyName | None) -> DifficultyName:
    if name is None:
        raise TableError("ltl/no_difficulty", "a roll needs a difficulty", fix="set the difficulty", ruling="R-LTL-2")
    return name


def calls_lapsed(state: TableState, table: LtlTable, *, kinds: tuple[str, ...] | None = None) -> Decision:
    """Calls not rolled lapse: every one at a scene's end, an attempt's at its conflict's end (R-T-3)."""
    gone = [c for c in table.calls if kinds is None or c.kind in kinds]
    facts = [private(state, c.character, CallClosed(c.id, c.character, True)) for c in gone]
    return Decision(facts, replace(table, calls=tuple(c for c in table.calls if c not in gone)))


def leave_lapsed(state: TableState, table: LtlTable, *, scopes: tuple[str, ...] | None = None) -> Decision:
    """The GM's leave to try Recovery ends with the scene, or the conflict, it was given for (R-LTL-11 amended)."""
    gone = [r for r in table.recovery if scopes is None or r.scope in scopes]
    facts = [Emitted(RecoveryLapsed(r.character), audience(state, r.character)) for r in gone]
    return Decision(facts, replace(table, recovery=tuple(r for r in table.recovery if r not in gone)))


# --- challenges and their re-rolls ---


@handles(Challenge, LTL)
def _challenge(state: TableState, cmd: Challenge, ctx: Ctx) -> Decision:
    """A challenge the GM called for, rolled by the character's controller, or one the GM rolls directly (R-T-3)."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    lead: list[Emitted] = []
    label = ""
    if cmd.call is not None:
        given = [n for n, v in (("difficulty", cmd.difficulty), ("must_succeed", cmd.must_succeed)) if v]
        given += ["secret"] * cmd.secret + _situation_given(cmd.shift, cmd.reason)
        called, table, closed = _take_call(state, table, ctx.user, cmd.character, cmd.call, "challenge", given)
        name, must_succeed, label, lead = _called_difficulty(called), called.must_succeed, called.label, [closed]
        situation = (called.shift, called.reason)
    else:
        _gm_sets(state, ctx.user, "a challenge")
        name, must_succeed, situation = _direct(cmd.difficulty), cmd.must_succeed, (cmd.shift, cmd.reason)
    if cmd.secret and cmd.auto_success:
        secret_spends_nothing(state, cmd.character)
    paid, task = challenge(
        _scene_roll(state, table.hero(cmd.character), cmd.character, cmd.secret),
        difficulty(name),
        ctx.rng,
        table.options,
        stance=Stance(cmd.style, auto_success=cmd.auto_success, shift=situation[0]),
        who=cmd.character,
        must_succeed=must_succeed,
    )
    opened = OpenTask(ctx.command_id, cmd.character, task, "challenge", cmd.secret, label)
    after = replace(table.with_hero(cmd.character, paid), tasks=(*table.tasks, opened))
    facts = lead + changes(state, table, after, "automatic_success", secret=cmd.secret)
    facts += _opened(
        state, ctx.command_id, "challenge", task, secret=cmd.secret, style=cmd.style, detail=label, situation=situation
    )
    return Decision(facts, after)


def _open_roll(state: TableState, table: LtlTable, task_id: str | None, user: str) -> OpenTask | OpenAction:
    """The roll a command names: an open task, or the conflict's open action (by its id, or when none is named).
    A pending roll outside a conflict exists only for its roller's player and the GM (a secret one for the GM)."""
    c = table.conflict
    if c is not None and c.open is not None and (task_id is None or task_id == c.open.id):
        return c.open
    gm = state.is_gm(user)
    visible = [t for t in table.tasks if gm or (not t.secret and controls(state, user, t.character))]
    if task_id is None and len(visible) == 1:
        return visible[0]
    found = next((t for t in visible if t.id == task_id), None)
    if found is None:
        raise TableError(
            "table/no_task",
            "no such open roll" if task_id or not visible else f"{len(visible)} of your rolls are open; say which",
            fix="name one of your open rolls",
            ruling="R-LTL-9",
        )
    return found


def _not_revealed(state: TableState, roll: OpenTask | OpenAction) -> None:
    if roll.id in state.revealed:
        raise TableError(
            "roll/revealed",
            "this roll was already settled and shown to the table before the GM undid it",
            fix="settle it as it stands; a re-roll would act on a result everyone has seen",
            ruling="R-T-4",
        )


def _specialty_only_for_its_reroll(source: RerollSource, specialty: str | None) -> None:
    """A re-roll names a Specialty only when the Specialty is its source (R-LTL-17). Raises TableError."""
    if specialty is not None and source is not RerollSource.SPECIALTY:
        raise TableError(
            "ltl/specialty_unused",
            f"a {source.value.replace('_', ' ')} re-roll names no Specialty",
            fix="leave the Specialty out, or re-roll with the Specialty as the source",
            ruling="R-LTL-17",
        )


@handles(Reroll, LTL)
def _reroll(state: TableState, cmd: Reroll, ctx: Ctx) -> Decision:
    require_controls(state, ctx.user, cmd.character)
    _specialty_only_for_its_reroll(cmd.source, cmd.specialty)
    table = table_of(state)
    roll = _open_roll(state, table, cmd.task, ctx.user)
    _not_revealed(state, roll)
    if isinstance(roll, OpenAction):
        c = cf.conflict_reroll(
            rules_conflict(table), cmd.character, cmd.source, ctx.rng, table.options, specialty=cmd.specialty
        )
        after = from_rules(table, c, roll.id)
        assert c.open is not None
        task, secret = c.open.task, False
    else:
        hero, task = reroll(
            table.hero(cmd.character),
            roll.task,
            cmd.source,
            ctx.rng,
            table.options,
            who=cmd.character,
            specialty=cmd.specialty,
        )
        after = replace(table.with_hero(cmd.character, hero), tasks=_replaced(table.tasks, replace(roll, task=task)))
        secret = roll.secret
    side = _side_of(task, cmd.character)
    s = task.actor if side == "actor" else task.opposition
    specialty = s.specialties_used[-1] if cmd.source is RerollSource.SPECIALTY else None
    rerolled = DieRerolled(
        roll.id, side, cmd.character, cmd.source.value, s.throw.sides, s.throw.rolls[-1].faces, s.throw.kept, specialty
    )
    facts = _asked_again(roll) + changes(state, table, after, cmd.source.value, secret=secret)
    facts.append(private(state, cmd.character, rerolled, secret=secret))
    return Decision(facts, after)


def _asked_again(roll: OpenTask | OpenAction) -> list[Emitted]:
    """A public word that an exchange someone accepted has changed, and everyone accepts it again (R-LTL-3)."""
    return [Emitted(AcceptancesLapsed(roll.id))] if isinstance(roll, OpenAction) and roll.accepted else []


def _replaced(tasks: tuple[OpenTask, ...], new: OpenTask) -> tuple[OpenTask, ...]:
    return tuple(new if t.id == new.id else t for t in tasks)


@handles(BuySuccess, LTL)
def _buy(state: TableState, cmd: BuySuccess, ctx: Ctx) -> Decision:
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    roll = _open_roll(state, table, cmd.task, ctx.user)
    if isinstance(roll, OpenAction):
        c = cf.conflict_buy_success(rules_conflict(table), cmd.character)
        after = from_rules(table, c, roll.id)
        assert c.open is not None
        task, secret = c.open.task, False
    else:
        hero, task = buy_success_after(table.hero(cmd.character), roll.task, who=cmd.character)
        after = replace(table.with_hero(cmd.character, hero), tasks=_replaced(table.tasks, replace(roll, task=task)))
        secret = roll.secret
    bought = SuccessBought(roll.id, _side_of(task, cmd.character), cmd.character)
    facts = _asked_again(roll) + changes(state, table, after, "automatic_success_after_the_roll", secret=secret)
    facts.append(private(state, cmd.character, bought, secret=secret))
    return Decision(facts, after)


def _crit_choices(
    state: TableState, table: LtlTable, user: str, roll: OpenTask | OpenAction, cmd: Settle
) -> tuple[CritBonus, CritPenalty, CritRewardDue | None]:
    """The winner's controller chooses a critical success's reward (R-LTL-8 amended); a mishap instead of -1 next
    round is the GM's call. A settler who does not control the winner chooses nothing for it: the reward is due, and
    the winner's controller chooses it next (`ChooseCritReward`). A GM secret roll is the GM's alone to choose for."""
    gm = state.is_gm(user)
    task = roll.task
    penalty = cmd.crit_penalty if gm else CritPenalty.MINUS_ONE_NEXT
    in_conflict = isinstance(roll, OpenAction)
    roller, secret = (roll.actor, False) if isinstance(roll, OpenAction) else (roll.character, roll.secret)
    _, probe = settle(task, table.options, crit_bonus=CritBonus.OTHER, crit_penalty=penalty)
    winner = probe.winner
    won, lost = (
        (probe.actor_critical, probe.opposition_critical)
        if probe.outcome is Result.WIN
        else (probe.opposition_critical, probe.actor_critical)
    )
    if winner is not None and won is Critical.SUCCESS and not (secret and gm):
        owner = state.character(winner).owner
        chooses = owner == user if owner is not None else gm
        matters = in_conflict or (winner == roller and _scene_effects(state, roller, secret))
        if not chooses and matters:
            due = CritRewardDue(
                roll.id,
                winner,
                probe.loser,
                probe.effect,
                loser_minus_one=lost is Critical.FAILURE and penalty is CritPenalty.MINUS_ONE_NEXT,
                in_conflict=in_conflict,
                opposed=task.opposed,
            )
            return CritBonus.OTHER, penalty, due
    mine = winner is not None and controls(state, user, winner)
    at_cap = probe.effect >= table.options.effect_cap
    bonus = cmd.crit_bonus if gm or mine else CritBonus.EXTRA_LEVEL
    if bonus is CritBonus.EXTRA_LEVEL and at_cap:
        # the extra level cannot pass the cap: the advantage next round instead. Never a refusal, which would tell a
        # settler who cannot see the other side's die that it rolled a critical
        bonus = CritBonus.PLUS_ONE_NEXT
    if bonus is CritBonus.OPPONENT_MINUS_ONE and penalty is CritPenalty.MINUS_ONE_NEXT and task.opposed:
        # the loser's critical failure already carries the one -1 of the exchange (R-LTL-8): another advantage, and
        # the settlement names the one taken, again without a refusal
        bonus = CritBonus.PLUS_ONE_NEXT
    return bonus, penalty, None


def crit_choices_open(state: TableState, user: str, task: Task) -> tuple[bool, bool]:
    """Whether the settler may choose a critical success's reward, and a critical failure's penalty (R-LTL-8): the
    GM, who sees both dice, when the dice show a critical (one side's success is the other's failure); a player a
    reward only when their own die shows its highest face, which a critical needs, so what they are offered never
    tells them what a die they cannot see rolled; a penalty never (the GM's call)."""
    if state.is_gm(user):
        crit = compare(task.actor.throw, task.opposition.throw).critical is not Critical.NONE
        return crit, crit
    own_max = any(
        s.who is not None and controls(state, user, s.who) and s.throw.natural == s.throw.sides
        for s in (task.actor, task.opposition)
    )
    return own_max, False


def _accepting(state: TableState, roll: OpenAction, cmd: Settle, user: str) -> tuple[tuple[str, ...], bool]:
    """The characters this Accept is for, and whether it is the last the exchange waits for (R-LTL-3; rules version
    8). The GM's `for_everyone` accepts for all at once, for a player who is away (R-T-3). Raises Forbidden or
    TableError naming whom the exchange waits for."""
    left = waiting_for(roll)
    if cmd.for_everyone:
        require_gm(state, user)
        return left, True
    mine = tuple(cid for cid in left if accepts_for(state, user, cid))
    if not mine:
        if not state.is_gm(user) and not any(controls(state, user, cid) for cid in (roll.actor, roll.target) if cid):
            require_controls(state, user, roll.actor)
        names = " and ".join(state.character(cid).name for cid in left)
        raise TableError(
            "ltl/already_accepted",
            f"the exchange waits for {names} to accept it"
            if any(cid in roll.accepted for cid in (roll.actor, roll.target) if cid and accepts_for(state, user, cid))
            else f"the exchange waits for {names}, not for you",
            fix="wait for them; the GM may settle it for everyone now",
            ruling="R-LTL-3",
        )
    return mine, len(mine) == len(left)


@handles(Settle, LTL)
def _settle(state: TableState, cmd: Settle, ctx: Ctx) -> Decision:
    table = table_of(state)
    roll = _open_roll(state, table, cmd.task, ctx.user)
    last = True
    if isinstance(roll, OpenAction):
        mine, last = _accepting(state, roll, cmd, ctx.user)
    elif cmd.for_everyone:
        require_gm(state, ctx.user)  # a roll of one character: the GM's Accept already settles it
    # a critical's choices belong to the Accept that settles the roll: an earlier one cannot know the roll stays
    reward, penalty_open = crit_choices_open(state, ctx.user, roll.task) if last else (False, False)
    chose = [
        name
        for name, given, default, open_ in (
            ("reward", cmd.crit_bonus, CritBonus.EXTRA_LEVEL, reward),
            ("penalty", cmd.crit_penalty, CritPenalty.MINUS_ONE_NEXT, penalty_open),
        )
        if given is not default and not open_
    ]
    if chose:  # rules version 7: a choice nothing here asks for was ignored without a word
        raise TableError(
            "ltl/no_critical",
            f"there is no critical's {' or '.join(chose)} to choose on this roll"
            if last
            else f"a critical's {' or '.join(chose)} is chosen as the exchange settles, and it waits for others",
            fix="accept the roll without choosing one",
            ruling="R-LTL-8",
        )
    if isinstance(roll, OpenAction) and not last:
        accepted = RollAccepted(roll.id, mine)
        return Decision([Emitted(accepted)], evolve(table, accepted))
    bonus, penalty, due = _crit_choices(state, table, ctx.user, roll, cmd)
    chosen = "due" if due is not None else bonus.value
    if isinstance(roll, OpenAction):
        before = rules_conflict(table)
        c, result = cf.resolve(before, table.options, crit_bonus=bonus, crit_penalty=penalty)
        after = from_rules(table, c)
        facts = [Emitted(_settled(state, roll.id, roll.task, result, chosen, penalty, in_conflict=True))]
        facts += _reveals(state, roll.id, roll.task, False)
        facts += [
            Emitted(LossPending(p.target, p.levels, p.kind.value, p.dealt_by)) for p in c.pending[len(before.pending) :]
        ]
        facts += [
            Emitted(FighterActed(f.id))
            for f, old in zip(c.fighters, before.fighters, strict=True)
            if f.acted and not old.acted
        ]
        facts += changes(state, table, after, "critical")
        if due is not None:
            facts.append(Emitted(due))
            after = evolve(after, due)
        return Decision(facts, after)
    require_controls(state, ctx.user, roll.character)
    task, result = settle(roll.task, table.options, crit_bonus=bonus, crit_penalty=penalty)
    hero = table.hero(roll.character)
    if _scene_effects(state, roll.character, roll.secret):
        hero = scene_settled(hero, roll.character, result)
    if roll.purpose == "stunt" and result.outcome is Result.WIN:
        power, stunt = roll.detail.split(": ", 1)
        hero = stunt_pulled_off(hero, power, stunt, result)
    failing = task.must_succeed and result.outcome is not Result.WIN
    failure = FailedTask(roll.character, task, result.outcome.value, roll.secret) if failing else None
    failed = failures_after_settling(table.failed, roll.character, roll.secret, failure)
    after = replace(
        table.with_hero(roll.character, finish_action(hero)),
        tasks=tuple(t for t in table.tasks if t.id != roll.id),
        failed=failed,
    )
    label = roll.detail if roll.purpose != "stunt" else ""  # a stunt's detail is the stunt, named on its own
    settled = _settled(
        state,
        roll.id,
        roll.task,
        result,
        chosen,
        penalty,
        failed_must_succeed=failing,
        stunt=_stunt_shown(state, roll),
        label=label,
    )
    facts = [Emitted(settled, Visibility.GM if roll.secret else Visibility.PUBLIC)]
    facts += _reveals(state, roll.id, roll.task, roll.secret)
    facts += changes(state, table, after, "action_over")  # what the action's end does is no secret spend
    if due is not None:
        facts.append(Emitted(due))
        after = evolve(after, due)
    return Decision(facts, after)


def crit_due(state: TableState, table: LtlTable, cid: str, roll: str | None = None) -> CritDue:
    """The reward the character has to choose: the one on `roll`, or its only one. Raises TableError naming them."""
    mine = [d for d in table.crit_due if d.character == cid and roll in (None, d.roll)]
    if len(mine) == 1:
        return mine[0]
    name = state.character(cid).name
    if not mine:
        raise TableError(
            "ltl/no_crit_due",
            f"{name} has no critical success's reward to choose" + (" on that roll" if roll else ""),
            fix="a reward is chosen after a critical success someone else settled",
            ruling="R-LTL-8",
        )
    raise TableError(
        "ltl/which_crit",
        f"{name} has {len(mine)} rewards to choose",
        fix="say which roll: " + ", ".join(d.roll for d in mine),
        ruling="R-LTL-8",
    )


def due_reward(due: CritDue, bonus: CritBonus, cap: int) -> tuple[int, tuple[tuple[str, NextRound], ...]]:
    """What a reward chosen for a due critical success adds (`crit_reward`). Raises IllegalAction for one the rules
    refuse, and for the extra level or "opponent -1" after a roll against a difficulty, where they would do nothing."""
    if not due.opposed and bonus in NO_OPPONENT:
        raise IllegalAction(
            "critical/no_opponent",
            "the roll was against a difficulty: there is no opponent to lose a level or roll -1",
            ruling="R-LTL-8",
            fix="choose a re-roll or +1 die type next round, or an advantage the GM adjudicates",
        )
    return crit_reward(
        bonus,
        winner=due.character,
        loser=due.loser,
        effect=due.effect,
        cap=cap,
        opposed=due.opposed,
        loser_minus_one=due.loser_minus_one,
    )


@handles(ChooseCritReward, LTL)
def _choose_crit(state: TableState, cmd: ChooseCritReward, ctx: Ctx) -> Decision:
    """The winner's controller (or the GM for them) chooses a critical success's reward someone else settled
    (R-LTL-8 amended, R-T-3): the extra level joins the round's losses; an advantage waits for the next round."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    due = crit_due(state, table, cmd.character, cmd.roll)
    extra, carried = due_reward(due, cmd.bonus, table.options.effect_cap)
    heroes: dict[str, Hero] = {}
    for who, effect in carried:
        h = heroes.get(who, table.hero(who))
        heroes[who] = replace(h, next_round=(*h.next_round, effect))
    after = replace(table.with_heroes(heroes), crit_due=tuple(d for d in table.crit_due if d is not due))
    owner = state.character(due.character).owner
    by_gm = state.is_gm(ctx.user) and owner is not None and owner != ctx.user
    facts = [Emitted(CritRewardChosen(due.roll, due.character, cmd.bonus.value, by_gm))]
    if extra and due.in_conflict and due.loser is not None and after.conflict is not None:
        c = after.conflict
        loss = cf.PendingLoss(due.loser, extra, c.stakes, due.character)
        after = replace(after, conflict=replace(c, pending=(*c.pending, loss)))
        facts.append(Emitted(LossPending(loss.target, loss.levels, loss.kind.value, loss.dealt_by)))
    facts += changes(state, table, after, "critical")
    return Decision(facts, after)


def _no_crit_due(state: TableState, table: LtlTable, what: str) -> None:
    """A round or conflict does not end while a reward in it is unchosen (R-LTL-8): its levels and advantages belong to
    this round."""
    waiting = [d for d in table.crit_due if d.in_conflict]
    if waiting:
        names = ", ".join(state.character(d.character).name for d in waiting)
        raise TableError(
            "ltl/crit_due",
            f"{names} still has a critical success's reward to choose before {what}",
            fix="the winner's controller chooses it (ltl.crit.choose); the GM may choose for a player who is away",
            ruling="R-LTL-8",
        )


# the rewards that act on an opponent: nothing to act on against a difficulty (R-LTL-8)
NO_OPPONENT = (CritBonus.EXTRA_LEVEL, CritBonus.OPPONENT_MINUS_ONE)


# --- conflicts (R-LTL-12) ---


def _need_conflict(table: LtlTable) -> cf.Conflict:
    if table.conflict is None:
        raise TableError("ltl/no_conflict", "no conflict is running", fix="the GM starts one", ruling="R-LTL-12")
    return rules_conflict(table)


def _initiative(state: TableState, c: cf.Conflict) -> list[Emitted]:
    facts = [Emitted(InitiativeOrder(c.round, c.order))]
    for fid, die in c.initiative_rolls:
        f = c.fighter(fid)
        karma = f.karma_initiative and f.hero.karma.usable
        rolled = InitiativeRolled(fid, die.sides, die.faces, karma, f.initiative_power)
        facts.append(Emitted(rolled, audience(state, fid)))
    return facts


@handles(InitiativeReroll, LTL)
def _initiative_reroll(state: TableState, cmd: InitiativeReroll, ctx: Ctx) -> Decision:
    """A Specialty, Motivation or a Try Again token re-rolls a fighter's initiative (R-LTL-12 amended, R-LTL-17)."""
    require_controls(state, ctx.user, cmd.character)
    _specialty_only_for_its_reroll(cmd.source, cmd.specialty)
    table = table_of(state)
    c, new, kept = cf.initiative_reroll(
        _need_conflict(table), cmd.character, cmd.source, ctx.rng, table.options, specialty=cmd.specialty
    )
    after = from_rules(table, c)
    name = c.initiative_used[-1][2] or None
    rerolled = InitiativeRerolled(cmd.character, cmd.source.value, name, new.sides, new.faces, kept)
    facts = changes(state, table, after, f"initiative_{cmd.source.value}")
    facts.append(Emitted(rerolled, audience(state, cmd.character)))
    facts.append(Emitted(InitiativeReordered(c.round, c.order)))
    return Decision(facts, after)


@handles(InitiativeFirst, LTL)
def _initiative_first(state: TableState, cmd: InitiativeFirst, ctx: Ctx) -> Decision:
    """Automatic Success on initiative: two levels of Karma after the roll, and the fighter acts first (R-LTL-12
    amended, R-LTL-10)."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    c = cf.initiative_first(_need_conflict(table), cmd.character)
    after = from_rules(table, c)
    facts = changes(state, table, after, "initiative_first")
    facts.append(Emitted(InitiativeBought(cmd.character), audience(state, cmd.character)))
    facts.append(Emitted(InitiativeReordered(c.round, c.order)))
    return Decision(facts, after)


@handles(StartConflict, LTL)
def _start_conflict(state: TableState, cmd: StartConflict, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    table = table_of(state)
    if table.conflict is not None:
        raise TableError("ltl/conflict_open", "a conflict is already running", fix="end it first", ruling="R-LTL-12")
    for cid, side in cmd.fighters:
        state.character(cid)
        if not side.strip():
            raise TableError("ltl/side", f"{cid} has no side", fix="name each fighter's side", ruling="R-LTL-12")
    fighters = [(cid, table.hero(cid), side.strip()) for cid, side in cmd.fighters]
    c = cf.start_conflict(
        fighters,
        ctx.rng,
        table.options,
        stakes=cmd.stakes,
        karma_initiative=cmd.karma_initiative,
        fatigue=cmd.fatigue,
        initiative_power=cmd.initiative_power,
    )
    after = from_rules(table, c)
    started = ConflictStarted(
        tuple((f.id, f.side, f.karma_initiative) for f in c.fighters),
        c.stakes.value,
        c.fatigue,
        tuple(f.id for f in c.fighters if f.initiative_power),
    )
    facts = [Emitted(started), *changes(state, table, after, "conflict_started")]
    if c.order or c.initiative_rolls:
        facts += _initiative(state, c)
    return Decision(facts, after)


@handles(Attack, LTL)
def _attack(state: TableState, cmd: Attack, ctx: Ctx) -> Decision:
    require_controls(state, ctx.user, cmd.actor)
    table = table_of(state)
    c = _need_conflict(table)
    state.character(cmd.target)
    assert table.conflict is not None
    target_style = table.conflict.defence(cmd.target)  # its standing defence, at once: nobody waits (R-T-3)
    # each side's die takes the GM's standing situational modifier on its fighter (R-T-2 amended)
    mine, theirs = table.conflict.situation(cmd.actor), table.conflict.situation(cmd.target)
    c = cf.attack(
        c,
        cmd.actor,
        cmd.target,
        ctx.rng,
        table.options,
        actor_stance=Stance(cmd.style, cmd.broke, cmd.auto_success, mine[0]),
        target_stance=Stance(target_style, shift=theirs[0]),
    )
    after = from_rules(table, c, ctx.command_id)
    assert c.open is not None
    facts = changes(state, table, after, "exchange", causes={"karma": "automatic_success", "losses": "going_for_broke"})
    facts += _opened(
        state,
        ctx.command_id,
        "exchange",
        c.open.task,
        style=cmd.style,
        target_style=target_style,
        in_conflict=True,
        target=cmd.target,
        situation=mine,
        target_situation=theirs,
    )
    return Decision(facts, after)


def _style_named(hero: Hero, style: str | None) -> str | None:
    """The sheet's name of a Style (None: base Power). Raises TableError naming the Styles."""
    if style is None or not style.strip():
        return None
    found = next((s.name for s in hero.sheet.styles if s.name.casefold() == style.strip().casefold()), None)
    if found is None:
        names = ", ".join(s.name for s in hero.sheet.styles) or "none"
        raise TableError(
            "ltl/no_style",
            f"{hero.name} has no Style {style.strip()!r}",
            fix=f"choose one of the sheet's Styles ({names}), or base Power",
            ruling="R-LTL-4",
        )
    return found


@handles(SetDefence, LTL)
def _set_defence(state: TableState, cmd: SetDefence, ctx: Ctx) -> Decision:
    """A fighter's standing defence Style (R-T-3): its controller sets it at the conflict's start or between rounds;
    the GM sets an NPC's at any time, and may veto a player's as not applying, saying why."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    _need_conflict(table).fighter(cmd.character)
    assert table.conflict is not None
    c = table.conflict
    style = _style_named(table.hero(cmd.character), cmd.style)
    reason = " ".join(cmd.reason.split())
    gm = state.is_gm(ctx.user)
    vetoed = gm and state.character(cmd.character).owner != state.gm
    if not gm and not c.between_rounds():
        raise TableError(
            "ltl/defence_mid_round",
            "a defence Style is set when the conflict starts or between rounds",
            fix="set it once the GM has ended this round",
            ruling="R-T-3",
        )
    if vetoed and not reason:
        raise TableError(
            "ltl/veto_reason",
            "setting a player's defence Style over theirs needs a reason",
            fix="say why their Style does not apply",
            ruling="R-T-3",
        )
    if reason and not vetoed:
        raise TableError(
            "ltl/defence_reason",
            "only the GM's veto of a player's defence Style gives a reason",
            fix="leave the reason out",
            ruling="R-T-3",
        )
    if style == c.defence(cmd.character):
        raise TableError(
            "ltl/same_defence",
            f"{state.character(cmd.character).name} already defends with {style or 'base Power'}",
            fix="nothing to change",
            ruling="R-T-3",
        )
    defences = (*(d for d in c.defences if d[0] != cmd.character), (cmd.character, style))
    after = replace(table, conflict=replace(c, defences=defences))
    said = DefenceSet(cmd.character, style, vetoed, reason)
    return Decision([Emitted(said, audience(state, cmd.character))], after)


@handles(Attempt, LTL)
def _attempt(state: TableState, cmd: Attempt, ctx: Ctx) -> Decision:
    """A challenge in the conflict, called for by the GM, or rolled by the GM directly (R-T-3, R-LTL-12)."""
    require_controls(state, ctx.user, cmd.actor)
    table = table_of(state)
    conflict = _need_conflict(table)
    lead: list[Emitted] = []
    label = ""
    if cmd.call is not None:
        given = ["difficulty"] if cmd.difficulty is not None else []
        given += _situation_given(cmd.shift, cmd.reason)
        called, table, closed = _take_call(state, table, ctx.user, cmd.actor, cmd.call, "attempt", given)
        name, label, lead, situation = _called_difficulty(called), called.label, [closed], (called.shift, called.reason)
    else:
        _gm_sets(state, ctx.user, "a challenge in the conflict")
        name, situation = _direct(cmd.difficulty), (cmd.shift, cmd.reason)
    stance = Stance(cmd.style, shift=situation[0])
    c = cf.attempt(conflict, cmd.actor, difficulty(name), ctx.rng, table.options, stance=stance)
    after = from_rules(table, c, ctx.command_id)
    assert c.open is not None
    facts = lead + changes(state, table, after, "attempt")
    task = c.open.task
    facts += _opened(
        state, ctx.command_id, "attempt", task, style=cmd.style, in_conflict=True, detail=label, situation=situation
    )
    return Decision(facts, after)


def _situation_given(shift: int, reason: str) -> list[str]:
    """A situational modifier named on a roll of a call: the call sets it (R-T-3, R-T-2)."""
    return [n for n, v in (("shift", shift), ("reason", reason.strip())) if v]


@handles(SetSituational, LTL)
def _set_situational(state: TableState, cmd: SetSituational, ctx: Ctx) -> Decision:
    """The GM's standing situational modifier on a fighter's die in the conflict's exchanges (R-T-2 amended)."""
    require_gm(state, ctx.user)
    table = table_of(state)
    _need_conflict(table).fighter(cmd.character)
    assert table.conflict is not None
    said = SituationalSet(cmd.character, cmd.shift, " ".join(cmd.reason.split()) if cmd.shift else "")
    return Decision([Emitted(said)], evolve(table, said))


def heroism_rolled(cid: str, use: str, result: HeroismResult) -> HeroismRolled | None:
    r = result.roll
    if r is None:
        return None
    return HeroismRolled(
        cid,
        use,
        r.mine.sides,
        r.mine.rolls[0].faces,
        r.theirs.sides,
        r.theirs.rolls[0].faces,
        r.comparison.outcome.value,
        r.comparison.critical.value,
    )


@handles(EndRound, LTL)
def _end_round(state: TableState, cmd: EndRound, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    table = table_of(state)
    _no_crit_due(state, table, "the round ends")
    c, report = cf.end_round(_need_conflict(table), ctx.rng, table.options, serious=cmd.serious)
    after = from_rules(table, c)
    # the GM's leave to try Recovery "every round" comes back with each round (R-LTL-11 amended)
    after = replace(after, recovery=tuple(replace(r, used=0) if r.scope == "round" else r for r in after.recovery))
    facts: list[Emitted] = []
    for fid, result in report.stun_checks:
        rolled = heroism_rolled(fid, "stun", result)
        if rolled is not None:
            facts.append(Emitted(rolled, audience(state, fid)))
    facts += changes(state, table, after, "end_of_round", causes={"losses": f"round {report.round}"})
    facts.append(Emitted(RoundEnded(report.round, report.stunned, report.defeated)))
    if table.options.initiative.value == "each_round" and not c.over:
        facts += _initiative(state, c)
    return Decision(facts, after)


@handles(GiveUp, LTL)
def _give_up(state: TableState, cmd: GiveUp, ctx: Ctx) -> Decision:
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    before = _need_conflict(table)
    if before.fighter(cmd.character).gave_up:
        raise TableError("ltl/gave_up", f"{cmd.character} has already given up", fix="nothing to do", ruling="R-LTL-12")
    after = from_rules(table, cf.give_up(before, cmd.character))
    return Decision([Emitted(FighterGaveUp(cmd.character)), *changes(state, table, after, "gave_up")], after)


@handles(PassTurn, LTL)
def _pass(state: TableState, cmd: PassTurn, ctx: Ctx) -> Decision:
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    after = from_rules(table, cf.pass_turn(_need_conflict(table), cmd.character))
    return Decision([Emitted(FighterPassed(cmd.character))], after)


@handles(EndConflict, LTL)
def _end_conflict(state: TableState, cmd: EndConflict, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    table = table_of(state)
    c = _need_conflict(table)
    if c.open is not None:
        raise TableError(
            "ltl/exchange_open", "an exchange is still being rolled", fix="settle it first", ruling="R-LTL-12"
        )
    _no_crit_due(state, table, "the conflict ends")
    ended = replace(table, conflict=None)
    calls = calls_lapsed(state, ended, kinds=(CallKind.ATTEMPT.value,))
    leave = leave_lapsed(state, calls.expected, scopes=("conflict", "round"))
    return Decision([Emitted(ConflictEnded(c.winner)), *calls.facts, *leave.facts], leave.expected)


# --- Karma (R-LTL-10) ---


def _hero_change(state: TableState, cid: str, hero: Hero, cause: str, *, lead: Iterable[Emitted] = ()) -> Decision:
    table = table_of(state)
    after = table.with_hero(cid, hero)
    return Decision([*lead, *changes(state, table, after, cause)], after)


@handles(TryAgain, LTL)
def _try_again(state: TableState, cmd: TryAgain, ctx: Ctx) -> Decision:
    require_controls(state, ctx.user, cmd.character)
    return _hero_change(state, cmd.character, karma_try_again(table_of(state).hero(cmd.character)), "try_again")


@handles(FortuneBurn, LTL)
def _fortune(state: TableState, cmd: FortuneBurn, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)  # the GM sets the cost and agrees to the change (R-T-2)
    hero = fortune_by_burning(table_of(state).hero(cmd.character), cmd.use, cmd.levels)
    return _hero_change(state, cmd.character, hero, cmd.use.value)


@handles(KarmaRoll, LTL)
def _karma_roll(state: TableState, cmd: KarmaRoll, ctx: Ctx) -> Decision:
    """A Karma roll or Power Stunt the GM called for, rolled by the character's controller, or one the GM rolls
    directly (R-T-3, R-LTL-10)."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    hero = _scene_roll(state, table.hero(cmd.character), cmd.character, False)
    lead: list[Emitted] = []
    purpose, power_name, stunt, label = cmd.purpose, cmd.power, cmd.stunt, ""
    if cmd.call is not None:
        given = [
            name
            for name, value in (
                ("difficulty", cmd.difficulty is not None),
                ("purpose", cmd.purpose is not KarmaPurpose.KARMA),
                ("power", cmd.power),
                ("stunt", cmd.stunt),
            )
            if value
        ]
        called, table, closed = _take_call(state, table, ctx.user, cmd.character, cmd.call, "karma|stunt", given)
        name, purpose, lead = _called_difficulty(called), KarmaPurpose(called.kind), [closed]
        power_name, stunt, label = called.power, called.stunt, called.label
        situation = (called.shift, called.reason)
    else:
        _gm_sets(state, ctx.user, "a Karma roll")
        name, situation = _direct(cmd.difficulty), (0, "")
    detail = label
    shift = situation[0]
    if purpose is KarmaPurpose.STUNT:
        known = next((p.name for p in hero.sheet.superpowers if p.name.lower() == power_name.strip().lower()), None)
        if known is not None:
            stunt = _stunt_not_a_typo(hero, known, stunt)  # before the dice: a refusal rolls nothing
        task = power_stunt(hero, power_name, stunt, difficulty(name), ctx.rng, table.options, shift=shift)
        power = next(p.name for p in hero.sheet.superpowers if p.name.lower() == power_name.strip().lower())
        detail = f"{power}: {stunt.strip()}"
    else:
        if power_name or stunt:
            raise TableError(
                "ltl/karma_roll_stunt",
                "a plain Karma roll names no Superpower or stunt",
                fix="roll for a Power Stunt to name them",
                ruling="R-LTL-10",
            )
        task = karma_task(hero, difficulty(name), ctx.rng, table.options, shift=shift)
    task = replace(task, actor=replace(task.actor, who=cmd.character))
    opened = OpenTask(ctx.command_id, cmd.character, task, purpose.value, detail=detail)
    after = replace(table.with_hero(cmd.character, hero), tasks=(*table.tasks, opened))
    effects = changes(state, table, after, "next_roll")  # effects waiting for this roll come into force
    rolled = _opened(state, ctx.command_id, purpose.value, task, detail=detail, situation=situation)
    return Decision(lead + effects + rolled, after)


def failed_task(state: TableState, table: LtlTable, cid: str, user: str) -> FailedTask | None:
    """The failed must-succeed task Last Chance would follow; a secret one only for the GM."""
    found = next((f for f in table.failed if f.character == cid), None)
    if found is not None and found.secret and not state.is_gm(user):
        return None
    return found


@handles(LastChance, LTL)
def _last_chance(state: TableState, cmd: LastChance, ctx: Ctx) -> Decision:
    """Last Chance (R-LTL-10): burned by the character's controller, or rolled as the GM calls for it, the GM
    setting whether it is one level harder (R-T-3); the GM may roll it directly."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    lead: list[Emitted] = []
    harder = cmd.harder
    situation = (0, "")
    if cmd.call is not None:
        given = [n for n, v in (("burn", cmd.burn), ("harder", cmd.harder)) if v]
        called, table, closed = _take_call(state, table, ctx.user, cmd.character, cmd.call, "last_chance", given)
        harder, lead, situation = called.harder, [closed], (called.shift, called.reason)
    elif cmd.harder:
        require_gm(state, ctx.user)  # a harder difficulty is the GM's call (R-T-3)
    elif not cmd.burn:
        _gm_sets(state, ctx.user, "a Last Chance roll")
    failed = failed_task(state, table, cmd.character, ctx.user)
    if failed is None:
        raise TableError(
            "ltl/no_failed_task",
            "there is no failed must-succeed task to follow",
            fix="fail one first",
            ruling="R-LTL-10",
        )
    chance = last_chance(
        table.hero(cmd.character)
        if cmd.burn
        else _scene_roll(state, table.hero(cmd.character), cmd.character, failed.secret),
        failed.task,
        ctx.rng,
        table.options,
        burn=cmd.burn,
        harder=harder,
        shift=situation[0],
    )
    after = replace(
        table.with_hero(cmd.character, chance.hero), failed=tuple(f for f in table.failed if f is not failed)
    )
    secret = failed.secret
    taken = LastChanceTaken(cmd.character, cmd.burn, harder)
    facts = [*lead, Emitted(taken, Visibility.GM if secret else Visibility.PUBLIC)]
    facts += changes(state, table, after, "last_chance", secret=secret)
    if chance.task is not None:
        opened = OpenTask(ctx.command_id, cmd.character, chance.task, "last_chance", secret)
        after = replace(after, tasks=(*after.tasks, opened))
        facts += _opened(state, ctx.command_id, "last_chance", chance.task, secret=secret, situation=situation)
    return Decision(facts, after)


# --- Heroism (R-LTL-11) ---


def _heroism(state: TableState, cid: str, use: str, result: HeroismResult) -> Decision:
    rolled = heroism_rolled(cid, use, result)
    lead = [Emitted(rolled, audience(state, cid))] if rolled is not None else []
    return _hero_change(state, cid, result.hero, use, lead=lead)


@handles(Push, LTL)
def _push(state: TableState, cmd: Push, ctx: Ctx) -> Decision:
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    result = push(table.hero(cmd.character), ctx.rng, table.options, burn=cmd.burn, stakes=table.stakes)
    return _heroism(state, cmd.character, "push", result)


@handles(Recover, LTL)
def _recover(state: TableState, cmd: Recover, ctx: Ctx) -> Decision:
    """Recovery, rolled or burned, takes one try of the GM's leave (R-LTL-11 amended); the GM acting for a character
    gives that leave by acting."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    leave = table.leave(cmd.character)
    if (leave is None or leave.left == 0) and not state.is_gm(ctx.user):
        raise TableError(
            "ltl/recovery_leave",
            "Recovery needs the GM's leave"
            + (" and the tries the GM allowed are used" if leave is not None else ", and the GM has given none"),
            fix="ask the GM how often you may try Recovery",
            ruling="R-LTL-11",
        )
    result = recover(table.hero(cmd.character), ctx.rng, table.options, burn=cmd.burn)
    decision = _heroism(state, cmd.character, "recovery", result)
    if leave is not None and leave.left != 0:
        used = replace(leave, used=leave.used + 1)
        tried = RecoveryTried(cmd.character, used.left)
        decision.facts.append(Emitted(tried, audience(state, cmd.character)))
        after = decision.expected
        decision.expected = replace(
            after, recovery=tuple(used if r.character == cmd.character else r for r in after.recovery)
        )
    return decision


@handles(AllowRecovery, LTL)
def _allow_recovery(state: TableState, cmd: AllowRecovery, ctx: Ctx) -> Decision:
    """The GM says how often a character may try Recovery, for the scene, the conflict or each round
    (R-LTL-11 amended, R-T-3)."""
    require_gm(state, ctx.user)
    table = table_of(state)
    table.hero(cmd.character)
    if cmd.scope.value != "scene":
        _need_conflict(table)
    others = tuple(r for r in table.recovery if r.character != cmd.character)
    allowed = RecoveryAllowed(cmd.character, cmd.scope.value, cmd.tries)
    after = replace(table, recovery=(*others, RecoveryLeave(cmd.character, cmd.scope.value, cmd.tries)))
    return Decision([Emitted(allowed, audience(state, cmd.character))], after)


# --- defeat, time, healing, Hero Points, overrides ---


@handles(RecordDefeat, LTL)
def _defeat(state: TableState, cmd: RecordDefeat, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    table = table_of(state)
    lost = cmd.character in table.contest_losers  # R-LTL-13
    hero = record_defeat(table.hero(cmd.character), cmd.consequence, table.stakes, lost_a_contest=lost)
    if hero == table.hero(cmd.character):
        raise TableError(
            "ltl/same_defeat", "that defeat is already recorded", fix="nothing to change", ruling="R-LTL-5"
        )
    return _hero_change(state, cmd.character, hero, "defeat")


@handles(TimePasses, LTL)
def _time(state: TableState, cmd: TimePasses, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    table = table_of(state)
    for cid in cmd.characters:
        table.hero(cid)
    who = set(cmd.characters) or set(table.heroes)
    after = table.with_heroes({cid: time_passes(table.hero(cid), cmd.period) for cid in sorted(who)})
    facts = [Emitted(TimePassed(cmd.period.value)), *changes(state, table, after, f"time_passes_{cmd.period.value}")]
    return Decision(facts, after)


@handles(Heal, LTL)
def _heal(state: TableState, cmd: Heal, ctx: Ctx) -> Decision:
    require_controls(state, ctx.user, cmd.healer)
    if not cmd.lowered:
        require_gm(state, ctx.user)  # whether the difficulty is lowered is the GM's call (R-LTL-15, R-T-3)
    table = table_of(state)
    healer, patient = table.hero(cmd.healer), table.hero(cmd.patient)
    if cmd.style is not None:
        rolls = power_style(healer, healing_power(healer, cmd.power))
        if rolls is None or rolls.casefold() != cmd.style.strip().casefold():
            raise TableError(
                "ltl/heal_style",
                f"a healing Power rolls its own Style ({rolls or 'base Power'}), not {cmd.style!r}",
                fix="leave the Style out",
                ruling="R-LTL-15",
            )
    result = heal(healer, patient, ctx.rng, table.options, power=cmd.power, lowered=cmd.lowered)
    rating = result.rating.position
    assert result.difficulty.rating is not None
    rolled = HealingRolled(
        cmd.healer,
        cmd.patient,
        result.style,
        rating,
        result.healer_throw.sides,
        result.healer_throw.rolls[0].faces,
        result.difficulty.rating.position,
        result.difficulty_throw.sides,
        result.difficulty_throw.rolls[0].faces,
        result.healed,
        result.levels_healed,
    )
    return _hero_change(
        state, cmd.patient, result.patient, "healing", lead=[Emitted(rolled, audience(state, cmd.healer))]
    )


@handles(AwardHeroPoints, LTL)
def _award(state: TableState, cmd: AwardHeroPoints, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    if cmd.points == 0:
        raise TableError("ltl/award_nothing", "an award of 0 Hero Points changes nothing", fix="award 1 or more")
    hero = award_hero_points(table_of(state).hero(cmd.character), cmd.points)
    return _hero_change(state, cmd.character, hero, "award")


def improvement(cmd: SpendHeroPoints) -> RulesImprovement:
    """The rules' improvement a spend names. Raises TableError for a field that kind does not use."""
    needs_target = cmd.kind not in (Improvement.RAISE_BASE, Improvement.RAISE_HEROISM, Improvement.RAISE_KARMA)
    needs_detail = cmd.kind is Improvement.ADD_POWER_STUNT
    if (cmd.target and not needs_target) or (cmd.detail and not needs_detail):
        raise TableError(
            "ltl/improvement_field",
            f"{cmd.kind.value.replace('_', ' ')} takes no "
            + ("detail" if cmd.detail and not needs_detail else "target"),
            fix="leave that field empty",
            ruling="R-LTL-16",
        )
    match cmd.kind:
        case Improvement.RAISE_STYLE:
            return RaiseStyle(cmd.target)
        case Improvement.NEW_STYLE:
            return NewStyle(cmd.target)
        case Improvement.RAISE_BASE:
            return RaiseBase()
        case Improvement.RAISE_HEROISM:
            return RaiseHeroism()
        case Improvement.RAISE_KARMA:
            return RaiseKarma()
        case Improvement.ADD_SPECIALTY:
            return AddSpecialty(cmd.target)
        case Improvement.ADD_POWER_STUNT:
            return AddPowerStunt(cmd.target, cmd.detail)
        case Improvement.REMOVE_COMPLICATION:
            return RemoveComplication(cmd.target)
    raise AssertionError(cmd.kind)


@handles(SpendHeroPoints, LTL)
def _spend(state: TableState, cmd: SpendHeroPoints, ctx: Ctx) -> Decision:
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    if table.conflict is not None:
        raise TableError(
            "ltl/spend_in_conflict",
            "Hero Points are spent between adventures, not mid-fight",
            fix="end the conflict first",
            ruling="R-LTL-16",
        )
    hero = spend_hero_points(table.hero(cmd.character), improvement(cmd))
    return _hero_change(state, cmd.character, hero, "improvement")


def _die(setting: str) -> Rating:
    return Rating(0) if setting == "below d4" else Rating.of(setting)


@handles(Override, LTL)
def _override(state: TableState, cmd: Override, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    table = table_of(state)
    hero = table.hero(cmd.character)
    if cmd.karma is not None:
        hero = replace(hero, karma=_die(cmd.karma.value))
    if cmd.heroism is not None:
        hero = replace(hero, heroism=_die(cmd.heroism.value))
    if cmd.clear_losses:
        hero = replace(hero, losses=())
    if cmd.serious and not cmd.lose:
        raise TableError(
            "ltl/serious_nothing",
            "only levels that are lost now can be marked serious",
            fix="give the levels lost with the mark",
            ruling="R-LTL-6",
        )
    if cmd.lowers_rolls is not None and not cmd.lose:
        raise TableError(
            "ltl/lowers_nothing",
            "only levels that are lost now can be marked as lowering rolls",
            fix="give the levels lost with the mark",
            ruling="R-LTL-6",
        )
    if cmd.lowers_rolls is not None and cmd.lose_kind not in GM_CHOSEN_LOSSES:
        raise TableError(
            "ltl/lowers_by_the_rules",
            f"whether a {cmd.lose_kind.value.replace('_', ' ')} loss lowers other rolls is the rules' to say",
            fix="leave it out; only bonds and mind control are the GM's to mark",
            ruling="R-LTL-6",
        )
    if cmd.lose:
        hero = lose_levels(
            hero, cmd.lose, cmd.lose_kind, lowers_rolls=cmd.lowers_rolls, note="GM override", serious=cmd.serious
        )
    if cmd.unconscious is not None:
        hero = replace(hero, unconscious=cmd.unconscious)
    if cmd.defeat is not None:
        hero = replace(hero, defeat=cmd.defeat.strip() or None)
    if cmd.try_again_tokens is not None:
        hero = replace(hero, try_again_tokens=cmd.try_again_tokens)
    said = Overridden(cmd.character, cmd.reason.strip())
    return _hero_change(state, cmd.character, hero, "override", lead=[Emitted(said, audience(state, cmd.character))])
