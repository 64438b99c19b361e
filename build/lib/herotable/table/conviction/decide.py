"""Deciding Conviction commands: permissions, then the rules engine (`herotable.conviction`), then facts.

Checks open pending: their roller's player and the GM see them (R-CV-4); announcing one makes it public and final
and applies what it does. A GM secret roll stays the GM's, and so does whatever would reveal a hidden sheet
(Conviction, feats, a hidden character's check).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

from herotable.conviction.character import Ability, new_character
from herotable.conviction.checks import Bonus, Check, CheckKind, announce, gm_override, roll_check
from herotable.conviction.conditions import DamageKind
from herotable.conviction.damage import (
    add_fatigue,
    apply_dying_check,
    apply_recovery_check,
    apply_toughness_save,
    dying_check,
    recovery_check,
    rest,
    settled_save,
    stun,
    toughness_save,
)
from herotable.conviction.exit_scene import Side, attempt_exit, interfere, pass_bid, press_exit
from herotable.conviction.feats import Catalogue, Modelled, feat_bonuses, sample_catalogue
from herotable.conviction.hero import EffectKind, Hero
from herotable.conviction.quotable_wit import designate, use_wit
from herotable.conviction.regain import apply_regain_check, award_nature, gain_from_setback, raise_level
from herotable.conviction.regain import regain_check as roll_regain_check
from herotable.conviction.rounds import initiative_order, roll_initiative, start_round, take_action
from herotable.conviction.spending import (
    determination,
    escape_death,
    expertise,
    heroic_feat,
    recover_now,
    reroll,
    reroll_initiative,
    shake_off,
    strenuous_guard,
    surge,
    the_talent,
    use_talent_power,
)
from herotable.names import meant
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
    require_member,
)
from herotable.table.conviction.commands import (
    AddFatigue,
    Announce,
    AwardNature,
    BeginTurns,
    CallCheck,
    CreateCvCharacter,
    CvOverride,
    DesignateWit,
    Determination,
    DyingCheck,
    EscapeDeath,
    Expertise,
    GainFromSetback,
    HeroicFeat,
    InitiativeReroll,
    InterfereExit,
    OverrideCheck,
    PassExit,
    PressExit,
    RaiseLevel,
    RecoverNow,
    RecoveryCheck,
    RegainCheck,
    Reroll,
    Rest,
    RollCheck,
    SetPresence,
    SetSides,
    ShakeOffCondition,
    StartExit,
    StartRound,
    StrenuousGuard,
    Stun,
    Surge,
    TakeAction,
    TheTalent,
    ToughnessSave,
    UseTalentPower,
    UseWit,
)
from herotable.table.conviction.facts import (
    SHEET_FACTS,
    ActionTaken,
    CallClosed,
    CheckAnnounced,
    CheckBonus,
    CheckCalled,
    CheckOverridden,
    CheckRerolled,
    CheckRolled,
    CheckVoided,
    ConditionApplied,
    ExitInterfered,
    ExitPassed,
    ExitPressed,
    ExitResolved,
    ExitsCleared,
    ExitStarted,
    InitiativeOrder,
    InitiativeRerolled,
    InitiativeRolled,
    Overridden,
    PresenceSet,
    RoundStarted,
    SheetRecorded,
    SidesSet,
    Spent,
    WitDesignated,
    WitUsed,
    hero_facts,
    sheet_record,
)
from herotable.table.conviction.state import CalledCheck, CvTable, OpenCheck
from herotable.table.core import CharacterJoined
from herotable.table.facts import Emitted, Fact, Visibility
from herotable.table.kit import hero_changes
from herotable.table.state import Forbidden, Ruleset, TableError, TableState

CV = Ruleset.CONVICTION


@cache
def catalogue() -> Catalogue:
    """The campaign's feats catalogue: the sample that ships with the package (R-CV-6)."""
    return sample_catalogue()


def table_of(state: TableState) -> CvTable:
    game = state.game
    assert isinstance(game, CvTable), "a Conviction campaign holds a Conviction table"
    return game


def changes(state: TableState, before: CvTable, after: CvTable, cause: str, *, secret: bool = False) -> list[Emitted]:
    """Every character that changed between two tables, as facts with their audiences (`kit.hero_changes`)."""
    return hero_changes(
        state,
        before.heroes,
        after.heroes,
        lambda cid, old, new: hero_facts(cid, old, new, cause),
        lambda f: isinstance(f, SHEET_FACTS),
        secret=secret,
    )


def _heroes(state: TableState, heroes: dict[str, Hero], cause: str, *lead: Emitted) -> Decision:
    """A decision that changes some characters: the leading facts, then each change, then the dying checks it
    made void."""
    table = table_of(state)
    after = table.with_heroes(heroes)
    facts = [*lead, *changes(state, table, after, cause)]
    after = _void_dying_checks(state, after, facts)
    return Decision(facts, after)


def _void_dying_checks(state: TableState, table: CvTable, facts: list[Emitted]) -> CvTable:
    """Take off the table every pending dying check whose character is no longer dying (stabilised, or dead from
    other damage), each logged as void to those who saw it rolled (R-CV-10): nothing waits on a roll that no longer
    applies."""
    stale = [
        c for c in table.checks if c.check.kind is CheckKind.DYING and not table.hero(c.character).conditions.dying
    ]
    for c in stale:
        reason = "dead" if table.hero(c.character).conditions.dead else "stabilised"
        facts.append(private(state, c.character, CheckVoided(c.id, c.character, reason), secret=c.secret))
    if not stale:
        return table
    gone = {c.id for c in stale}
    return replace(table, checks=tuple(c for c in table.checks if c.id not in gone))


def _about(state: TableState, cid: str, f: Fact) -> Emitted:
    """A fact about what a character did: public, or the GM's when the character's sheet is hidden."""
    return Emitted(f, audience(state, cid))


# --- characters ---


@handles(CreateCvCharacter, CV)
def _create(state: TableState, cmd: CreateCvCharacter, ctx: Ctx) -> Decision:
    """Create a Conviction character with its level's starting Conviction (R-CV-2)."""
    owner = new_character_owner(state, ctx.user, cmd.character, cmd.owner, npc=cmd.npc, hidden=cmd.hidden)
    table = table_of(state)
    s = cmd.sheet
    if any(h.name.casefold() == s.name.strip().casefold() for h in table.heroes.values()):
        raise TableError(
            "character/name", f"a character named {s.name.strip()!r} is already at the table", fix="choose another name"
        )
    sheet = new_character(
        s.name.strip(),
        level=s.level,
        roles=s.roles,
        abilities=s.abilities,
        toughness=s.toughness,
        nature=s.nature,
        combat_bonus=s.combat_bonus,
        skills=s.skills,
        feats=s.feats,
        uncounted_feats=s.uncounted_feats,
        catalogue=catalogue(),
    )
    joined = CharacterJoined(cmd.character, owner, sheet.name, cmd.npc, cmd.hidden)
    recorded = SheetRecorded(cmd.character, sheet_record(sheet))
    after = table.with_hero(cmd.character, Hero(sheet))
    return Decision([Emitted(joined), Emitted(recorded, Visibility.GM if cmd.hidden else Visibility.PUBLIC)], after)


# --- checks (R-CV-1, R-CV-4, R-T-2) ---


def _open(
    state: TableState,
    table: CvTable,
    ctx: Ctx,
    cid: str,
    check: Check,
    *,
    secret: bool = False,
    by_enemy: bool = True,
    lead: list[Emitted] | None = None,
    bonuses: tuple[Bonus, ...] = (),
) -> Decision:
    """A check rolled and pending, with the bonuses it carries from the start (a feat's number, R-CV-6 amended)."""
    check = replace(check, bonuses=(*check.bonuses, *bonuses))
    opened = OpenCheck(ctx.command_id, cid, check, secret, by_enemy)
    after = replace(table, checks=(*table.checks, opened))
    rolled = CheckRolled(
        ctx.command_id,
        cid,
        check.roller,
        check.kind.value,
        check.label,
        check.modifier,
        check.difficulty,
        check.first,
        check.lethal,
        secret,
        by_enemy,
        check.bought_with_conviction,
    )
    facts = [*(lead or []), private(state, cid, rolled, secret=secret)]
    facts += [private(state, cid, CheckBonus(ctx.command_id, b.source, b.amount), secret=secret) for b in bonuses]
    return Decision(facts, after)


def pending(state: TableState, table: CvTable, check_id: str | None, user: str) -> OpenCheck:
    """The pending check a command names, or the only one the member may see: their own characters' (a GM secret
    one excepted) or, for the GM, all. Anyone else's pending check does not exist for them, its id included
    (R-CV-4). Raises TableError."""
    gm = state.is_gm(user)
    visible = [c for c in table.checks if gm or (not c.secret and controls(state, user, c.character))]
    if check_id is None and len(visible) == 1:
        return visible[0]
    found = next((c for c in visible if c.id == check_id), None)
    if found is None:
        raise TableError(
            "table/no_check",
            "no such pending check"
            if check_id or not visible
            else f"{len(visible)} of your checks are pending; say which",
            fix="name one of your pending checks",
            ruling="R-CV-4",
        )
    return found


def _with_check(table: CvTable, opened: OpenCheck) -> CvTable:
    return replace(table, checks=tuple(opened if c.id == opened.id else c for c in table.checks))


@handles(CallCheck, CV)
def _call(state: TableState, cmd: CallCheck, ctx: Ctx) -> Decision:
    """The GM calls for a check; the character's controller rolls it (R-T-3, R-CV-1)."""
    require_gm(state, ctx.user)
    table = table_of(state)
    skill = cmd.skill.strip() if cmd.skill and cmd.skill.strip() else None
    if skill is not None and not cmd.untrained:
        _skill_on_sheet(table.hero(cmd.character), skill)
    ability = None if cmd.ability is None else cmd.ability.value
    reason = cmd.reason.strip() if cmd.modifier else ""
    label = cmd.label.strip()
    called = CheckCalled(ctx.command_id, cmd.character, label, cmd.difficulty, cmd.modifier, ability, skill, reason)
    opened = CalledCheck(ctx.command_id, cmd.character, label, cmd.difficulty, cmd.modifier, cmd.ability, skill, reason)
    return Decision([private(state, cmd.character, called)], replace(table, calls=(*table.calls, opened)))


def _called(state: TableState, table: CvTable, cmd: RollCheck, user: str) -> CalledCheck:
    """The open call a roll names, among those the member may see (their characters'; the GM: all). Raises
    TableError."""
    found = next(
        (
            c
            for c in table.calls
            if c.id == cmd.call and c.character == cmd.character and controls(state, user, c.character)
        ),
        None,
    )
    if found is None:
        raise TableError(
            "cv/no_call",
            f"no check called for {state.character(cmd.character).name} goes by that name",
            fix="roll one of the checks the GM has called for your character, or ask the GM to call for one",
            ruling="R-T-3",
        )
    given = [
        name
        for name, value in (
            ("difficulty", cmd.difficulty),
            ("modifier", cmd.modifier or None),
            ("reason", cmd.reason.strip() or None),
            ("secret", cmd.secret or None),
            ("ability", cmd.ability if found.ability is not None else None),
            ("skill", cmd.skill if found.skill is not None else None),
        )
        if value is not None
    ]
    if given:
        raise Forbidden(
            "cv/called",
            f"the GM's call sets the {', '.join(given)} of this check",
            fix=f"leave {', '.join(given)} out; name an ability or skill only where the call leaves it open",
            ruling="R-T-3",
        )
    return found


@handles(RollCheck, CV)
def _check(state: TableState, cmd: RollCheck, ctx: Ctx) -> Decision:
    """Roll a check, one the GM called for or (the GM) against a Difficulty set now; it stays pending until
    announced (R-T-3, R-CV-1, R-CV-4)."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    lead: list[Emitted] = []
    if cmd.call is not None:
        called = _called(state, table, cmd, ctx.user)
        difficulty, situational, reason, label = called.difficulty, called.modifier, called.reason, called.label
        ability = called.ability if called.ability is not None else cmd.ability
        skill = called.skill if called.skill is not None else cmd.skill
        named = called.skill is None and bool(cmd.skill and cmd.skill.strip())  # the roller names it
        lead.append(private(state, cmd.character, CallClosed(called.id, cmd.character, False)))
        table = replace(table, calls=tuple(c for c in table.calls if c.id != called.id))
    else:
        if not state.is_gm(ctx.user):
            raise Forbidden(
                "cv/gm_sets_difficulty",
                "the Difficulty of a check and its modifiers are the GM's to set",
                fix="roll a check the GM has called for (name its call), or ask the GM to call for one",
                ruling="R-T-3",
            )
        if cmd.difficulty is None:
            raise TableError(
                "cv/no_difficulty", "a check needs a Difficulty", fix="set the difficulty", ruling="R-CV-1"
            )
        difficulty, situational, reason, label = cmd.difficulty, cmd.modifier, cmd.reason, cmd.label
        ability, skill = cmd.ability, cmd.skill
        named = bool(skill and skill.strip())
    hero = table.hero(cmd.character)
    if named and skill and not cmd.untrained:
        _skill_on_sheet(hero, skill.strip())
    words = [ability.value.capitalize()] if ability is not None else []
    words += [skill.strip()] if skill and skill.strip() else []
    modifier, bonuses = check_modifier(hero, ability, skill, situational, reason)
    label = label.strip() or (" ".join(words) + " check" if words else "check")
    check = roll_check(ctx.rng, hero.name, label, modifier, difficulty)
    return _open(state, table, ctx, cmd.character, check, secret=cmd.secret, lead=lead, bonuses=bonuses)


def sheet_skills(hero: Hero) -> tuple[str, ...]:
    """The skills a hero holds ranks in: the sheet's, and those Expertise lends for the scene (R-CV-7)."""
    lent = (e.name for e in hero.effects if e.kind is EffectKind.SKILL_RANKS)
    return tuple(sorted({name for name, _ in hero.sheet.skills} | set(lent), key=str.casefold))


def _skill_on_sheet(hero: Hero, skill: str) -> None:
    """Refuse a skill a typo away from one the hero holds: its ranks would be lost without a word (R-CV-1, rules
    version 6). The sheet's own name in any case, or a name far from all of them (untrained), passes."""
    near = meant(skill, sheet_skills(hero))
    if near is not None:
        raise TableError(
            "cv/skill_not_on_sheet",
            f"{hero.name} has no skill called {skill!r}; did you mean {near}?",
            fix=f"name it {near} as the sheet does, or tick untrained to roll {skill!r} without ranks",
            ruling="R-CV-1",
        )


def situational_bonus(modifier: int, reason: str) -> tuple[Bonus, ...]:
    """The GM's situational modifier as a bonus named by its reason, which the roller sees (R-T-2 amended)."""
    return (Bonus(reason.strip() or "situational modifier", modifier),) if modifier else ()


def check_modifier(
    hero: Hero, ability: Ability | None, skill: str | None, situational: int = 0, reason: str = ""
) -> tuple[int, tuple[Bonus, ...]]:
    """What a check adds to the d20: the ability's modifier and the skill's ranks (Expertise included) as one number;
    the GM's situational modifier and the feats' numbers on that skill as bonuses of their own, each named (R-CV-1,
    R-T-2 and R-CV-6 amended). The roll and its odds both read it."""
    modifier = 0
    bonuses = situational_bonus(situational, reason)
    if ability is not None:
        modifier += hero.sheet.abilities.of(ability)
    if skill and skill.strip():
        modifier += hero.skill_rank(skill.strip())
        bonuses += feat_bonuses(hero.feats_in_force(), catalogue(), Modelled.SKILL, skill)
    return modifier, bonuses


def calls_lapsed(state: TableState, table: CvTable) -> Decision:
    """At a scene's end, the checks called for and not rolled lapse (R-T-3)."""
    facts = [private(state, c.character, CallClosed(c.id, c.character, True)) for c in table.calls]
    return Decision(facts, replace(table, calls=()))


def _not_revealed(state: TableState, opened: OpenCheck) -> None:
    if opened.id in state.revealed:
        raise TableError(
            "roll/revealed",
            "this check was already announced to the table before the GM undid it",
            fix="announce it as it stands; a re-roll or a bonus would act on a result everyone has seen",
            ruling="R-T-4",
        )


@handles(Reroll, CV)
def _reroll(state: TableState, cmd: Reroll, ctx: Ctx) -> Decision:
    """Conviction re-roll of a pending check (R-CV-3, R-CV-4)."""
    table = table_of(state)
    opened = pending(state, table, cmd.check, ctx.user)
    require_controls(state, ctx.user, opened.character)
    _not_revealed(state, opened)
    hero, check = reroll(table.hero(opened.character), opened.check, ctx.rng)
    assert check.second is not None
    after = _with_check(table.with_hero(opened.character, hero), replace(opened, check=check))
    facts = changes(state, table, after, "reroll", secret=opened.secret)
    facts.append(private(state, opened.character, CheckRerolled(opened.id, check.second), secret=opened.secret))
    return Decision(facts, after)


@handles(Announce, CV)
def _announce(state: TableState, cmd: Announce, ctx: Ctx) -> Decision:
    """Announce a check and apply it: damage, dying, recovery, regain (R-CV-4, R-CV-8, R-CV-13)."""
    table = table_of(state)
    opened = pending(state, table, cmd.check, ctx.user)
    require_controls(state, ctx.user, opened.character)
    hero = table.hero(opened.character)
    check = announce(settled_save(hero, opened.check))  # a save counts the injuries held now (R-CV-8)
    if check.kind is CheckKind.TOUGHNESS:
        hero = apply_toughness_save(hero, check, by_enemy=opened.by_enemy)
    elif check.kind is CheckKind.DYING:
        hero = apply_dying_check(hero, check)
    elif check.kind is CheckKind.RECOVERY:
        hero = apply_recovery_check(hero, check)
    elif check.kind is CheckKind.REGAIN:
        hero = apply_regain_check(hero, check)
    after = replace(table.with_hero(opened.character, hero), checks=tuple(c for c in table.checks if c.id != opened.id))
    said = CheckAnnounced(
        opened.id,
        opened.character,
        check.kind.value,
        check.label,
        check.first,
        check.second,
        check.modifier,
        tuple((b.source, b.amount) for b in check.bonuses),
        check.total,
        check.difficulty,
        check.succeeded,
        check.override is not None,
    )
    secret = opened.secret
    shown = Emitted(said, Visibility.GM) if secret else _about(state, opened.character, said)
    # what an announced check does to a character the players see is theirs to know, even from a secret roll
    facts = [shown, *changes(state, table, after, check.kind.value)]
    after = _void_dying_checks(state, after, facts)
    return Decision(facts, after)


def _reason(reason: str) -> str:
    if not reason.strip():
        raise TableError("cv/override_reason", "an override needs a reason for the log", fix="say why", ruling="R-T-2")
    return reason.strip()


@handles(OverrideCheck, CV)
def _override_check(state: TableState, cmd: OverrideCheck, ctx: Ctx) -> Decision:
    """GM override of a pending check, logged with who made it (R-T-2)."""
    require_gm(state, ctx.user)
    reason = _reason(cmd.reason)
    table = table_of(state)
    opened = pending(state, table, cmd.check, ctx.user)
    check = gm_override(opened.check, succeeded=cmd.succeeded, by=ctx.user, reason=reason)
    after = _with_check(table, replace(opened, check=check))
    said = CheckOverridden(opened.id, cmd.succeeded, ctx.user, reason)
    return Decision([private(state, opened.character, said, secret=opened.secret)], after)


# --- rounds and actions (R-CV-3, R-CV-5, R-CV-8) ---


# --- who is in the scene, the sides, the initiative order (R-CV-14) ---

DEFAULT_SIDES = ("heroes", "NPCs")  # heroes against NPCs, until the GM sets the sides (R-CV-14)


def side_of(state: TableState, table: CvTable, cid: str) -> str:
    """The character's side: the GM's, else heroes or NPCs (R-CV-14)."""
    return table.sides.get(cid) or DEFAULT_SIDES[state.character(cid).npc]


def enemies(state: TableState, table: CvTable, cid: str, other: str) -> bool:
    """Whether two characters are on different sides, as the GM set them (R-CV-2, R-CV-14)."""
    return side_of(state, table, cid).casefold() != side_of(state, table, other).casefold()


def absence(state: TableState, table: CvTable, cid: str) -> TableError | None:
    """Why the character is not in the running scene (exited, or set out of it by the GM), or None (R-CV-11,
    R-CV-14)."""
    name = table.hero(cid).name
    if cid in table.left:
        return TableError(
            "cv/not_in_scene",
            f"{name} has already left this scene",
            fix="take part again in the next scene",
            ruling="R-CV-11",
        )
    if cid in table.absent:
        return TableError(
            "cv/not_present",
            f"{name} is not in this scene: the GM has set who is present",
            fix="ask the GM to bring them into the scene; everyone is in the next scene",
            ruling="R-CV-14",
        )
    return None


def acting_refusal(state: TableState, table: CvTable, cid: str) -> TableError | None:
    """Why the character may not take actions in the rounds now (not in the scene, or not in the rounds' initiative
    order), or None (R-CV-14)."""
    away = absence(state, table, cid)
    if away is None and table.initiative_rolls:
        return TableError(
            "cv/initiative_open",
            "the round's first turn has not begun: initiative is still pending for re-rolls",
            fix="wait for the GM to begin the first turn",
            ruling="R-CV-4",
        )
    if away is not None or not table.order or cid in table.order:
        return away
    return TableError(
        "cv/not_in_round",
        f"{table.hero(cid).name} is not in the initiative order of these rounds",
        fix="the GM names them when starting the next round",
        ruling="R-CV-14",
    )


def _may_act(state: TableState, table: CvTable, cid: str) -> None:
    refusal = acting_refusal(state, table, cid)
    if refusal is not None:
        raise refusal


@handles(SetPresence, CV)
def _set_presence(state: TableState, cmd: SetPresence, ctx: Ctx) -> Decision:
    """The GM sets who is in the running scene; the others are out of it until it ends (R-CV-14)."""
    require_gm(state, ctx.user)
    table = table_of(state)
    if not state.structure.in_scene:
        raise TableError(
            "cv/no_scene",
            "no scene is running to be present in",
            fix="start a scene first; everyone is in a new scene until you say otherwise",
            ruling="R-CV-14",
        )
    for cid in cmd.present:
        if cid in table.left:
            raise TableError(
                "cv/not_in_scene",
                f"{table.hero(cid).name} has left this scene by spending Conviction",
                fix="leave them out; they take part again in the next scene",
                ruling="R-CV-11",
            )
        table.hero(cid)
    absent = tuple(cid for cid in table.heroes if cid not in cmd.present and cid not in table.left)
    return Decision([Emitted(PresenceSet(absent))], replace(table, absent=absent))


@handles(SetSides, CV)
def _set_sides(state: TableState, cmd: SetSides, ctx: Ctx) -> Decision:
    """The GM names the sides; whoever is left out is on their default side, heroes against NPCs (R-CV-14)."""
    require_gm(state, ctx.user)
    table = table_of(state)
    for cid, side in cmd.sides:
        table.hero(cid)
        if not side.strip():
            raise TableError(
                "cv/side",
                f"no side is named for {table.hero(cid).name}",
                fix="name a side for each character listed, or leave them out for their default side",
                ruling="R-CV-14",
            )
    sides = tuple((cid, side.strip()) for cid, side in cmd.sides)
    return Decision([Emitted(SidesSet(sides))], replace(table, sides=dict(sides)))


def _round_order(state: TableState, table: CvTable, cmd: StartRound, ctx: Ctx) -> tuple[list[Emitted], CvTable]:
    """The round's initiative order: the GM's, the standing one (less those who no longer take part), or rolled for
    everyone taking part when none stands, someone new joins, or the GM asks for a roll (R-CV-14). Hidden
    characters' dice and totals are the GM's; the order is public."""
    if cmd.order and (cmd.characters or cmd.roll):
        raise TableError(
            "cv/order_given",
            "an order the GM enters names who takes part, and nothing is rolled for it",
            fix="leave out characters and roll to enter the order, or leave out order to roll initiative",
            ruling="R-CV-14",
        )
    named = cmd.order or cmd.characters
    for cid in named:
        away = absence(state, table, cid)
        if away is not None:
            raise away
    who = named or tuple(cid for cid in table.heroes if table.present(cid))
    if not who:
        raise TableError(
            "cv/nobody_present",
            "nobody is in the scene to take part in a round",
            fix="set who is present in the scene first",
            ruling="R-CV-14",
        )
    facts: list[Emitted] = []
    if cmd.order:
        order, how, totals = cmd.order, "entered", {}
    elif not cmd.roll and table.order and set(who) <= set(table.order):
        order, how = tuple(cid for cid in table.order if cid in who), "kept"
        totals = {cid: t for cid, t in table.initiative.items() if cid in order}
    else:
        # each roll is pending for its roller until the GM begins the first turn (R-CV-4 amended): no order yet
        rolls = roll_initiative(ctx.rng, [table.hero(cid) for cid in who])
        facts += [
            private(state, cid, InitiativeRolled(cid, r.face, r.dexterity, r.total))
            for r, cid in zip(rolls, who, strict=True)
        ]
        totals = {**table.initiative, **{cid: r.total for r, cid in zip(rolls, who, strict=True)}}
        return facts, replace(table, order=(), initiative=totals, initiative_rolls=tuple(zip(who, rolls, strict=True)))
    if how != "kept" or order != table.order:
        facts.append(Emitted(InitiativeOrder(order, how)))
    return facts, replace(table, order=order, initiative=totals)


def initiative_roll(cid: str, round_number: int) -> str:
    """What names a character's initiative roll of a round, for R-T-4's record of what its roller has seen."""
    return f"initiative:{cid}:{round_number}"


def _initiative_open(table: CvTable) -> None:
    if table.initiative_rolls:
        raise TableError(
            "cv/initiative_open",
            "initiative is still pending: its rollers may re-roll it until the GM begins the first turn",
            fix="the GM begins the first turn, which announces the initiative order",
            ruling="R-CV-4",
        )


@handles(InitiativeReroll, CV)
def _initiative_reroll(state: TableState, cmd: InitiativeReroll, ctx: Ctx) -> Decision:
    """A Conviction re-roll of the character's pending initiative (R-CV-4 amended, R-CV-3)."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    pending_roll = dict(table.initiative_rolls).get(cmd.character)
    if pending_roll is None:
        name = table.hero(cmd.character).name
        raise TableError(
            "cv/initiative_closed",
            f"{name}'s initiative is not pending: it is re-rolled only after the GM starts rounds and before the first "
            "turn begins",
            fix="spend the point on something else",
            ruling="R-CV-4",
        )
    key = initiative_roll(cmd.character, table.hero(cmd.character).turn.number)
    if key in state.revealed:
        raise TableError(
            "roll/revealed",
            "this initiative was re-rolled, and its roller saw the die, before the GM undid it",
            fix="the GM begins the first turn with the initiative as it stands",
            ruling="R-T-4",
        )
    hero, roll = reroll_initiative(table.hero(cmd.character), pending_roll, ctx.rng)
    assert roll.second is not None
    rolls = tuple((c, roll if c == cmd.character else r) for c, r in table.initiative_rolls)
    after = replace(
        table.with_hero(cmd.character, hero),
        initiative={**table.initiative, cmd.character: roll.total},
        initiative_rolls=rolls,
    )
    facts = changes(state, table, after, "reroll")
    facts.append(private(state, cmd.character, InitiativeRerolled(cmd.character, roll.second, roll.total, key)))
    return Decision(facts, after)


@handles(BeginTurns, CV)
def _begin_turns(state: TableState, cmd: BeginTurns, ctx: Ctx) -> Decision:
    """The first turn begins: the initiative, re-rolls included, is announced and ties are broken (R-CV-4 amended,
    R-CV-14)."""
    require_gm(state, ctx.user)
    table = table_of(state)
    if not table.initiative_rolls:
        raise TableError(
            "cv/initiative_closed",
            "no initiative is pending: the rounds' order stands",
            fix="start a round with a fresh initiative roll first",
            ruling="R-CV-14",
        )
    ids = {r.name: cid for cid, r in table.initiative_rolls}
    order = tuple(ids[name] for name in initiative_order([r for _, r in table.initiative_rolls]))
    totals = {cid: t for cid, t in table.initiative.items() if cid in order}
    after = replace(table, order=order, initiative=totals, initiative_rolls=())
    return Decision([Emitted(InitiativeOrder(order, "rolled"))], after)


@handles(StartRound, CV)
def _start_round(state: TableState, cmd: StartRound, ctx: Ctx) -> Decision:
    """New round in initiative order: fresh actions and spending limit, stun and daze count down, one-round feats end
    (R-CV-3, R-CV-14)."""
    require_gm(state, ctx.user)
    table = table_of(state)
    for cid in (*cmd.characters, *cmd.order):
        table.hero(cid)
    _initiative_open(table)
    facts, ordered = _round_order(state, table, cmd, ctx)
    taking_part = ordered.order or tuple(cid for cid, _ in ordered.initiative_rolls)
    heroes = {cid: start_round(table.hero(cid)) for cid in taking_part}
    after = ordered.with_heroes(heroes)
    facts += [Emitted(RoundStarted(taking_part)), *changes(state, ordered, after, "new_round")]
    return Decision(facts, _void_dying_checks(state, after, facts))


@handles(TakeAction, CV)
def _act(state: TableState, cmd: TakeAction, ctx: Ctx) -> Decision:
    """Take an action within the budget; a strenuous action while Disabled drops to dying (R-CV-8, R-CV-9). Only a
    character in the scene and in the rounds' order acts (R-CV-14)."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    _may_act(state, table, cmd.character)
    before = table.hero(cmd.character)
    hero = take_action(before, cmd.action, table.options, strenuous=cmd.strenuous)
    dropped = hero.conditions.dying and not before.conditions.dying
    taken = ActionTaken(cmd.character, cmd.action.value, cmd.strenuous, cmd.what.strip(), dropped)
    return _heroes(state, {cmd.character: hero}, "action", Emitted(taken))


# --- spends on oneself (R-CV-5 … R-CV-9) ---


def _spend(state: TableState, cid: str, hero: Hero, use: str, detail: str = "", target: str | None = None) -> Decision:
    return _heroes(state, {cid: hero}, use, _about(state, cid, Spent(cid, use, detail, target)))


@handles(Surge, CV)
def _surge(state: TableState, cmd: Surge, ctx: Ctx) -> Decision:
    """One extra standard or move action this round; the character keeps their place in the initiative order
    (R-CV-5, R-CV-14)."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    _may_act(state, table, cmd.character)
    hero = surge(table.hero(cmd.character), cmd.action)
    return _spend(state, cmd.character, hero, "surge", cmd.action.value)


@handles(HeroicFeat, CV)
def _heroic_feat(state: TableState, cmd: HeroicFeat, ctx: Ctx) -> Decision:
    """A feat for one round from the campaign's catalogue (R-CV-6)."""
    require_controls(state, ctx.user, cmd.character)
    hero = heroic_feat(table_of(state).hero(cmd.character), cmd.feat, catalogue())
    return _spend(state, cmd.character, hero, "heroic_feat", hero.effects[-1].name)


@handles(TheTalent, CV)
def _talent(state: TableState, cmd: TheTalent, ctx: Ctx) -> Decision:
    """The Talent, the Adept core ability (R-CV-7)."""
    require_controls(state, ctx.user, cmd.character)
    power = cmd.power.strip() if cmd.power is not None else None
    hero = the_talent(table_of(state).hero(cmd.character), power=power)
    return _spend(state, cmd.character, hero, "the_talent", power or "")


@handles(UseTalentPower, CV)
def _use_power(state: TableState, cmd: UseTalentPower, ctx: Ctx) -> Decision:
    """Use the power The Talent granted (R-CV-7)."""
    require_controls(state, ctx.user, cmd.character)
    hero = use_talent_power(table_of(state).hero(cmd.character), cmd.power)
    return _heroes(state, {cmd.character: hero}, "talent_power_used")


@handles(Expertise, CV)
def _expertise(state: TableState, cmd: Expertise, ctx: Ctx) -> Decision:
    """Expertise, the Expert core ability: +4 ranks in a skill for the scene (R-CV-7)."""
    require_controls(state, ctx.user, cmd.character)
    hero = expertise(table_of(state).hero(cmd.character), cmd.skill)
    return _spend(state, cmd.character, hero, "expertise", cmd.skill.strip())


@handles(Determination, CV)
def _determination(state: TableState, cmd: Determination, ctx: Ctx) -> Decision:
    """Determination, the Warrior core ability: every bruised and hurt condition goes (R-CV-7)."""
    require_controls(state, ctx.user, cmd.character)
    hero = determination(table_of(state).hero(cmd.character))
    return _spend(state, cmd.character, hero, "determination")


@handles(ShakeOffCondition, CV)
def _shake_off(state: TableState, cmd: ShakeOffCondition, ctx: Ctx) -> Decision:
    """Recover: shake off stunned or strained at once (R-CV-9)."""
    require_controls(state, ctx.user, cmd.character)
    hero = shake_off(table_of(state).hero(cmd.character), cmd.condition)
    return _spend(state, cmd.character, hero, "shake_off", cmd.condition.value)


@handles(RecoverNow, CV)
def _recover_now(state: TableState, cmd: RecoverNow, ctx: Ctx) -> Decision:
    """A Conviction-bought recovery check; ending Disabled closes spending for the round (R-CV-3, R-CV-9)."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    hero, check = recover_now(table.hero(cmd.character), ctx.rng)
    paid = table.with_hero(cmd.character, hero)
    lead = [
        _about(state, cmd.character, Spent(cmd.character, "recover_now")),
        *changes(state, table, paid, "recover_now"),
    ]
    return _open(state, paid, ctx, cmd.character, check, lead=lead)


@handles(StrenuousGuard, CV)
def _guard(state: TableState, cmd: StrenuousGuard, ctx: Ctx) -> Decision:
    """Recover: while Disabled, act strenuously this round without dropping to dying (R-CV-9)."""
    require_controls(state, ctx.user, cmd.character)
    hero = strenuous_guard(table_of(state).hero(cmd.character))
    return _spend(state, cmd.character, hero, "strenuous_guard")


@handles(EscapeDeath, CV)
def _escape_death(state: TableState, cmd: EscapeDeath, ctx: Ctx) -> Decision:
    """Escape death: the dying one becomes stable, disabled and unconscious (R-CV-10)."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    if cmd.target == cmd.character or (cmd.target is None and cmd.assisting):
        raise TableError(
            "conviction/assisting_yourself",
            "a character escaping death themself assists no one",
            fix="leave out target and assisting to save yourself; name the dying one you assist to save them",
            ruling="R-CV-10",
        )
    target = cmd.target if cmd.target is not None else cmd.character
    spender, saved = escape_death(table.hero(cmd.character), table.hero(target), assisting=cmd.assisting)
    heroes = {cmd.character: spender} if target == cmd.character else {cmd.character: spender, target: saved}
    said = Spent(cmd.character, "escape_death", target=target)
    hidden = state.character(cmd.character).hidden and state.character(target).hidden
    return _heroes(state, heroes, "escape_death", Emitted(said, Visibility.GM if hidden else Visibility.PUBLIC))


# --- exit a scene (R-CV-11) ---


def _in_scene(state: TableState, table: CvTable, cid: str) -> None:
    """Exiting and interfering happen inside a running scene, by a character in it: not exited, and present as the GM
    set it (R-CV-11, R-CV-14)."""
    if not state.structure.in_scene:
        raise TableError(
            "cv/no_scene", "no scene is running to leave", fix="wait for the GM to start a scene", ruling="R-CV-11"
        )
    away = absence(state, table, cid)
    if away is not None:
        raise away


def exits_cleared(table: CvTable) -> Decision:
    """At a scene's end, those who exited it take part again (R-CV-11)."""
    if not table.left:
        return Decision([], table)
    return Decision([Emitted(ExitsCleared(table.left))], replace(table, left=()))


def _bid(table: CvTable) -> None:
    if table.exit_bid is None:
        raise TableError(
            "cv/no_exit", "no one is trying to leave the scene", fix="start an exit first", ruling="R-CV-11"
        )


@handles(StartExit, CV)
def _start_exit(state: TableState, cmd: StartExit, ctx: Ctx) -> Decision:
    """Spend a point to leave the scene; the others may interfere (R-CV-11)."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    _in_scene(state, table, cmd.character)
    if table.exit_bid is not None:
        raise TableError(
            "cv/exit_open",
            f"{table.exit_bid.leaver}'s exit is still being bid on",
            fix="finish that bidding first",
            ruling="R-CV-11",
        )
    hero, bid = attempt_exit(table.hero(cmd.character))
    after = replace(table.with_hero(cmd.character, hero), exit_bid=bid)
    facts = [Emitted(ExitStarted(cmd.character, hero.name)), *changes(state, table, after, "exit")]
    return Decision(facts, after)


@handles(InterfereExit, CV)
def _interfere(state: TableState, cmd: InterfereExit, ctx: Ctx) -> Decision:
    """Spend a point against someone's exit; each cancels one exit point (R-CV-11)."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    _bid(table)
    _in_scene(state, table, cmd.character)
    assert table.exit_bid is not None
    hero, bid = interfere(table.exit_bid, table.hero(cmd.character))
    after = replace(table.with_hero(cmd.character, hero), exit_bid=bid)
    facts = [Emitted(ExitInterfered(cmd.character, hero.name)), *changes(state, table, after, "interfere")]
    return Decision(facts, after)


@handles(PressExit, CV)
def _press(state: TableState, cmd: PressExit, ctx: Ctx) -> Decision:
    """The leaver spends one more exit point (R-CV-11)."""
    require_member(state, ctx.user)
    table = table_of(state)
    _bid(table)
    assert table.exit_bid is not None
    leaver = table.named(table.exit_bid.leaver)
    require_controls(state, ctx.user, leaver)
    hero, bid = press_exit(table.exit_bid, table.hero(leaver))
    after = replace(table.with_hero(leaver, hero), exit_bid=bid)
    return Decision([Emitted(ExitPressed(leaver)), *changes(state, table, after, "exit")], after)


@handles(PassExit, CV)
def _pass(state: TableState, cmd: PassExit, ctx: Ctx) -> Decision:
    """A side passes; when both have, the exit happens if exit points outnumber interfering ones (R-CV-11)."""
    require_member(state, ctx.user)
    table = table_of(state)
    _bid(table)
    bid = table.exit_bid
    assert bid is not None
    leaver = table.named(bid.leaver)
    if cmd.side is Side.EXIT:
        if cmd.character is not None and cmd.character != leaver:
            raise TableError("cv/exit_pass", "the exit side passes for the leaver", fix="leave character out")
        require_controls(state, ctx.user, leaver)
    elif not state.is_gm(ctx.user):
        if cmd.character is None:
            raise Forbidden(
                "cv/exit_pass", "only the GM or an interfering player passes for the interfering side", fix="ask the GM"
            )
        require_controls(state, ctx.user, cmd.character)
        if table.hero(cmd.character).name not in dict(bid.interference):
            raise Forbidden(
                "cv/exit_pass",
                f"{table.hero(cmd.character).name} has not interfered with this exit",
                fix="interfere first, or let the GM pass",
            )
    elif cmd.character is not None:
        raise TableError("cv/exit_pass", "the GM passes for the whole interfering side", fix="leave character out")
    bid = pass_bid(bid, cmd.side)
    facts = [Emitted(ExitPassed(cmd.side.value))]
    if bid.closed:
        facts.append(Emitted(ExitResolved(leaver, bid.exits, bid.exit_points, bid.interfering_points)))
        left = (*table.left, leaver) if bid.exits else table.left
        return Decision(facts, replace(table, exit_bid=None, left=left))
    return Decision(facts, replace(table, exit_bid=bid))


# --- Quotable Wit (R-CV-12) ---


def _in_session(state: TableState) -> None:
    """Quotable Wit counts its uses per game session, so it is marked and used while one runs (R-CV-12)."""
    if not state.structure.in_session:
        raise TableError(
            "cv/no_session",
            "no game session is running, and Quotable Wit counts its uses per session",
            fix="wait for the GM to start the game session",
            ruling="R-CV-12",
        )


@handles(DesignateWit, CV)
def _designate(state: TableState, cmd: DesignateWit, ctx: Ctx) -> Decision:
    """Mark a Quotable Wit; the speaker and the spender count as having heard it (R-CV-12)."""
    require_controls(state, ctx.user, cmd.character)
    _in_session(state)
    table = table_of(state)
    speaker = table.hero(cmd.speaker).name
    heard = frozenset(table.hero(cid).name for cid in cmd.heard_by)
    hero, wits, wit = designate(table.wits, table.hero(cmd.character), text=cmd.text, speaker=speaker, heard_by=heard)
    after = replace(table.with_hero(cmd.character, hero), wits=wits)
    said = WitDesignated(wit.number, wit.text, wit.speaker, wit.designated_by, tuple(sorted(wit.heard_by)))
    return Decision([Emitted(said), *changes(state, table, after, "quotable_wit")], after)


@handles(UseWit, CV)
def _use_wit(state: TableState, cmd: UseWit, ctx: Ctx) -> Decision:
    """+2 on a related pending roll, once per Wit, three uses a game session (R-CV-12)."""
    table = table_of(state)
    opened = pending(state, table, cmd.check, ctx.user)
    require_controls(state, ctx.user, opened.character)
    _in_session(state)
    if not cmd.related and not state.is_gm(ctx.user):
        raise Forbidden("cv/wit_related", "whether a Wit fits is the GM's call", fix="leave related out")
    _not_revealed(state, opened)
    if opened.secret:
        raise TableError(
            "cv/wit_secret",
            "a Quotable Wit is used in the open, and this check is the GM's secret",
            fix="make the check openly to use a Wit on it",
            ruling="R-CV-12",
        )
    wits, check = use_wit(table.wits, cmd.wit, opened.check, related=cmd.related, hijack=cmd.hijack)
    after = _with_check(replace(table, wits=wits), replace(opened, check=check))
    bonus = check.bonuses[-1]
    used = WitUsed(cmd.wit, opened.check.roller, cmd.hijack)
    facts = [
        Emitted(used),
        private(state, opened.character, CheckBonus(opened.id, bonus.source, bonus.amount)),
    ]
    return Decision(facts, after)


# --- regaining Conviction (R-CV-2, R-CV-13) ---


@handles(AwardNature, CV)
def _award(state: TableState, cmd: AwardNature, ctx: Ctx) -> Decision:
    """The GM awards a point for acting on Virtue or Vice, never above the maximum (R-CV-2, R-CV-13)."""
    require_gm(state, ctx.user)
    hero = award_nature(table_of(state).hero(cmd.character), cmd.trait)
    note = f": {cmd.note.strip()}" if cmd.note.strip() else ""
    return _heroes(state, {cmd.character: hero}, f"{cmd.trait.value}{note}")


@handles(RegainCheck, CV)
def _regain(state: TableState, cmd: RegainCheck, ctx: Ctx) -> Decision:
    """One regain check per character after a dramatic scene, pending until announced (R-CV-13)."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    hero, check = roll_regain_check(table.hero(cmd.character), ctx.rng)
    paid = table.with_hero(cmd.character, hero)
    return _open(state, paid, ctx, cmd.character, check, lead=changes(state, table, paid, "regain_check"))


@handles(RaiseLevel, CV)
def _raise_level(state: TableState, cmd: RaiseLevel, ctx: Ctx) -> Decision:
    """The GM raises a level; an odd level gives its point at once (R-CV-2)."""
    require_gm(state, ctx.user)
    return _heroes(state, {cmd.character: raise_level(table_of(state).hero(cmd.character))}, "new_level")


@handles(GainFromSetback, CV)
def _setback(state: TableState, cmd: GainFromSetback, ctx: Ctx) -> Decision:
    """The GM gives a point for a setback at an enemy's hands, even above the maximum (R-CV-2, R-CV-13)."""
    require_gm(state, ctx.user)
    hero = gain_from_setback(table_of(state).hero(cmd.character), cmd.setback)
    return _heroes(state, {cmd.character: hero}, cmd.setback.value)


# --- damage, dying, recovery, fatigue (R-CV-8) ---


def _require_gm_or_attacker(state: TableState, user: str, attacker: str | None, what: str) -> None:
    """The GM calls for damage, stuns and fatigue and sets how much, whoever the attacker (R-T-3); a player's attack
    roll is a check the GM calls for, and the GM then calls for its effect."""
    require_member(state, user)
    if not state.is_gm(user):
        raise Forbidden(
            "cv/gm_sets_damage",
            f"{what} and how much it deals are the GM's to set",
            fix="roll your attack as the GM calls for it; the GM then calls for its effect",
            ruling="R-T-3",
        )
    if attacker is not None:
        table_of(state).hero(attacker)


def _by_enemy(state: TableState, cmd: ToughnessSave) -> bool:
    """Whether the damage is an enemy's (R-CV-2): the GM's word, else an attacker on another side as the GM set the
    sides (heroes against NPCs until then, R-CV-14); damage with no attacker named counts as an enemy's."""
    if cmd.by_enemy is not None:
        return cmd.by_enemy
    if cmd.attacker is None:
        return True
    return enemies(state, table_of(state), cmd.attacker, cmd.character)


@handles(ToughnessSave, CV)
def _toughness(state: TableState, cmd: ToughnessSave, ctx: Ctx) -> Decision:
    """Roll the target's Toughness save, pending until announced (R-CV-4, R-CV-8)."""
    _require_gm_or_attacker(state, ctx.user, cmd.attacker, "a Toughness save")
    table = table_of(state)
    kind = DamageKind.LETHAL if cmd.lethal else DamageKind.NONLETHAL
    if (cmd.modifier or cmd.reason.strip()) and not state.is_gm(ctx.user):
        raise Forbidden(
            "cv/gm_modifier",
            "a situational modifier on a save is the GM's call",
            fix="leave modifier and reason out, or ask the GM",
            ruling="R-T-2",
        )
    hero = table.hero(cmd.character)
    check = toughness_save(hero, ctx.rng, damage_bonus=cmd.damage_bonus, kind=kind)
    feats = situational_bonus(cmd.modifier, cmd.reason)  # R-T-2 amended
    feats += feat_bonuses(hero.feats_in_force(), catalogue(), Modelled.TOUGHNESS)  # R-CV-6 amended
    by_enemy = _by_enemy(state, cmd)
    return _open(state, table, ctx, cmd.character, check, secret=cmd.secret, by_enemy=by_enemy, bonuses=feats)


@handles(DyingCheck, CV)
def _dying(state: TableState, cmd: DyingCheck, ctx: Ctx) -> Decision:
    """A dying character's Constitution check against 10, once a round (R-CV-8)."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    hero, check = dying_check(table.hero(cmd.character), ctx.rng)
    marked = table.with_hero(cmd.character, hero)
    return _open(state, marked, ctx, cmd.character, check, lead=changes(state, table, marked, "dying_check"))


@handles(RecoveryCheck, CV)
def _recovery(state: TableState, cmd: RecoveryCheck, ctx: Ctx) -> Decision:
    """A recovery check, Constitution against 10, when the GM says one is due (R-CV-8)."""
    require_controls(state, ctx.user, cmd.character)
    table = table_of(state)
    return _open(state, table, ctx, cmd.character, recovery_check(table.hero(cmd.character), ctx.rng))


def _applied(state: TableState, cid: str, hero: Hero, condition: str, steps: int, attacker: str | None) -> Decision:
    return _heroes(state, {cid: hero}, condition, Emitted(ConditionApplied(cid, condition, steps, attacker)))


@handles(Stun, CV)
def _stun(state: TableState, cmd: Stun, ctx: Ctx) -> Decision:
    """Stunned: only reactions for a round (R-CV-8)."""
    _require_gm_or_attacker(state, ctx.user, cmd.attacker, "a stun")
    return _applied(state, cmd.character, stun(table_of(state).hero(cmd.character)), "stun", 1, cmd.attacker)


@handles(AddFatigue, CV)
def _fatigue(state: TableState, cmd: AddFatigue, ctx: Ctx) -> Decision:
    """Strained → fatigued → exhausted; beyond, unconscious (R-CV-8)."""
    _require_gm_or_attacker(state, ctx.user, cmd.attacker, "fatigue")
    hero = add_fatigue(table_of(state).hero(cmd.character), cmd.steps)
    return _applied(state, cmd.character, hero, "fatigue", cmd.steps, cmd.attacker)


@handles(Rest, CV)
def _rest(state: TableState, cmd: Rest, ctx: Ctx) -> Decision:
    """Rest removes fatigue steps; how long it takes is the GM's call (R-CV-8, R-T-2)."""
    require_gm(state, ctx.user)
    hero = rest(table_of(state).hero(cmd.character), cmd.steps)
    return _applied(state, cmd.character, hero, "rest", cmd.steps, None)


# --- GM override (R-T-2) ---


@handles(CvOverride, CV)
def _override(state: TableState, cmd: CvOverride, ctx: Ctx) -> Decision:
    """GM override of Conviction and conditions, logged with who and why (R-T-2)."""
    require_gm(state, ctx.user)
    reason = _reason(cmd.reason)
    hero = table_of(state).hero(cmd.character)
    if cmd.conviction is not None:
        hero = hero.with_conviction(cmd.conviction)
    c = hero.conditions
    c = replace(
        c,
        bruised=c.bruised if cmd.bruised is None else cmd.bruised,
        hurt=c.hurt if cmd.hurt is None else cmd.hurt,
        lethal=c.lethal if cmd.lethal is None else cmd.lethal,
        nonlethal=c.nonlethal if cmd.nonlethal is None else cmd.nonlethal,
        fatigue=c.fatigue if cmd.fatigue is None else cmd.fatigue,
        stunned_rounds=c.stunned_rounds if cmd.stunned_rounds is None else cmd.stunned_rounds,
        dazed_rounds=c.dazed_rounds if cmd.dazed_rounds is None else cmd.dazed_rounds,
    )
    hero = replace(hero, conditions=c)
    if cmd.regain_check_due is not None:
        hero = replace(hero, regain_check_due=cmd.regain_check_due)
    said = _about(state, cmd.character, Overridden(cmd.character, reason, ctx.user))
    return _heroes(state, {cmd.character: hero}, "override", said)
