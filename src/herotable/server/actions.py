"""The action panels: which table commands a viewer is offered, as forms, and how a posted form becomes a command.

Every form posts `type` (a registered command) and that command's fields; `command_from_form` reads the
fields by the command's own type hints, so the panels carry no rules: the table decides whether the action
is allowed, and its RulesError is what the player sees.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol, Union

from herotable.conviction.character import Ability
from herotable.conviction.exit_scene import Side as ExitSide
from herotable.conviction.regain import NatureTrait, Setback
from herotable.conviction.rounds import ActionKind
from herotable.conviction.spending import ShakeOff
from herotable.ltl.hero import Defeat, LossType, TimePassed
from herotable.ltl.karma import Fortune
from herotable.ltl.roll import RerollSource
from herotable.ltl.task import CritBonus, CritPenalty
from herotable.table.commands import REGISTRY, Command, command_from_json
from herotable.table.cv_play import catalogue
from herotable.table.ltl_play import IMPROVEMENTS
from herotable.table.model import Role, Ruleset, TableError, TableState
from herotable.table.requests import RequestKind

Options = tuple[tuple[str, str], ...]
DIFFICULTIES = ("Easy", "Average", "Hard", "Formidable", "Inconceivable")


@dataclass(frozen=True)
class Field:
    """One form control. kind: text, number, select, check (a true/false box), multi (checkboxes), hidden."""

    name: str
    label: str
    kind: str = "text"
    options: Options = ()
    value: str = ""
    required: bool = False
    hint: str = ""
    suggestions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Action:
    type: str
    title: str
    fields: tuple[Field, ...] = ()
    hint: str = ""


@dataclass(frozen=True)
class Group:
    title: str
    actions: tuple[Action, ...]


class FormLike(Protocol):
    def getlist(self, key: str) -> list[Any]: ...

    def __iter__(self) -> Iterator[str]: ...


def _enum_options(enum: type[Enum], blank: str | None = None) -> Options:
    opts = tuple((str(e.value), str(e.value).replace("_", " ")) for e in enum)
    return ((("", blank),) if blank is not None else ()) + opts


def _select(name: str, label: str, options: Options, value: str = "", hint: str = "") -> Field:
    return Field(name, label, "select", options, value or (options[0][0] if options else ""), hint=hint)


def _check(name: str, label: str, value: bool = False, hint: str = "") -> Field:
    return Field(name, label, "check", value="true" if value else "", hint=hint)


def _hidden(name: str, value: str) -> Field:
    return Field(name, name, "hidden", value=value)


# --- what each game offers ---


def _ltl_styles(state: TableState, ids: Sequence[str]) -> Options:
    seen: dict[str, str] = {}
    for cid in ids:
        c = state.character(cid)
        for s in c.hero.sheet.styles:
            seen.setdefault(s.name, f"{s.name} ({c.hero.name})")
    return (("", "base Power"), *seen.items())


def ltl_groups(state: TableState, user: str) -> list[Group]:
    """The Larger Than Life actions for the viewer's characters (the GM: every character)."""
    gm = state.is_gm(user)
    mine = [c.id for c in state.characters if gm or (c.owner == user and state.role_of(user) is Role.PLAYER)]
    if not mine:
        return []
    chars: Options = tuple((cid, state.character(cid).hero.name) for cid in mine)
    everyone: Options = tuple((c.id, c.hero.name) for c in state.characters)
    styles = _ltl_styles(state, mine)
    who = _select("character", "Character", chars)
    difficulty = Field(
        "difficulty", "Difficulty", required=True, hint="a name, a die (d8) or levels", suggestions=DIFFICULTIES
    )
    groups: list[Group] = []
    challenge_fields = [
        who,
        difficulty,
        _select("style", "Style", styles),
        _check("auto_success", "Automatic Success (burn 1 Karma before the roll)"),
    ]
    if gm:
        challenge_fields += [
            _check("must_succeed", "Must succeed (Last Chance may follow)"),
            _check("secret", "Secret (GM only)"),
        ]
    rolls = [Action("ltl.challenge", "Challenge", tuple(challenge_fields), "R-LTL-2, R-LTL-3")]
    conflict = state.conflict
    if conflict is not None:
        sides = {f.id: f.side for f in conflict.fighters}
        actors = tuple(o for o in chars if o[0] in sides)
        mine_side = sides[actors[0][0]] if actors else ""
        # opponents of the first listed attacker first, so the usual choice is the default
        targets = tuple(sorted((o for o in everyone if o[0] in sides), key=lambda o: sides[o[0]] == mine_side))
        if actors:
            attack = [
                _select("actor", "Attacker", actors),
                _select("target", "Opponent", targets),
                _select("style", "Style", styles),
                Field("broke", "Going For Broke (levels)", "number", value="0"),
                _check("auto_success", "Automatic Success (burn 1 Karma before the roll)"),
            ]
            if gm:
                attack.append(
                    _select(
                        "target_style", "Opponent's Style (default: best)", _ltl_styles(state, [t for t, _ in targets])
                    )
                )
            rolls += [
                Action("ltl.attack", "Attack (open an exchange)", tuple(attack), "R-LTL-12"),
                Action(
                    "ltl.attempt",
                    "Attempt a challenge in the conflict",
                    (_select("actor", "Character", actors), difficulty, _select("style", "Style", styles)),
                    "R-LTL-12",
                ),
                Action("ltl.conflict.pass", "Pass this round", (_select("character", "Character", actors),)),
                Action("ltl.conflict.give_up", "Give up", (_select("character", "Character", actors),), "R-LTL-5"),
            ]
    groups.append(Group("Rolls", tuple(rolls)))
    powers: dict[str, str] = {}
    for cid in mine:
        for p in state.character(cid).hero.sheet.superpowers:
            powers.setdefault(p.name, p.name)
    last_chance = [who, _check("burn", "Burn Karma instead of rolling")]
    if gm:
        last_chance.append(_check("harder", "Harder difficulty (GM's call)"))
    karma = [
        Action("ltl.karma.try_again", "Try Again (burn Karma for two re-roll tokens)", (who,), "R-LTL-10"),
        Action(
            "ltl.karma.roll",
            "Karma roll or Power Stunt",
            (
                who,
                difficulty,
                _select("purpose", "Purpose", (("karma", "Karma roll"), ("stunt", "Power Stunt"))),
                _select("power", "Superpower (stunts)", (("", "—"), *powers.items())),
                Field("stunt", "Stunt"),
            ),
            "R-LTL-10",
        ),
        Action("ltl.karma.last_chance", "Last Chance", tuple(last_chance), "R-LTL-10"),
    ]
    groups.append(Group("Karma", tuple(karma)))
    heroism = (
        Action("ltl.heroism.push", "Push", (who, _check("burn", "Burn Heroism instead of rolling")), "R-LTL-11"),
        Action("ltl.heroism.recover", "Recover", (who, _check("burn", "Burn Heroism instead of rolling")), "R-LTL-11"),
        Action(
            "ltl.heal",
            "Heal",
            (
                _select("healer", "Healer", chars),
                _select("patient", "Patient", everyone),
                _select("style", "Style", styles),
            ),
            "R-LTL-15",
        ),
        Action(
            "ltl.hero_points.spend",
            "Spend Hero Points",
            (
                who,
                _select("kind", "Improvement", tuple((k, k.replace("_", " ")) for k in IMPROVEMENTS)),
                Field("target", "Which (Style, specialty, power…)"),
                Field("detail", "Detail (the stunt)"),
            ),
            "R-LTL-16",
        ),
    )
    groups.append(Group("Heroism, healing, Hero Points", heroism))
    return groups


def ltl_roll_actions(state: TableState, task_id: str, characters: Sequence[str]) -> tuple[Action, ...]:
    """What can be done to one open roll (a task, or the exchange when `task_id` is empty): re-roll, buy, settle."""
    task = (_hidden("task", task_id),) if task_id else ()
    chars: Options = tuple((cid, state.character(cid).hero.name) for cid in characters)
    if not chars:
        return ()
    who = _select("character", "Who re-rolls", chars)
    specialties = sorted({s for cid in characters for s in state.character(cid).hero.sheet.specialties})
    return (
        Action(
            "ltl.reroll",
            "Re-roll",
            (
                *task,
                who,
                _select("source", "Source", _enum_options(RerollSource)),
                _select("specialty", "Specialty", (("", "—"), *((s, s) for s in specialties))),
            ),
        ),
        Action("ltl.buy_success", "Buy success (burn 2 Karma)", (*task, who)),
        Action(
            "ltl.settle",
            "Settle",
            (
                *task,
                _select("crit_bonus", "If a critical success", _enum_options(CritBonus)),
                _select("crit_penalty", "If a critical failure", _enum_options(CritPenalty)),
            ),
        ),
    )


def cv_groups(state: TableState, user: str) -> list[Group]:
    """The Conviction actions for the viewer's characters (the GM: every character)."""
    gm = state.is_gm(user)
    mine = [c.id for c in state.cv_characters if gm or (c.owner == user and state.role_of(user) is Role.PLAYER)]
    if not mine:
        return []
    chars: Options = tuple((cid, state.cv_hero(cid).name) for cid in mine)
    everyone: Options = tuple((c.id, c.hero.name) for c in state.cv_characters)
    who = _select("character", "Character", chars)
    skills = sorted({s for cid in mine for s, _ in state.cv_hero(cid).sheet.skills})
    check = [
        who,
        Field("difficulty", "Difficulty (the GM's)", "number", value="15", required=True),
        Field("label", "What for"),
        _select("ability", "Ability", _enum_options(Ability, "—")),
        Field("skill", "Skill", suggestions=tuple(skills)),
        Field("modifier", "Other modifier", "number", value="0"),
    ]
    if gm:
        check.append(_check("secret", "Secret (GM only)"))
    save = [
        _select("character", "Target", everyone),
        Field("damage_bonus", "Damage bonus", "number", value="0", required=True),
        _check("lethal", "Lethal", True),
        _select("attacker", "Attacker", (("", "— (GM)"), *chars)),
    ]
    if gm:
        save += [_check("by_enemy", "By an enemy", True), _check("secret", "Secret (GM only)")]
    feats = tuple((f.name, f.name) for f in catalogue().feats)
    return [
        Group(
            "Checks",
            (
                Action("cv.check", "Check", tuple(check), "R-CV-1, R-CV-4"),
                Action("cv.toughness_save", "Toughness save", tuple(save), "R-CV-8"),
                Action("cv.dying_check", "Dying check", (who,), "R-CV-8"),
                Action("cv.recovery_check", "Recovery check", (who,), "R-CV-8"),
                Action("cv.regain_check", "Conviction regain check", (who,), "R-CV-13"),
            ),
        ),
        Group(
            "Actions and Conviction",
            (
                Action(
                    "cv.act",
                    "Take an action",
                    (who, _select("action", "Action", _enum_options(ActionKind)), Field("what", "What")),
                ),
                Action(
                    "cv.surge",
                    "Surge",
                    (who, _select("action", "Extra action", (("standard", "standard"), ("move", "move")))),
                    "R-CV-5",
                ),
                Action("cv.heroic_feat", "Heroic feat", (who, _select("feat", "Feat", feats)), "R-CV-6"),
                Action(
                    "cv.talent", "The Talent (Adept)", (who, Field("power", "Power (empty: clear fatigue)")), "R-CV-7"
                ),
                Action(
                    "cv.talent.use", "Use the Talent's power", (who, Field("power", "Power", required=True)), "R-CV-7"
                ),
                Action(
                    "cv.expertise",
                    "Expertise (Expert)",
                    (who, Field("skill", "Skill", required=True, suggestions=tuple(skills))),
                    "R-CV-7",
                ),
                Action("cv.determination", "Determination (Warrior)", (who,), "R-CV-7"),
                Action(
                    "cv.shake_off",
                    "Recover: shake off",
                    (who, _select("condition", "Condition", _enum_options(ShakeOff))),
                    "R-CV-9",
                ),
                Action("cv.recover_now", "Recover: a recovery check now", (who,), "R-CV-9"),
                Action("cv.strenuous_guard", "Recover: strenuous guard", (who,), "R-CV-9"),
                Action(
                    "cv.escape_death",
                    "Escape death",
                    (
                        who,
                        _select("target", "Who is dying", (("", "— (yourself)"), *everyone)),
                        _check("assisting", "Assisting them"),
                    ),
                    "R-CV-10",
                ),
            ),
        ),
        Group(
            "Quotable Wit and leaving the scene",
            (
                Action(
                    "cv.wit.designate",
                    "Designate a Quotable Wit",
                    (
                        who,
                        Field("text", "The words", required=True),
                        _select("speaker", "Said by", everyone),
                        Field("heard_by", "Heard by", "multi", everyone),
                    ),
                    "R-CV-12",
                ),
                Action("cv.exit.start", "Leave the scene", (who,), "R-CV-11"),
                Action("cv.exit.interfere", "Interfere with an exit", (who,), "R-CV-11"),
                Action("cv.exit.press", "Press the exit (the leaver)", (), "R-CV-11"),
                Action(
                    "cv.exit.pass",
                    "Pass in the exit bidding",
                    (
                        _select("side", "Side", _enum_options(ExitSide)),
                        _select("character", "As (interfering)", (("", "—"), *chars)),
                    ),
                    "R-CV-11",
                ),
            ),
        ),
    ]


def cv_roll_actions(state: TableState, check_id: str, gm: bool) -> tuple[Action, ...]:
    """What can be done to a pending check: re-roll, use a Quotable Wit, announce; the GM may override."""
    check = _hidden("check", check_id)
    wits: Options = tuple((str(w.number), f"#{w.number}: {w.text}") for w in state.wits.wits if w.used_by is None)
    actions = [Action("cv.reroll", "Conviction re-roll", (check,), "R-CV-3")]
    if wits:
        wit = [check, _select("wit", "Quotable Wit", wits), _check("hijack", "Turned against the speaker")]
        if gm:
            wit.append(_check("related", "Related (GM's call)", True))
        actions.append(Action("cv.wit.use", "Use a Quotable Wit (+2)", tuple(wit), "R-CV-12"))
    actions.append(Action("cv.announce", "Announce", (check,), "R-CV-4"))
    if gm:
        actions.append(
            Action(
                "cv.check.override",
                "Override",
                (check, _check("succeeded", "Succeeds"), Field("reason", "Reason", required=True)),
                "R-T-2",
            )
        )
    return tuple(actions)


def request_action(state: TableState, user: str) -> Action | None:
    """A player's question for the GM's judgement (a difficulty, a Deus Ex Machina cost, a Last Chance)."""
    if state.role_of(user) is not Role.PLAYER:
        return None
    own = [(c.id, c.hero.name) for c in state.characters if c.owner == user]
    own += [(c.id, c.hero.name) for c in state.cv_characters if c.owner == user]
    return Action(
        "request.ask",
        "Ask the GM",
        (
            _select("kind", "About", _enum_options(RequestKind)),
            _select("character", "For", (("", "—"), *own)),
            Field("text", "What you want"),
        ),
        "R-T-2",
    )


def gm_groups(state: TableState) -> list[Group]:
    """The GM panel: structure, conflicts or rounds, awards, overrides and undo."""
    s = state.structure
    structure = [
        Action(
            "structure.end_adventure" if s.in_adventure else "structure.start_adventure",
            "End the adventure" if s.in_adventure else "Start an adventure",
        ),
        Action(
            "structure.end_session" if s.in_session else "structure.start_session",
            "End the game session" if s.in_session else "Start a game session",
        ),
    ]
    if s.in_scene:
        structure += [
            Action("structure.end_scene", "End the scene"),
            Action(
                "structure.mark_dramatic",
                "Mark the scene dramatic" if not s.dramatic else "Mark the scene not dramatic",
                (_hidden("dramatic", "false" if s.dramatic else "true"),),
            ),
        ]
    else:
        structure.append(Action("structure.start_scene", "Start a scene", (_check("dramatic", "Dramatic"),)))
    groups = [Group("Structure", tuple(structure))]
    if state.ruleset is Ruleset.LTL:
        groups += _gm_ltl(state)
    else:
        groups += _gm_cv(state)
    if state.done:
        last = state.done[-1]
        groups.append(
            Group(
                "Undo",
                (
                    Action(
                        "table.undo",
                        f"Undo the last action ({last.name})",
                        (_hidden("target", last.command_id),),
                        "R-T-2",
                    ),
                ),
            )
        )
    return groups


def _gm_ltl(state: TableState) -> list[Group]:
    chars: Options = tuple((c.id, c.hero.name) for c in state.characters)
    if not chars:
        return []
    who = _select("character", "Character", chars)
    if state.conflict is None:
        sides = (("", "not in it"), ("heroes", "heroes"), ("villains", "villains"), ("third", "a third side"))
        fighters = tuple(
            Field(f"side.{c.id}", f"{c.hero.name}'s side", "select", sides, "villains" if c.npc else "heroes")
            for c in state.characters
        )
        conflict = Action(
            "ltl.conflict.start",
            "Start a conflict",
            (
                *fighters,
                _select("stakes", "Stakes", _enum_options(LossType), LossType.PHYSICAL.value),
                Field("karma_initiative", "Karma for initiative", "multi", chars),
            ),
            "R-LTL-12",
        )
        fight: tuple[Action, ...] = (conflict,)
    else:
        fight = (
            Action("ltl.conflict.end_round", "End the round", (), "R-LTL-12"),
            Action("ltl.conflict.end", "End the conflict", (), "R-LTL-12"),
        )
    awards = tuple(
        Field(f"award.{c.id}", f"Hero Points for {c.hero.name}", "number") for c in state.characters if not c.npc
    )
    judgement = [
        Action(
            "ltl.karma.fortune",
            "Karma burn for the story (set the cost)",
            (
                who,
                _select("use", "Use", _enum_options(Fortune)),
                Field("levels", "Levels", "number", value="1", required=True),
            ),
            "R-LTL-10",
        ),
        Action(
            "ltl.hero_points.award",
            "Award Hero Points",
            (who, Field("points", "Points", "number", value="1", required=True)),
            "R-LTL-16",
        ),
        Action(
            "ltl.defeat",
            "Record a defeat",
            (
                who,
                Field(
                    "consequence",
                    "Consequence",
                    value=Defeat.UNCONSCIOUS.value,
                    suggestions=tuple(d.value for d in Defeat),
                ),
            ),
            "R-LTL-5",
        ),
        Action(
            "ltl.time_passes", "Time passes", (_select("period", "How long", _enum_options(TimePassed)),), "R-LTL-6"
        ),
    ]
    if state.structure.in_adventure:
        judgement.append(Action("structure.end_adventure", "End the adventure with awards", awards, "R-LTL-16"))
    return [
        Group("Conflict", fight),
        Group("Judgement and awards", tuple(judgement)),
        Group(
            "Override",
            (
                Action(
                    "ltl.override",
                    "Override a character",
                    (
                        who,
                        Field("reason", "Reason (for the log)", required=True),
                        Field("karma", "Set Karma to", hint="a die, or 'below d4'"),
                        Field("heroism", "Set Heroism to", hint="a die, or 'below d4'"),
                        Field("lose", "Lose levels", "number", value="0"),
                        _select("lose_kind", "Kind of loss", _enum_options(LossType), LossType.PHYSICAL.value),
                        _check("clear_losses", "Clear all losses"),
                        _select("unconscious", "Unconscious", (("", "unchanged"), ("true", "yes"), ("false", "no"))),
                        Field("try_again_tokens", "Try Again tokens", "number"),
                    ),
                    "R-T-2",
                ),
            ),
        ),
    ]


def _gm_cv(state: TableState) -> list[Group]:
    chars: Options = tuple((c.id, c.hero.name) for c in state.cv_characters)
    if not chars:
        return []
    who = _select("character", "Character", chars)
    return [
        Group(
            "Rounds",
            (
                Action(
                    "cv.round.start",
                    "Start a new round",
                    (Field("characters", "Only these (none: everyone)", "multi", chars),),
                    "R-CV-3",
                ),
            ),
        ),
        Group(
            "Awards and effects",
            (
                Action(
                    "cv.award_nature",
                    "Award for Nature",
                    (who, _select("trait", "Acted on", _enum_options(NatureTrait)), Field("note", "Note")),
                    "R-CV-13",
                ),
                Action(
                    "cv.setback",
                    "Setback gain",
                    (who, _select("setback", "Setback", _enum_options(Setback))),
                    "R-CV-13",
                ),
                Action("cv.stun", "Stun", (who,), "R-CV-8"),
                Action("cv.fatigue", "Fatigue", (who, Field("steps", "Steps", "number", value="1")), "R-CV-8"),
                Action("cv.rest", "Rest", (who, Field("steps", "Steps", "number", value="1")), "R-CV-8"),
            ),
        ),
        Group(
            "Override",
            (
                Action(
                    "cv.override",
                    "Override a character",
                    (
                        who,
                        Field("reason", "Reason (for the log)", required=True),
                        Field("conviction", "Conviction", "number"),
                        Field("bruised", "Bruised", "number"),
                        Field("hurt", "Hurt", "number"),
                        Field("stunned_rounds", "Stunned rounds", "number"),
                    ),
                    "R-T-2",
                ),
            ),
        ),
    ]


def dice_action(state: TableState, user: str) -> Action | None:
    """Free dice notation for whatever the rules do not cover; the GM may roll it in secret."""
    role = state.role_of(user)
    if role is None or role is Role.SPECTATOR:
        return None
    fields = [
        Field("expression", "Dice", value="2d6", required=True, hint="for example 2d20kh1+3 or 4d6kh3"),
        Field("label", "What for"),
    ]
    if role is Role.GM:
        fields.append(_check("secret", "Secret (only you see it)"))
    return Action("table.roll", "Roll dice (free notation)", tuple(fields))


def groups_for(state: TableState, user: str) -> list[Group]:
    groups = ltl_groups(state, user) if state.ruleset is Ruleset.LTL else cv_groups(state, user)
    dice = dice_action(state, user)
    if dice is not None:
        groups.append(Group("Dice", (dice,)))
    return groups


# --- a posted form → a command ---


def _strip_optional(tp: Any) -> tuple[Any, bool]:
    if typing.get_origin(tp) in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return (args[0] if len(args) == 1 else tp), True
    return tp, False


def _number(name: str, text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise TableError(
            "form/number", f"{name.replace('_', ' ')}: {text!r} is not a whole number", fix="write a whole number"
        ) from None


def command_from_form(form: FormLike) -> Command:
    """Build the posted command from its form fields, read by the command's type hints. Raises TableError."""
    values = form.getlist("type")
    kind = str(values[-1]) if values else ""
    if kind not in REGISTRY:
        return command_from_json({"type": kind})  # raises the table's own "unknown command" error
    cls = REGISTRY[kind][0]
    hints = typing.get_type_hints(cls)
    data: dict[str, Any] = {"type": kind}
    for f in dataclasses.fields(cls):
        tp, optional = _strip_optional(hints[f.name])
        got = [str(v) for v in form.getlist(f.name)]
        if f.name == "fighters":
            data[f.name] = [
                [k.split(".", 1)[1], str(form.getlist(k)[-1])]
                for k in form
                if k.startswith("side.") and form.getlist(k)[-1]
            ]
            continue
        if f.name == "awards":
            data[f.name] = {
                k.split(".", 1)[1]: _number(k, str(form.getlist(k)[-1]))
                for k in form
                if k.startswith("award.") and str(form.getlist(k)[-1]).strip()
            }
            continue
        if typing.get_origin(tp) is tuple:
            data[f.name] = [v for v in got if v.strip()]
            continue
        if not got:
            continue
        text = got[-1]  # a checkbox sends its hidden "false" first and "true" after it when ticked
        if tp is bool:
            if text == "" and optional:
                data[f.name] = None
            elif text != "":
                data[f.name] = text == "true"
        elif tp is int:
            if text.strip():
                data[f.name] = _number(f.name, text)
            elif optional:
                data[f.name] = None
        elif text.strip() == "" and optional:
            data[f.name] = None
        else:
            data[f.name] = text
    return command_from_json(data)


def answer_action(request_id: str) -> Action:
    """The GM's answer to one open request."""
    return Action(
        "request.answer",
        "Answer",
        (_hidden("request", request_id), Field("answer", "Answer"), _check("granted", "Granted", True)),
        "R-T-2",
    )
