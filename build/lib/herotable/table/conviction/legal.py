"""What a member may do at a Conviction table now, each field with the values the rules accept.

The predicates are the rules' own (`spending_refusal`, `recovery_refusal`, `take_action`, the feats catalogue's
`acquisition_problems`), so the list stays sound and complete against `decide`.
"""

from __future__ import annotations

from herotable.conviction.character import MAX_LEVEL, Ability
from herotable.conviction.character import Role as CvRole
from herotable.conviction.checks import CheckKind
from herotable.conviction.conditions import Fatigue, Lethal, NonLethal
from herotable.conviction.damage import recovery_refusal
from herotable.conviction.exit_scene import Side
from herotable.conviction.feats import acquisition_problems
from herotable.conviction.hero import EffectKind, Hero
from herotable.conviction.quotable_wit import USES_PER_SESSION
from herotable.conviction.regain import NatureTrait, Setback
from herotable.conviction.rounds import ActionKind, take_action
from herotable.conviction.spending import ShakeOff, can_spend
from herotable.errors import RulesError
from herotable.table.commands import LABEL_LENGTH, NAME_LENGTH, PROSE_LENGTH, controls
from herotable.table.conviction.commands import (
    CONVICTION,
    COUNT,
    DAMAGE,
    DIFFICULTY,
    MODIFIER,
    ROUNDS,
    STEPS,
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
from herotable.table.conviction.decide import acting_refusal, catalogue, initiative_roll, sheet_skills, table_of
from herotable.table.conviction.state import CvTable, OpenCheck
from herotable.table.game import (
    Choice,
    Domain,
    Flag,
    IntRange,
    KeyedValues,
    LegalAction,
    Subset,
    TextDomain,
    acting_for,
    new_character_actions,
    word_choice,
)
from herotable.table.state import CharacterRef, TableState


def legal_actions(state: TableState, user: str) -> list[LegalAction]:
    table = table_of(state)
    mine = acting_for(state, user, table.heroes)
    if mine is None:
        return []
    gm = state.is_gm(user)
    out = new_character_actions(state, user, CreateCvCharacter.type, "conviction", "R-CV-2")
    for c in mine:
        out += _own(state, table, c, gm)
    out += _checks(state, table, user)
    out += _exit(state, table, user, mine)
    if gm:
        out += _damage(state, table, user, mine)
        out += _gm(state, table)
    return out


def _acts(hero: Hero, table: CvTable) -> tuple[str, ...]:
    """The kinds of action the character may take now (R-CV-5, R-CV-8)."""
    out = []
    for kind in ActionKind:
        try:
            take_action(hero, kind, table.options)
        except RulesError:
            continue
        out.append(kind.value)
    return tuple(out)


def _own(state: TableState, table: CvTable, c: CharacterRef, gm: bool) -> list[LegalAction]:
    """A character's own actions: checks, actions, spends on themself, Quotable Wit."""
    hero = table.hero(c.id)
    fixed = {"character": c.id}
    name = c.name
    out: list[LegalAction] = []
    abilities = Choice((None, *(a.value for a in Ability)), ("—", *(a.value for a in Ability)))
    skills = TextDomain(NAME_LENGTH, suggestions=sheet_skills(hero))  # the sheet's, or one untrained
    check_fields: dict[str, Domain] = {
        "difficulty": IntRange(DIFFICULTY.lo, DIFFICULTY.hi),
        "label": TextDomain(LABEL_LENGTH),
        "modifier": IntRange(MODIFIER.lo, MODIFIER.hi),
        "reason": TextDomain(LABEL_LENGTH),  # why the modifier: the roller sees it (R-T-2 amended)
        "ability": abilities,
        "skill": skills,
        "untrained": Flag(),
    }
    if gm:  # the GM sets Difficulties (R-T-3) and rolls in secret (R-CV-4)
        out.append(
            LegalAction(
                RollCheck.type,
                f"{name}: a check",
                fixed,
                {**check_fields, "secret": Flag()},
                "Checks",
                "R-CV-1, R-CV-4",
            )
        )
        out.append(
            LegalAction(CallCheck.type, f"{name}: call for a check", fixed, check_fields, "Checks", "R-T-3, R-CV-1")
        )
    for call in table.calls:
        if call.character != c.id:
            continue
        open_fields: dict[str, Domain] = {}
        if call.ability is None:
            open_fields["ability"] = abilities
        if call.skill is None:
            open_fields["skill"] = skills
            open_fields["untrained"] = Flag()
        named = " ".join(w for w in ((call.ability or "").capitalize(), call.skill or "") if w)
        what = (
            (call.label + (f" ({named})" if named else ""))
            if call.label
            else (f"{named} check" if named else "the check")
        )
        situational = f", {call.modifier:+d} {call.reason or 'situational modifier'}" if call.modifier else ""
        out.append(
            LegalAction(
                RollCheck.type,
                f"{name}: roll {what} the GM called for (against {call.difficulty}{situational})",
                {**fixed, "call": call.id},
                open_fields,
                "Checks",
                "R-T-3, R-CV-1",
            )
        )
    if hero.conditions.dying and not hero.turn.dying_checked:
        out.append(LegalAction(DyingCheck.type, f"{name}: dying check", fixed, group="Checks", rule="R-CV-8"))
    if recovery_refusal(hero) is None:
        out.append(LegalAction(RecoveryCheck.type, f"{name}: recovery check", fixed, group="Checks", rule="R-CV-8"))
    if hero.regain_check_due and hero.conviction < hero.conviction_max:
        out.append(
            LegalAction(RegainCheck.type, f"{name}: Conviction regain check", fixed, group="Checks", rule="R-CV-13")
        )
    kinds = _acts(hero, table) if acting_refusal(state, table, c.id) is None else ()
    if kinds:
        out.append(
            LegalAction(
                TakeAction.type,
                f"{name}: take an action",
                fixed,
                {"action": word_choice(kinds), "strenuous": Flag(), "what": TextDomain(LABEL_LENGTH)},
                "Actions",
                "R-CV-5, R-CV-8",
            )
        )
    uses = [e.name for e in hero.effects if e.kind is EffectKind.POWER_USE]
    if uses:
        out.append(
            LegalAction(
                UseTalentPower.type,
                f"{name}: use the Talent's power",
                fixed,
                {"power": Choice(tuple(dict.fromkeys(uses)))},
                "Actions",
                "R-CV-7",
            )
        )
    if can_spend(hero):
        out += _spends(state, table, c, hero)
    return out


def _spends(state: TableState, table: CvTable, c: CharacterRef, hero: Hero) -> list[LegalAction]:
    fixed = {"character": c.id}
    name = c.name
    group = "Conviction"
    out: list[LegalAction] = []
    cond = hero.conditions
    able = not (cond.unconscious or cond.dead or cond.stunned or cond.dazed)
    if able and acting_refusal(state, table, c.id) is None:
        out.append(
            LegalAction(
                Surge.type, f"{name}: surge", fixed, {"action": word_choice(("standard", "move"))}, group, "R-CV-5"
            )
        )
    feats = [
        f.name
        for f in catalogue().feats
        if (f.repeatable or hero.feat_count(f.name) == 0) and not acquisition_problems(hero.sheet, f)
    ]
    if feats:
        out.append(
            LegalAction(HeroicFeat.type, f"{name}: heroic feat", fixed, {"feat": Choice(tuple(feats))}, group, "R-CV-6")
        )
    first = hero.sheet.first_role
    if first is CvRole.ADEPT:
        if cond.fatigue is not Fatigue.NONE:
            out.append(
                LegalAction(TheTalent.type, f"{name}: The Talent, clear fatigue", fixed, group=group, rule="R-CV-7")
            )
        out.append(
            LegalAction(
                TheTalent.type,
                f"{name}: The Talent, one use of a power",
                fixed,
                {"power": TextDomain(NAME_LENGTH, True, hero.sheet.feats)},
                group,
                "R-CV-7",
            )
        )
    if first is CvRole.EXPERT:
        held = tuple(e.name for e in hero.effects if e.kind is EffectKind.SKILL_RANKS)
        out.append(
            LegalAction(
                Expertise.type,
                f"{name}: Expertise",
                fixed,
                {"skill": TextDomain(NAME_LENGTH, True, held)},
                group,
                "R-CV-7",
            )
        )
    if first is CvRole.WARRIOR and (cond.bruised or cond.hurt):
        out.append(LegalAction(Determination.type, f"{name}: Determination", fixed, group=group, rule="R-CV-7"))
    shake = [
        s.value
        for s in ShakeOff
        if (s is ShakeOff.STUNNED and cond.stunned) or (s is ShakeOff.STRAINED and cond.fatigue is Fatigue.STRAINED)
    ]
    if shake:
        out.append(
            LegalAction(
                ShakeOffCondition.type,
                f"{name}: shake off",
                fixed,
                {"condition": word_choice(tuple(shake))},
                group,
                "R-CV-9",
            )
        )
    if recovery_refusal(hero) is None:
        out.append(LegalAction(RecoverNow.type, f"{name}: a recovery check now", fixed, group=group, rule="R-CV-9"))
    if cond.disabled and not hero.turn.strenuous_guard:
        out.append(LegalAction(StrenuousGuard.type, f"{name}: strenuous guard", fixed, group=group, rule="R-CV-9"))
    if cond.dying:
        out.append(LegalAction(EscapeDeath.type, f"{name}: escape death", fixed, group=group, rule="R-CV-10"))
    others = [cid for cid, h in table.heroes.items() if cid != c.id and h.conditions.dying]
    if others:
        out.append(
            LegalAction(
                EscapeDeath.type,
                f"{name}: pull someone back from death",
                {**fixed, "assisting": True},
                {"target": Choice(tuple(others), tuple(state.character(o).name for o in others))},
                group,
                "R-CV-10",
            )
        )
    ids = tuple(table.heroes)
    names = tuple(state.character(cid).name for cid in ids)
    if state.structure.in_session:  # Quotable Wit counts per game session (R-CV-12)
        out.append(
            LegalAction(
                DesignateWit.type,
                f"{name}: mark a Quotable Wit",
                fixed,
                {"text": TextDomain(PROSE_LENGTH, True), "speaker": Choice(ids, names), "heard_by": Subset(ids, names)},
                "Quotable Wit",
                "R-CV-12",
            )
        )
    if table.exit_bid is None and state.structure.in_scene and table.present(c.id):
        out.append(
            LegalAction(StartExit.type, f"{name}: leave the scene", fixed, group="Leaving the scene", rule="R-CV-11")
        )
    return out


def _visible(state: TableState, user: str, opened: OpenCheck) -> bool:
    return (not opened.secret or state.is_gm(user)) and controls(state, user, opened.character)


def _initiative(state: TableState, table: CvTable, user: str) -> list[LegalAction]:
    """While the round's initiative is pending: its rollers' Conviction re-rolls (R-CV-4 amended)."""
    out: list[LegalAction] = []
    for cid, roll in table.initiative_rolls:
        hero = table.hero(cid)
        seen = initiative_roll(cid, hero.turn.number) in state.revealed  # re-rolled, seen, then undone (R-T-4)
        if controls(state, user, cid) and roll.second is None and can_spend(hero) and not seen:
            label = f"{hero.name}: re-roll initiative with Conviction ({roll.total} now)"
            out.append(
                LegalAction(InitiativeReroll.type, label, {"character": cid}, group="Rounds", rule="R-CV-4, R-CV-3")
            )
    return out


def _checks(state: TableState, table: CvTable, user: str) -> list[LegalAction]:
    """Re-roll, Quotable Wit, announce and (the GM) override, for each pending check the member may act on."""
    out: list[LegalAction] = _initiative(state, table, user)
    gm = state.is_gm(user)
    for opened in table.checks:
        if not _visible(state, user, opened):
            continue
        fixed = {"check": opened.id}
        check = opened.check
        hero = table.hero(opened.character)
        title = f"{hero.name}'s {check.label}"
        # a secret check spends nothing of a character the players see, and Wits are used in the open
        spends = not opened.secret or state.character(opened.character).hidden
        if opened.id not in state.revealed:
            bought = check.kind is CheckKind.RECOVERY and check.bought_with_conviction
            if check.second is None and check.override is None and can_spend(hero, recovery_reroll=bought) and spends:
                out.append(
                    LegalAction(Reroll.type, f"{title}: Conviction re-roll", fixed, group="Checks", rule="R-CV-4")
                )
            if table.wits.session_uses < USES_PER_SESSION and not opened.secret and state.structure.in_session:
                wits = [w.number for w in table.wits.wits if w.used_by is None and check.roller in w.heard_by]
                if wits:
                    out.append(
                        LegalAction(
                            UseWit.type,
                            f"{title}: use a Quotable Wit (+2)",
                            fixed,
                            {"wit": Choice(tuple(wits), tuple(f"#{n}" for n in wits)), "hijack": Flag()},
                            "Quotable Wit",
                            "R-CV-12",
                        )
                    )
        if check.kind is not CheckKind.DYING or hero.conditions.dying:
            out.append(
                LegalAction(Announce.type, "Accept the roll (announce it)", fixed, group="Checks", rule="R-CV-4")
            )
        if gm:
            out.append(
                LegalAction(
                    OverrideCheck.type,
                    f"{title}: override",
                    fixed,
                    {"succeeded": Flag(), "reason": TextDomain(LABEL_LENGTH, True)},
                    "Checks",
                    "R-T-2",
                )
            )
    return out


def _exit(state: TableState, table: CvTable, user: str, mine: list[CharacterRef]) -> list[LegalAction]:
    bid = table.exit_bid
    if bid is None:
        return []
    out: list[LegalAction] = []
    group, rule = "Leaving the scene", "R-CV-11"
    leaver = table.named(bid.leaver)
    interfered = dict(bid.interference)
    for c in mine:
        hero = table.hero(c.id)
        if c.id != leaver and can_spend(hero) and table.present(c.id):
            out.append(
                LegalAction(InterfereExit.type, f"{c.name}: interfere", {"character": c.id}, group=group, rule=rule)
            )
    if controls(state, user, leaver):
        if can_spend(table.hero(leaver)):
            out.append(LegalAction(PressExit.type, "Press the exit", group=group, rule=rule))
        out.append(
            LegalAction(PassExit.type, "Pass (the leaving side)", {"side": Side.EXIT.value}, group=group, rule=rule)
        )
    if state.is_gm(user):
        out.append(
            LegalAction(
                PassExit.type, "Pass (the interfering side)", {"side": Side.INTERFERE.value}, group=group, rule=rule
            )
        )
    else:
        mine_in = [c.id for c in mine if table.hero(c.id).name in interfered]
        if mine_in:
            out.append(
                LegalAction(
                    PassExit.type,
                    "Pass (the interfering side)",
                    {"side": Side.INTERFERE.value},
                    {"character": Choice(tuple(mine_in))},
                    group,
                    rule,
                )
            )
    return out


def _damage(state: TableState, table: CvTable, user: str, mine: list[CharacterRef]) -> list[LegalAction]:
    """Damage, stuns and fatigue the GM calls for, whoever the attacker (R-T-3, R-CV-8)."""
    ids = tuple(table.heroes)
    if not ids:
        return []
    names = tuple(state.character(cid).name for cid in ids)
    gm = state.is_gm(user)
    attackers = [c.id for c in mine]
    attacker = Choice(
        ((None,) if gm else ()) + tuple(attackers),
        (("— (the GM)",) if gm else ()) + tuple(state.character(a).name for a in attackers),
    )
    if not attacker.choices:
        return []
    save: dict[str, Domain] = {
        "character": Choice(ids, names),
        "damage_bonus": IntRange(DAMAGE.lo, DAMAGE.hi),
        "lethal": Flag(),
        "attacker": attacker,
    }
    if gm:
        save |= {
            "by_enemy": Choice((None, True, False), ("by the sides", "yes", "no")),
            "secret": Flag(),
            "modifier": IntRange(MODIFIER.lo, MODIFIER.hi),  # a situational modifier (R-T-2 amended)
            "reason": TextDomain(LABEL_LENGTH),
        }
    group = "Damage"
    return [
        LegalAction(ToughnessSave.type, "Toughness save", fields=save, group=group, rule="R-CV-8"),
        LegalAction(
            Stun.type,
            "Stun",
            fields={"character": Choice(ids, names), "attacker": attacker},
            group=group,
            rule="R-CV-8",
        ),
        LegalAction(
            AddFatigue.type,
            "Fatigue",
            fields={"character": Choice(ids, names), "steps": IntRange(STEPS.lo, STEPS.hi), "attacker": attacker},
            group=group,
            rule="R-CV-8",
        ),
    ]


def _gm(state: TableState, table: CvTable) -> list[LegalAction]:
    out: list[LegalAction] = []
    ids = tuple(table.heroes)
    if not ids:
        return out
    names = tuple(state.character(cid).name for cid in ids)
    out += _rounds(state, table)
    out.append(
        LegalAction(
            SetSides.type,
            "Set the sides",
            fields={"sides": KeyedValues(ids, TextDomain(NAME_LENGTH, required=True), names, pairs=True)},
            group="Rounds",
            rule="R-CV-14",
        )
    )
    for cid in ids:
        hero = table.hero(cid)
        name = state.character(cid).name
        fixed = {"character": cid}
        if hero.conviction < hero.conviction_max:
            out.append(
                LegalAction(
                    AwardNature.type,
                    f"{name}: award for Nature",
                    fixed,
                    {"trait": word_choice(tuple(t.value for t in NatureTrait)), "note": TextDomain(LABEL_LENGTH)},
                    "Awards",
                    "R-CV-13",
                )
            )
        if hero.sheet.level < MAX_LEVEL:
            out.append(LegalAction(RaiseLevel.type, f"{name}: raise a level", fixed, group="Awards", rule="R-CV-2"))
        if not hero.conditions.dead:
            out.append(
                LegalAction(
                    GainFromSetback.type,
                    f"{name}: a setback gain",
                    fixed,
                    {"setback": word_choice(tuple(s.value for s in Setback))},
                    "Awards",
                    "R-CV-13",
                )
            )
        out.append(
            LegalAction(Rest.type, f"{name}: rest", fixed, {"steps": IntRange(STEPS.lo, STEPS.hi)}, "Damage", "R-CV-8")
        )
        out.append(
            LegalAction(
                CvOverride.type,
                f"{name}: override",
                fixed,
                {
                    "reason": TextDomain(LABEL_LENGTH, True),
                    "conviction": IntRange(CONVICTION.lo, CONVICTION.hi, optional=True),
                    "bruised": IntRange(COUNT.lo, COUNT.hi, optional=True),
                    "hurt": IntRange(COUNT.lo, COUNT.hi, optional=True),
                    "lethal": Choice(
                        (None, *(int(v) for v in Lethal)), ("unchanged", *(v.name.lower() for v in Lethal))
                    ),
                    "nonlethal": Choice(
                        (None, *(int(v) for v in NonLethal)), ("unchanged", *(v.name.lower() for v in NonLethal))
                    ),
                    "fatigue": Choice(
                        (None, *(int(v) for v in Fatigue)), ("unchanged", *(v.name.lower() for v in Fatigue))
                    ),
                    "stunned_rounds": IntRange(ROUNDS.lo, ROUNDS.hi, optional=True),
                    "dazed_rounds": IntRange(ROUNDS.lo, ROUNDS.hi, optional=True),
                    "regain_check_due": Choice((None, True, False), ("unchanged", "yes", "no")),
                },
                "Override",
                "R-T-2",
            )
        )
    return out


def _rounds(state: TableState, table: CvTable) -> list[LegalAction]:
    """Who is in the scene, and rounds in initiative order, rolled or the GM's (R-CV-3, R-CV-14)."""
    out: list[LegalAction] = []
    group, rule = "Rounds", "R-CV-3, R-CV-14"
    if state.structure.in_scene:
        here = tuple(cid for cid in table.heroes if cid not in table.left)
        out.append(
            LegalAction(
                SetPresence.type,
                "Set who is in the scene",
                fields={"present": Subset(here, tuple(state.character(cid).name for cid in here))},
                group=group,
                rule="R-CV-14",
            )
        )
    if table.initiative_rolls:
        # the first turn begins before another round can start (R-CV-4 amended)
        out.append(LegalAction(BeginTurns.type, "Begin the first turn (announce initiative)", group=group, rule=rule))
        return out
    present = tuple(cid for cid in table.heroes if table.present(cid))
    if not present:
        return out
    names = tuple(state.character(cid).name for cid in present)
    out.append(
        LegalAction(
            StartRound.type,
            "Start a new round",
            fields={"characters": Subset(present, names), "roll": Flag()},
            group=group,
            rule=rule,
        )
    )
    out.append(
        LegalAction(
            StartRound.type,
            "Start a new round in your initiative order",
            fields={"order": Subset(present, names, min_size=1)},
            group=group,
            rule=rule,
        )
    )
    return out
