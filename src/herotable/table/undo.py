"""Undo (R-T-4): the most recent action still in effect is reversed by a fact of its own; nothing is deleted.

A player undoes their own last action unless it rolled dice or acted on a roll (a commit point); only the GM
undoes other people's actions and passes commit points. A roll that a GM undo returns to pending stays marked
revealed, so nobody acts on what they have seen.
"""

from __future__ import annotations

from dataclasses import dataclass

from herotable.table import journal
from herotable.table.commands import Command, Ctx, Decision, handles, require_member
from herotable.table.facts import Emitted, Fact, Visibility, fact
from herotable.table.fold import UNDO_TYPE, UNDONE_TYPE, journal_before
from herotable.table.state import Done, Forbidden, Role, TableError, TableState


@fact
@dataclass(frozen=True)
class ActionUndone(Fact):
    """The action `command_id` (of `undone_type`, by `actor`) is reversed; `revealed` rolls return to pending
    marked as seen."""

    type = UNDONE_TYPE
    command_id: str
    undone_type: str
    actor: str
    revealed: tuple[str, ...] = ()


@fact
@dataclass(frozen=True)
class UndoneTold(ActionUndone):
    """An undo told to another member who saw the action (a handout shown to several): the state changes once, by the
    `ActionUndone` its first member reads."""

    type = "action.undone_told"
    inert = True
    copied = True


@dataclass(frozen=True)
class Undo(Command):
    """Undo the most recent action still in effect: a player's own, unless it revealed something, or any for the GM;
    the table returns to where it stood before it, points spent given back (R-T-4)."""

    type = UNDO_TYPE
    target: str | None = None  # the command id to undo; it must be the most recent action still in effect


def undoable(state: TableState, user: str) -> Done | None:
    """The action this member may undo now, or None."""
    if not state.done:
        return None
    last = state.done[-1]
    role = state.role_of(user)
    if role is Role.GM:
        return last
    if role is Role.PLAYER and last.user == user and not last.commit:
        return last
    return None


@handles(Undo)
def _undo(state: TableState, cmd: Undo, ctx: Ctx) -> Decision:
    role = require_member(state, ctx.user)
    if not state.done:
        raise TableError("undo/nothing", "there is nothing to undo", fix="act first", ruling="R-T-4")
    last = state.done[-1]
    if cmd.target is not None and cmd.target != last.command_id:
        raise TableError(
            "undo/not_last",
            "only the most recent action can be undone",
            fix="undo the most recent action first" if role is not Role.GM else f"undo {last.command_id} first",
            ruling="R-T-4",
        )
    if role is not Role.GM:
        if role is Role.SPECTATOR or last.user != ctx.user:
            raise Forbidden("undo/not_yours", "only the GM undoes other people's actions", fix="ask the GM")
        if last.commit:
            raise Forbidden(
                "undo/commit_point",
                "dice were rolled or a roll was acted on: that stands unless the GM undoes it",
                fix="ask the GM",
            )
    undone = ActionUndone(last.command_id, last.type, last.user, last.reveals)
    if last.audience is Visibility.OWNER:
        told = UndoneTold(last.command_id, last.type, last.user, last.reveals)
        also = [Emitted(told, Visibility.OWNER, owner) for owner in last.audience_also]
        return Decision(
            [
                Emitted(undone, Visibility.OWNER, last.audience_owner),
                *also,
                *journal.regained(state, journal_before(state)),
            ]
        )
    return Decision([Emitted(undone, last.audience), *journal.regained(state, journal_before(state))])
