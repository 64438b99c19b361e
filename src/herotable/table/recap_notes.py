"""The GM's own paragraph in a game session's recap: written as a command, kept as a public fact, and written again
to change it (the newest counts; an empty one takes it out).

Like chat, it is not an action (R-T-4): undo never reaches it and it never stands in the way of undoing the last
action. It is refused for a session the campaign has not had; session 0 is what came before the first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from herotable.table.commands import PROSE_LENGTH, Command, Ctx, Decision, Range, Text, handles, require_gm
from herotable.table.facts import Emitted, Fact, fact
from herotable.table.game import Domain, IntRange, LegalAction, TextDomain
from herotable.table.state import TableError, TableState

WRITE = "campaign.recap"
NOTE_LENGTH = PROSE_LENGTH  # a paragraph, as long as any other prose a member writes (R-T-5)
SESSIONS = Range(0, 100_000)
NOT_ACTIONS = frozenset({WRITE})  # the fold keeps no undo entry for it (R-T-4)
RULE = "R-T-1"


@fact
@dataclass(frozen=True)
class RecapWritten(Fact):
    """The GM's paragraph for game session `session` (0: before the first); empty: taken out. The newest counts."""

    type = "campaign.recap_written"
    inert = True
    session: int
    text: str


@dataclass(frozen=True)
class WriteRecap(Command):
    """The GM writes, or writes again, their own paragraph in a game session's recap; an empty text takes it out."""

    type = WRITE
    session: Annotated[int, SESSIONS]
    text: Annotated[str, Text(NOTE_LENGTH)] = ""


@handles(WriteRecap)
def _write(state: TableState, cmd: WriteRecap, ctx: Ctx) -> Decision:
    """The GM's, for a session the campaign has had: R-T-1's game sessions are numbered from 1, 0 is before them."""
    require_gm(state, ctx.user)
    last = state.structure.session
    if cmd.session > last:
        had = f"has had sessions 1 to {last}" if last > 1 else "has had session 1" if last else "has had no session"
        raise TableError(
            "recap/no_session",
            f"there is no game session {cmd.session}: this campaign {had}",
            fix=f"choose a session from 0 (what came before the first) to {last}",
            ruling=RULE,
        )
    text = "\n".join(line.rstrip() for line in cmd.text.strip().splitlines())  # a form's CRLF kept as plain lines
    return Decision([Emitted(RecapWritten(cmd.session, text))])


def legal(state: TableState, user: str) -> list[LegalAction]:
    """Writing a session's paragraph, for the GM."""
    if not state.is_gm(user):
        return []
    fields: dict[str, Domain] = {"session": IntRange(0, state.structure.session), "text": TextDomain(NOTE_LENGTH)}
    return [LegalAction(WRITE, "Write a session's recap", fields=fields, group="Recap", rule=RULE)]


# --- the log's words (registered in herotable.table.render) ---


def _written(f: RecapWritten, n: Mapping[str, str]) -> str:
    which = "what came before the first game session" if f.session == 0 else f"game session {f.session}"
    if not f.text:
        return f"The GM takes their paragraph out of the recap of {which}"
    return f"The GM writes the recap of {which}: {f.text}"


SAYS: dict[str, Callable[[Any, Mapping[str, str]], str]] = {RecapWritten.type: _written}
TITLES = {RecapWritten.type: "Recap"}
