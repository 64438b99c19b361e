"""Requests to the GM: what needs the GM's judgement (R-T-2) is asked for at the table and answered there.

A player asks (a difficulty, a Deus Ex Machina or Narrative Power cost, a Last Chance, a must-succeed
task); the question stays open until the GM answers it. Only the asker and the GM see either event. The
answer is words: the GM then runs whatever it grants (a Karma burn for the cost they set, a must-succeed
challenge) as its own command.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from herotable.table.commands import Command, Ctx, Outcome, handles, require_controls, require_gm, require_member
from herotable.table.model import Forbidden, OpenRequest, Role, TableError, TableState, Visibility


class RequestKind(StrEnum):
    DIFFICULTY = "difficulty"
    DEUS_EX_MACHINA = "deus_ex_machina"
    NARRATIVE_POWER = "narrative_power"
    LAST_CHANCE = "last_chance"
    MUST_SUCCEED = "must_succeed"
    OTHER = "other"


@dataclass(frozen=True)
class AskGm(Command):
    """Ask the GM for a ruling, optionally about one of your characters."""

    name = "request.ask"
    kind: RequestKind
    text: str = ""
    character: str | None = None


@handles(AskGm)
def _ask(state: TableState, cmd: AskGm, ctx: Ctx) -> Outcome:
    """A player (or the GM, for the record) opens a request; spectators watch (R-T-2)."""
    if require_member(state, ctx.user) is Role.SPECTATOR:
        raise Forbidden("request/spectator", "spectators watch; they do not ask for rulings", fix="ask the GM to join")
    if cmd.character is not None:
        require_controls(state, ctx.user, cmd.character)
    if cmd.kind is RequestKind.OTHER and not cmd.text.strip():
        raise TableError("request/empty", "say what you are asking the GM", fix="write the request")
    opened = OpenRequest(ctx.command_id, ctx.user, cmd.kind.value, cmd.text.strip(), cmd.character)
    summary = {"request": ctx.command_id, "kind": cmd.kind.value, "text": cmd.text.strip(), "character": cmd.character}
    return Outcome(replace(state, requests=(*state.requests, opened)), summary, Visibility.OWNER, ctx.user)


@dataclass(frozen=True)
class AnswerGm(Command):
    """The GM answers an open request; it closes."""

    name = "request.answer"
    request: str
    answer: str = ""
    granted: bool = True


@handles(AnswerGm)
def _answer(state: TableState, cmd: AnswerGm, ctx: Ctx) -> Outcome:
    """Only the GM answers (R-T-2); the asker sees the answer."""
    require_gm(state, ctx.user)
    found = next((r for r in state.requests if r.id == cmd.request), None)
    if found is None:
        raise TableError(
            "request/unknown",
            "no such open request",
            fix="answer one of the open requests: " + (", ".join(r.id for r in state.requests) or "none"),
        )
    summary = {
        "request": found.id,
        "kind": found.kind,
        "asked": found.text,
        "character": found.character,
        "granted": cmd.granted,
        "text": cmd.answer.strip(),
    }
    new = replace(state, requests=tuple(r for r in state.requests if r.id != found.id))
    return Outcome(new, summary, Visibility.OWNER, found.user)
