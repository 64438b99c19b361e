"""What a member may do at a Larger Than Life table now, each field with the values the rules accept.

Every predicate here is the rules' own (`Hero.can_act`, `conflict.may_act`, the costs of `advancement`), so the list
stays sound and complete against `decide`; `tests/table/test_legal_actions.py` plays random campaigns to hold it.
"""

from __future__ import annotations

from collections.abc import Mapping

from herotable.dice import MAX_POSITION, Rating, step_up
from herotable.errors import IllegalAction
from herotable.ltl import advancement as adv
from herotable.ltl import conflict as cf
from herotable.ltl.healing import WOUNDS, healing_powers
from herotable.ltl.hero import GM_CHOSEN_LOSSES, Defeat, Hero, LossType, NextRound, TimePassed
from herotable.ltl.karma import Fortune
from herotable.ltl.options import Initiative
from herotable.ltl.roll import RerollSource
from herotable.ltl.task import CritBonus, CritPenalty
from herotable.table.codec import Json
from herotable.table.commands import LABEL_LENGTH, NAME_LENGTH, controls
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
from herotable.table.ltl.commands import (
    AWARD,
    OVERRIDE_LEVELS,
    SHIFT,
    TOKENS,
    TRIES,
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
    DieSetting,
    DifficultyName,
    EndConflict,
    EndRound,
    FortuneBurn,
    GiveUp,
    Heal,
    Improvement,
    InitiativeFirst,
    InitiativeReroll,
    KarmaRoll,
    LastChance,
    Override,
    PassTurn,
    Push,
    RecordDefeat,
    Recover,
    RecoveryScope,
    Reroll,
    SetDefence,
    SetSituational,
    Settle,
    SpendHeroPoints,
    StartConflict,
    TimePasses,
    TryAgain,
)
from herotable.table.ltl.decide import crit_choices_open, due_reward, failed_task, known_stunts, table_of
from herotable.table.ltl.render import situation_words
from herotable.table.ltl.state import (
    CritDue,
    LtlTable,
    OpenAction,
    OpenTask,
    accepts_for,
    rules_conflict,
    waiting_for,
)
from herotable.table.state import CharacterRef, TableState

DIFFICULTIES = Choice(
    tuple(d.value for d in DifficultyName if d is not DifficultyName.IMPOSSIBLE),
    tuple(f"{d.value} ({Rating(p).name})" for d, p in zip(DifficultyName, (1, 2, 3, 4, 5, 7), strict=False)),
)


def _styles(hero: Hero) -> Choice:
    styles = hero.sheet.styles
    return Choice((None, *(s.name for s in styles)), ("base Power", *(f"{s.name} ({s.rating.name})" for s in styles)))


def legal_actions(state: TableState, user: str) -> list[LegalAction]:
    table = table_of(state)
    mine = acting_for(state, user, table.heroes)
    if mine is None:
        return []
    gm = state.is_gm(user)
    out = new_character_actions(state, user, CreateLtlCharacter.type, "ltl", "R-LTL-19")
    for c in mine:
        out += _solo(state, table, c, gm)
    out += called_rolls(state, table, user)
    out += _rolls(state, table, user)
    out += last_chances(state, table, user)
    if table.conflict is not None:
        out += _conflict(state, table, user, mine)
    elif gm and table.heroes:
        out.append(_start_conflict(state, table))
    if gm:
        out += _gm(state, table)
        out += _situational(state, table)
    return out


def _solo(state: TableState, table: LtlTable, c: CharacterRef, gm: bool) -> list[LegalAction]:
    """A character's own actions outside any roll: challenges and Karma rolls (the GM's, rolled directly: a player
    rolls what the GM calls for, R-T-3), Try Again, Heroism, healing, Hero Points."""
    hero = table.hero(c.id)
    fixed = {"character": c.id}
    name = c.name
    out: list[LegalAction] = []
    karma = hero.karma.usable
    if gm and hero.can_act():
        fields: dict[str, Domain] = {"difficulty": DIFFICULTIES, "style": _styles(hero), **SITUATION}
        if karma:
            fields["auto_success"] = Flag()
        if gm:
            fields["must_succeed"] = Flag()
        if gm and c.hidden:
            fields["secret"] = Flag()
        out.append(LegalAction(Challenge.type, f"{name}: a challenge", fixed, fields, "Rolls", "R-LTL-2, R-LTL-3"))
        if gm and not c.hidden:  # a secret roll spends nothing of a character the players see (R-T-3)
            secret = {k: d for k, d in fields.items() if k != "auto_success"}
            label = f"{name}: a secret challenge"
            secret_fixed: dict[str, Json] = {**fixed, "secret": True}
            out.append(LegalAction(Challenge.type, label, secret_fixed, secret, "Rolls", "R-LTL-2, R-T-2"))
    if karma:
        out.append(
            LegalAction(
                TryAgain.type,
                f"{name}: Try Again (burn 1 Karma for 2 re-rolls)",
                fixed,
                group="Karma",
                rule="R-LTL-10",
            )
        )
    if karma and gm:
        out.append(
            LegalAction(
                KarmaRoll.type, f"{name}: a Karma roll", fixed, {"difficulty": DIFFICULTIES}, "Karma", "R-LTL-10"
            )
        )
        powers = hero.sheet.superpowers
        if hero.can_act() and powers:
            out.append(
                LegalAction(
                    KarmaRoll.type,
                    f"{name}: a Power Stunt",
                    {**fixed, "purpose": "stunt"},
                    {
                        "difficulty": DIFFICULTIES,
                        "power": Choice(tuple(p.name for p in powers)),
                        "stunt": TextDomain(NAME_LENGTH, required=True, suggestions=known_stunts(hero)),
                    },
                    "Karma",
                    "R-LTL-10",
                )
            )
    stakes = table.stakes
    if hero.heroism.usable:
        if hero.can_act(stakes) and not hero.pushed and hero.base_now(stakes).sides != 20:
            out.append(LegalAction(Push.type, f"{name}: Push", fixed, {"burn": Flag()}, "Heroism", "R-LTL-11"))
        leave = table.leave(c.id)
        if hero.losses and (gm or (leave is not None and leave.left != 0)):  # the GM's leave (R-LTL-11 amended)
            out.append(LegalAction(Recover.type, f"{name}: Recovery", fixed, {"burn": Flag()}, "Heroism", "R-LTL-11"))
    healers = tuple(p.name for p in healing_powers(hero))
    if hero.can_act() and healers:
        patients = [cid for cid, h in table.heroes.items() if any(loss.kind in WOUNDS for loss in h.losses)]
        if patients:
            # the roll uses the Power's own Style (R-LTL-15): no Style to choose; lowering is the GM's choice
            heal: dict[str, Domain] = {
                "patient": Choice(tuple(patients)),
                "power": Choice(healers if len(healers) > 1 else (None, *healers)),
            }
            if gm:
                heal["lowered"] = Flag()
            out.append(LegalAction(Heal.type, f"{name}: heal", {"healer": c.id}, heal, "Healing", "R-LTL-15"))
    if table.conflict is None:
        out += _spends(hero, c)
    return out


def _next(rating: Rating) -> int:
    """Levels to the next die (two from d12), 0 at d20."""
    return 0 if rating.position >= MAX_POSITION else step_up(rating.position) - rating.position


def _spends(hero: Hero, c: CharacterRef) -> list[LegalAction]:
    """Hero Point improvements the hero can afford now (R-LTL-16)."""
    sheet = hero.sheet
    points = sheet.hero_points
    group, rule = "Hero Points", "R-LTL-16"

    def spend(kind: Improvement, label: str, fields: dict[str, Domain] | None = None, **fixed: str) -> LegalAction:
        return LegalAction(
            SpendHeroPoints.type,
            f"{c.name}: {label}",
            {"character": c.id, "kind": kind.value, **fixed},
            fields or {},
            group,
            rule,
        )

    out = []
    raisable = [s.name for s in sheet.styles if _next(s.rating) and adv.STYLE_COST * _next(s.rating) <= points]
    if raisable:
        out.append(spend(Improvement.RAISE_STYLE, "raise a Style", {"target": Choice(tuple(raisable))}))
    base = _next(sheet.base)
    if base and adv.STYLE_COST * base <= points:
        names = tuple(s.name for s in sheet.styles)
        out.append(spend(Improvement.NEW_STYLE, "a new Style", {"target": TextDomain(NAME_LENGTH, True, names)}))
    for kind, rating, cost, label in (
        (Improvement.RAISE_BASE, sheet.base, adv.BASE_COST, "raise base Power"),
        (Improvement.RAISE_HEROISM, sheet.heroism, adv.HEROISM_COST, "raise Heroism"),
        (Improvement.RAISE_KARMA, sheet.karma, adv.KARMA_COST, "raise Karma"),
    ):
        if _next(rating) and cost * _next(rating) <= points:
            out.append(spend(kind, label))
    if points >= adv.SPECIALTY_COST:
        out.append(
            spend(
                Improvement.ADD_SPECIALTY, "a Specialty", {"target": TextDomain(NAME_LENGTH, True, sheet.specialties)}
            )
        )
    for power in sheet.superpowers:
        if points >= adv.STUNT_COST:
            detail: Domain = TextDomain(NAME_LENGTH, True, power.stunts)
        else:
            known = {" ".join(s.split()).casefold() for s in power.stunts}
            pulled = [
                stunt.strip()
                for entry in hero.stunts_pulled_off
                for done, sep, stunt in [entry.partition(":")]
                if sep
                and done.strip().casefold() == power.name.casefold()
                and " ".join(stunt.split()).casefold() not in known
            ]
            if points < adv.KNOWN_STUNT_COST or not pulled:
                continue
            detail = Choice(tuple(dict.fromkeys(pulled)))
        out.append(
            spend(Improvement.ADD_POWER_STUNT, f"a {power.name} Power Stunt", {"detail": detail}, target=power.name)
        )
    if sheet.complications and points >= adv.COMPLICATION_COST:
        out.append(
            spend(
                Improvement.REMOVE_COMPLICATION, "remove a Complication", {"target": Choice(tuple(sheet.complications))}
            )
        )
    return out


def called_rolls(state: TableState, table: LtlTable, user: str) -> list[LegalAction]:
    """Each roll the GM called for that the viewer may roll now, with the declarations left to its roller (R-T-3)."""
    out: list[LegalAction] = []
    c = rules_conflict(table) if table.conflict is not None else None
    for call in table.calls:
        cid = call.character
        if not controls(state, user, cid):
            continue
        hero = table.hero(cid)
        name = state.character(cid).name
        situation = f", {situation_words(call.shift, call.reason)}" if call.shift else ""  # R-T-2 amended
        against = f"{call.difficulty}{situation}, " if call.difficulty else situation.removeprefix(", ") + ", "
        what = f"{name}: {call.label or call.kind.replace('_', ' ')} ({against.removeprefix(', ')}called by the GM)"
        kind = CallKind(call.kind)
        able = hero.can_act()
        fixed: dict[str, Json] = {"character": cid, "call": call.id}
        if kind is CallKind.CHALLENGE and hero.can_act():
            fields: dict[str, Domain] = {"style": _styles(hero)}
            if hero.karma.usable:
                fields["auto_success"] = Flag()
            out.append(LegalAction(Challenge.type, what, fixed, fields, "Rolls", "R-LTL-2, R-T-3"))
        elif kind is CallKind.ATTEMPT and c is not None and any(f.id == cid for f in c.fighters) and cf.may_act(c, cid):
            attempt = {"actor": cid, "call": call.id}
            out.append(LegalAction(Attempt.type, what, attempt, {"style": _styles(hero)}, "Conflict", "R-LTL-12"))
        elif kind in (CallKind.KARMA, CallKind.STUNT) and hero.karma.usable and (kind.value == "karma" or able):
            out.append(LegalAction(KarmaRoll.type, what, fixed, group="Karma", rule="R-LTL-10, R-T-3"))
        elif kind is CallKind.LAST_CHANCE and _last_chance_open(state, table, user, cid):
            out.append(LegalAction(LastChance.type, what, fixed, group="Karma", rule="R-LTL-10, R-T-3"))
    return out


def _rolls(state: TableState, table: LtlTable, user: str) -> list[LegalAction]:
    """Re-rolls, Automatic Success after the roll and settling, for each open roll the viewer may act on."""
    out: list[LegalAction] = []
    gm = state.is_gm(user)
    for t in table.tasks:
        if (t.secret and not gm) or not controls(state, user, t.character):
            continue
        out += _roll_actions(state, table, user, t, (t.character,), t.character)
    c = table.conflict
    if c is not None and c.open is not None:
        o = c.open
        sides = tuple(cid for cid in (o.actor, o.target) if cid is not None and controls(state, user, cid))
        out += _roll_actions(state, table, user, o, sides, o.actor)
    for d in table.crit_due:
        if controls(state, user, d.character):
            out.append(_choose_crit(state, table, d))
    return out


def _choose_crit(state: TableState, table: LtlTable, d: CritDue) -> LegalAction:
    """The rewards the rules accept for a critical success someone else settled (R-LTL-8 amended)."""
    accepted = []
    for bonus in CritBonus:
        try:
            due_reward(d, bonus, table.options.effect_cap)
        except IllegalAction:
            continue
        accepted.append(bonus.value)
    label = f"{state.character(d.character).name}: choose the critical success's reward"
    fixed = {"character": d.character, "roll": d.roll}
    return LegalAction(ChooseCritReward.type, label, fixed, {"bonus": word_choice(tuple(accepted))}, "Rolls", "R-LTL-8")


def _roll_actions(
    state: TableState, table: LtlTable, user: str, roll: OpenTask | OpenAction, sides: tuple[str, ...], settler: str
) -> list[LegalAction]:
    task = roll.task
    out: list[LegalAction] = []
    for cid in sides:
        hero = table.hero(cid)
        side = task.actor if task.actor.who == cid else task.opposition
        fixed = {"task": roll.id, "character": cid}
        name = state.character(cid).name
        # a secret roll spends nothing of a character the players see (R-T-3): only a Specialty re-roll is free
        spends = not (isinstance(roll, OpenTask) and roll.secret) or state.character(cid).hidden
        if roll.id not in state.revealed:
            sources: list[tuple[RerollSource, dict[str, Domain]]] = []
            if hero.try_again_tokens >= 1 and not side.karma_roll and not side.try_again_used:
                sources.append((RerollSource.TRY_AGAIN, {}))
            unused = [s for s in hero.sheet.specialties if s not in side.specialties_used]
            if unused:
                sources.append((RerollSource.SPECIALTY, {"specialty": Choice(tuple(unused))}))
            if not hero.motivation_used:
                sources.append((RerollSource.MOTIVATION, {}))
            if NextRound.REROLL in hero.this_round:
                sources.append((RerollSource.CRITICAL, {}))
            for source, fields in sources:
                if not spends and source is not RerollSource.SPECIALTY:
                    continue
                label = f"{name}: re-roll ({source.value.replace('_', ' ')})"
                out.append(
                    LegalAction(Reroll.type, label, {**fixed, "source": source.value}, fields, "Rolls", "R-LTL-9")
                )
        if not side.auto_success and not task.power_stunt and hero.karma.position >= 2 and spends:
            label = f"{name}: buy success (burn 2 Karma)"
            out.append(LegalAction(BuySuccess.type, label, fixed, group="Rolls", rule="R-LTL-10"))
    if isinstance(roll, OpenAction):
        out += _accepts(state, table, user, roll)
    elif controls(state, user, settler):
        out.append(_settle(state, table, user, roll))
    return out


def _accepts(state: TableState, table: LtlTable, user: str, roll: OpenAction) -> list[LegalAction]:
    """An exchange settles once each of its characters' controllers accepted it (R-LTL-3): the viewer's Accept while
    one of theirs waits, and for the GM, while a player's waits, settling it for everyone now (R-T-3)."""
    left = waiting_for(roll)
    mine = tuple(cid for cid in left if accepts_for(state, user, cid))
    last = len(mine) == len(left)
    out = [_settle(state, table, user, roll)] if mine and last else []
    if mine and not last:  # an earlier Accept chooses no critical: the roll may still change
        out.append(LegalAction(Settle.type, "Accept the roll", {"task": roll.id}, group="Rolls", rule="R-LTL-3"))
    if state.is_gm(user) and not last:
        names = " and ".join(state.character(cid).name for cid in left if cid not in mine)
        label = f"Settle it for everyone now (waiting for {names})"
        out.append(_settle(state, table, user, roll, label=label, fixed={"for_everyone": True}))
    return out


def _settle(
    state: TableState,
    table: LtlTable,
    user: str,
    roll: OpenTask | OpenAction,
    *,
    label: str = "Accept the roll",
    fixed: Mapping[str, Json] | None = None,
) -> LegalAction:
    """Accepting the roll as it stands settles it (R-LTL-3, R-LTL-8), with a critical's choices only where one may
    have happened as far as the settler can tell (`decide.crit_choices_open`). A reward left unchosen is the extra
    level."""
    reward, penalty = crit_choices_open(state, user, roll.task)
    fields: dict[str, Domain] = {}
    if reward:
        fields["crit_bonus"] = word_choice(tuple(b.value for b in CritBonus))
    if penalty:
        fields["crit_penalty"] = word_choice(tuple(p.value for p in CritPenalty))
    return LegalAction(Settle.type, label, {"task": roll.id, **(fixed or {})}, fields, "Rolls", "R-LTL-3, R-LTL-8")


# the GM's situational modifier on a roll: die types and the reason its roller sees (R-T-2 amended 2026-12-02)
SITUATION: dict[str, Domain] = {"shift": IntRange(SHIFT.lo, SHIFT.hi), "reason": TextDomain(LABEL_LENGTH)}


def _situational(state: TableState, table: LtlTable) -> list[LegalAction]:
    """The GM's standing situational modifier on each fighter's die in the conflict's exchanges (R-T-2 amended)."""
    c = table.conflict
    if c is None:
        return []
    out = []
    for f in c.fighters:
        shift, reason = c.situation(f.id)
        now = f" (now {shift:+d}: {reason})" if shift else ""
        label = f"{state.character(f.id).name}: situational modifier in exchanges{now}"
        out.append(LegalAction(SetSituational.type, label, {"character": f.id}, SITUATION, "Conflict", "R-T-2"))
    return out


def _start_conflict(state: TableState, table: LtlTable) -> LegalAction:
    ids = tuple(table.heroes)
    names = tuple(state.character(cid).name for cid in ids)
    fields: dict[str, Domain] = {
        "fighters": KeyedValues(ids, TextDomain(NAME_LENGTH, required=True), names, min_keys=1, pairs=True),
        "stakes": word_choice(tuple(k.value for k in LossType)),
        "fatigue": Flag(),  # whether failed challenges cost a level (R-LTL-12 amended)
    }
    if table.options.initiative is not Initiative.SIMULTANEOUS:  # initiative's fields only where it is rolled
        fields["karma_initiative"] = Subset(ids, names, within="fighters")
        # a Power the GM allows (superspeed) rolls initiative one die type up (R-LTL-12 amended)
        fields["initiative_power"] = Subset(ids, names, within="fighters")
    return LegalAction(StartConflict.type, "Start a conflict", fields=fields, group="Conflict", rule="R-LTL-12")


def _conflict(state: TableState, table: LtlTable, user: str, mine: list[CharacterRef]) -> list[LegalAction]:
    assert table.conflict is not None
    c = rules_conflict(table)
    stakes = c.stakes
    out: list[LegalAction] = []
    group, rule = "Conflict", "R-LTL-12"
    for ref in mine:
        if c.over or not any(f.id == ref.id for f in c.fighters):
            continue  # one side left standing: nothing to fight over, the GM ends the conflict
        me = c.fighter(ref.id)
        fixed = {"character": ref.id}
        if cf.may_act(c, ref.id):
            hero = me.hero
            # a stunned opponent loses its action, not its defence (R-LTL-12 amended)
            targets = [f for f in c.fighters if f.side != me.side and not c.is_out(f.id)]
            fields: dict[str, Domain] = {"style": _styles(hero)}
            top = min(table.options.effect_cap - 1, hero.base_now(stakes).position - 1)
            if top > 0:
                fields["broke"] = IntRange(0, top)
            if hero.karma.usable:
                fields["auto_success"] = Flag()
            if targets:  # the defender rolls its standing defence Style (R-T-3)
                out.append(
                    LegalAction(
                        Attack.type,
                        f"{ref.name}: attack",
                        {"actor": ref.id},
                        {"target": Choice(tuple(f.id for f in targets), tuple(f.hero.name for f in targets)), **fields},
                        group,
                        rule,
                    )
                )
            if state.is_gm(user):  # a player's challenge in the conflict is one the GM calls for (R-T-3)
                out.append(
                    LegalAction(
                        Attempt.type,
                        f"{ref.name}: a challenge in the conflict",
                        {"actor": ref.id},
                        {"difficulty": DIFFICULTIES, "style": _styles(hero), **SITUATION},
                        group,
                        rule,
                    )
                )
            out.append(LegalAction(PassTurn.type, f"{ref.name}: wait this round", fixed, group=group, rule=rule))
        out += _initiative(c, ref)
        in_open = c.open is not None and ref.id in (c.open.actor, c.open.target)
        if not me.gave_up and not in_open:
            out.append(LegalAction(GiveUp.type, f"{ref.name}: give up", fixed, group=group, rule="R-LTL-5"))
        out += _defence(state, table, user, ref)
    # the round and the conflict wait for a critical reward still to choose (R-LTL-8 amended)
    if state.is_gm(user) and c.open is None and not any(d.in_conflict for d in table.crit_due):
        wounded = cf.wounded_this_round(c)
        end: dict[str, Domain] = {}
        if wounded:  # physical damage the GM may mark serious as it lands (R-LTL-6)
            end["serious"] = Subset(wounded, tuple(state.character(fid).name for fid in wounded))
        ending = [
            LegalAction(EndRound.type, "End the round", fields=end, group=group, rule=rule),
            LegalAction(EndConflict.type, "End the conflict", group=group, rule=rule),
        ]
        out += ending[::-1] if c.over else ending  # over: ending it comes first
    return out


def _defence(state: TableState, table: LtlTable, user: str, ref: CharacterRef) -> list[LegalAction]:
    """A fighter's standing defence Style (R-T-3): its controller's at the conflict's start or between rounds; the
    GM's for an NPC at any time, and over a player's (a veto) with a reason."""
    c = table.conflict
    assert c is not None
    gm = state.is_gm(user)
    veto = gm and state.character(ref.id).owner != state.gm
    if not gm and not c.between_rounds():
        return []
    hero = table.hero(ref.id)
    now = c.defence(ref.id)
    styles = [(None, "base Power")] + [(s.name, f"{s.name} ({s.rating.name})") for s in hero.sheet.styles]
    left = [(v, label) for v, label in styles if v != now]
    if not left:
        return []
    fields: dict[str, Domain] = {"style": Choice(tuple(v for v, _ in left), tuple(label for _, label in left))}
    if veto:
        fields["reason"] = TextDomain(LABEL_LENGTH, required=True)
    label = f"{ref.name}: " + ("rule the defence Style (veto)" if veto else "defence Style")
    return [LegalAction(SetDefence.type, label, {"character": ref.id}, fields, "Conflict", "R-T-3")]


def _calls(state: TableState, table: LtlTable, c: CharacterRef, hero: Hero) -> list[LegalAction]:
    """What the GM may call for a character to roll (R-T-3): each kind with what the GM sets."""
    fixed: dict[str, Json] = {"character": c.id}
    label = TextDomain(LABEL_LENGTH)
    group, rule = "Calls", "R-T-3"

    def call(kind: CallKind, what: str, fields: dict[str, Domain]) -> LegalAction:
        fields = {**fields, **SITUATION}  # every call may carry a situational modifier (R-T-2 amended)
        return LegalAction(
            CallRoll.type, f"{c.name}: call for {what}", {**fixed, "kind": kind.value}, fields, group, rule
        )

    challenge: dict[str, Domain] = {"difficulty": DIFFICULTIES, "label": label, "must_succeed": Flag()}
    out = [call(CallKind.CHALLENGE, "a challenge", challenge)]
    conflict = table.conflict
    if conflict is not None and conflict.fights(c.id):
        out.append(call(CallKind.ATTEMPT, "a challenge in the conflict", {"difficulty": DIFFICULTIES, "label": label}))
    if hero.karma.usable:
        out.append(call(CallKind.KARMA, "a Karma roll", {"difficulty": DIFFICULTIES, "label": label}))
        powers = hero.sheet.superpowers
        if powers:
            stunt: dict[str, Domain] = {
                "difficulty": DIFFICULTIES,
                "label": label,
                "power": Choice(tuple(p.name for p in powers)),
                "stunt": TextDomain(NAME_LENGTH, required=True, suggestions=known_stunts(hero)),
            }
            out.append(call(CallKind.STUNT, "a Power Stunt", stunt))
        failed = next((f for f in table.failed if f.character == c.id), None)
        if failed and not failed.secret and not hero.last_chance_used:
            out.append(call(CallKind.LAST_CHANCE, "a Last Chance roll", {"label": label, "harder": Flag()}))
    return out


def _initiative(c: cf.Conflict, ref: CharacterRef) -> list[LegalAction]:
    """Changing this round's initiative before anyone acts (R-LTL-12 amended): a Specialty's, Motivation's or a Try
    Again token's re-roll, or Automatic Success (two levels of Karma after the roll) to act first."""
    if not cf.initiative_open(c) or c.is_out(ref.id) or not any(fid == ref.id for fid, _ in c.initiative_rolls):
        return []
    me = c.fighter(ref.id)
    hero = me.hero
    used = [(src, name) for fid, src, name in c.initiative_used if fid == ref.id]
    fixed = {"character": ref.id}
    group, rule = "Initiative", "R-LTL-12, R-LTL-17"
    sources: list[tuple[RerollSource, dict[str, Domain]]] = []
    unused = [s for s in hero.sheet.specialties if (RerollSource.SPECIALTY.value, s) not in used]
    if unused:
        sources.append((RerollSource.SPECIALTY, {"specialty": Choice(tuple(unused))}))
    if not hero.motivation_used:
        sources.append((RerollSource.MOTIVATION, {}))
    karma_roll = me.karma_initiative and hero.karma.usable
    if (
        hero.try_again_tokens >= 1
        and not karma_roll
        and not any(src == RerollSource.TRY_AGAIN.value for src, _ in used)
    ):
        sources.append((RerollSource.TRY_AGAIN, {}))
    out = [
        LegalAction(
            InitiativeReroll.type,
            f"{ref.name}: re-roll initiative ({source.value.replace('_', ' ')})",
            {**fixed, "source": source.value},
            fields,
            group,
            rule,
        )
        for source, fields in sources
    ]
    if ref.id not in c.initiative_first and hero.karma.position >= 2:
        label = f"{ref.name}: act first (burn 2 Karma)"
        out.append(LegalAction(InitiativeFirst.type, label, fixed, group=group, rule="R-LTL-12, R-LTL-10"))
    return out


def _gm(state: TableState, table: LtlTable) -> list[LegalAction]:
    out: list[LegalAction] = []
    stakes = table.stakes
    for c in state.characters:
        if c.id not in table.heroes:
            continue
        hero = table.hero(c.id)
        fixed = {"character": c.id}
        out += _calls(state, table, c, hero)
        scopes = (RecoveryScope.SCENE,) if table.conflict is None else tuple(RecoveryScope)
        leave: dict[str, Domain] = {"scope": word_choice(tuple(s.value for s in scopes))}
        out.append(
            LegalAction(
                AllowRecovery.type,
                f"{c.name}: allow Recovery tries",
                fixed,
                {**leave, "tries": IntRange(TRIES.lo, TRIES.hi)},
                "Judgement",
                "R-LTL-11",
            )
        )
        out.append(
            LegalAction(
                AllowRecovery.type,
                f"{c.name}: allow Recovery as often as they like",
                {**fixed, "tries": None},
                leave,
                "Judgement",
                "R-LTL-11",
            )
        )
        if hero.karma.usable:
            out.append(
                LegalAction(
                    FortuneBurn.type,
                    f"{c.name}: Karma burned for the story",
                    fixed,
                    {
                        "use": word_choice(tuple(u.value for u in Fortune)),
                        "levels": IntRange(1, min(2, hero.karma.position)),
                    },
                    "Judgement",
                    "R-LTL-10",
                )
            )
        defeat = _defeat_domain(hero, stakes, lost_a_contest=c.id in table.contest_losers)
        if defeat is not None:
            out.append(
                LegalAction(
                    RecordDefeat.type,
                    f"{c.name}: record a defeat",
                    fixed,
                    {"consequence": defeat},
                    "Judgement",
                    "R-LTL-5",
                )
            )
        out.append(
            LegalAction(
                AwardHeroPoints.type,
                f"{c.name}: award Hero Points",
                fixed,
                {"points": IntRange(1, AWARD.hi)},
                "Judgement",
                "R-LTL-16",
            )
        )
        out.append(
            LegalAction(
                Override.type,
                f"{c.name}: override",
                fixed,
                {
                    "reason": TextDomain(LABEL_LENGTH, required=True),
                    "karma": Choice((None, *(d.value for d in DieSetting))),
                    "heroism": Choice((None, *(d.value for d in DieSetting))),
                    "lose": IntRange(OVERRIDE_LEVELS.lo, OVERRIDE_LEVELS.hi),
                    "lose_kind": word_choice(tuple(k.value for k in LossType)),
                    "clear_losses": Flag(),
                    "unconscious": Choice((None, True, False), ("unchanged", "yes", "no")),
                    "defeat": TextDomain(NAME_LENGTH),
                    "try_again_tokens": IntRange(TOKENS.lo, TOKENS.hi, optional=True),
                },
                "Override",
                "R-T-2",
            )
        )
        out.append(
            LegalAction(
                Override.type,
                f"{c.name}: a serious wound (heals in days)",
                {**fixed, "serious": True, "lose_kind": LossType.PHYSICAL.value},
                {"reason": TextDomain(LABEL_LENGTH, required=True), "lose": IntRange(1, OVERRIDE_LEVELS.hi)},
                "Override",
                "R-LTL-6, R-T-2",
            )
        )
        out.append(
            LegalAction(
                Override.type,
                f"{c.name}: bonds or mind control, lowering rolls or not",
                fixed,
                {
                    "reason": TextDomain(LABEL_LENGTH, required=True),
                    "lose": IntRange(1, OVERRIDE_LEVELS.hi),
                    "lose_kind": word_choice(tuple(k.value for k in LossType if k in GM_CHOSEN_LOSSES)),
                    "lowers_rolls": Flag(),
                },
                "Override",
                "R-LTL-6, R-T-2",
            )
        )
    if table.heroes:
        ids = tuple(table.heroes)
        out.append(
            LegalAction(
                TimePasses.type,
                "Time passes",
                fields={
                    "period": word_choice(tuple(p.value for p in TimePassed)),
                    "characters": Subset(ids, tuple(state.character(cid).name for cid in ids)),
                },
                group="Judgement",
                rule="R-LTL-6",
            )
        )
    return out


def _defeat_domain(hero: Hero, stakes: LossType | None, *, lost_a_contest: bool = False) -> Domain | None:
    """What the GM may record as a defeat: anything once base Power is below d4 or the hero lost the last quick
    contest (R-LTL-13), else giving up (R-LTL-5); never what would change nothing (the consequence already
    recorded)."""
    unchanged = hero.defeat is not None and not (hero.defeat == Defeat.UNCONSCIOUS.value and not hero.unconscious)
    if not hero.base_now(stakes).usable or lost_a_contest:
        return TextDomain(NAME_LENGTH, True, (hero.defeat,) if unchanged and hero.defeat else ())
    if hero.defeat == Defeat.GIVES_UP.value:
        return None
    return Choice((Defeat.GIVES_UP.value,), ("gives up",))


def last_chances(state: TableState, table: LtlTable, user: str) -> list[LegalAction]:
    """Last Chance for each of the viewer's characters that failed a must-succeed task (R-LTL-10)."""
    out = []
    for c in state.characters:
        hero = table.heroes.get(c.id)
        if hero is None or not controls(state, user, c.id) or hero.last_chance_used or not hero.karma.usable:
            continue
        if not _last_chance_open(state, table, user, c.id):
            continue
        if state.is_gm(user):  # the GM rolls it directly, and says whether it is harder (R-T-3)
            fields: dict[str, Domain] = {"burn": Flag(), "harder": Flag()}
            out.append(
                LegalAction(LastChance.type, f"{c.name}: Last Chance", {"character": c.id}, fields, "Karma", "R-LTL-10")
            )
        else:  # a player burns it, or rolls the Last Chance the GM calls for
            burn: dict[str, Json] = {"character": c.id, "burn": True}
            label = f"{c.name}: Last Chance (burn 1 Karma to succeed)"
            out.append(LegalAction(LastChance.type, label, burn, group="Karma", rule="R-LTL-10"))
    return out


def _last_chance_open(state: TableState, table: LtlTable, user: str, cid: str) -> bool:
    """Whether the character may take Last Chance now, for this viewer (R-LTL-10)."""
    hero = table.heroes.get(cid)
    if hero is None or not controls(state, user, cid) or hero.last_chance_used or not hero.karma.usable:
        return False
    failed = failed_task(state, table, cid, user)
    # a secret roll spends nothing the players see
    return failed is not None and not (failed.secret and not state.character(cid).hidden)
