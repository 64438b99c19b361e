"""Commands: what a member asks the table to do. Each command kind is a frozen dataclass with one handler that
*decides* it into facts (or refuses with a RulesError); the handlers of a game live in its package.

Every number a person types has a range and every text a length (R-T-5), declared on the field with
`Annotated[int, Range(0, 14)]` or `Annotated[str, Text(200)]`. They are checked before any rule runs, they make
the API's JSON schema, and they bound the domains `legal_actions` offers.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, TypeVar, Union

from herotable.dice import Rng
from herotable.table.codec import CodecError, Json, decode, encode
from herotable.table.facts import Emitted, Visibility
from herotable.table.state import Forbidden, Role, Ruleset, TableError, TableState

NAME_LENGTH = 100
LABEL_LENGTH = 200
PROSE_LENGTH = 2000


class InvalidCommand(TableError):
    """A command that is not well formed: unknown, a missing or unknown field, a number out of its range, a text too
    long or unstorable (R-T-5). Refused before any rule runs."""

    def __init__(self, code: str, message: str, *, fix: str, field: str = "") -> None:
        super().__init__(code, message, fix=fix, ruling="R-T-5")
        self.field = field


@dataclass(frozen=True)
class Range:
    """The whole numbers a field accepts (R-T-5)."""

    lo: int
    hi: int


@dataclass(frozen=True)
class Text:
    """The text a field accepts: at most `max_length` characters; `required`: not blank (R-T-5)."""

    max_length: int
    required: bool = False


@dataclass(frozen=True)
class Command:
    """Base of all commands; `type` is the stable name the API and the log use. `retired` names fields an older
    shape of the command had, each with what replaced it: a stored command may still carry them (they are dropped
    when it is read back), a new one is refused with them."""

    type: ClassVar[str] = ""
    retired: ClassVar[Mapping[str, str]] = {}


@dataclass(frozen=True)
class Ctx:
    """Who is acting, with which dice, under which command id."""

    user: str
    rng: Rng
    command_id: str


@dataclass
class Decision:
    """What a handler decided: the facts, and the game state the rules computed (`expected`, when the handler
    has one), against which the fold of the facts is checked in tests."""

    facts: list[Emitted] = field(default_factory=list)
    expected: Any = None


C = TypeVar("C", bound=Command)
Handler = Callable[[TableState, Any, Ctx], Decision]


@dataclass(frozen=True)
class Spec:
    cls: type[Command]
    handler: Handler
    game: Ruleset | None  # None: every game has it


COMMANDS: dict[str, Spec] = {}


def handles(
    cls: type[C], game: Ruleset | None = None
) -> Callable[[Callable[[TableState, C, Ctx], Decision]], Callable[[TableState, C, Ctx], Decision]]:
    """Register the handler of a command kind (for one game, or for every game when `game` is None)."""

    def register(fn: Callable[[TableState, C, Ctx], Decision]) -> Callable[[TableState, C, Ctx], Decision]:
        if not cls.type or cls.type in COMMANDS:
            raise ValueError(f"command {cls.type!r} is empty or registered twice")
        COMMANDS[cls.type] = Spec(cls, fn, game)
        return fn

    return register


# --- the fields' constraints ---


_CONSTRAINTS: dict[type, dict[str, tuple[Any, Range | Text | None]]] = {}


def constraints(cls: type[Command]) -> dict[str, tuple[Any, Range | Text | None]]:
    """Each field of a command kind: its plain type and its declared range or text limit."""
    found = _CONSTRAINTS.get(cls)
    if found is None:
        found = _CONSTRAINTS[cls] = _constraints(cls)
    return found


def _constraints(cls: type[Command]) -> dict[str, tuple[Any, Range | Text | None]]:
    hints = typing.get_type_hints(cls, include_extras=True)
    out: dict[str, tuple[Any, Range | Text | None]] = {}
    for f in dataclasses.fields(cls):
        tp = hints[f.name]
        limit: Range | Text | None = None
        if typing.get_origin(tp) is typing.Annotated:
            tp, *meta = typing.get_args(tp)
            limit = next((m for m in meta if isinstance(m, Range | Text)), None)
        out[f.name] = (tp, limit)
    return out


def strip_optional(tp: Any) -> tuple[Any, bool]:
    """(the type inside `X | None`, whether None is allowed)."""
    if typing.get_origin(tp) in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return (args[0] if len(args) == 1 else tp), len(args) < len(typing.get_args(tp))
    return tp, False


# control characters other than tab and line breaks, and the marks that reorder text shown after them (so a name
# cannot make the log read backwards)
_UNSHOWN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def bad_text(text: str) -> str | None:
    """Why a text cannot be stored or shown as it is (a control character, a mark that reorders the text after it, a
    lone surrogate), or None."""
    found = _UNSHOWN.search(text)
    if found:
        return f"contains the control character U+{ord(found.group()):04X}"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate, which is not text"
    return None


def _check_text(name: str, value: str, limit: Text | None) -> None:
    problem = bad_text(value)
    if problem:
        raise InvalidCommand("table/bad_text", f"{name} {problem}", fix="remove that character", field=name)
    if limit is not None and len(value) > limit.max_length:
        raise InvalidCommand(
            "table/too_long",
            f"{name} is {len(value)} characters long; at most {limit.max_length} are kept",
            fix=f"shorten {name} to {limit.max_length} characters",
            field=name,
        )
    if limit is not None and limit.required and not value.strip():
        raise InvalidCommand("table/blank", f"{name} is empty", fix=f"write the {name.replace('_', ' ')}", field=name)


def _check_value(name: str, value: Any, tp: Any, limit: Range | Text | None) -> None:
    if value is None:
        return
    if isinstance(value, str):
        _check_text(name, value, limit if isinstance(limit, Text) else None)
    elif isinstance(value, int) and not isinstance(value, bool) and isinstance(limit, Range):
        if not limit.lo <= value <= limit.hi:
            raise InvalidCommand(
                "table/out_of_range",
                f"{name} is {value}; it must be between {limit.lo} and {limit.hi}",
                fix=f"give {name} a value from {limit.lo} to {limit.hi}",
                field=name,
            )
    elif isinstance(value, tuple):
        for item in value:
            _check_value(name, item, None, limit)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_value(f"{name}.{key}", key, None, None)
            _check_value(f"{name}.{key}", item, None, limit)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type) and not isinstance(value, Enum):
        limits = _nested_limits(type(value))
        for f in dataclasses.fields(value):
            _check_value(f"{name}.{f.name}", getattr(value, f.name), None, limits.get(f.name, NESTED_TEXT))


NESTED_TEXT = Text(PROSE_LENGTH)  # a text inside a value a command carries (a sheet's), unless its field says less


@functools.cache
def _nested_limits(cls: type) -> dict[str, Range | Text]:
    """The limits a dataclass carried by a command declares on its fields (`Annotated[str, Text(100)]`)."""
    hints = typing.get_type_hints(cls, include_extras=True)
    out: dict[str, Range | Text] = {}
    for name, tp in hints.items():
        if typing.get_origin(tp) is typing.Annotated:
            found = next((m for m in typing.get_args(tp)[1:] if isinstance(m, Range | Text)), None)
            if found is not None:
                out[name] = found
    return out


def _check_once(name: str, value: tuple[Any, ...]) -> None:
    """A list of names (or of pairs keyed by a name) names each once."""
    keys = [item[0] if isinstance(item, tuple) and item else item for item in value]
    seen: set[Any] = set()
    for key in keys:
        if isinstance(key, str | int) and key in seen:
            raise InvalidCommand(
                "table/repeated", f"{name} names {key!r} twice", fix=f"name {key!r} once in {name}", field=name
            )
        seen.add(key)


def check_fields(cmd: Command) -> None:
    """Refuse out-of-range numbers, over-long or unstorable text, a name listed twice (R-T-5). Raises TableError
    naming the field."""
    for name, (tp, limit) in constraints(type(cmd)).items():
        value = getattr(cmd, name)
        _check_value(name, value, tp, limit)
        if isinstance(value, tuple):
            _check_once(name, value)


def command_to_json(cmd: Command) -> dict[str, Json]:
    data = encode(cmd)
    assert isinstance(data, dict)
    return {"type": cmd.type, **data}


def command_from_json(data: Any, *, stored: bool = False) -> Command:
    """Decode and check a command from plain data. Raises TableError naming the problem. `stored`: a command read
    back from a log, which may carry fields its kind has since retired (dropped here)."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        kinds = ", ".join(sorted(COMMANDS))
        raise InvalidCommand("table/bad_command", "a command needs a 'type'", fix=f"use one of {kinds}", field="type")
    kind = data["type"]
    if kind not in COMMANDS:
        raise InvalidCommand(
            "table/unknown_command",
            f"unknown command {kind[:60]!r}",
            fix=f"use one of {', '.join(sorted(COMMANDS))}",
            field="type",
        )
    cls = COMMANDS[kind].cls
    known = {f.name for f in dataclasses.fields(cls)}
    old = sorted(str(k) for k in data if k in cls.retired)
    if old and stored:
        data = {k: v for k, v in data.items() if k not in cls.retired}
    elif old:
        raise InvalidCommand(
            "table/retired_field",
            f"{kind}: the field {old[0]!r} is no longer part of this command",
            fix=f"leave {old[0]!r} out: {cls.retired[old[0]]}",
            field=old[0],
        )
    unknown = sorted(str(k) for k in data if k != "type" and k not in known)
    if unknown:
        raise InvalidCommand(
            "table/bad_command",
            f"{kind}: unknown field {unknown[0][:60]!r}",
            fix=f"use the fields {', '.join(sorted(known)) or '(none)'}",
            field=unknown[0][:60],
        )
    body = {k: v for k, v in data.items() if k != "type"}
    try:
        cmd: Command = decode(cls, body)
    except CodecError as err:
        where = str(err).split(":", 1)[0].removeprefix("$.").split(".")[0]
        raise InvalidCommand(
            "table/bad_command", f"{kind}: {err}", fix="correct the named field", field=where
        ) from None
    check_fields(cmd)
    return cmd


# --- permissions: who may *start* an action (R-T-2, R-T-3); the rules apply its effects to whoever they touch ---


def require_member(state: TableState, user: str) -> Role:
    role = state.role_of(user)
    if role is None:
        raise Forbidden("table/not_a_member", "you are not a member of this campaign", fix="join it first")
    return role


def require_gm(state: TableState, user: str) -> None:
    if not state.is_gm(user):
        raise Forbidden("table/gm_only", "only the GM may do this", fix="ask the GM")


def require_player(state: TableState, user: str) -> Role:
    """A member who acts (the GM or a player); spectators watch."""
    role = require_member(state, user)
    if role is Role.SPECTATOR:
        raise Forbidden("table/spectator", "spectators watch; they do not act", fix="ask the GM to make you a player")
    return role


def controls(state: TableState, user: str, cid: str) -> bool:
    """Whether the user may act for the character: its owner (a player), or the GM."""
    role = state.role_of(user)
    if role is Role.GM:
        return True
    return role is Role.PLAYER and any(c.id == cid and c.owner == user for c in state.characters)


def require_controls(state: TableState, user: str, cid: str) -> None:
    """The user may act for this character: its owner, or the GM. Raises Forbidden or TableError."""
    require_player(state, user)
    c = state.character(cid)
    if not controls(state, user, cid):
        raise Forbidden("table/not_your_character", f"{c.name} is not your character", fix="act for one you own")


def audience(state: TableState, cid: str) -> Visibility:
    """Who may see a fact that reveals a character's sheet: the GM alone for a hidden sheet, else everyone."""
    return Visibility.GM if state.character(cid).hidden else Visibility.PUBLIC


def about(state: TableState, cid: str, f: Any, *, sheet: bool = True) -> Emitted:
    """A fact about a character: GM-only when it reveals a hidden sheet (`sheet`), public otherwise."""
    return Emitted(f, audience(state, cid) if sheet else Visibility.PUBLIC)


def private(state: TableState, cid: str, f: Any, *, secret: bool = False) -> Emitted:
    """A fact the character's player and the GM see (a pending roll); the GM alone for a secret roll or an NPC."""
    owner = state.character(cid).owner
    if secret or owner == state.gm:
        return Emitted(f, Visibility.GM)
    return Emitted(f, Visibility.OWNER, owner)


def new_character_owner(state: TableState, user: str, cid: str, owner: str | None, *, npc: bool, hidden: bool) -> str:
    """Who will own a new character, after checking that `user` may create it here; raises TableError.
    Players create their own heroes; the GM creates NPCs (hidden or not) and characters for anyone."""
    role = require_member(state, user)
    owner = owner or user
    if role is not Role.GM and (owner != user or npc or hidden or role is Role.SPECTATOR):
        raise Forbidden("character/not_allowed", "players create their own heroes only", fix="ask the GM for NPCs")
    found = state.member(owner)
    if found is None or found.role is Role.SPECTATOR:
        raise TableError("character/owner", f"{owner} is not a player here", fix="give it to the GM or a player")
    if hidden and owner != state.gm:
        raise TableError(
            "character/hidden_owner",
            "a hidden sheet is the GM's secret, so its character is the GM's to play",
            fix="leave the owner out for a hidden NPC, or leave the sheet visible",
        )
    if not cid.strip() or state.taken(cid):
        raise TableError("character/id", f"character id {cid!r} is empty or taken", fix="choose another id")
    return owner
