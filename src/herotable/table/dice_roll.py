"""Free-form dice at the table (`2d20kh1+3`, `4d6kh3`): for whatever the rules engines do not cover.

The roll goes through the `d20` library with the table's dice, so every face is in the event like any
other roll; a GM may roll in secret.
"""

from __future__ import annotations

from dataclasses import dataclass

from herotable.notation import NotationError, roll_notation
from herotable.table.commands import Command, Ctx, Outcome, handles, require_gm, require_member
from herotable.table.model import Forbidden, Role, TableError, TableState, Visibility


@dataclass(frozen=True)
class FreeRoll(Command):
    name = "table.roll"
    expression: str
    label: str = ""
    secret: bool = False


@handles(FreeRoll)
def _free_roll(state: TableState, cmd: FreeRoll, ctx: Ctx) -> Outcome:
    """Roll dice notation for the table (players and the GM; a secret roll is the GM's and stays GM-only)."""
    if require_member(state, ctx.user) is Role.SPECTATOR:
        raise Forbidden("table/spectator", "spectators watch; they do not roll", fix="ask the GM to make you a player")
    if cmd.secret:
        require_gm(state, ctx.user)
    try:
        result = roll_notation(cmd.expression, ctx.rng)
    except NotationError as err:
        raise TableError(err.code, err.reason, fix=err.fix) from None
    summary = {
        "expression": cmd.expression.strip(),
        "label": cmd.label.strip(),
        "total": result.total,
        "text": result.text,
        "dice": [list(d) for d in result.dice],
    }
    return Outcome(state, summary, Visibility.GM if cmd.secret else Visibility.PUBLIC)
