"""What the table page shows: the campaign's game board for the viewer (from `Game.board`), the requests, the dice of
the open rolls and the log drawn as dice, and the turn tracker of a conflict. Presentation only: every secret
is filtered by the game's own masking (`view_for`) before anything here reads it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup, escape

from herotable.table.game import Card, OpenRoll, game_of
from herotable.table.render import LogEntry
from herotable.table.state import OpenRequest, Role, TableState
from herotable.table.views import view_for


@dataclass(frozen=True)
class Die:
    """One die as drawn: its type, the face it shows, and whether a re-roll replaced it."""

    sides: int
    face: int
    rerolled: bool = False

    @property
    def words(self) -> str:
        """The die as a screen reader says it."""
        extra = " (highest face)" if self.face == self.sides else " (lowest face)" if self.face == 1 else ""
        return f"d{self.sides} showing {self.face}{extra}" + (", re-rolled" if self.rerolled else "")


@dataclass(frozen=True)
class DiceSide:
    """One side of an open roll as the viewer may see it: whose dice, the dice, and the result in words."""

    who: str
    dice: tuple[Die, ...]
    total: int | None
    words: str


@dataclass
class Board:
    party: list[Card] = field(default_factory=list)
    opponents: list[Card] = field(default_factory=list)
    rolls: list[OpenRoll] = field(default_factory=list)
    requests: list[OpenRequest] = field(default_factory=list)
    conflict: dict[str, Any] | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    dice: dict[str, list[DiceSide]] = field(default_factory=dict)  # by open roll id
    outcome: dict[str, str] = field(default_factory=dict)  # by open roll id: where the roll stands, in words
    turns: dict[str, Any] | None = None  # the conflict's turn tracker


# the game's presenter adds what its masked view holds for the viewer (`Presenter.read_board`)
Reader = Callable[[TableState, str, Mapping[str, Any], "Board"], None]


def build(state: TableState, user: str, read: Reader) -> Board:
    """The board for `user`, read through the game's presenter."""
    shown = game_of(state).board(state, user)
    board = Board(extras=dict(shown.extras))
    board.party.extend(c for c in shown.cards if not c.npc)
    board.opponents.extend(c for c in shown.cards if c.npc)
    board.rolls.extend(shown.rolls)
    board.conflict = dict(shown.conflict) if shown.conflict is not None else None
    gm = state.role_of(user) is Role.GM
    board.requests.extend(r for r in state.requests if gm or r.user == user)
    read(state, user, view_for(state, user)["game"], board)
    return board


# --- reading the masked view: only what the viewer may see is there to read ---


# --- dice as pictures ---

SHAPES = {
    4: '<polygon points="20,3 37,35 3,35"/>',
    6: '<rect x="4" y="4" width="32" height="32" rx="5"/>',
    8: '<polygon points="20,2 38,20 20,38 2,20"/>',
    10: '<polygon points="20,2 37,16 20,38 3,16"/>',
    12: '<polygon points="20,2 38,15 31,37 9,37 2,15"/>',
    20: '<polygon points="20,2 36,11 36,29 20,38 4,29 4,11"/>',
}


def die_svg(die: Die) -> Markup:
    """One die as inline SVG: the die's shape with its face, a highest face and a re-rolled die marked; its
    words are the picture's text alternative."""
    shape = SHAPES.get(die.sides, '<circle cx="20" cy="20" r="17"/>')
    marks = ["die"]
    if die.face == die.sides:
        marks.append("high")
    elif die.face == 1:
        marks.append("low")
    if die.rerolled:
        marks.append("rerolled")
    y = "27" if die.sides == 4 else "25"
    return Markup(
        f'<svg class="{" ".join(marks)}" viewBox="0 0 40 40" width="40" height="40" role="img" '
        f'aria-label="{escape(die.words)}"><title>{escape(die.words)}</title>{shape}'
        f'<text x="20" y="{y}" text-anchor="middle">{die.face}</text></svg>'
    )


def dice_svg(dice: tuple[Die, ...] | list[Die]) -> Markup:
    return Markup("").join(die_svg(d) for d in dice)


def faces(entry: LogEntry) -> Markup:
    """A log entry's dice, drawn as dice, each with its words for screen readers."""
    return dice_svg([Die(sides, face) for sides, face in entry.dice])
