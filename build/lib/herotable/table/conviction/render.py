"""Conviction facts in words, for the log. Wording lives only here: change it freely."""

from __future__ import annotations

from collections.abc import Callable

from herotable.conviction.conditions import Fatigue, Lethal, NonLethal
from herotable.table.conviction import facts as cf
from herotable.table.conviction.commands import DyingCheck, RollCheck, SetPresence, SetSides, StartRound
from herotable.table.kit import Names, Wording, words

TITLES = {
    cf.SheetRecorded.type: "New character",
    cf.ConvictionSpent.type: "Conviction",
    cf.ConvictionGained.type: "Conviction",
    cf.ConditionsChanged.type: "Conditions",
    cf.LevelRaised.type: "New level",
    cf.EffectGained.type: "Conviction",
    cf.EffectsEnded.type: "Effects",
    cf.RegainOffered.type: "Conviction",
    cf.CheckRolled.type: "Check rolled",
    cf.CheckRerolled.type: "Conviction re-roll",
    cf.CheckBonus.type: "Bonus",
    cf.CheckOverridden.type: "GM override",
    cf.CheckAnnounced.type: "Announced",
    cf.CheckVoided.type: "Check void",
    cf.CheckCalled.type: "Check called for",
    cf.CallClosed.type: "Check called for",
    cf.RoundStarted.type: "New round",
    cf.PresenceSet.type: "In the scene",
    cf.SidesSet.type: "Sides",
    cf.InitiativeRolled.type: "Initiative",
    cf.InitiativeRerolled.type: "Initiative",
    cf.InitiativeOrder.type: "Initiative",
    cf.ActionTaken.type: "Action",
    cf.ConditionApplied.type: "Conditions",
    cf.Spent.type: "Conviction",
    cf.ExitStarted.type: "Leaving the scene",
    cf.ExitInterfered.type: "Leaving the scene",
    cf.ExitPressed.type: "Leaving the scene",
    cf.ExitPassed.type: "Leaving the scene",
    cf.ExitResolved.type: "Leaving the scene",
    cf.ExitsCleared.type: "Leaving the scene",
    cf.WitDesignated.type: "Quotable Wit",
    cf.WitUsed.type: "Quotable Wit",
    cf.WitsRefreshed.type: "Quotable Wit",
    cf.Overridden.type: "GM override",
}

COMMAND_TITLES = {
    RollCheck.type: "Check",  # a check answering the GM's call opens with the call's closing: headed by the check
    DyingCheck.type: "Dying check",
    StartRound.type: "New round",
    SetPresence.type: "In the scene",
    SetSides.type: "Sides",
}


WORDING = Wording(nobody="someone")
_says = WORDING.says
_n = WORDING.name
_words = words
render = WORDING.render


@_says(cf.SheetRecorded)
def _sheet(f: cf.SheetRecorded, n: Names) -> str:
    s = f.sheet
    roles = ", ".join(s.get("roles", ()))
    who = _n(n, f.character)
    return f"{who}: level {s['level']} ({roles}), Toughness {s['toughness']:+d}, Conviction {s['conviction']}"


@_says(cf.ConvictionSpent)
def _spent_point(f: cf.ConvictionSpent, n: Names) -> str:
    return f"{_n(n, f.character)} spends {f.points} Conviction ({_words(f.use)}): {f.conviction} left"


@_says(cf.LevelRaised)
def _level(f: cf.LevelRaised, n: Names) -> str:
    return f"{_n(n, f.character)} reaches level {f.level}"


@_says(cf.ConvictionGained)
def _gained(f: cf.ConvictionGained, n: Names) -> str:
    return f"{_n(n, f.character)} gains {f.points} Conviction ({_words(f.reason)}): {f.conviction} now"


_CONDITION_WORDS: dict[str, Callable[[int], str]] = {
    "lethal": lambda v: Lethal(v).name.lower() if v else "no lethal damage",
    "nonlethal": lambda v: NonLethal(v).name.lower() if v else "no non-lethal damage",
    "fatigue": lambda v: Fatigue(v).name.lower() if v else "not fatigued",
    "bruised": lambda v: f"bruised x{v}" if v else "no longer bruised",
    "hurt": lambda v: f"hurt x{v}" if v else "no longer hurt",
    "stunned_rounds": lambda v: f"stunned ({v} round start(s))" if v else "no longer stunned",
    "dazed_rounds": lambda v: f"dazed ({v} round start(s))" if v else "no longer dazed",
}


@_says(cf.ConditionsChanged)
def _conditions(f: cf.ConditionsChanged, n: Names) -> str:
    said = ", ".join(_CONDITION_WORDS.get(k, lambda v, k=k: f"{k} {v}")(v) for k, v in f.changes.items())
    return f"{_n(n, f.character)}: {said}"


@_says(cf.TurnChanged)
def _turn(f: cf.TurnChanged, n: Names) -> None:
    return None  # bookkeeping; the action or spend says it


@_says(cf.EffectGained)
def _effect(f: cf.EffectGained, n: Names) -> str:
    extra = f" (+{f.amount} ranks)" if f.amount else ""
    return f"{_n(n, f.character)} gains {f.name}{extra} for the {f.lasts}"


@_says(cf.EffectsEnded)
def _ended(f: cf.EffectsEnded, n: Names) -> str:
    return f"{_n(n, f.character)}: {', '.join(f.names)} ends ({_words(f.cause)})"


@_says(cf.RegainOffered)
def _regain(f: cf.RegainOffered, n: Names) -> str | None:
    return f"{_n(n, f.character)} may make a Charisma check to regain Conviction" if f.due else None


@_says(cf.CheckRolled)
def _check(f: cf.CheckRolled, n: Names) -> str:
    secret = " (secret)" if f.secret else ""
    return f"{_n(n, f.character)} rolls {f.label}{secret}: d20 {f.first} {f.modifier:+d} against {f.difficulty}"


@_says(cf.CheckRerolled)
def _rerolled(f: cf.CheckRerolled, n: Names) -> str:
    counts = f.face + 10 if f.face <= 10 else f.face
    return f"Conviction re-roll: {f.face}" + (f" (counts as {counts})" if counts != f.face else "")


@_says(cf.CheckBonus)
def _bonus(f: cf.CheckBonus, n: Names) -> str:
    return f"{f.amount:+d} from {f.source}"


@_says(cf.CheckOverridden)
def _overridden(f: cf.CheckOverridden, n: Names) -> str:
    return f"The GM rules it a {'success' if f.succeeded else 'failure'}: {f.reason}"


@_says(cf.CheckAnnounced)
def _announced(f: cf.CheckAnnounced, n: Names) -> str:
    first = f"d20 {f.first}"
    if f.second is not None:
        counts = f.second + 10 if f.second <= 10 else f.second
        first += f", re-rolled {f.second} (counts as {counts})"
    bonuses = "".join(f", {a:+d} from {s}" for s, a in f.bonuses)
    verdict = "success" if f.succeeded else "failure"
    override = " (the GM's ruling)" if f.overridden else ""
    return (
        f"{_n(n, f.character)}'s {f.label}: {first}, {f.modifier:+d} modifier{bonuses} = {f.total} against "
        f"{f.difficulty}: "
        f"{verdict}{override}"
    )


@_says(cf.CheckCalled)
def _called(f: cf.CheckCalled, n: Names) -> str:
    what = f.label or " ".join(w for w in (f.ability and f.ability.capitalize(), f.skill) if w) or "a check"
    extra = f", {f.modifier:+d}" + (f": {f.reason}" if f.reason else "") if f.modifier else ""
    return f"The GM calls for {_n(n, f.character)}'s {what} against {f.difficulty}{extra}"


@_says(cf.CallClosed)
def _call_closed(f: cf.CallClosed, n: Names) -> str | None:
    return None if not f.lapsed else f"The check called for {_n(n, f.character)} lapses with the scene"


@_says(cf.CheckVoided)
def _voided(f: cf.CheckVoided, n: Names) -> str:
    why = "was stabilised" if f.reason == "stabilised" else "died"
    return f"{_n(n, f.character)}'s pending dying check is void: they {why} before it was announced"


@_says(cf.RoundStarted)
def _round(f: cf.RoundStarted, n: Names) -> str:
    return "A new round for " + ", ".join(_n(n, c) for c in f.characters)


@_says(cf.PresenceSet)
def _presence(f: cf.PresenceSet, n: Names) -> str:
    if f.cause == "end_of_scene":
        return "The scene is over: everyone may take part in the next one"
    if not f.absent:
        return "Everyone is in the scene"
    return "Not in the scene: " + ", ".join(_n(n, c) for c in f.absent)


@_says(cf.SidesSet)
def _sides(f: cf.SidesSet, n: Names) -> str:
    if not f.sides:
        return "Everyone is on their default side: heroes against NPCs"
    by_side: dict[str, list[str]] = {}
    for cid, side in f.sides:
        by_side.setdefault(side, []).append(_n(n, cid))
    named = "; ".join(f"{side}: {', '.join(who)}" for side, who in by_side.items())
    return f"Sides: {named} (everyone else on their default side)"


@_says(cf.InitiativeRolled)
def _initiative(f: cf.InitiativeRolled, n: Names) -> str:
    return f"{_n(n, f.character)} rolls initiative: d20 {f.face} {f.modifier:+d} Dexterity = {f.total}"


@_says(cf.InitiativeRerolled)
def _initiative_rerolled(f: cf.InitiativeRerolled, n: Names) -> str:
    counts = f.face + 10 if f.face <= 10 else f.face
    shown = f"{f.face}" + (f" (counts as {counts})" if counts != f.face else "")
    return f"{_n(n, f.character)} re-rolls initiative with Conviction: {shown}, total {f.total}"


_ORDER_WORDS = {"rolled": "Initiative order", "entered": "The GM sets the initiative order", "kept": "Initiative order"}


@_says(cf.InitiativeOrder)
def _order(f: cf.InitiativeOrder, n: Names) -> str:
    if f.how == "ended":
        return "The rounds are over: no initiative order stands"
    return f"{_ORDER_WORDS.get(f.how, 'Initiative order')}: " + ", ".join(_n(n, c) for c in f.order)


@_says(cf.ActionTaken)
def _action(f: cf.ActionTaken, n: Names) -> str:
    text = f"{_n(n, f.character)} takes a {f.action} action" + (f": {f.what}" if f.what else "")
    if f.dropped_to_dying:
        text += "; the strain drops them to dying"
    return text


@_says(cf.ConditionApplied)
def _applied(f: cf.ConditionApplied, n: Names) -> str:
    by = f" by {_n(n, f.attacker)}" if f.attacker else ""
    if f.condition == "stun":
        return f"{_n(n, f.character)} is stunned{by}"
    if f.condition == "fatigue":
        return f"{_n(n, f.character)} tires ({f.steps} step(s)){by}"
    return f"{_n(n, f.character)} rests ({f.steps} step(s))"


_USES = {
    "surge": "surges for an extra {detail} action",
    "heroic_feat": "gains {detail} for the round",
    "the_talent": "calls on The Talent",
    "expertise": "gains Expertise in {detail}",
    "determination": "shrugs off the bruises and hurts",
    "shake_off": "shakes off being {detail}",
    "recover_now": "makes a recovery check now",
    "strenuous_guard": "steels themself against the strain this round",
    "escape_death": "pulls {target} back from death",
}


@_says(cf.Spent)
def _spent(f: cf.Spent, n: Names) -> str:
    text = _USES.get(f.use, _words(f.use)).format(detail=f.detail, target=_n(n, f.target))
    if f.use == "the_talent":
        text += f": one use of {f.detail}" if f.detail else ": power fatigue cleared"
    return f"{_n(n, f.character)} {text}"


@_says(cf.ExitStarted)
def _exit(f: cf.ExitStarted, n: Names) -> str:
    return f"{_n(n, f.character)} spends a point to leave the scene"


@_says(cf.ExitInterfered)
def _interfered(f: cf.ExitInterfered, n: Names) -> str:
    return f"{_n(n, f.character)} spends a point to keep them in the scene"


@_says(cf.ExitPressed)
def _pressed(f: cf.ExitPressed, n: Names) -> str:
    return f"{_n(n, f.character)} spends another point to get away"


@_says(cf.ExitPassed)
def _passed(f: cf.ExitPassed, n: Names) -> str:
    return f"The {'leaving' if f.side == 'exit' else 'interfering'} side passes"


@_says(cf.ExitResolved)
def _resolved(f: cf.ExitResolved, n: Names) -> str:
    verdict = "leaves the scene" if f.exits else "is held in the scene"
    return f"{_n(n, f.character)} {verdict} ({f.exit_points} against {f.interfering_points})"


@_says(cf.ExitsCleared)
def _exits_cleared(f: cf.ExitsCleared, n: Names) -> str:
    return ", ".join(_n(n, c) for c in f.characters) + " may take part in the next scene"


@_says(cf.WitDesignated)
def _wit(f: cf.WitDesignated, n: Names) -> str:
    return f"Quotable Wit #{f.wit}: {f.text!r} ({f.speaker}; heard by {', '.join(f.heard_by)})"


@_says(cf.WitUsed)
def _wit_used(f: cf.WitUsed, n: Names) -> str:
    return f"{f.by} uses Quotable Wit #{f.wit}" + (", turning it against the speaker" if f.hijacked else "")


@_says(cf.WitsRefreshed)
def _refreshed(f: cf.WitsRefreshed, n: Names) -> str:
    return "Three Quotable Wit uses are open again this game session"


@_says(cf.Overridden)
def _override(f: cf.Overridden, n: Names) -> str:
    return f"GM override on {_n(n, f.character)}: {f.reason}"
