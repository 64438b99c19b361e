"""Each game's face on the web, behind one interface: its sheet editor, how the table page reads its masked view, where
its actions sit on the page and what their fields are called. `server/` renders through `presenter_for(state)` and
never asks which game a campaign plays; each game registers one (`herotable.server.games`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from herotable.server.board import Board
from herotable.server.sheets import SheetEditor
from herotable.table.state import Ruleset, TableState


class Presenter(Protocol):
    ruleset: Ruleset
    sheets: SheetEditor
    round_controls: frozenset[str]  # the GM's round controls, always in view in the bar (command types)
    table_actions: frozenset[str]  # the GM's table-wide actions, which sit in the bar whatever their group
    field_labels: Mapping[tuple[str, str], str]  # (command type, field): its label where the field's name says little

    def read_board(self, state: TableState, user: str, game: Mapping[str, Any], board: Board) -> None:
        """Add to the board what the game's masked view (`game`) holds for the viewer: open rolls' dice, trackers."""
        ...


PRESENTERS: dict[Ruleset, Presenter] = {}


def register(presenter: Presenter) -> Presenter:
    PRESENTERS[presenter.ruleset] = presenter
    return presenter


def presenter_for(state: TableState) -> Presenter:
    """The presenter of the campaign's game."""
    return PRESENTERS[state.ruleset]
