"""Free-form dice at the table (`2d20kh1+3`, `4d6kh3`): for whatever the rules engines do not cover.

The roll goes through the `d20` library with the table's dice, so every face is in the fact like any other roll;
the GM may roll in secret.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from herotable.notation import NotationError, roll_notation
from herotable.table.commands import LABEL_LENGTH, Command, Ctx, Decision, Text, handles, require_gm, require_player
from herotable.table.facts import Emitted, Fact, Visibility, fact
from herotable.table.state import TableError, TableState

EXPRESSION_LENGTH = 100


@fact
@dataclass(frozen=True)
class DiceRolled(Fact):
    type = "table.dice_rolled"
    inert = True
    commit = True
    rolled = True
    expression: str
    label: str
    total: int
    text: str  # the roll as dice notation with every face, as the d20 library writes it
    dice: tuple[tuple[int, int], ...]

    def dice_faces(self) -> tuple[tuple[int, int], ...]:
        return self.dice


@dataclass(frozen=True)
class FreeRoll(Command):
    """Roll dice notation for the table (players and the GM; a secret roll is the GM's and stays GM-only)."""

    type = "table.roll"
    expression: Annotated[str, Text(EXPRESSION_LENGTH, required=True)]
    label: Annotated[str, Text(LABEL_LENGTH)] = ""
    secret: bool = False


@handles(FreeRoll)
def _free_roll(state: TableState, cmd: FreeRoll, ctx: Ctx) -> Decision:
    """Roll dice notation for the table (players and the GM; a secret roll is the GM's and stays GM-only)."""
    require_player(state, ctx.user)
    if cmd.secret:
        require_gm(state, ctx.user)
    try:
        result = roll_notation(cmd.expression, ctx.rng)
    except NotationError as err:
        raise TableError(err.code, err.reason, fix=err.fix) from None
    rolled = DiceRolled(cmd.expression.strip(), cmd.label.strip(), result.total, result.text, result.dice)
    return Decision([Emitted(rolled, Visibility.GM if cmd.secret else Visibility.PUBLIC)])
