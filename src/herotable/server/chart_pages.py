"""The charts page of a campaign, for every member: whether the dice they saw look fair, and the game's charts of
the campaign's history, each drawn on the server (`chart_svg`) with a table of the same numbers under it. It reads
the numbers the API sends (`herotable.server.api.charts`)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response

from herotable.odds.fairness import MIN_EXPECTED
from herotable.server.api.charts import read_charts
from herotable.server.chart_svg import PALETTE, fairness_chart, history_chart
from herotable.server.deps import MaybeUserDep, ServicesDep, check_csrf
from herotable.server.pages import member, page, render
from herotable.table.game import game_of

router = APIRouter(dependencies=[Depends(check_csrf)])


@router.get("/campaigns/{campaign_id}/charts", response_class=HTMLResponse)
@page
def charts_page(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    assert user is not None
    state = member(svc, campaign_id, user)
    got = read_charts(svc, campaign_id, user.user_id)
    dice = [{"test": d, "svg": fairness_chart(d, f"die-{d.sides}")} for d in got.fairness.dice]
    charts = [{"chart": c, "svg": history_chart(c, f"chart-{c.key}") if c.series else None} for c in got.charts]
    return render(
        request,
        "charts.html",
        svc,
        user,
        campaign=state,
        game=game_of(state).title,
        role=state.role_of(user.user_id),
        fairness=got.fairness,
        dice=dice,
        charts=charts,
        palette=PALETTE,
        min_expected=MIN_EXPECTED,
    )
