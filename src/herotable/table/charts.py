"""One reader's charts of a campaign: whether the dice they saw look fair, and how the campaign's game charts its
history, from the facts they may see alone (`history`): a GM's secret roll never reaches a player's dice counts, and
undone actions count for no one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from herotable.odds.fairness import Fairness, fairness
from herotable.table.game import game_of
from herotable.table.history import seen_facts, split
from herotable.table.series import Chart
from herotable.table.state import TableState


@dataclass(frozen=True)
class Charts:
    """What the charts page and the API show one reader: the dice fairness test of every die size they saw
    thrown, and the game's own charts."""

    fairness: Fairness
    charts: tuple[Chart, ...]


def charts_for(state: TableState, events: Sequence[Any], viewer: str | None) -> Charts:
    """The charts of the campaign's stored `events` (with `at`) as `viewer` may see them."""
    seen = seen_facts(state, events, viewer)
    game = game_of(state)
    return Charts(fairness(game.thrown(seen)), tuple(game.charts(state, split(seen), viewer)))
