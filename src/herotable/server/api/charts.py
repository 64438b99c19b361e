"""A campaign's charts as numbers: whether the dice its reader saw look fair, and its game's charts of its history.
The charts page draws the same numbers (`herotable.server.chart_pages`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from pydantic import Field
from typing_extensions import TypedDict

from herotable.odds.fairness import DieTest, Verdict
from herotable.server.answers import answer
from herotable.server.api.common import IN_A_CAMPAIGN, member_state
from herotable.server.deps import Services, ServicesDep, UserDep
from herotable.table.charts import Charts, charts_for
from herotable.table.series import Chart, Kind

router = APIRouter()


@answer
class DieFairness(TypedDict):
    """One die size's faces and the chi-square test of them against equal chances."""

    sides: int
    rolled: Annotated[int, Field(description="how many dice of this size you saw thrown")]
    counts: Annotated[list[int], Field(description="how often each face came up, face 1 first")]
    expected: Annotated[float, Field(description="how often a fair die shows each face in as many rolls")]
    tested: Annotated[bool, Field(description="whether every face expects at least 5 rolls, so the test is made")]
    chi_square: Annotated[float | None, Field(description="Pearson's statistic; null when not tested")]
    p_value: Annotated[float | None, Field(description="its chance for a fair die; null when not tested")]
    holm_p: Annotated[
        float | None, Field(description="the p-value corrected by Holm's method across the die sizes tested")
    ]
    says: Verdict
    needed: Annotated[int, Field(description="how many more rolls until it is tested; 0 once it is")]


@answer
class DiceFairness(TypedDict):
    """Every die size you saw thrown, tested together: a die is unusual when its Holm p-value is at most `alpha`."""

    alpha: float
    says: Annotated[Verdict, Field(description="all the dice in words: unusual if any is")]
    dice: list[DieFairness]


@answer
class ChartSeries(TypedDict):
    name: str
    values: Annotated[list[int | None], Field(description="one per label of `x`; null where there is no number")]


@answer
class HistoryChart(TypedDict):
    """One of the game's charts of the campaign's history."""

    key: str
    title: str
    about: Annotated[str, Field(description="what its numbers are, in a sentence")]
    kind: Annotated[Kind, Field(description="bars: what happened in each stretch; line: where it stood after each")]
    x_label: Annotated[str, Field(description="what `x` counts: Adventure or Session")]
    unit: str
    x: Annotated[list[str], Field(description='the stretches, in order ("before": what came before the first)')]
    series: list[ChartSeries]
    empty: Annotated[str, Field(description="what to say when it has no series")]


@answer
class CampaignCharts(TypedDict):
    """A campaign's charts as you may see them: only dice and numbers you saw count."""

    campaign_id: str
    fairness: DiceFairness
    charts: list[HistoryChart]


def read_charts(svc: Services, campaign_id: str, viewer: str) -> Charts:
    """The campaign's charts as `viewer` may see them, from its whole log."""
    return charts_for(svc.table.state(campaign_id), svc.table.store.load(campaign_id), viewer)


def die_json(d: DieTest) -> DieFairness:
    return {
        "sides": d.sides,
        "rolled": d.rolled,
        "counts": list(d.counts),
        "expected": d.expected,
        "tested": d.tested,
        "chi_square": d.chi_square,
        "p_value": d.p_value,
        "holm_p": d.holm_p,
        "says": d.says,
        "needed": d.needed,
    }


def chart_json(c: Chart) -> HistoryChart:
    return {
        "key": c.key,
        "title": c.title,
        "about": c.about,
        "kind": c.kind,
        "x_label": c.x_label,
        "unit": c.unit,
        "x": list(c.x),
        "series": [{"name": s.name, "values": list(s.values)} for s in c.series],
        "empty": c.empty,
    }


@router.get("/campaigns/{campaign_id}/charts", responses=IN_A_CAMPAIGN)
def campaign_charts(campaign_id: str, svc: ServicesDep, user: UserDep) -> CampaignCharts:
    """Whether the dice you saw look fair, die size by die size (a chi-square test of each, corrected by Holm's
    method, said in words), and the game's charts of the campaign's adventures and sessions: only what you may see
    counts (a GM's secret roll never counts for a player)."""
    member_state(svc, campaign_id, user)
    got = read_charts(svc, campaign_id, user.user_id)
    f = got.fairness
    return {
        "campaign_id": campaign_id,
        "fairness": {"alpha": f.alpha, "says": f.says, "dice": [die_json(d) for d in f.dice]},
        "charts": [chart_json(c) for c in got.charts],
    }
