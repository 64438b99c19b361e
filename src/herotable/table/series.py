"""A chart as a game tells it, without any drawing: its title, what its numbers are, its axes and its series. The
web draws every game's charts from these alone (`herotable.server.chart_svg`), and the API sends them as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    """How a chart reads: bars for what happened in each stretch (levels lost in an adventure), a line for where a
    rating stood at the end of each (Conviction after each session)."""

    BARS = "bars"
    LINE = "line"


@dataclass(frozen=True)
class Series:
    """One named run of numbers, one for each label of the chart's x axis; None where there is no number (a hero
    not yet at the table)."""

    name: str
    values: tuple[int | None, ...]


@dataclass(frozen=True)
class Chart:
    """One chart: `key` names it in the page and the API, `about` says in a sentence what its numbers are (what a
    screen reader reads first), `x` labels the stretches (adventures or sessions) along `x_label`, each series counts
    in `unit`."""

    key: str
    title: str
    about: str
    kind: Kind
    x_label: str
    unit: str
    x: tuple[str, ...]
    series: tuple[Series, ...]
    empty: str = "Nothing to chart yet."  # what the page says when there is no series
