"""Odds: they never decide, they show what each choice is worth."""

from __future__ import annotations

from fastapi import APIRouter, Response

from herotable.server import odds_panel, problems
from herotable.server.answers import CheckOdds, DiceOdds, ExchangeOdds
from herotable.server.api.common import IN_A_CAMPAIGN, member_state
from herotable.server.deps import ServicesDep, UserDep
from herotable.server.presenter import duels_of

router = APIRouter()
REFUSED = IN_A_CAMPAIGN | problems.responses(409)  # odds against a hidden sheet, or for another game's duels


@router.get("/campaigns/{campaign_id}/odds/exchange", responses=REFUSED)
def odds_exchange(
    campaign_id: str,
    actor: str,
    target: str,
    svc: ServicesDep,
    user: UserDep,
    style: str | None = None,
    target_style: str | None = None,
) -> ExchangeOdds:
    """The actor's options this round against the target, with the exchange and whole-duel odds of each."""
    state = member_state(svc, campaign_id, user)
    duels = duels_of(state)
    return duels.exchange(
        state, user.user_id, actor, target, style, target_style, svc.table.legal_actions(campaign_id, user.user_id)
    )


@router.get("/campaigns/{campaign_id}/odds/dice", responses=REFUSED)
def odds_dice(campaign_id: str, you: str, opp: str, svc: ServicesDep, user: UserDep) -> DiceOdds:
    """One exchange between two dice you name (`you=d8&opp=d10`) under the campaign's options: win, tie, lose and
    the criticals, each exact and as a float. A chat bot's `!odds d8 d10`."""
    state = member_state(svc, campaign_id, user)
    return duels_of(state).dice(state, you[:20], opp[:20])


@router.get("/campaigns/{campaign_id}/odds/check", responses=IN_A_CAMPAIGN)
def odds_check(campaign_id: str, bonus: int, dc: int, svc: ServicesDep, user: UserDep) -> CheckOdds:
    """A Conviction check's chance with and without a Conviction re-roll or a Quotable Wit."""
    member_state(svc, campaign_id, user)
    return odds_panel.check_odds(bonus, dc)


@router.get(
    "/campaigns/{campaign_id}/odds/conflict.svg",
    response_class=Response,
    responses={
        200: {"description": "An SVG chart", "content": {"image/svg+xml": {"schema": {"type": "string"}}}},
        **REFUSED,
    },
)
def odds_chart(campaign_id: str, actor: str, target: str, svc: ServicesDep, user: UserDep) -> Response:
    """How the conflict between two fighters may end, as an SVG chart."""
    state = member_state(svc, campaign_id, user)
    return Response(duels_of(state).chart(state, user.user_id, actor, target), media_type="image/svg+xml")
