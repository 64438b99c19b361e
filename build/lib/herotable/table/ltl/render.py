"""Larger Than Life facts in words, for the log. Wording lives only here: change it freely."""

from __future__ import annotations

from herotable.dice import die_name
from herotable.table.kit import Names, Wording, words
from herotable.table.ltl import facts as lf
from herotable.table.ltl.commands import (
    Attempt,
    Challenge,
    EndConflict,
    EndRound,
    KarmaRoll,
    LastChance,
    RecordDefeat,
    Reroll,
)

TITLES = {
    lf.SheetRecorded.type: "New character",
    lf.KarmaBurned.type: "Karma",
    lf.KarmaRestored.type: "Karma",
    lf.HeroismBurned.type: "Heroism",
    lf.HeroismRestored.type: "Heroism",
    lf.LevelsLost.type: "Levels lost",
    lf.LossMarkedSerious.type: "Levels lost",
    lf.LossesRecovered.type: "Recovery",
    lf.TokensChanged.type: "Karma: Try Again",
    lf.HeroPointsAwarded.type: "Hero Points",
    lf.HeroPointsSpent.type: "Hero Points",
    lf.TaskOpened.type: "Roll",
    lf.DieRolled.type: "Roll",
    lf.DieRerolled.type: "Re-roll",
    lf.SuccessBought.type: "Automatic Success",
    lf.RollAccepted.type: "Accepted",
    lf.AcceptancesLapsed.type: "Accepted",
    lf.TaskSettled.type: "Settled",
    lf.DieRevealed.type: "Settled",
    lf.ConflictStarted.type: "Conflict",
    lf.InitiativeOrder.type: "Initiative",
    lf.InitiativeRolled.type: "Initiative",
    lf.InitiativeRerolled.type: "Initiative",
    lf.InitiativeBought.type: "Initiative",
    lf.InitiativeReordered.type: "Initiative",
    lf.FighterPassed.type: "Conflict",
    lf.FighterGaveUp.type: "Conflict",
    lf.RoundEnded.type: "End of round",
    lf.ConflictEnded.type: "Conflict over",
    lf.HeroismRolled.type: "Heroism",
    lf.HealingRolled.type: "Healing",
    lf.LastChanceTaken.type: "Last Chance",
    lf.TimePassed.type: "Time passes",
    lf.Overridden.type: "GM override",
    lf.RollCalled.type: "The GM calls for a roll",
    lf.CallClosed.type: "The GM calls for a roll",
    lf.DefenceSet.type: "Defence",
    lf.SituationalSet.type: "Situational modifier",
    lf.CritRewardDue.type: "Critical",
    lf.CritRewardChosen.type: "Critical",
    lf.CritRewardLapsed.type: "Critical",
    lf.RecoveryAllowed.type: "Recovery",
    lf.RecoveryTried.type: "Recovery",
    lf.RecoveryLapsed.type: "Recovery",
}

COMMAND_TITLES = {
    # a roll answering the GM's call opens with the call's closing: headed by the roll, not by the call
    Challenge.type: "Challenge",
    Attempt.type: "Challenge in the conflict",
    KarmaRoll.type: "Karma roll",
    LastChance.type: "Last Chance",
    EndRound.type: "End of round",
    EndConflict.type: "Conflict over",
    Reroll.type: "Re-roll",
    RecordDefeat.type: "Defeat",
}

PURPOSES = {
    "challenge": "a challenge",
    "karma": "a Karma roll",
    "stunt": "a Power Stunt",
    "last_chance": "a Last Chance",
    "exchange": "an exchange",
    "attempt": "a challenge in the conflict",
}


WORDING = Wording(nobody="the GM")
_says = WORDING.says
_n = WORDING.name
_words = words
render = WORDING.render


@_says(lf.SheetRecorded)
def _sheet(f: lf.SheetRecorded, n: Names) -> str:
    sheet = f.sheet
    styles = ", ".join(f"{name} {die}" for name, die in sheet.get("styles", {}).items())
    return (
        f"{_n(n, f.character)}: base Power {sheet['base']}"
        + (f", {styles}" if styles else "")
        + (f"; Karma {sheet['karma']}, Heroism {sheet['heroism']}")
    )


@_says(lf.KarmaBurned)
def _karma_burned(f: lf.KarmaBurned, n: Names) -> str:
    return f"{_n(n, f.character)} burns {f.levels} level(s) of Karma ({_words(f.use)}): Karma now {die_name(f.karma)}"


@_says(lf.KarmaRestored)
def _karma_restored(f: lf.KarmaRestored, n: Names) -> str:
    return f"{_n(n, f.character)}'s Karma is back to {die_name(f.karma)} ({_words(f.cause)})"


@_says(lf.HeroismBurned)
def _heroism_burned(f: lf.HeroismBurned, n: Names) -> str:
    return (
        f"{_n(n, f.character)} burns {f.levels} level(s) of Heroism ({_words(f.use)}): "
        f"Heroism now {die_name(f.heroism)}"
    )


@_says(lf.HeroismRestored)
def _heroism_restored(f: lf.HeroismRestored, n: Names) -> str:
    return f"{_n(n, f.character)}'s Heroism is back to {die_name(f.heroism)} ({_words(f.cause)})"


@_says(lf.LevelsLost)
def _lost(f: lf.LevelsLost, n: Names) -> str:
    kind = f.kind.replace("_", "-")
    why = f" ({_words(f.cause)})" if f.cause else ""
    return f"{_n(n, f.character)} loses {f.levels} level(s), {kind}{why}"


@_says(lf.LossMarkedSerious)
def _serious(f: lf.LossMarkedSerious, n: Names) -> str:
    return f"the GM marks {_n(n, f.character)}'s wound serious: it needs days to heal, not hours"


@_says(lf.LossesRecovered)
def _recovered(f: lf.LossesRecovered, n: Names) -> str:
    return f"{_n(n, f.character)} recovers {f.levels} lost level(s) ({_words(f.cause)})"


@_says(lf.TokensChanged)
def _tokens(f: lf.TokensChanged, n: Names) -> str:
    return f"{_n(n, f.character)} holds {f.tokens} Try Again token(s)"


_STATUS_ON = {
    "pushed": "is pushing",
    "unconscious": "is unconscious",
    "stunned": "is stunned",
    "collapses_after_action": "will collapse when this action ends",
    "last_chance_used": "has used Last Chance this adventure",
    "motivation_used": "has used Motivation's re-roll this scene",
}
_STATUS_OFF = {
    "pushed": "stops pushing",
    "unconscious": "comes round",
    "stunned": "is no longer stunned",
    "collapses_after_action": "no longer collapses",
    "last_chance_used": "may take Last Chance again",
    "motivation_used": "may use Motivation's re-roll again",
}


@_says(lf.StatusChanged)
def _status(f: lf.StatusChanged, n: Names) -> str:
    return f"{_n(n, f.character)} " + (_STATUS_ON if f.on else _STATUS_OFF)[f.status]


@_says(lf.DefeatRecorded)
def _defeat(f: lf.DefeatRecorded, n: Names) -> str:
    if f.consequence is None:
        return f"{_n(n, f.character)} is no longer defeated"
    return f"{_n(n, f.character)} is defeated: {_words(f.consequence)}"


@_says(lf.RoundEffects)
def _effects(f: lf.RoundEffects, n: Names) -> str | None:
    if not f.next_round:
        return None
    words = {"reroll": "a re-roll", "plus_one": "+1 die type", "minus_one": "-1 die type"}
    return f"{_n(n, f.character)} next round: " + ", ".join(words.get(e, e) for e in f.next_round)


@_says(lf.StuntPulledOff)
def _stunt(f: lf.StuntPulledOff, n: Names) -> str:
    return f"{_n(n, f.character)} pulls off the Power Stunt {f.stunt}"


@_says(lf.HeroPointsAwarded)
def _awarded(f: lf.HeroPointsAwarded, n: Names) -> str:
    return f"{_n(n, f.character)} earns {f.points} Hero Points ({f.total} in all)"


@_says(lf.HeroPointsSpent)
def _spent(f: lf.HeroPointsSpent, n: Names) -> str:
    return (
        f"{_n(n, f.character)} spends {f.cost} Hero Points: {_words(f.improvement)} ({f.target}), "
        f"{f.before} → {f.after}"
    )


@_says(lf.TaskOpened)
def _opened(f: lf.TaskOpened, n: Names) -> str:
    what = PURPOSES.get(f.purpose, _words(f.purpose))
    text = f"{_n(n, f.actor)} rolls {what}"
    if f.target is not None:
        text = f"{_n(n, f.actor)} attacks {_n(n, f.target)}"
    if f.difficulty is not None:
        text += f" against {die_name(f.difficulty)}"
    if f.detail:
        text += f" ({f.detail})"
    if f.broke:
        text += f", going for broke with {f.broke} level(s)"
    if f.auto_success:
        text += ", with Automatic Success bought before the roll"
    if f.must_succeed:
        text += "; it must succeed"
    return text + (" (secret)" if f.secret else "")


def _faces(faces: tuple[int, ...]) -> str:
    return "+".join(str(x) for x in faces)


def situation_words(shift: int, reason: str) -> str:
    """A situational modifier as the roller reads it: "+1 die type: a running start" (R-T-2 amended)."""
    return f"{shift:+d} die type{'s' * (abs(shift) > 1)}" + (f": {reason}" if reason else "")


@_says(lf.DieRolled)
def _rolled(f: lf.DieRolled, n: Names) -> str:
    who = "Difficulty" if f.roller is None else _n(n, f.roller)
    with_ = f" ({f.style})" if f.style else (" (Karma)" if f.karma_roll else "")
    text = f"{who} rolls d{f.die}{with_}: {_faces(f.faces)}"
    if f.shift:
        text += f" ({situation_words(f.shift, f.reason)})"
    if f.penalty:
        text += f", counted {f.penalty} lower"
    return text


@_says(lf.SituationalSet)
def _situational(f: lf.SituationalSet, n: Names) -> str:
    if not f.shift:
        return f"The GM lifts the situational modifier on {_n(n, f.character)}'s die"
    return f"The GM sets {_n(n, f.character)}'s die at {situation_words(f.shift, f.reason)}"


@_says(lf.DieRerolled)
def _rerolled(f: lf.DieRerolled, n: Names) -> str:
    source = f"Specialty {f.specialty}" if f.specialty else _words(f.source)
    return f"{_n(n, f.roller)} re-rolls ({source}): {_faces(f.faces)}"


@_says(lf.SuccessBought)
def _bought(f: lf.SuccessBought, n: Names) -> str:
    return f"{_n(n, f.roller)} buys Automatic Success after the roll"


@_says(lf.RollAccepted)
def _accepted(f: lf.RollAccepted, n: Names) -> str:
    who = " and ".join(_n(n, cid) for cid in f.characters)
    return f"The exchange is accepted for {who}; it settles once the other side accepts"


@_says(lf.AcceptancesLapsed)
def _lapsed(f: lf.AcceptancesLapsed, n: Names) -> str:
    return "The exchange changed after it was accepted: each side accepts it again"


@_says(lf.TaskSettled)
def _settled(f: lf.TaskSettled, n: Names) -> str:
    stunt = f"the Power Stunt ({f.stunt})" if f.stunt else ""  # None before version 3: the words of then
    if f.outcome == "tie":
        text = f"A tie on {stunt}: nothing changes" if stunt else "A tie: nothing changes"
    elif f.winner is None:
        text = f"{_n(n, f.loser)} fails" + (f" {stunt}" if stunt else "")
    elif f.loser is None:
        text = f"{_n(n, f.winner)} succeeds" + (f" at {stunt}" if stunt else "")
    else:
        text = f"{_n(n, f.winner)} wins"
        if f.effect:
            text += f"; {_n(n, f.loser)} loses {f.effect} level(s)" + (" at the end of the round" * f.in_conflict)
    if f.automatic:
        text += " (Automatic Success)"
    crits = []
    if f.actor_critical != "none":
        crits.append(f"a critical {f.actor_critical}")
    if f.opposition_critical != "none":
        crits.append(f"a critical {f.opposition_critical} for the defence")
    if crits:
        text += "; " + " and ".join(crits)
        if f.crit_bonus == "due":
            text += " (the winner's side chooses the reward)"
        elif "success" in f.actor_critical + f.opposition_critical:
            text += f" ({REWARDS.get(f.crit_bonus, _words(f.crit_bonus))})"
    if f.failed_must_succeed:
        text += "; Last Chance may follow"
    return f"{f.label}: {text}" if f.label else text  # no label before version 4, nor on an unlabelled roll


@_says(lf.DieRevealed)
def _revealed(f: lf.DieRevealed, n: Names) -> str:
    who = "Difficulty" if f.roller is None else _n(n, f.roller)
    throws = " then ".join(_faces(faces) for faces in f.throws)
    kept = f", keeps {_faces(f.throws[f.kept])}" if len(f.throws) > 1 else ""
    style = f" ({f.style})" if f.style else ""
    return f"{who}{style}: d{f.die} {throws}{kept}"


@_says(lf.ConflictStarted)
def _conflict(f: lf.ConflictStarted, n: Names) -> str:
    sides: dict[str, list[str]] = {}
    for cid, side, _ in f.fighters:
        sides.setdefault(side, []).append(_n(n, cid))
    teams = " against ".join(f"{', '.join(who)} ({side})" for side, who in sides.items())
    spared = "" if f.fatigue else "; failed challenges cost no fatigue"
    fast = (
        f"; {', '.join(_n(n, cid) for cid in f.initiative_power)} roll(s) initiative one die type up for a Power"
        if f.initiative_power
        else ""
    )
    return f"A conflict begins ({f.stakes.replace('_', '-')} stakes): {teams}{spared}{fast}"


@_says(lf.InitiativeOrder)
def _order(f: lf.InitiativeOrder, n: Names) -> str:
    return f"Round {f.round} initiative: " + " · ".join(", ".join(_n(n, c) for c in group) for group in f.order)


@_says(lf.InitiativeRolled)
def _initiative(f: lf.InitiativeRolled, n: Names) -> str:
    how = " (Karma)" if f.karma else ""
    if f.power:
        how += " (one die type up for a Power)"
    return f"{_n(n, f.character)} rolls d{f.die}{how} for initiative: {_faces(f.faces)}"


@_says(lf.InitiativeRerolled)
def _initiative_rerolled(f: lf.InitiativeRerolled, n: Names) -> str:
    source = f"the {f.specialty} Specialty" if f.specialty else _words(f.source)
    counts = "it counts" if f.kept else "the first result stands"
    return f"{_n(n, f.character)} re-rolls initiative ({source}): d{f.die} {_faces(f.faces)}, {counts}"


@_says(lf.InitiativeBought)
def _initiative_first(f: lf.InitiativeBought, n: Names) -> str:
    return f"{_n(n, f.character)} buys Automatic Success on initiative and acts first"


@_says(lf.InitiativeReordered)
def _reordered(f: lf.InitiativeReordered, n: Names) -> str:
    return f"Round {f.round} initiative now: " + " · ".join(", ".join(_n(n, c) for c in group) for group in f.order)


@_says(lf.LossPending)
def _pending(f: lf.LossPending, n: Names) -> None:
    return None  # the settlement says it


@_says(lf.FighterPassed)
def _passed(f: lf.FighterPassed, n: Names) -> str:
    return f"{_n(n, f.character)} waits this round"


@_says(lf.FighterGaveUp)
def _gave_up(f: lf.FighterGaveUp, n: Names) -> str:
    return f"{_n(n, f.character)} gives up"


@_says(lf.RoundEnded)
def _round(f: lf.RoundEnded, n: Names) -> str:
    text = f"Round {f.round} ends"
    if f.stunned:
        text += "; stunned: " + ", ".join(_n(n, c) for c in f.stunned)
    if f.defeated:
        text += "; out of the fight: " + ", ".join(_n(n, c) for c in f.defeated)
    return text


@_says(lf.ConflictEnded)
def _ended(f: lf.ConflictEnded, n: Names) -> str:
    return "The conflict ends" + (f": the {f.winner} side wins" if f.winner else "")


@_says(lf.HeroismRolled)
def _heroism(f: lf.HeroismRolled, n: Names) -> str:
    use = {"push": "to push", "recovery": "to recover", "stun": "against being stunned"}.get(f.use, f.use)
    verdict = "succeeds" if f.outcome == "win" else "fails"
    crit = " (a critical failure)" if f.critical == "failure" else ""
    return (
        f"{_n(n, f.character)} rolls Heroism {use}: d{f.die} {_faces(f.faces)} against "
        f"d{f.against} {_faces(f.against_faces)}; it {verdict}{crit}"
    )


@_says(lf.HealingRolled)
def _healing(f: lf.HealingRolled, n: Names) -> str:
    with_ = f" with {f.style}" if f.style else ""
    verdict = f"heals {f.levels} level(s)" if f.healed else "the healing fails"
    return (
        f"{_n(n, f.healer)} heals {_n(n, f.patient)}{with_}: d{f.die} {_faces(f.faces)} against "
        f"{die_name(f.difficulty)} {_faces(f.against_faces)}; {verdict}"
    )


@_says(lf.LastChanceTaken)
def _last_chance(f: lf.LastChanceTaken, n: Names) -> str:
    if f.burn:
        return f"{_n(n, f.character)} takes Last Chance and burns Karma to succeed outright"
    return f"{_n(n, f.character)} takes Last Chance: one more try" + (", one level harder" if f.harder else "")


_CALLED = {  # after a possessive: "the GM calls for Captain Comet's Power Stunt"
    "challenge": "challenge",
    "attempt": "challenge in the conflict",
    "karma": "Karma roll",
    "stunt": "Power Stunt",
    "last_chance": "Last Chance roll",
}


@_says(lf.RollCalled)
def _called(f: lf.RollCalled, n: Names) -> str:
    what = _CALLED.get(f.kind, _words(f.kind))
    if f.kind == "stunt":
        what += f" ({f.power}: {f.stunt})"
    against = f" against {f.difficulty}" if f.difficulty else ", one level harder" if f.harder else ""
    extra = (", must succeed" if f.must_succeed else "") + (f": {f.label}" if f.label else "")
    if f.shift:
        extra += f" ({situation_words(f.shift, f.reason)})"
    return f"The GM calls for {_n(n, f.character)}'s {what}{against}{extra}"


@_says(lf.CallClosed)
def _call_closed(f: lf.CallClosed, n: Names) -> str | None:
    return f"{_n(n, f.character)}'s called roll lapses, not rolled" if f.lapsed else None


@_says(lf.DefenceSet)
def _defence(f: lf.DefenceSet, n: Names) -> str:
    style = f.style or "base Power"
    if f.vetoed:
        return f"the GM rules {_n(n, f.character)} defends with {style}: {f.reason}"
    return f"{_n(n, f.character)} defends with {style}"


@_says(lf.RecoveryAllowed)
def _allowed(f: lf.RecoveryAllowed, n: Names) -> str:
    each = {"scene": "this scene", "conflict": "this conflict", "round": "each round"}.get(f.scope, f.scope)
    if f.tries == 0:
        return f"the GM allows {_n(n, f.character)} no Recovery {each}"
    tries = "as often as they like" if f.tries is None else f"{f.tries} time(s)"
    return f"the GM allows {_n(n, f.character)} to try Recovery {tries} {each}"


@_says(lf.RecoveryTried)
def _tried(f: lf.RecoveryTried, n: Names) -> str | None:
    return None if f.left is None else f"{_n(n, f.character)} may try Recovery {f.left} more time(s)"


@_says(lf.CritRewardDue)
def _crit_due(f: lf.CritRewardDue, n: Names) -> str:
    return f"{_n(n, f.character)} has a critical success's reward to choose"


REWARDS = {
    "extra_level": "an extra level of effect",
    "reroll_next": "a re-roll next round",
    "plus_one_next": "+1 die type next round",
    "opponent_minus_one": "the opponent at -1 die type next round",
    "other": "an advantage the GM adjudicates",
}


@_says(lf.CritRewardChosen)
def _crit_chosen(f: lf.CritRewardChosen, n: Names) -> str:
    text = f"{_n(n, f.character)} takes the critical success's reward: {REWARDS.get(f.bonus, _words(f.bonus))}"
    return text + (" (the GM chose for its player)" if f.by_gm else "")


@_says(lf.CritRewardLapsed)
def _crit_lapsed(f: lf.CritRewardLapsed, n: Names) -> str:
    return f"{_n(n, f.character)}'s critical reward was never chosen and lapses with the scene"


@_says(lf.RecoveryLapsed)
def _leave_lapsed(f: lf.RecoveryLapsed, n: Names) -> str:
    return f"the GM's leave for {_n(n, f.character)} to try Recovery ends"


@_says(lf.FailuresForgotten)
def _forgotten(f: lf.FailuresForgotten, n: Names) -> None:
    return None


@_says(lf.TimePassed)
def _time(f: lf.TimePassed, n: Names) -> str:
    return f"Time passes: {f.period}"


@_says(lf.Overridden)
def _override(f: lf.Overridden, n: Names) -> str:
    return f"GM override on {_n(n, f.character)}: {f.reason}"
