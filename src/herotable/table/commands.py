"""Commands: what a member asks the table to do. Each command type has one handler that checks who may
start it, runs the rules, and says what happened; the same handler replays it from its recorded dice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from herotable.dice import Rng
from herotable.table.codec import Json, decode, encode
from herotable.table.model import Forbidden, Role, Ruleset, TableError, TableState, Visibility


@dataclass(frozen=True)
class Command:
    """Base of all commands; `name` is the stable type written into events."""

    name: ClassVar[str] = ""


@dataclass(frozen=True)
class Outcome:
    """What a handler returns: the new state, a summary for the log, and who may see the event."""

    state: TableState
    summary: dict[str, Any] = field(default_factory=dict)
    visibility: Visibility = Visibility.PUBLIC
    owner: str | None = None  # the member an OWNER event is shown to (the GM always sees it)


@dataclass(frozen=True)
class Ctx:
    """Who is acting, with which dice, under which command id."""

    user: str
    rng: Rng
    command_id: str


C = TypeVar("C", bound=Command)
Handler = Callable[[TableState, Any, Ctx], Outcome]
REGISTRY: dict[str, tuple[type[Command], Handler]] = {}


def handles(
    cls: type[C],
) -> Callable[[Callable[[TableState, C, Ctx], Outcome]], Callable[[TableState, C, Ctx], Outcome]]:
    """Register the handler of a command type."""

    def register(fn: Callable[[TableState, C, Ctx], Outcome]) -> Callable[[TableState, C, Ctx], Outcome]:
        if cls.name in REGISTRY:
            raise ValueError(f"command {cls.name!r} registered twice")
        REGISTRY[cls.name] = (cls, fn)
        return fn

    return register


def command_to_json(cmd: Command) -> dict[str, Json]:
    data = encode(cmd)
    assert isinstance(data, dict)
    return {"type": cmd.name, **data}


def command_from_json(data: Any) -> Command:
    """Decode a command from plain data. Raises TableError naming the problem."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise TableError(
            "table/bad_command", "a command needs a 'type'", fix=f"use one of {', '.join(sorted(REGISTRY))}"
        )
    kind = data["type"]
    if kind not in REGISTRY:
        raise TableError(
            "table/unknown_command", f"unknown command {kind!r}", fix=f"use one of {', '.join(sorted(REGISTRY))}"
        )
    cls = REGISTRY[kind][0]
    body = {k: v for k, v in data.items() if k != "type"}
    try:
        cmd: Command = decode(cls, body)
    except ValueError as err:
        raise TableError("table/bad_command", f"{kind}: {err}", fix="correct the named field") from None
    return cmd


def run(state: TableState, cmd: Command, ctx: Ctx) -> Outcome:
    """Run a command's handler."""
    return REGISTRY[cmd.name][1](state, cmd, ctx)


# --- permissions: who may *start* an action (R-T-2); the rules apply its effects to whoever they touch ---


def require_member(state: TableState, user: str) -> Role:
    role = state.role_of(user)
    if role is None:
        raise Forbidden("table/not_a_member", "you are not a member of this campaign", fix="join it first")
    return role


def require_gm(state: TableState, user: str) -> None:
    if not state.is_gm(user):
        raise Forbidden("table/gm_only", "only the GM may do this", fix="ask the GM")


def _owner_and_name(state: TableState, cid: str) -> tuple[str, str]:
    """A character of either game: its owner and name. Raises TableError for an unknown id."""
    if any(c.id == cid for c in state.cv_characters):
        cv = state.cv_character(cid)
        return cv.owner, cv.hero.name
    return state.character(cid).owner, state.character(cid).hero.name


def require_controls(state: TableState, user: str, cid: str) -> None:
    """The user may act for this character (of either game): its owner, or the GM."""
    role = require_member(state, user)
    if role is Role.GM:
        _owner_and_name(state, cid)
        return
    if role is Role.SPECTATOR:
        raise Forbidden("table/spectator", "spectators watch; they do not act", fix="ask the GM to make you a player")
    owner, name = _owner_and_name(state, cid)
    if owner != user:
        raise Forbidden(
            "table/not_your_character",
            f"{name} is not your character",
            fix="act for a character you own",
        )


def new_character_owner(
    state: TableState, user: str, character: str, owner: str | None, *, npc: bool, hidden: bool, ruleset: Ruleset
) -> str:
    """Who will own a new character, after checking that `user` may create it here; raises TableError.
    Players create their own heroes; the GM creates NPCs (hidden or not) and characters for anyone."""
    role = require_member(state, user)
    owner = owner or user
    if role is not Role.GM and (owner != user or npc or hidden or role is Role.SPECTATOR):
        raise Forbidden("character/not_allowed", "players create their own heroes only", fix="ask the GM for NPCs")
    if state.member(owner) is None:
        raise TableError("character/owner", f"{owner} is not a member", fix="give it to a member")
    if state.ruleset is not ruleset:
        game = "Larger Than Life" if state.ruleset is Ruleset.LTL else "Conviction"
        raise TableError("character/ruleset", f"this campaign plays {game}", fix=f"create a {game} character")
    taken = {c.id for c in state.characters} | {c.id for c in state.cv_characters}
    if not character.strip() or character in taken:
        raise TableError("character/id", f"character id {character!r} is empty or taken", fix="choose another id")
    return owner
