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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
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
from herotable.table.state import TableError, TableState

Options = tuple[tuple[str, str], ...]
ROLL_KEYS = ("task", "check")
WHO_KEYS = ("character", "actor", "healer")
GM_GROUPS = {"Structure", "Judgement", "Override", "Awards", "Rounds", "Calls"}
GM_TYPES = {
    "ltl.conflict.start",
    "ltl.conflict.end_round",
    "ltl.conflict.end",
    "ltl.contest.call",
    "ltl.contest.cancel",
    "ltl.team.challenge",
    "ltl.team.attack",
    "ltl.team.cancel",
    "cv.rest",
    "cv.check.call",
    "cv.level.raise",
}
SKIPPED = {"character.create_ltl", "character.create_cv", "member.set_role", "member.remove"}
KEYED_PREFIX = {"fighters": "side", "awards": "award"}
SIDES: Options = (("", "not in it"), ("heroes", "heroes"), ("villains", "villains"), ("third", "a third side"))


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
    hint: str = ""
    key: str = ""  # stable across reloads (an open section stays open when the panel reloads): type, fixed, label


def action_key(a: LegalAction) -> str:
    fixed = sorted((k, as_text(v)) for k, v in a.fixed.items())
    digest = zlib.crc32(repr((a.type, fixed, a.label)).encode())
    return f"{a.type.replace('.', '-').replace('_', '-')}-{digest:08x}"


@dataclass(frozen=True)
class Group:
    title: str
    actions: tuple[Action, ...]


@dataclass
class Panel:
    """Every form the table page shows one viewer, by where it goes."""

    groups: list[Group] = dataclasses.field(default_factory=list)
    gm_groups: list[Group] = dataclasses.field(default_factory=list)
    rolls: dict[str, list[Action]] = dataclasses.field(default_factory=dict)
    answers: dict[str, Action] = dataclasses.field(default_factory=dict)
    asks: list[Action] = dataclasses.field(default_factory=list)


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
}


def _label(name: str) -> str:
    return LABELS.get(name) or name.replace("_", " ").capitalize()


def _defaults(kind: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(COMMANDS[kind].cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = encode(f.default)
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = encode(f.default_factory())
    return out


def _controls(state: TableState, name: str, d: Domain, default: Any) -> list[Field]:
    label = _label(name)
    if isinstance(d, Choice):
        labels = d.labels or tuple(as_text(c) or "—" for c in d.choices)
        options = tuple((as_text(c), t) for c, t in zip(d.choices, labels, strict=True))
        value = as_text(default) if default in d.choices else options[0][0] if options else ""
        return [Field(name, label, "select", options, value)]
    if isinstance(d, IntRange):
        # the command's default when it has one; else the field starts empty and must be filled (a Difficulty is the
        # GM's number, never a guess such as the lowest allowed)
        number = str(default) if isinstance(default, int) and d.min <= default <= d.max else ""
        return [Field(name, label, "number", value=number, required=True, min=d.min, max=d.max)]
    if isinstance(d, TextDomain):
        hint = "dice like 2d20kh1+3 or 4d6kh3" if d.format == "dice" else ""
        text = default if isinstance(default, str) else ""
        return [Field(name, label, "text", value=text, required=d.required, hint=hint, maxlength=d.max_length)]
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


def form_of(state: TableState, a: LegalAction) -> Action:
    """One legal action as a form."""
    defaults = _defaults(a.type)
    fields: list[Field] = [Field(k, k, "hidden", value=as_text(v)) for k, v in a.fixed.items()]
    for name, d in a.fields.items():
        fields += _controls(state, name, d, defaults.get(name))
    return Action(a.type, a.label, tuple(fields), a.rule, action_key(a))


def _merged(state: TableState, actions: Sequence[LegalAction]) -> list[LegalAction]:
    """The same action for several characters as one, with a choice of character (the table checks each choice)."""
    out: list[LegalAction] = []
    index: dict[tuple[Any, ...], int] = {}
    for a in actions:
        who = next((k for k in WHO_KEYS if k in a.fixed), None)
        if who is None:
            out.append(a)
            continue
        rest = tuple(sorted((k, as_text(v)) for k, v in a.fixed.items() if k != who))
        key = (a.type, who, rest, tuple(a.fields))
        label = a.label.split(": ", 1)[-1]
        cid = str(a.fixed[who])
        if key not in index:
            index[key] = len(out)
            fields = {who: Choice((cid,), (state.character(cid).name,)), **a.fields}
            out.append(LegalAction(a.type, label[:1].upper() + label[1:], dict(rest), fields, a.group, a.rule))
            continue
        prior = out[index[key]]
        fields = dict(prior.fields)
        for name, d in {who: Choice((cid,), (state.character(cid).name,)), **a.fields}.items():
            fields[name] = _union(fields[name], d)
        out[index[key]] = LegalAction(prior.type, prior.label, prior.fixed, fields, prior.group, prior.rule)
    return out


def _union(a: Domain, b: Domain) -> Domain:
    if isinstance(a, Choice) and isinstance(b, Choice):
        labels = dict(zip(a.choices, a.labels or a.choices, strict=True))
        for c, t in zip(b.choices, b.labels or b.choices, strict=True):
            labels.setdefault(c, t)
        return Choice(tuple(labels), tuple(str(t) for t in labels.values()))
    if isinstance(a, IntRange) and isinstance(b, IntRange):
        return IntRange(min(a.min, b.min), max(a.max, b.max))
    return a


def panel(state: TableState, actions: Sequence[LegalAction], *, gm: bool = False) -> Panel:
    """Lay the viewer's legal actions out: on their rolls, on the requests, and in the player and GM panels."""
    out = Panel()
    groups: dict[str, list[LegalAction]] = {}
    gm_groups: dict[str, list[LegalAction]] = {}
    for a in actions:
        if a.type in SKIPPED or any(isinstance(d, SheetDomain) for d in a.fields.values()):
            continue
        roll = next((a.fixed[k] for k in ROLL_KEYS if k in a.fixed), None)
        if roll is not None:
            out.rolls.setdefault(str(roll), []).append(form_of(state, a))
        elif a.type == "request.answer":
            out.answers[str(a.fixed["request"])] = form_of(state, a)
        elif a.type == "request.ask":
            out.asks.append(form_of(state, a))
        elif a.group in GM_GROUPS or a.type in GM_TYPES or (gm and a.type == "table.undo"):
            gm_groups.setdefault(a.group, []).append(a)
        else:
            groups.setdefault(a.group or "Actions", []).append(a)
    out.groups = [Group(t, tuple(form_of(state, a) for a in _merged(state, acts))) for t, acts in groups.items()]
    out.gm_groups = [Group(t, tuple(form_of(state, a) for a in _merged(state, acts))) for t, acts in gm_groups.items()]
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
