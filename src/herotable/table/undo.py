"""The undo command. Undo appends a compensating event: the undone command stays in the log and the fold
skips it, so everything it spent is refunded and nothing is deleted."""

from __future__ import annotations

from dataclasses import dataclass

from herotable.table.commands import Command, Ctx, Outcome, handles
from herotable.table.model import TableState

UNDO_TYPE = "table.undo"


@dataclass(frozen=True)
class Undo(Command):
    name = UNDO_TYPE
    target: str | None = None  # the command id to undo; it must be the most recent one still in effect


@handles(Undo)
def _undo(state: TableState, cmd: Undo, ctx: Ctx) -> Outcome:
    """Undo changes nothing by itself: the fold skips its target (see `fold.replay`)."""
    return Outcome(state)
