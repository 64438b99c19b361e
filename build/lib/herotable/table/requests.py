"""Requests to the GM: what needs the GM's judgement (R-T-2, R-T-3) is asked for at the table and answered there.

A player asks (a difficulty, a Deus Ex Machina or Narrative Power cost, a Last Chance, a must-succeed task); the
question stays open until the GM answers it. Only the asker and the GM see either fact.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from operator import attrgetter
from typing import Annotated

from herotable.table.codec import evolved
from herotable.table.commands import (
    PROSE_LENGTH,
    Command,
    Ctx,
    Decision,
    Text,
    handles,
    require_controls,
    require_gm,
    require_player,
)
from herotable.table.core import evolves
from herotable.table.facts import Emitted, Fact, Visibility, fact
from herotable.table.state import OpenRequest, TableError, TableState


class RequestKind(StrEnum):
    DIFFICULTY = "difficulty"
    DEUS_EX_MACHINA = "deus_ex_machina"
    NARRATIVE_POWER = "narrative_power"
    LAST_CHANCE = "last_chance"
    MUST_SUCCEED = "must_succeed"
    OTHER = "other"


@fact
@dataclass(frozen=True)
class RequestOpened(Fact):
    type = "request.opened"
    request: str
    user: str
    kind: str
    text: str
    character: str | None = None


@fact
@dataclass(frozen=True)
class RequestAnswered(Fact):
    type = "request.answered"
    request: str
    user: str
    kind: str
    asked: str
    granted: bool
    answer: str


@evolves(RequestOpened)
def _opened(state: TableState, f: RequestOpened) -> TableState:
    opened = OpenRequest(f.request, f.user, f.kind, f.text, f.character)
    return evolved(state, requests=(*state.requests, opened))


_ID = attrgetter("id")


@evolves(RequestAnswered)
def _answered(state: TableState, f: RequestAnswered) -> TableState:
    requests = state.requests
    try:
        at = list(map(_ID, requests)).index(f.request)  # an open table may hold hundreds: no Python loop
    except ValueError:
        return state
    return evolved(state, requests=(*requests[:at], *requests[at + 1 :]))


@dataclass(frozen=True)
class AskGm(Command):
    """Ask the GM for a ruling, optionally about one of your characters."""

    type = "request.ask"
    kind: RequestKind
    text: Annotated[str, Text(PROSE_LENGTH)] = ""
    character: str | None = None


@handles(AskGm)
def _ask(state: TableState, cmd: AskGm, ctx: Ctx) -> Decision:
    """A player (or the GM, for the record) opens a request; spectators watch (R-T-2)."""
    require_player(state, ctx.user)
    if cmd.character is not None:
        require_controls(state, ctx.user, cmd.character)
    if cmd.kind is RequestKind.OTHER and not cmd.text.strip():
        raise TableError("request/empty", "say what you are asking the GM", fix="write the request")
    opened = RequestOpened(ctx.command_id, ctx.user, cmd.kind.value, cmd.text.strip(), cmd.character)
    if state.is_gm(ctx.user):
        return Decision([Emitted(opened, Visibility.GM)])
    return Decision([Emitted(opened, Visibility.OWNER, ctx.user)])


@dataclass(frozen=True)
class AnswerGm(Command):
    """The GM answers an open request; it closes."""

    type = "request.answer"
    request: str
    answer: Annotated[str, Text(PROSE_LENGTH)] = ""
    granted: bool = True


@handles(AnswerGm)
def _answer(state: TableState, cmd: AnswerGm, ctx: Ctx) -> Decision:
    """Only the GM answers (R-T-2); the asker sees the answer."""
    require_gm(state, ctx.user)
    found = next((r for r in state.requests if r.id == cmd.request), None)
    if found is None:
        raise TableError(
            "request/unknown",
            "no such open request",
            fix="answer one of the open requests: " + (", ".join(r.id for r in state.requests) or "none"),
        )
    answered = RequestAnswered(found.id, found.user, found.kind, found.text, cmd.granted, cmd.answer.strip())
    if found.user == state.gm or state.member(found.user) is None:
        return Decision([Emitted(answered, Visibility.GM)])
    return Decision([Emitted(answered, Visibility.OWNER, found.user)])
