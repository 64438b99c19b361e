"""Conviction at the table: every action of the engine as a command (R-CV-1 … R-CV-13).

Checks open as pending rolls that only the roller and the GM see; announcing one makes it public and final
and applies what it does (damage, dying, recovery, regaining Conviction). Spends, rounds, exits and Quotable
Wit act on the characters' heroes and on the campaign's Wit ledger and exit bidding.

The engine knows characters by name (a check's roller, a Wit's listeners, an exit's leaver), so a campaign's
Conviction characters have distinct names; the table speaks of them by id.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from herotable.conviction.character import Abilities, Ability, Nature, new_character
from herotable.conviction.character import Role as CvRole
from herotable.conviction.checks import Check, CheckKind, announce, gm_override, roll_check
from herotable.conviction.conditions import DamageKind, Fatigue, Lethal, NonLethal
from herotable.conviction.damage import (
    add_fatigue,
    apply_dying_check,
    apply_recovery_check,
    apply_toughness_save,
    dying_check,
    recovery_check,
    rest,
    stun,
    toughness_save,
)
from herotable.conviction.exit_scene import ExitBid, Side, attempt_exit, interfere, pass_bid, press_exit
from herotable.conviction.feats import Catalogue, sample_catalogue
from herotable.conviction.hero import Hero
from herotable.conviction.quotable_wit import designate, new_session, use_wit
from herotable.conviction.regain import NatureTrait, Setback, apply_regain_check, award_nature, gain_from_setback
from herotable.conviction.regain import regain_check as roll_regain_check
from herotable.conviction.rounds import ActionKind, end_scene, remaining_actions, start_round, take_action
from herotable.conviction.spending import (
    ShakeOff,
    determination,
    escape_death,
    expertise,
    heroic_feat,
    recover_now,
    reroll,
    shake_off,
    strenuous_guard,
    surge,
    the_talent,
    use_talent_power,
)
from herotable.table.commands import (
    Command,
    Ctx,
    Outcome,
    handles,
    new_character_owner,
    require_controls,
    require_gm,
    require_member,
)
from herotable.table.model import (
    CvCharacter,
    Forbidden,
    OpenCheck,
    Ruleset,
    TableError,
    TableState,
    Visibility,
)


@cache
def catalogue() -> Catalogue:
    """The campaign's feats catalogue: the sample that ships with the package (R-CV-6)."""
    return sample_catalogue()


# --- what events say ---


def check_json(check: Check) -> dict[str, Any]:
    """A check with every raw face: the first d20, the Conviction re-roll and what it counts as (R-CV-4)."""
    return {
        "roller": check.roller,
        "label": check.label,
        "kind": check.kind.value,
        "d20": check.first,
        "reroll": check.second,
        "reroll_counts_as": check.second_counts,
        "kept": check.die,
        "modifier": check.modifier,
        "bonuses": [[b.source, b.amount] for b in check.bonuses],
        "total": check.total,
        "difficulty": check.difficulty,
        "margin": check.margin,
        "succeeded": check.succeeded,
        "lethal": check.lethal,
        "override": None
        if check.override is None
        else {"succeeded": check.override.succeeded, "by": check.override.by, "reason": check.override.reason},
        "announced": check.announced,
    }


def hero_json(state: TableState, cid: str) -> dict[str, Any]:
    """Where a character stands after an action; a hidden NPC's Conviction stays with the GM."""
    c = state.cv_character(cid)
    out: dict[str, Any] = {"character": cid, "name": c.hero.name, "conditions": list(c.hero.conditions.names())}
    if not c.hidden:
        out["conviction"] = c.hero.conviction
    return out


def _private(state: TableState, opened: OpenCheck, summary: dict[str, Any]) -> Outcome:
    """A pending check: its roller's player and the GM see it; a secret one the GM only (R-CV-4)."""
    if opened.secret:
        return Outcome(state, summary, Visibility.GM)
    return Outcome(state, summary, Visibility.OWNER, opened.owner)


def _about(state: TableState, cid: str, summary: dict[str, Any]) -> Outcome:
    """An action on one character: public, or GM-only when it concerns a hidden NPC's sheet."""
    hidden = state.cv_character(cid).hidden
    return Outcome(state, summary, Visibility.GM if hidden else Visibility.PUBLIC)


def _conviction_campaign(state: TableState) -> None:
    if state.ruleset is not Ruleset.CONVICTION:
        raise TableError(
            "cv/ruleset",
            "this campaign plays Larger Than Life",
            fix="use the Larger Than Life commands",
            ruling="R-T-1",
        )


def _open(
    state: TableState, ctx: Ctx, cid: str, check: Check, *, secret: bool = False, by_enemy: bool = True
) -> Outcome:
    owner = state.cv_character(cid).owner
    opened = OpenCheck(ctx.command_id, cid, owner, check, secret=secret, by_enemy=by_enemy)
    new = replace(state, checks=(*state.checks, opened))
    return _private(new, opened, {"check": opened.id, "character": cid, **check_json(check)})


def _with_check(state: TableState, opened: OpenCheck) -> TableState:
    return replace(state, checks=tuple(opened if c.id == opened.id else c for c in state.checks))


def _id_named(state: TableState, name: str) -> str:
    return next(c.id for c in state.cv_characters if c.hero.name == name)


# --- boundary effects the structure commands apply (R-T-1) ---


def cv_busy(state: TableState) -> None:
    """Refuse a boundary while a Conviction check is pending or an exit is being bid on."""
    if state.checks or state.exit_bid is not None:
        raise TableError(
            "structure/busy",
            "a Conviction check is pending or an exit is being bid on",
            fix="announce pending checks and finish the exit bidding first",
        )


def cv_end_scene(state: TableState, dramatic: bool) -> tuple[TableState, list[str]]:
    """End of scene: scene effects expire; after a dramatic scene each living hero is offered one regain
    check (R-CV-13). Returns the state and the (non-hidden) characters offered it while below maximum."""
    chars = tuple(
        replace(c, hero=end_scene(c.hero, dramatic=dramatic and not c.hero.conditions.dead))
        for c in state.cv_characters
    )
    offered = [c.id for c in chars if c.hero.regain_check_due and c.hero.conviction < c.hero.conviction_max]
    shown = [cid for cid in offered if not state.cv_character(cid).hidden]
    return replace(state, cv_characters=chars), shown


def cv_new_session(state: TableState) -> TableState:
    """A game session boundary: three more Quotable Wit uses (R-CV-12)."""
    return replace(state, wits=new_session(state.wits))


# --- characters ---


@dataclass(frozen=True)
class CvSheet:
    """What a player writes on a new Conviction sheet; the first role is the 1st-level role (R-CV-2, R-CV-7)."""

    name: str
    level: int
    roles: tuple[CvRole, ...]
    abilities: Abilities
    toughness: int
    nature: Nature
    combat_bonus: int = 0
    skills: tuple[tuple[str, int], ...] = ()
    feats: tuple[str, ...] = ()


@dataclass(frozen=True)
class CreateCvCharacter(Command):
    """A hero for its player, or (by the GM) an NPC or villain, possibly with a hidden sheet."""

    name = "character.create_cv"
    character: str
    sheet: CvSheet
    owner: str | None = None
    npc: bool = False
    hidden: bool = False


@handles(CreateCvCharacter)
def _create(state: TableState, cmd: CreateCvCharacter, ctx: Ctx) -> Outcome:
    """Create a Conviction character with its level's starting Conviction (R-CV-2)."""
    owner = new_character_owner(
        state, ctx.user, cmd.character, cmd.owner, npc=cmd.npc, hidden=cmd.hidden, ruleset=Ruleset.CONVICTION
    )
    s = cmd.sheet
    if any(c.hero.name.casefold() == s.name.strip().casefold() for c in state.cv_characters):
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
        catalogue=catalogue(),
    )
    chars = (*state.cv_characters, CvCharacter(cmd.character, owner, Hero(sheet), cmd.npc, cmd.hidden))
    # a hidden sheet is GM-only: the creation event carries the whole sheet
    return Outcome(
        replace(state, cv_characters=chars),
        {"text": f"{sheet.name} joins the table", "character": cmd.character, "conviction": sheet.conviction},
        Visibility.GM if cmd.hidden else Visibility.PUBLIC,
    )


# --- checks (R-CV-1, R-CV-4, R-T-2) ---


@dataclass(frozen=True)
class RollCheck(Command):
    """d20 + modifiers against the GM's Difficulty. `ability` and `skill` add the sheet's modifier and ranks
    (Expertise included) to `modifier`. `secret` (GM only) keeps it GM-only even once announced."""

    name = "cv.check"
    character: str
    difficulty: int
    label: str = ""
    modifier: int = 0
    ability: Ability | None = None
    skill: str | None = None
    secret: bool = False


@handles(RollCheck)
def _check(state: TableState, cmd: RollCheck, ctx: Ctx) -> Outcome:
    """Roll a check; it stays pending until announced (R-CV-1, R-CV-4)."""
    require_controls(state, ctx.user, cmd.character)
    if cmd.secret:
        require_gm(state, ctx.user)
    hero = state.cv_hero(cmd.character)
    modifier = cmd.modifier
    words = []
    if cmd.ability is not None:
        modifier += hero.sheet.abilities.of(cmd.ability)
        words.append(cmd.ability.value.capitalize())
    if cmd.skill:
        modifier += hero.skill_rank(cmd.skill)
        words.append(cmd.skill.strip())
    label = cmd.label.strip() or (" ".join(words) + " check" if words else "check")
    check = roll_check(ctx.rng, hero.name, label, modifier, cmd.difficulty)
    return _open(state, ctx, cmd.character, check, secret=cmd.secret)


@dataclass(frozen=True)
class Reroll(Command):
    """Spend a point to re-roll your own pending check; 1–10 on the re-roll count +10; keep the better."""

    name = "cv.reroll"
    check: str | None = None


@handles(Reroll)
def _reroll(state: TableState, cmd: Reroll, ctx: Ctx) -> Outcome:
    """Conviction re-roll of a pending check (R-CV-3, R-CV-4)."""
    opened = state.cv_check(cmd.check)
    require_controls(state, ctx.user, opened.character)
    hero, check = reroll(state.cv_hero(opened.character), opened.check, ctx.rng)
    new = _with_check(state.with_cv_hero(opened.character, hero), replace(opened, check=check))
    summary = {"check": opened.id, **check_json(check), **hero_json(new, opened.character)}
    return _private(new, opened, summary)


@dataclass(frozen=True)
class Announce(Command):
    """Announce a pending check to the table; it becomes final and what it does happens."""

    name = "cv.announce"
    check: str | None = None


@handles(Announce)
def _announce(state: TableState, cmd: Announce, ctx: Ctx) -> Outcome:
    """Announce a check and apply it: damage, dying, recovery, regain (R-CV-4, R-CV-8, R-CV-13)."""
    opened = state.cv_check(cmd.check)
    require_controls(state, ctx.user, opened.character)
    check = announce(opened.check)
    hero = state.cv_hero(opened.character)
    if check.kind is CheckKind.TOUGHNESS:
        hero = apply_toughness_save(hero, check, by_enemy=opened.by_enemy)
    elif check.kind is CheckKind.DYING:
        hero = apply_dying_check(hero, check)
    elif check.kind is CheckKind.RECOVERY:
        hero = apply_recovery_check(hero, check)
    elif check.kind is CheckKind.REGAIN:
        hero = apply_regain_check(hero, check)
    new = replace(
        state.with_cv_hero(opened.character, hero), checks=tuple(c for c in state.checks if c.id != opened.id)
    )
    summary = {"check": opened.id, **check_json(check), **hero_json(new, opened.character)}
    return Outcome(new, summary, Visibility.GM if opened.secret else Visibility.PUBLIC)


@dataclass(frozen=True)
class OverrideCheck(Command):
    """The GM rules a pending check a success or a failure whatever the dice say (R-T-2)."""

    name = "cv.check.override"
    succeeded: bool
    reason: str
    check: str | None = None


@handles(OverrideCheck)
def _override_check(state: TableState, cmd: OverrideCheck, ctx: Ctx) -> Outcome:
    """GM override of a pending check, logged with who made it (R-T-2)."""
    require_gm(state, ctx.user)
    _reason(cmd.reason)
    opened = state.cv_check(cmd.check)
    check = gm_override(opened.check, succeeded=cmd.succeeded, by=ctx.user, reason=cmd.reason.strip())
    new = _with_check(state, replace(opened, check=check))
    return _private(new, opened, {"check": opened.id, **check_json(check)})


def _reason(reason: str) -> None:
    if not reason.strip():
        raise TableError("cv/override_reason", "an override needs a reason for the log", fix="say why", ruling="R-T-2")


# --- rounds and actions (R-CV-3, R-CV-5, R-CV-8) ---


@dataclass(frozen=True)
class StartRound(Command):
    """A new round for the named characters (all when none are named)."""

    name = "cv.round.start"
    characters: tuple[str, ...] = ()


@handles(StartRound)
def _start_round(state: TableState, cmd: StartRound, ctx: Ctx) -> Outcome:
    """New round: fresh actions and spending limit, stun and daze count down, one-round feats end (R-CV-3)."""
    require_gm(state, ctx.user)
    _conviction_campaign(state)
    for cid in cmd.characters:
        state.cv_character(cid)
    who = set(cmd.characters) or {c.id for c in state.cv_characters}
    new = state
    for cid in sorted(who):
        new = new.with_cv_hero(cid, start_round(new.cv_hero(cid)))
    rounds = {cid: new.cv_hero(cid).turn.number for cid in sorted(who)}
    return Outcome(new, {"text": "A new round", "rounds": rounds})


@dataclass(frozen=True)
class TakeAction(Command):
    """Use an action of this round's budget; `strenuous` is the GM's call for other actions while Disabled."""

    name = "cv.act"
    character: str
    action: ActionKind
    strenuous: bool = False
    what: str = ""


@handles(TakeAction)
def _act(state: TableState, cmd: TakeAction, ctx: Ctx) -> Outcome:
    """Take an action within the budget; a strenuous action while Disabled drops to dying (R-CV-8, R-CV-9)."""
    require_controls(state, ctx.user, cmd.character)
    before = state.cv_hero(cmd.character)
    hero = take_action(before, cmd.action, state.cv_options, strenuous=cmd.strenuous)
    new = state.with_cv_hero(cmd.character, hero)
    left = remaining_actions(hero, state.cv_options)
    summary = {
        "text": f"{hero.name} takes a {cmd.action.value} action"
        + (f": {cmd.what.strip()}" if cmd.what.strip() else ""),
        "left": {"standard": left.standard, "move": left.move, "full_round": left.full_round},
        "dropped_to_dying": hero.conditions.dying and not before.conditions.dying,
        **hero_json(new, cmd.character),
    }
    return _about(new, cmd.character, summary)


# --- spends on oneself (R-CV-5 … R-CV-9) ---


def _spent(state: TableState, cid: str, hero: Hero, text: str) -> Outcome:
    new = state.with_cv_hero(cid, hero)
    return _about(new, cid, {"text": text, **hero_json(new, cid)})


@dataclass(frozen=True)
class Surge(Command):
    name = "cv.surge"
    character: str
    action: ActionKind = ActionKind.STANDARD


@handles(Surge)
def _surge(state: TableState, cmd: Surge, ctx: Ctx) -> Outcome:
    """One extra standard or move action this round (R-CV-5)."""
    require_controls(state, ctx.user, cmd.character)
    hero = surge(state.cv_hero(cmd.character), cmd.action)
    return _spent(state, cmd.character, hero, f"{hero.name} surges for a {cmd.action.value} action")


@dataclass(frozen=True)
class HeroicFeat(Command):
    name = "cv.heroic_feat"
    character: str
    feat: str


@handles(HeroicFeat)
def _heroic_feat(state: TableState, cmd: HeroicFeat, ctx: Ctx) -> Outcome:
    """A feat for one round from the campaign's catalogue (R-CV-6)."""
    require_controls(state, ctx.user, cmd.character)
    hero = heroic_feat(state.cv_hero(cmd.character), cmd.feat, catalogue())
    return _spent(state, cmd.character, hero, f"{hero.name} gains {hero.effects[-1].name} for the round")


@dataclass(frozen=True)
class TheTalent(Command):
    """Adept: one use of a power the hero lacks, or (no power named) clear power fatigue."""

    name = "cv.talent"
    character: str
    power: str | None = None


@handles(TheTalent)
def _talent(state: TableState, cmd: TheTalent, ctx: Ctx) -> Outcome:
    """The Talent, the Adept core ability (R-CV-7)."""
    require_controls(state, ctx.user, cmd.character)
    power = cmd.power.strip() if cmd.power and cmd.power.strip() else None
    hero = the_talent(state.cv_hero(cmd.character), power=power)
    text = f"{hero.name} calls on The Talent: " + (f"one use of {power}" if power else "fatigue cleared")
    return _spent(state, cmd.character, hero, text)


@dataclass(frozen=True)
class UseTalentPower(Command):
    name = "cv.talent.use"
    character: str
    power: str


@handles(UseTalentPower)
def _use_power(state: TableState, cmd: UseTalentPower, ctx: Ctx) -> Outcome:
    """Use the power The Talent granted (R-CV-7)."""
    require_controls(state, ctx.user, cmd.character)
    hero = use_talent_power(state.cv_hero(cmd.character), cmd.power)
    return _spent(state, cmd.character, hero, f"{hero.name} uses {cmd.power.strip()}")


@dataclass(frozen=True)
class Expertise(Command):
    name = "cv.expertise"
    character: str
    skill: str


@handles(Expertise)
def _expertise(state: TableState, cmd: Expertise, ctx: Ctx) -> Outcome:
    """Expertise, the Expert core ability: +4 ranks in a skill for the scene (R-CV-7)."""
    require_controls(state, ctx.user, cmd.character)
    hero = expertise(state.cv_hero(cmd.character), cmd.skill)
    return _spent(state, cmd.character, hero, f"{hero.name} gains Expertise in {cmd.skill.strip()}")


@dataclass(frozen=True)
class Determination(Command):
    name = "cv.determination"
    character: str


@handles(Determination)
def _determination(state: TableState, cmd: Determination, ctx: Ctx) -> Outcome:
    """Determination, the Warrior core ability: every bruised and hurt condition goes (R-CV-7)."""
    require_controls(state, ctx.user, cmd.character)
    hero = determination(state.cv_hero(cmd.character))
    return _spent(state, cmd.character, hero, f"{hero.name} shrugs off the bruises and hurts")


@dataclass(frozen=True)
class ShakeOffCondition(Command):
    name = "cv.shake_off"
    character: str
    condition: ShakeOff


@handles(ShakeOffCondition)
def _shake_off(state: TableState, cmd: ShakeOffCondition, ctx: Ctx) -> Outcome:
    """Recover: shake off stunned or strained at once (R-CV-9)."""
    require_controls(state, ctx.user, cmd.character)
    hero = shake_off(state.cv_hero(cmd.character), cmd.condition)
    return _spent(state, cmd.character, hero, f"{hero.name} shakes off being {cmd.condition.value}")


@dataclass(frozen=True)
class RecoverNow(Command):
    """Recover: an extra recovery check now, opened as a pending check."""

    name = "cv.recover_now"
    character: str


@handles(RecoverNow)
def _recover_now(state: TableState, cmd: RecoverNow, ctx: Ctx) -> Outcome:
    """A Conviction-bought recovery check; ending Disabled closes spending for the round (R-CV-3, R-CV-9)."""
    require_controls(state, ctx.user, cmd.character)
    hero, check = recover_now(state.cv_hero(cmd.character), ctx.rng)
    return _open(state.with_cv_hero(cmd.character, hero), ctx, cmd.character, check)


@dataclass(frozen=True)
class StrenuousGuard(Command):
    name = "cv.strenuous_guard"
    character: str


@handles(StrenuousGuard)
def _guard(state: TableState, cmd: StrenuousGuard, ctx: Ctx) -> Outcome:
    """Recover: while Disabled, act strenuously this round without dropping to dying (R-CV-9)."""
    require_controls(state, ctx.user, cmd.character)
    hero = strenuous_guard(state.cv_hero(cmd.character))
    return _spent(state, cmd.character, hero, f"{hero.name} steels themself against the strain this round")


@dataclass(frozen=True)
class EscapeDeath(Command):
    """Stabilise a dying character: the spender (no target) or an ally the spender is `assisting`."""

    name = "cv.escape_death"
    character: str
    target: str | None = None
    assisting: bool = False


@handles(EscapeDeath)
def _escape_death(state: TableState, cmd: EscapeDeath, ctx: Ctx) -> Outcome:
    """Escape death: the dying one becomes stable, disabled and unconscious (R-CV-10)."""
    require_controls(state, ctx.user, cmd.character)
    target = cmd.target if cmd.target is not None else cmd.character
    spender, saved = escape_death(state.cv_hero(cmd.character), state.cv_hero(target), assisting=cmd.assisting)
    new = state.with_cv_hero(cmd.character, spender)
    if target != cmd.character:
        new = new.with_cv_hero(target, saved)
    summary = {"text": f"{spender.name} pulls {saved.name} back from death", "target": hero_json(new, target)}
    hidden = new.cv_character(cmd.character).hidden and new.cv_character(target).hidden
    return Outcome(new, {**summary, **hero_json(new, cmd.character)}, Visibility.GM if hidden else Visibility.PUBLIC)


# --- exit a scene (R-CV-11) ---


def _bid(state: TableState) -> ExitBid:
    if state.exit_bid is None:
        raise TableError(
            "cv/no_exit", "no one is trying to leave the scene", fix="start an exit first", ruling="R-CV-11"
        )
    return state.exit_bid


def _bid_json(state: TableState, bid: ExitBid) -> dict[str, Any]:
    return {
        "leaver": _id_named(state, bid.leaver),
        "exit_points": bid.exit_points,
        "interference": [[_id_named(state, name), points] for name, points in bid.interference],
        "interfering_points": bid.interfering_points,
        "closed": bid.closed,
        "exits": bid.exits,
    }


def _bid_outcome(state: TableState, bid: ExitBid, cid: str | None, text: str) -> Outcome:
    """Bidding is at the table, so it is public. A closed bidding is settled and cleared."""
    summary: dict[str, Any] = {"text": text, "bid": _bid_json(state, bid)}
    if cid is not None:
        summary.update(hero_json(state, cid))
    if bid.closed:
        leaver = state.cv_hero(_id_named(state, bid.leaver)).name
        summary["text"] += f"; {leaver} " + ("leaves the scene" if bid.exits else "is held in the scene")
        return Outcome(replace(state, exit_bid=None), summary)
    return Outcome(replace(state, exit_bid=bid), summary)


@dataclass(frozen=True)
class StartExit(Command):
    name = "cv.exit.start"
    character: str


@handles(StartExit)
def _start_exit(state: TableState, cmd: StartExit, ctx: Ctx) -> Outcome:
    """Spend a point to leave the scene; the others may interfere (R-CV-11)."""
    require_controls(state, ctx.user, cmd.character)
    if state.exit_bid is not None:
        raise TableError(
            "cv/exit_open",
            f"{state.exit_bid.leaver}'s exit is still being bid on",
            fix="finish that bidding first",
            ruling="R-CV-11",
        )
    hero, bid = attempt_exit(state.cv_hero(cmd.character))
    new = state.with_cv_hero(cmd.character, hero)
    return _bid_outcome(new, bid, cmd.character, f"{hero.name} spends a point to leave the scene")


@dataclass(frozen=True)
class InterfereExit(Command):
    name = "cv.exit.interfere"
    character: str


@handles(InterfereExit)
def _interfere(state: TableState, cmd: InterfereExit, ctx: Ctx) -> Outcome:
    """Spend a point against someone's exit; each cancels one exit point (R-CV-11)."""
    require_controls(state, ctx.user, cmd.character)
    hero, bid = interfere(_bid(state), state.cv_hero(cmd.character))
    new = state.with_cv_hero(cmd.character, hero)
    return _bid_outcome(new, bid, cmd.character, f"{hero.name} spends a point to keep {bid.leaver} in the scene")


@dataclass(frozen=True)
class PressExit(Command):
    """The leaver answers interference with one more point."""

    name = "cv.exit.press"


@handles(PressExit)
def _press(state: TableState, cmd: PressExit, ctx: Ctx) -> Outcome:
    """The leaver spends one more exit point (R-CV-11)."""
    bid = _bid(state)
    leaver = _id_named(state, bid.leaver)
    require_controls(state, ctx.user, leaver)
    hero, bid = press_exit(bid, state.cv_hero(leaver))
    new = state.with_cv_hero(leaver, hero)
    return _bid_outcome(new, bid, leaver, f"{hero.name} spends another point to get away")


@dataclass(frozen=True)
class PassExit(Command):
    """A side passes. The exit side: the leaver's player or the GM. The interfering side: the GM, or the
    player of a character that has interfered (`character`)."""

    name = "cv.exit.pass"
    side: Side
    character: str | None = None


@handles(PassExit)
def _pass(state: TableState, cmd: PassExit, ctx: Ctx) -> Outcome:
    """A side passes; when both have, the exit happens if exit points outnumber interfering ones (R-CV-11)."""
    bid = _bid(state)
    if cmd.side is Side.EXIT:
        require_controls(state, ctx.user, _id_named(state, bid.leaver))
    elif not state.is_gm(ctx.user):
        if cmd.character is None:
            raise Forbidden(
                "cv/exit_pass", "only the GM or an interfering player passes for the interfering side", fix="ask the GM"
            )
        require_controls(state, ctx.user, cmd.character)
        if state.cv_hero(cmd.character).name not in dict(bid.interference):
            raise Forbidden(
                "cv/exit_pass",
                f"{state.cv_hero(cmd.character).name} has not interfered with this exit",
                fix="interfere first, or let the GM pass",
            )
    return _bid_outcome(state, pass_bid(bid, cmd.side), None, f"the {cmd.side.value} side passes")


# --- Quotable Wit (R-CV-12) ---


@dataclass(frozen=True)
class DesignateWit(Command):
    """Spend a point to mark a line as Quotable Wit: the words, who said them (a character), who heard them."""

    name = "cv.wit.designate"
    character: str
    text: str
    speaker: str
    heard_by: tuple[str, ...] = ()


@handles(DesignateWit)
def _designate(state: TableState, cmd: DesignateWit, ctx: Ctx) -> Outcome:
    """Mark a Quotable Wit; the speaker and the spender count as having heard it (R-CV-12)."""
    require_controls(state, ctx.user, cmd.character)
    speaker = state.cv_hero(cmd.speaker).name
    heard = frozenset(state.cv_hero(cid).name for cid in cmd.heard_by)
    hero, wits, wit = designate(
        state.wits, state.cv_hero(cmd.character), text=cmd.text, speaker=speaker, heard_by=heard
    )
    new = replace(state.with_cv_hero(cmd.character, hero), wits=wits)
    summary = {
        "text": f"Quotable Wit #{wit.number}: {wit.text!r} ({wit.speaker})",
        "wit": wit.number,
        "heard_by": sorted(_id_named(new, name) for name in wit.heard_by),
        **hero_json(new, cmd.character),
    }
    return Outcome(new, summary)


@dataclass(frozen=True)
class UseWit(Command):
    """The roller of a pending check uses a Wit they heard for +2. `related` is the GM's call; `hijack` marks
    an enemy of the speaker turning it around."""

    name = "cv.wit.use"
    wit: int
    check: str | None = None
    related: bool = True
    hijack: bool = False


@handles(UseWit)
def _use_wit(state: TableState, cmd: UseWit, ctx: Ctx) -> Outcome:
    """+2 on a related pending roll, once per Wit, three uses a game session (R-CV-12)."""
    opened = state.cv_check(cmd.check)
    require_controls(state, ctx.user, opened.character)
    wits, check = use_wit(state.wits, cmd.wit, opened.check, related=cmd.related, hijack=cmd.hijack)
    new = _with_check(replace(state, wits=wits), replace(opened, check=check))
    summary = {"check": opened.id, "wit": cmd.wit, "session_uses": wits.session_uses, **check_json(check)}
    return _private(new, opened, summary)


# --- regaining Conviction (R-CV-2, R-CV-13) ---


@dataclass(frozen=True)
class AwardNature(Command):
    name = "cv.award_nature"
    character: str
    trait: NatureTrait
    note: str = ""


@handles(AwardNature)
def _award(state: TableState, cmd: AwardNature, ctx: Ctx) -> Outcome:
    """The GM awards a point for acting on Virtue or Vice, never above the maximum (R-CV-2, R-CV-13)."""
    require_gm(state, ctx.user)
    hero = award_nature(state.cv_hero(cmd.character), cmd.trait)
    note = f": {cmd.note.strip()}" if cmd.note.strip() else ""
    return _spent(state, cmd.character, hero, f"{hero.name} earns a point for their {cmd.trait.value}{note}")


@dataclass(frozen=True)
class RegainCheck(Command):
    """The Charisma check against 10 offered after a scene the GM ended as dramatic."""

    name = "cv.regain_check"
    character: str


@handles(RegainCheck)
def _regain(state: TableState, cmd: RegainCheck, ctx: Ctx) -> Outcome:
    """One regain check per character after a dramatic scene, pending until announced (R-CV-13)."""
    require_controls(state, ctx.user, cmd.character)
    hero, check = roll_regain_check(state.cv_hero(cmd.character), ctx.rng)
    return _open(state.with_cv_hero(cmd.character, hero), ctx, cmd.character, check)


@dataclass(frozen=True)
class GainFromSetback(Command):
    name = "cv.setback"
    character: str
    setback: Setback


@handles(GainFromSetback)
def _setback(state: TableState, cmd: GainFromSetback, ctx: Ctx) -> Outcome:
    """The GM gives a point for a setback at an enemy's hands, even above the maximum (R-CV-2, R-CV-13)."""
    require_gm(state, ctx.user)
    hero = gain_from_setback(state.cv_hero(cmd.character), cmd.setback)
    return _spent(state, cmd.character, hero, f"{hero.name} gains a point for being {cmd.setback.value}")


# --- damage, dying, recovery, fatigue (R-CV-8) ---


def _require_gm_or_attacker(state: TableState, user: str, attacker: str | None, what: str) -> None:
    """The GM, or the player of the attacking character, starts damage; its effects touch the target."""
    if state.is_gm(user):
        if attacker is not None:
            state.cv_character(attacker)
        return
    if attacker is None:
        require_member(state, user)
        raise Forbidden("cv/damage_starter", f"only the GM or the attacker's player calls for {what}", fix="ask the GM")
    require_controls(state, user, attacker)


@dataclass(frozen=True)
class ToughnessSave(Command):
    """The target saves against damage: d20 + Toughness − bruised/hurt against 15 + `damage_bonus`.
    `by_enemy` (GM's call) decides whether being disabled by it earns a point."""

    name = "cv.toughness_save"
    character: str
    damage_bonus: int
    lethal: bool = True
    attacker: str | None = None
    by_enemy: bool = True
    secret: bool = False


@handles(ToughnessSave)
def _toughness(state: TableState, cmd: ToughnessSave, ctx: Ctx) -> Outcome:
    """Roll the target's Toughness save, pending until announced (R-CV-4, R-CV-8)."""
    _require_gm_or_attacker(state, ctx.user, cmd.attacker, "a Toughness save")
    if cmd.secret or not cmd.by_enemy:
        require_gm(state, ctx.user)
    kind = DamageKind.LETHAL if cmd.lethal else DamageKind.NONLETHAL
    check = toughness_save(state.cv_hero(cmd.character), ctx.rng, damage_bonus=cmd.damage_bonus, kind=kind)
    return _open(state, ctx, cmd.character, check, secret=cmd.secret, by_enemy=cmd.by_enemy)


@dataclass(frozen=True)
class DyingCheck(Command):
    name = "cv.dying_check"
    character: str


@handles(DyingCheck)
def _dying(state: TableState, cmd: DyingCheck, ctx: Ctx) -> Outcome:
    """A dying character's Constitution check against 10, once a round (R-CV-8)."""
    require_controls(state, ctx.user, cmd.character)
    hero, check = dying_check(state.cv_hero(cmd.character), ctx.rng)
    return _open(state.with_cv_hero(cmd.character, hero), ctx, cmd.character, check)


@dataclass(frozen=True)
class RecoveryCheck(Command):
    name = "cv.recovery_check"
    character: str


@handles(RecoveryCheck)
def _recovery(state: TableState, cmd: RecoveryCheck, ctx: Ctx) -> Outcome:
    """A recovery check, Constitution against 10, when the GM says one is due (R-CV-8)."""
    require_controls(state, ctx.user, cmd.character)
    check = recovery_check(state.cv_hero(cmd.character), ctx.rng)
    return _open(state, ctx, cmd.character, check)


@dataclass(frozen=True)
class Stun(Command):
    name = "cv.stun"
    character: str
    attacker: str | None = None


@handles(Stun)
def _stun(state: TableState, cmd: Stun, ctx: Ctx) -> Outcome:
    """Stunned: only reactions for a round (R-CV-8)."""
    _require_gm_or_attacker(state, ctx.user, cmd.attacker, "a stun")
    hero = stun(state.cv_hero(cmd.character))
    return _spent(state, cmd.character, hero, f"{hero.name} is stunned")


@dataclass(frozen=True)
class AddFatigue(Command):
    name = "cv.fatigue"
    character: str
    steps: int = 1
    attacker: str | None = None


def _steps(steps: int) -> None:
    if steps < 1:
        raise TableError("cv/steps", f"{steps} fatigue steps", fix="give 1 or more", ruling="R-CV-8")


@handles(AddFatigue)
def _fatigue(state: TableState, cmd: AddFatigue, ctx: Ctx) -> Outcome:
    """Strained → fatigued → exhausted; beyond, unconscious (R-CV-8)."""
    _require_gm_or_attacker(state, ctx.user, cmd.attacker, "fatigue")
    _steps(cmd.steps)
    hero = add_fatigue(state.cv_hero(cmd.character), cmd.steps)
    return _spent(state, cmd.character, hero, f"{hero.name} tires")


@dataclass(frozen=True)
class Rest(Command):
    name = "cv.rest"
    character: str
    steps: int = 1


@handles(Rest)
def _rest(state: TableState, cmd: Rest, ctx: Ctx) -> Outcome:
    """Rest removes fatigue steps; how long it takes is the GM's call (R-CV-8, R-T-2)."""
    require_gm(state, ctx.user)
    _steps(cmd.steps)
    hero = rest(state.cv_hero(cmd.character), cmd.steps)
    return _spent(state, cmd.character, hero, f"{hero.name} rests")


# --- GM override (R-T-2) ---


@dataclass(frozen=True)
class CvOverride(Command):
    """The GM sets a character's Conviction or conditions, with a reason for the log. Unset fields stay."""

    name = "cv.override"
    character: str
    reason: str
    conviction: int | None = None
    bruised: int | None = None
    hurt: int | None = None
    lethal: Lethal | None = None
    nonlethal: NonLethal | None = None
    fatigue: Fatigue | None = None
    stunned_rounds: int | None = None
    dazed_rounds: int | None = None
    regain_check_due: bool | None = None


@handles(CvOverride)
def _override(state: TableState, cmd: CvOverride, ctx: Ctx) -> Outcome:
    """GM override of Conviction and conditions, logged with who and why (R-T-2)."""
    require_gm(state, ctx.user)
    _reason(cmd.reason)
    numbers = {
        "conviction": cmd.conviction,
        "bruised": cmd.bruised,
        "hurt": cmd.hurt,
        "stunned_rounds": cmd.stunned_rounds,
        "dazed_rounds": cmd.dazed_rounds,
    }
    for label, value in numbers.items():
        if value is not None and value < 0:
            raise TableError("cv/override_value", f"{label} cannot be {value}", fix="give 0 or more", ruling="R-T-2")
    hero = state.cv_hero(cmd.character)
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
    return _spent(state, cmd.character, hero, f"GM override on {hero.name}: {cmd.reason.strip()} (by {ctx.user})")
