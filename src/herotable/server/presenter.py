"""Each game's face on the web, behind one interface: its sheet editor, how the table page reads its masked view, where
its actions sit on the page and what their fields are called. `server/` renders through `presenter_for(state)` and
never asks which game a campaign plays; each game registers one (`herotable.server.games`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from herotable.server.actions import Layout, Panel
from herotable.server.answers import DiceOdds, ExchangeOdds
from herotable.server.board import Board
from herotable.server.sheets import SheetEditor
from herotable.table.game import LegalAction, game_for
from herotable.table.state import Ruleset, TableError, TableState


class Duels(Protocol):
    """A game's one-on-one exchanges as the web weighs them: the odds of each choice, how the conflict may end."""

    def exchange(
        self,
        state: TableState,
        viewer: str,
        actor: str,
        target: str,
        style: str | None,
        target_style: str | None,
        acts: Sequence[LegalAction],
    ) -> ExchangeOdds:
        """The actor's options this round against the target, with the odds of each (the API's answer)."""
        ...

    def chart(self, state: TableState, viewer: str, actor: str, target: str) -> str:
        """How the conflict between the two may end, as an SVG chart."""
        ...

    def dice(self, state: TableState, you: str, opp: str) -> DiceOdds:
        """One exchange between two dice the caller names (`d8`, `d10`) under the campaign's options: a chat bot's
        `!odds d8 d10`. Raises TableError for a die the game has not."""
        ...

    def panel(self, state: TableState, viewer: str, acts: Sequence[LegalAction]) -> list[dict[str, Any]]:
        """The table page's odds panel: each of the viewer's attacks against each opponent it may attack."""
        ...


class Presenter(Protocol):
    ruleset: Ruleset
    sheets: SheetEditor
    layout: Layout  # where its actions sit on the table page, and what their fields are called
    duels: Duels | None  # None: the game has no exchanges to weigh
    panels: str | None  # the template of its own panels below the sides, reading `board.extras`; None: none
    rules: str | None  # its rules reference, server/rules/<rules>.md, shown at /rules; None: it has none
    listed: int  # where the game stands in lists of games: the new-campaign form, the rules reference
    blurb: str  # a few words after its title where a game is chosen ("DPoNI / True20")

    def read_board(self, state: TableState, user: str, game: Mapping[str, Any], board: Board) -> None:
        """Add to the board what the game's masked view (`game`) holds for the viewer: open rolls' dice, trackers."""
        ...

    def chances(self, state: TableState, user: str, laid: Panel) -> dict[str, str]:
        """A line of odds to show beside the viewer's laid-out actions, by action key (only numbers the viewer sees);
        HTML-safe (`Markup`) where it marks up its figures."""
        ...

    def odds_panels(self, laid: Panel) -> set[str]:
        """The viewer's actions (by key) that get an odds panel of their own: every choice's odds, and the chart of
        how the conflict may end (`duels`)."""
        ...


PRESENTERS: dict[Ruleset, Presenter] = {}


def register(presenter: Presenter) -> Presenter:
    PRESENTERS[presenter.ruleset] = presenter
    return presenter


def listed() -> list[Presenter]:
    """The registered games' presenters, in the order lists of games show them."""
    return sorted(PRESENTERS.values(), key=lambda p: p.listed)


def presenter_for(state: TableState) -> Presenter:
    """The presenter of the campaign's game."""
    return PRESENTERS[state.ruleset]


def duels_of(state: TableState) -> Duels:
    """The campaign's game's duels; a game without them is told so (409), with the games that have them."""
    duels = presenter_for(state).duels
    if duels is None:
        having = " and ".join(game_for(r).title for r, p in PRESENTERS.items() if p.duels is not None)
        raise TableError(
            "odds/wrong_game",
            f"this campaign plays {game_for(state.ruleset).title}, and exchange and conflict odds are for "
            f"{having} duels",
            fix="ask for a check's odds instead: GET …/odds/check?bonus=…&dc=…",
        )
    return duels
