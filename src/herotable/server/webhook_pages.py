"""The GM's webhooks page: add a Discord channel or a JSON receiver, send a test, see how deliveries went, remove one.

It shares the API's helpers (`herotable.server.api.webhooks`); a refusal comes back on the page with what was typed
kept and nothing written."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError

from herotable.server.api import webhooks as api
from herotable.server.api.webhooks import (
    MOST_PER_CAMPAIGN,
    NAME_LENGTH,
    NewWebhook,
    add_webhook,
    courier_of,
    found_webhook,
    queue_test,
    webhook_out,
)
from herotable.server.deps import MaybeUserDep, ServicesDep, check_csrf
from herotable.server.pages import Refused, member, page, render
from herotable.server.webhooks import MAX_TRIES, SIGNATURE_HEADER, TIMESTAMP_HEADER
from herotable.store.webhooks import Webhook
from herotable.table.state import TableState

router = APIRouter(dependencies=[Depends(check_csrf)])

DONE = {
    "test": "A test message is on its way: its outcome shows below in a moment (reload the page).",
    "removed": "The webhook is removed: nothing more is sent to it.",
    "waiting": "A test message to it is already on its way: its outcome shows below in a moment.",
}


def _gm(svc: ServicesDep, campaign_id: str, user: Any) -> TableState:
    state = member(svc, campaign_id, user)
    if not state.is_gm(user.user_id):
        raise Refused(403, "Only the GM sets the campaign's webhooks.")
    return state


def _page(
    request: Request,
    svc: ServicesDep,
    user: Any,
    state: TableState,
    *,
    form: dict[str, str] | None = None,
    error: str = "",
    made: Webhook | None = None,
) -> Response:
    courier = courier_of(request)
    hooks = [webhook_out(courier, h) for h in courier.store.webhooks(state.campaign_id)]
    return render(
        request,
        "webhooks.html",
        svc,
        user,
        status=422 if error else (201 if made else 200),
        campaign=state,
        hooks=hooks,
        form=form or {"format": "discord"},
        error=error,
        made=made,
        done=DONE.get(request.query_params.get("done", "")) if not (error or made) else None,
        most=MOST_PER_CAMPAIGN,
        name_length=NAME_LENGTH,
        max_tries=MAX_TRIES,
        signature_header=SIGNATURE_HEADER,
        timestamp_header=TIMESTAMP_HEADER,
        public_url=svc.settings.public_url,
    )


@router.get("/campaigns/{campaign_id}/webhooks")
@page
def webhooks_page(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """The campaign's webhooks, for its GM."""
    assert user is not None
    return _page(request, svc, user, _gm(svc, campaign_id, user))


@router.post("/campaigns/{campaign_id}/webhooks")
@page
def add(
    campaign_id: str,
    request: Request,
    svc: ServicesDep,
    user: MaybeUserDep,
    url: str = Form(""),
    format: str = Form("discord"),
    name: str = Form(""),
) -> Response:
    """Add a webhook; its address and secret are shown once on the page that answers."""
    assert user is not None
    state = _gm(svc, campaign_id, user)
    form = {"url": url, "format": format, "name": name}
    try:
        body = NewWebhook(url=url, format=format, name=name)  # type: ignore[arg-type]
        hook = add_webhook(courier_of(request), svc, state, user, body)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the form"
        return _page(request, svc, user, state, form=form, error=f"{where}: {first['msg']}.")
    except api.Refused as err:
        said = f"{err.detail}. Tip: {err.fix}"
        return _page(request, svc, user, state, form=form, error=f"{said[:1].upper()}{said[1:]}.")
    shown = _page(request, svc, user, state, made=hook)
    shown.headers["Cache-Control"] = "no-store"  # its address and secret, shown once, are kept by no cache
    return shown


@router.post("/campaigns/{campaign_id}/webhooks/{webhook_id}/{step}")
@page
def act(
    campaign_id: str, webhook_id: str, step: str, request: Request, svc: ServicesDep, user: MaybeUserDep
) -> Response:
    """Send a test message to a webhook (`test`) or remove it (`remove`)."""
    assert user is not None
    _gm(svc, campaign_id, user)
    courier = courier_of(request)
    try:
        hook = found_webhook(courier, campaign_id, webhook_id)
    except HTTPException:
        raise Refused(404, "There is no such webhook in this campaign.") from None
    if step == "test":
        try:
            queue_test(courier, svc, hook)
        except HTTPException:
            return RedirectResponse(f"/campaigns/{campaign_id}/webhooks?done=waiting", status_code=303)
    elif step == "remove":
        courier.store.remove_webhook(campaign_id, webhook_id)
    else:
        raise Refused(404, "There is no such thing to do with a webhook.")
    done = step if step == "test" else "removed"
    return RedirectResponse(f"/campaigns/{campaign_id}/webhooks?done={done}", status_code=303)
