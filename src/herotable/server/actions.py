"""The action panels: the viewer's legal actions (`herotable.table.legal`) laid out as forms, and how a posted form
becomes a command.

The panels carry no rules: what they offer is what `legal_actions` lists, a field's choices and limits are its
domain, and the table decides whether the action is allowed; its RulesError is what the player sees. For a compact
panel, the same action for several of the viewer's characters is one form with a choice of character.
"""

from __future__ import annotations

import dataclasses
import types
import typing
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from typing import Any, Protocol, Union

from herotable.table.codec import Json, encode
from herotable.table.commands import COMMANDS, Command, command_from_json
from herotable.table.game import (
    Choice,
    Domain,
    Flag,
    IntRange,
    KeyedValues,
    LegalAction,
    SheetDomain,
    Subset,
    TextDomain,
)
from herotable.table.requests import AnswerGm, AskGm
from herotable.table.state import TableError, TableState
from herotable.table.structure import BeginPlay, EndAdventure, RemoveMember, SetRole
from herotable.table.undo import Undo

Options = tuple[tuple[str, str], ...]
ROLL_KEYS = ("task", "check")
WHO_KEYS = ("character", "actor", "healer")
GM_GROUPS = {"Structure", "Judgement", "Override", "Awards", "Rounds", "Calls", "Damage"}
BAR_GROUPS = {"Conflict", "Teamwork", "Scene", "Members"}  # the GM's table-wide actions with no one character
SKIPPED = {SetRole.type, RemoveMember.type}
# kinds with pages of their own (sheets, the campaign's settings, the journal; each card links its sheet) and the
# chat's box
ELSEWHERE = ("character.", "campaign.", "chat.", "journal.")
BAR_BUTTONS = {BeginPlay.type}  # a button of its own on the bar, in view: the first step of play
KEYED_PREFIX = {"fighters": "side", "awards": "award"}
SIDES: Options = (("", "not in it"), ("heroes", "heroes"), ("villains", "villains"), ("third", "a third side"))


@dataclass(frozen=True)
class Layout:
    """Where a game's own actions sit on the table page, and what their fields are called: its part of each
    game's presenter (`herotable.server.presenter`)."""

    table_actions: frozenset[str] = frozenset()  # the GM's table-wide actions, in the bar whatever their group
    round_controls: frozenset[str] = frozenset()  # the GM's round controls, always in view in the bar
    field_labels: Mapping[tuple[str, str], str] = field(default_factory=dict)  # (command type, field): its label
    accepts: frozenset[str] = frozenset()  # the actions that accept a roll as it stands: first on its card


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
    min: int | None = None
    max: int | None = None
    maxlength: int | None = None


@dataclass(frozen=True)
class Action:
    type: str
    title: str
    fields: tuple[Field, ...] = ()
    hint: str = ""  # the rule ids it follows, "R-LTL-2, R-LTL-3": links into the rules reference
    key: str = ""  # stable across reloads (an open section stays open when the panel reloads): type, fixed, label
    confirm: str = ""  # asked before it is sent: ending an adventure, removing someone, deleting anything
    fixed: tuple[tuple[str, str], ...] = ()  # the values it is sent with, for the odds beside it

    @property
    def rules(self) -> list[str]:
        return [r.strip() for r in self.hint.split(",") if r.strip()]

    @property
    def plain(self) -> bool:
        """Nothing to choose: one button."""
        return all(f.kind == "hidden" for f in self.fields)

    def get(self, name: str) -> str:
        return dict(self.fixed).get(name, "")


def action_key(a: LegalAction) -> str:
    fixed = sorted((k, as_text(v)) for k, v in a.fixed.items())
    digest = zlib.crc32(repr((a.type, fixed, a.label)).encode())
    return f"{a.type.replace('.', '-').replace('_', '-')}-{digest:08x}"


@dataclass(frozen=True)
class Group:
    title: str
    actions: tuple[Action, ...]


@dataclass
class CardActions:
    """What the viewer may do for one character, on its card: its own actions, and the GM's rulings on it."""

    own: list[Action] = dataclasses.field(default_factory=list)
    gm: list[Action] = dataclasses.field(default_factory=list)


@dataclass
class Panel:
    """Every form the table page shows one viewer, by where it goes."""

    cards: dict[str, CardActions] = dataclasses.field(default_factory=dict)
    bar: list[Group] = dataclasses.field(default_factory=list)  # the GM's structure, conflict and calls
    rounds: list[Action] = dataclasses.field(default_factory=list)  # end the round / the conflict: always in view
    tools: list[Action] = dataclasses.field(default_factory=list)  # dice, asking the GM
    rolls: dict[str, list[Action]] = dataclasses.field(default_factory=dict)
    answers: dict[str, Action] = dataclasses.field(default_factory=dict)
    undo: Action | None = None

    def find(self, key: str) -> Action | None:
        """The action of that key, wherever it is laid out (a section the page opens loads its form by it)."""
        everywhere = [
            *(a for c in self.cards.values() for a in (*c.own, *c.gm)),
            *(a for g in self.bar for a in g.actions),
            *self.rounds,
            *self.tools,
            *(a for acts in self.rolls.values() for a in acts),
            *self.answers.values(),
            *([self.undo] if self.undo is not None else []),
        ]
        return next((a for a in everywhere if a.key == key), None)

    @property
    def calls(self) -> list[str]:
        """The ids of the GM's calls the viewer's characters are to roll (R-T-3)."""
        return sorted({a.get("call") for c in self.cards.values() for a in c.own if a.get("call")})


class FormLike(Protocol):
    def getlist(self, key: str) -> list[Any]: ...

    def __iter__(self) -> Iterator[str]: ...


def as_text(value: Json) -> str:
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


# labels for fields whose names say too little on a form
LABELS = {
    "secret": "Secret (only you see it)",
    "auto_success": "Automatic Success (burn 1 Karma level)",
    "must_succeed": "Must succeed",
    "broke": "Go for broke (levels)",
    "dc": "Difficulty (DC)",
    "crit_bonus": "If a critical success",
    "crit_penalty": "If a critical failure",
    "target": "Against",
    "style": "With",
    "burn": "Burn Heroism instead of rolling it",
    # the GM's situational modifiers (R-T-2 amended): a reason beside one is what its roller reads
    "shift": "Situational modifier (die types, -2 to +2)",
    "modifier": "Situational modifier (-10 to +10)",
}
# …and where the same name means something else on one form
FIELD_LABELS = {
    (AskGm.type, "character"): "About",
    (AskGm.type, "kind"): "What you ask for",
    (AnswerGm.type, "granted"): "Grant it",
}
# asked before the form is sent (ending an adventure, removing a member, deleting anything)
CONFIRM = {
    EndAdventure.type: "End the adventure? Its awards are given and it cannot be reopened.",
    RemoveMember.type: "Remove this member from the campaign?",
}


def field_label(layout: Layout, kind: str, name: str) -> str:
    """A command field as its form labels it."""
    return _label(layout, name, kind)


def _label(layout: Layout, name: str, kind: str = "") -> str:
    own = layout.field_labels.get((kind, name))
    return own or FIELD_LABELS.get((kind, name)) or LABELS.get(name) or name.replace("_", " ").capitalize()


def _confirm(kind: str) -> str:
    if kind in CONFIRM:
        return CONFIRM[kind]
    if "delete" in kind or "retire" in kind:
        return "This cannot be undone. Go ahead?"
    return ""


def _defaults(kind: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(COMMANDS[kind].cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = encode(f.default)
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = encode(f.default_factory())
    return out


def _controls(state: TableState, layout: Layout, kind: str, name: str, d: Domain, default: Any) -> list[Field]:
    label = _label(layout, name, kind)
    if isinstance(d, Choice):
        labels = d.labels or tuple(as_text(c) or "—" for c in d.choices)
        options = tuple((as_text(c), t) for c, t in zip(d.choices, labels, strict=True))
        value = as_text(default) if default in d.choices else options[0][0] if options else ""
        return [Field(name, label, "select", options, value)]
    if isinstance(d, IntRange):
        # the command's default when it has one; else the field starts empty and must be filled (a Difficulty is the
        # GM's number, never a guess such as the lowest allowed)
        number = str(default) if isinstance(default, int) and d.min <= default <= d.max else ""
        required = not d.optional  # an override's number left empty leaves it unchanged
        return [Field(name, label, "number", value=number, required=required, min=d.min, max=d.max)]
    if isinstance(d, TextDomain):
        hint = "dice like 2d20kh1+3 or 4d6kh3" if d.format == "dice" else ""
        text = default if isinstance(default, str) else ""
        return [
            Field(
                name,
                label,
                "text",
                value=text,
                required=d.required,
                hint=hint,
                maxlength=d.max_length,
                suggestions=d.suggestions,
            )
        ]
    if isinstance(d, Flag):
        return [Field(name, label, "check", value="true" if default is True else "")]
    if isinstance(d, Subset):
        labels = d.labels or tuple(as_text(c) for c in d.choices)
        return [Field(name, label, "multi", tuple((as_text(c), t) for c, t in zip(d.choices, labels, strict=True)))]
    if isinstance(d, KeyedValues):
        prefix = KEYED_PREFIX.get(name, name)
        labels = d.labels or d.keys
        out = []
        for key, who in zip(d.keys, labels, strict=True):
            if name == "fighters":
                npc = state.has_character(key) and state.character(key).npc
                out.append(Field(f"{prefix}.{key}", f"{who}'s side", "select", SIDES, "villains" if npc else "heroes"))
            elif isinstance(d.value, IntRange):
                out.append(Field(f"{prefix}.{key}", f"{label}: {who}", "number", min=d.value.min, max=d.value.max))
            else:
                out.append(Field(f"{prefix}.{key}", f"{label}: {who}", "text"))
        return out
    return []


def form_of(state: TableState, layout: Layout, a: LegalAction, title: str | None = None) -> Action:
    """One legal action as a form, under `title` (its own label by default)."""
    defaults = _defaults(a.type)
    fields: list[Field] = [Field(k, k, "hidden", value=as_text(v)) for k, v in a.fixed.items()]
    for name, d in a.fields.items():
        fields += _controls(state, layout, a.type, name, d, defaults.get(name))
    fixed = tuple((k, as_text(v)) for k, v in a.fixed.items())
    return Action(a.type, title or a.label, tuple(fields), a.rule, action_key(a), _confirm(a.type), fixed)


def _on_card(state: TableState, a: LegalAction) -> str | None:
    """The character whose card carries the action: the one it is fixed to act for."""
    for k in WHO_KEYS:
        cid = a.fixed.get(k)
        if isinstance(cid, str) and state.has_character(cid):
            return cid
    return None


def _short(state: TableState, cid: str, label: str) -> str:
    """A card's action without the character's name in front ("Squall: attack" on Squall's card: "Attack")."""
    name = state.character(cid).name
    text = label[len(name) + 2 :] if label.startswith(f"{name}: ") else label
    return text[:1].upper() + text[1:]


def panel(state: TableState, actions: Sequence[LegalAction], layout: Layout, *, gm: bool = False) -> Panel:
    """Lay the viewer's legal actions out where they apply: on their rolls, on the requests, on each character's
    card (the GM's rulings apart), and in the GM's bar. Nothing that cannot apply is offered, since only legal
    actions are laid out."""
    out = Panel()
    bar: dict[str, list[Action]] = {}
    for a in actions:
        if (
            a.type in SKIPPED
            or a.type.startswith(ELSEWHERE)
            or any(isinstance(d, SheetDomain) for d in a.fields.values())
        ):
            continue
        roll = next((a.fixed[k] for k in ROLL_KEYS if k in a.fixed), None)
        ruling = a.group in GM_GROUPS or a.type in layout.table_actions
        cid = _on_card(state, a)
        if roll is not None:
            out.rolls.setdefault(str(roll), []).append(form_of(state, layout, a))
        elif a.type == AnswerGm.type:
            out.answers[str(a.fixed["request"])] = form_of(state, layout, a)
        elif a.type == Undo.type:
            out.undo = form_of(state, layout, a)
        elif a.type in layout.round_controls or a.type in BAR_BUTTONS:
            out.rounds.append(form_of(state, layout, a))
        elif cid is not None:
            card = out.cards.setdefault(cid, CardActions())
            (card.gm if gm and ruling else card.own).append(form_of(state, layout, a, _short(state, cid, a.label)))
        elif gm and (ruling or a.group in BAR_GROUPS):
            bar.setdefault(a.group or "Table", []).append(form_of(state, layout, a))
        else:
            out.tools.append(form_of(state, layout, a))
    out.bar = [Group(t, tuple(acts)) for t, acts in bar.items()]
    for acts in out.rolls.values():  # a roll is one decision: accepting it comes first, the options to change it after
        acts.sort(key=lambda f: f.type not in layout.accepts)
    return out


# --- a posted form → a command ---


def _strip_optional(tp: Any) -> tuple[Any, bool]:
    if typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
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
    if kind not in COMMANDS:
        return command_from_json({"type": kind})  # raises the table's own "unknown command" error
    cls = COMMANDS[kind].cls
    hints = typing.get_type_hints(cls)
    data: dict[str, Any] = {"type": kind}
    for f in dataclasses.fields(cls):
        tp, optional = _strip_optional(hints[f.name])
        got = [str(v) for v in form.getlist(f.name)]
        if f.name in KEYED_PREFIX:
            prefix = KEYED_PREFIX[f.name] + "."
            keyed = {k[len(prefix) :]: str(form.getlist(k)[-1]) for k in form if k.startswith(prefix)}
            keyed = {k: v for k, v in keyed.items() if v.strip()}
            if f.name == "fighters":
                data[f.name] = [[k, v] for k, v in keyed.items()]
            else:
                data[f.name] = {k: _number(f"{prefix}{k}", v) for k, v in keyed.items()}
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
        elif tp is int or (isinstance(tp, type) and issubclass(tp, IntEnum)):
            if text.strip():
                data[f.name] = _number(f.name, text)
            elif optional:
                data[f.name] = None
        elif text.strip() == "" and optional:
            data[f.name] = None
        elif isinstance(tp, type) and issubclass(tp, Enum) and text == "":
            continue
        else:
            data[f.name] = text
    return command_from_json(data)
