"""Each game's face on the web, behind one interface: its sheet editor, how the table page reads its masked view, where
its actions sit on the page and what their fields are called. `server/` renders through `presenter_for(state)` and
never asks which game a campaign plays; each game registers one (`herotable.server.games`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from herotable.server.actions import Layout, Panel
from herotable.server.board import Board
from herotable.server.sheets import SheetEditor
from herotable.table.state import Ruleset, TableState


class Presenter(Protocol):
    ruleset: Ruleset
    sheets: SheetEditor
    layout: Layout  # where its actions sit on the table page, and what their fields are called

    def read_board(self, state: TableState, user: str, game: Mapping[str, Any], board: Board) -> None:
        """Add to the board what the game's masked view (`game`) holds for the viewer: open rolls' dice, trackers."""
        ...

    def chances(self, state: TableState, user: str, laid: Panel) -> dict[str, Any]:
        """Odds to show beside the viewer's laid-out actions, by action key (only numbers the viewer sees)."""
        ...

    def attackers(self, laid: Panel) -> set[str]:
        """The viewer's characters whose attack gets an odds panel of its own."""
        ...


PRESENTERS: dict[Ruleset, Presenter] = {}


def register(presenter: Presenter) -> Presenter:
    PRESENTERS[presenter.ruleset] = presenter
    return presenter


def presenter_for(state: TableState) -> Presenter:
    """The presenter of the campaign's game."""
    return PRESENTERS[state.ruleset]
