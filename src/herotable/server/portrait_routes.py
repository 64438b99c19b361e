"""The routes of character portraits: the image, for members who may read the character's sheet, and the forms that
set and remove it, for its player and the GM. A refused upload changes nothing and says why."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from herotable.server.auth import stamp
from herotable.server.deps import MaybeUserDep, Services, ServicesDep, check_csrf
from herotable.server.pages import Refused, member, page, render
from herotable.server.portrait_image import PortraitRefused, reencode
from herotable.server.portraits import FIELD
from herotable.server.slots import Busy
from herotable.store.accounts import User
from herotable.store.port import Portrait
from herotable.table.sheet_edits import check_portrait_change
from herotable.table.state import TableError, TableState
from herotable.table.travel import may_see_arrival
from herotable.table.views import may_see_sheet

router = APIRouter(dependencies=[Depends(check_csrf)])
KEPT_S = 3600  # how long a browser may use its copy of a portrait before it asks again


def _editor(campaign_id: str, cid: str) -> str:
    return f"/campaigns/{campaign_id}/characters/{cid}/edit#portrait"


def _changeable(svc: Services, campaign_id: str, user: User, cid: str) -> TableState:
    """The campaign, when `user` may change the portrait of `cid`; else a refusal saying why (nothing changed)."""
    state = member(svc, campaign_id, user)
    if not state.has_character(cid):
        raise Refused(404, _refusal("there is no such character in play in this campaign"))
    try:
        check_portrait_change(state, user.user_id, cid)
    except TableError as err:
        raise Refused(403, _refusal(f"{err.reason}. Tip: {err.fix}")) from None
    return state


def _refusal(why: str) -> str:
    return f"The portrait was not changed: {why}."


@router.get("/campaigns/{campaign_id}/portraits/{cid}")
@page
def portrait_image(
    campaign_id: str, cid: str, request: Request, svc: ServicesDep, user: MaybeUserDep, v: str = ""
) -> Response:
    """The portrait, to members who may read the character's sheet (a character waiting for the GM's approval: its
    player and the GM); the same answer (404) whether the character has no portrait or the viewer may not see it."""
    assert user is not None
    state = member(svc, campaign_id, user)
    seen = (state.has_character(cid) and may_see_sheet(state, user.user_id, cid)) or may_see_arrival(
        state, user.user_id, cid
    )
    kept = svc.table.store.portrait(campaign_id, cid) if seen else None
    if kept is None:
        raise Refused(404, "There is no portrait here.")
    etag = f'"{kept.digest}"'
    current = not v or kept.digest.startswith(v)
    headers = {"ETag": etag, "Cache-Control": f"private, max-age={KEPT_S}" if current else "private, no-cache"}
    if etag in [t.strip() for t in request.headers.get("if-none-match", "").split(",")]:
        return Response(status_code=304, headers=headers)
    return Response(kept.image, media_type=kept.media_type, headers=headers)


@router.post("/campaigns/{campaign_id}/portraits/{cid}")
async def set_portrait(campaign_id: str, cid: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    form = await request.form()
    upload = form.get(FIELD)
    data = await upload.read() if isinstance(upload, UploadFile) else b""
    return await run_in_threadpool(
        _set_portrait, campaign_id=campaign_id, cid=cid, request=request, svc=svc, user=user, data=data
    )


@page
def _set_portrait(
    campaign_id: str, cid: str, request: Request, svc: ServicesDep, user: MaybeUserDep, data: bytes
) -> Response:
    """Check the upload, re-encode it (a few uploads at a time, `Services.images`) and keep it as the character's
    portrait; or say what is wrong with it, or that the server is busy (503), and keep the portrait there was."""
    assert user is not None
    _changeable(svc, campaign_id, user, cid)
    try:
        made = reencode(data, svc.images.slot)
    except PortraitRefused as err:
        message = _refusal(err.message)
        return render(
            request, "message.html", svc, user, status=err.status, message=message, back=_editor(campaign_id, cid)
        )
    except Busy as busy:  # other uploads are being decoded: this one waited its turn long enough
        message = _refusal(f"{busy.reason}. Tip: {busy.fix}")
        answer = render(request, "message.html", svc, user, status=503, message=message, back=_editor(campaign_id, cid))
        answer.headers.update(busy.headers or {})
        return answer
    svc.table.store.set_portrait(
        Portrait.of(
            campaign_id,
            cid,
            made.image,
            media_type=made.media_type,
            width=made.width,
            height=made.height,
            set_by=user.user_id,
            set_at=stamp(),
        )
    )
    return RedirectResponse(_editor(campaign_id, cid), status_code=303)


@router.post("/campaigns/{campaign_id}/portraits/{cid}/remove")
@page
def remove_portrait(campaign_id: str, cid: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """Remove the character's portrait (nothing to remove is no error)."""
    assert user is not None
    _changeable(svc, campaign_id, user, cid)
    svc.table.store.delete_portrait(campaign_id, cid)
    return RedirectResponse(_editor(campaign_id, cid), status_code=303)
