"""The journal page: the entries a member may read (with a search box), the GM's writing and showing of entries, the
images they show, and each player's private notes on their characters.

Every change is a table command (`herotable.table.journal`), so it reaches exactly its readers live and in their own
streams. The page is built from the reader's own view: a search reads only the entries its reader may read, so a
result never leaks. Entries are Markdown, rendered with raw HTML shown as text and with no images but the entry's
own; images pass the portraits' checks and re-encoding and count against the campaign's quota
(`image_quota_mb`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import RedirectResponse, Response
from markdown_it import MarkdownIt
from markupsafe import Markup
from starlette.datastructures import UploadFile

from herotable.errors import RulesError
from herotable.server.auth import stamp
from herotable.server.command_checks import check, checks
from herotable.server.deps import MaybeUserDep, Services, ServicesDep, check_csrf
from herotable.server.pages import Refused, member, page, render
from herotable.server.portrait_image import ACCEPT, MAX_BYTES, PortraitRefused, reencode
from herotable.server.slots import Busy
from herotable.store.port import CampaignImage, OverQuota
from herotable.table import journal
from herotable.table.journal import RemoveEntry, ShowEntry, WriteEntry, WritePrivateNote
from herotable.table.state import Forbidden, Role, TableError, TableState

router = APIRouter(dependencies=[Depends(check_csrf)])
IMAGE_FIELD = "image"
PER_PAGE = 20  # entries on a page of the journal, newest first
KEPT_S = 31_536_000  # an image's address holds its digest: it never changes, so a browser keeps it a year

_md = MarkdownIt("js-default").disable("image")  # raw HTML is shown as text; pictures come from uploads only


@checks(WriteEntry)
def _image_kept(svc: Services, campaign_id: str, cmd: WriteEntry) -> None:
    """An entry's image is one uploaded to its campaign."""
    if cmd.image and svc.table.store.campaign_image(campaign_id, cmd.image) is None:
        raise TableError(
            "journal/unknown_image",
            "that image is not one uploaded to this campaign",
            fix="upload it on the journal page first, or leave the image out",
            ruling="R-T-5",
        )


def rendered(text: str) -> Markup:
    """An entry's Markdown as safe HTML: no raw HTML, no scripts, links that open nothing of ours to the other site."""
    html = _md.render(text)
    return Markup(html.replace("<a href=", '<a rel="nofollow noopener noreferrer" href='))


def image_url(campaign_id: str, digest: str) -> str:
    return f"/campaigns/{campaign_id}/images/{digest}"


def _back(campaign_id: str, anchor: str = "", done: str = "") -> RedirectResponse:
    query = f"?done={done}" if done else ""
    return RedirectResponse(f"/campaigns/{campaign_id}/journal{query}{anchor}", status_code=303)


DONE = {
    "written": "The entry is saved.",
    "shown": "Who reads the entry has changed.",
    "removed": "The entry is removed.",
    "noted": "Your notes are saved.",
    "uploaded": "The image is uploaded: choose it for an entry below.",
    "kept": "That image was uploaded already: choose it for an entry below.",
    "image_removed": "The image is removed.",
}


def _size(n: int) -> str:
    """A number of bytes in words: kB under a megabyte, else MB."""
    return f"{max(1, round(n / 1000)) if n else 0} kB" if n < 1_000_000 else f"{n / 1_000_000:.1f} MB"


def _page(
    request: Request, svc: Services, user: Any, state: TableState, *, error: str = "", status: int = 200
) -> Response:
    uid = user.user_id
    gm = state.is_gm(uid)
    query = request.query_params.get("q", "").strip()[:200]
    found = journal.search(state, uid, query) if query else journal.readable(state, uid)[::-1]  # newest first
    pages = max(1, -(-len(found) // PER_PAGE))
    try:
        at = min(max(1, int(request.query_params.get("page", "1"))), pages)
    except ValueError:
        at = 1
    entries = found[(at - 1) * PER_PAGE : at * PER_PAGE]
    names = state.names()
    members = [m for m in state.members if m.role is not Role.GM]
    used, sizes = svc.table.store.images_used(state.campaign_id) if gm else (0, [])
    in_use = {e.image for e in state.journal if e.image}
    notes = journal.private_notes(state, uid)
    return render(
        request,
        "journal.html",
        svc,
        user,
        status=status,
        campaign=state,
        gm=gm,
        query=query,
        found=len(found),
        at=at,
        pages=pages,
        entries=[
            {
                "entry": e,
                "html": rendered(e.body),
                "image": image_url(state.campaign_id, e.image) if e.image else None,
                "readers": ", ".join(names.get(r, r) for r in e.readers),
            }
            for e in entries
        ],
        members=members,
        images=[
            {"digest": d, "url": image_url(state.campaign_id, d), "kb": max(1, round(size / 1000)), "used": d in in_use}
            for d, size in sizes
        ],
        used=_size(used),
        quota=_size(int(svc.settings.image_quota_mb * 1_000_000)),
        accept=ACCEPT,
        image_mb=MAX_BYTES // (1024 * 1024),
        characters=[
            {"id": c.id, "name": c.name, "notes": notes.get(c.id, "")}
            for c in state.characters
            if gm or (c.owner == uid and state.role_of(uid) is Role.PLAYER)
        ],
        entry_length=journal.ENTRY_LENGTH,
        note_length=journal.NOTE_LENGTH,
        error=error,
        done=DONE.get(request.query_params.get("done", "")) if not error else None,
    )


def _run(request: Request, svc: Services, user: Any, state: TableState, cmd: Any) -> Response | None:
    """Run a table command for the page; None when it was done, else the page again with what was wrong."""
    try:
        check(svc, state.campaign_id, cmd)
        svc.table.execute(state.campaign_id, user.user_id, cmd)
    except RulesError as err:
        said = f"{err.reason}. Tip: {err.fix}"
        status = 403 if isinstance(err, Forbidden) else 409
        return _page(request, svc, user, state, error=said[:1].upper() + said[1:], status=status)
    return None


@router.get("/campaigns/{campaign_id}/journal")
@page
def journal_page(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """The entries the member may read, found by words with `q`; the GM's writing; the member's private notes."""
    assert user is not None
    return _page(request, svc, user, member(svc, campaign_id, user))


@router.post("/campaigns/{campaign_id}/journal")
async def write_entry(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    form = await request.form()
    fields = {k: v for k, v in form.items() if isinstance(v, str)}
    return await run_in_threadpool(_write, campaign_id=campaign_id, request=request, svc=svc, user=user, form=fields)


@page
def _write(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep, form: dict[str, str]) -> Response:
    """Write a new entry, or edit one (`entry`)."""
    assert user is not None
    state = member(svc, campaign_id, user)
    cmd = WriteEntry(form.get("title", ""), form.get("body", ""), form.get("entry") or None, form.get("image", ""))
    refused = _run(request, svc, user, state, cmd)
    entry = form.get("entry") or f"e{state.journal_made + 1}"
    return refused or _back(campaign_id, f"#{entry}", "written")


@router.post("/campaigns/{campaign_id}/journal/{entry}/show")
async def show_entry(campaign_id: str, entry: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    form = await request.form()
    to = str(form.get("to", "nobody"))
    readers = tuple(str(r) for r in form.getlist("readers"))
    return await run_in_threadpool(
        _show, campaign_id=campaign_id, entry=entry, request=request, svc=svc, user=user, to=to, readers=readers
    )


@page
def _show(
    campaign_id: str,
    entry: str,
    request: Request,
    svc: ServicesDep,
    user: MaybeUserDep,
    to: str,
    readers: tuple[str, ...],
) -> Response:
    """Show an entry to nobody, to the members ticked, or to everyone."""
    assert user is not None
    state = member(svc, campaign_id, user)
    if to not in ("nobody", "chosen", "everyone"):
        said = "Choose whom to show it to: nobody but you, the members ticked, or everyone."
        return _page(request, svc, user, state, error=said, status=422)
    if to == "nobody" and readers:  # members ticked: they are whom the GM means
        to = "chosen"
    if to == "chosen" and not readers:
        said = "Tick the members to show it to, or choose nobody or everyone."
        return _page(request, svc, user, state, error=said, status=409)
    cmd = ShowEntry(entry, everyone=to == "everyone", readers=readers if to == "chosen" else ())
    return _run(request, svc, user, state, cmd) or _back(campaign_id, f"#{entry}", "shown")


@router.post("/campaigns/{campaign_id}/journal/{entry}/remove")
@page
def remove_entry(campaign_id: str, entry: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    assert user is not None
    state = member(svc, campaign_id, user)
    return _run(request, svc, user, state, RemoveEntry(entry)) or _back(campaign_id, "", "removed")


@router.post("/campaigns/{campaign_id}/journal/notes/{character}")
async def write_notes(
    campaign_id: str, character: str, request: Request, svc: ServicesDep, user: MaybeUserDep
) -> Response:
    form = await request.form()
    text = str(form.get("text", ""))
    return await run_in_threadpool(
        _notes, campaign_id=campaign_id, character=character, request=request, svc=svc, user=user, text=text
    )


@page
def _notes(
    campaign_id: str, character: str, request: Request, svc: ServicesDep, user: MaybeUserDep, text: str
) -> Response:
    """Set the private notes on one of the member's characters."""
    assert user is not None
    state = member(svc, campaign_id, user)
    cmd = WritePrivateNote(character, text)
    return _run(request, svc, user, state, cmd) or _back(campaign_id, f"#notes-{character}", "noted")


@router.post("/campaigns/{campaign_id}/journal/images")
async def upload_image(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    form = await request.form()
    upload = form.get(IMAGE_FIELD)
    data = await upload.read() if isinstance(upload, UploadFile) else b""
    return await run_in_threadpool(_upload, campaign_id=campaign_id, request=request, svc=svc, user=user, data=data)


def _gm(svc: Services, campaign_id: str, user: Any) -> TableState:
    state = member(svc, campaign_id, user)
    if not state.is_gm(user.user_id):
        raise Refused(403, "Only the GM uploads and removes the journal's images.")
    return state


@page
def _upload(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep, data: bytes) -> Response:
    """Check and re-encode an image (as a portrait is) and keep it for the campaign's entries, within its quota."""
    assert user is not None
    state = _gm(svc, campaign_id, user)
    try:
        made = reencode(data, svc.images.slot)
    except PortraitRefused as err:
        said = err.message.replace("a portrait", "an image")
        return _page(request, svc, user, state, error=f"The image was not uploaded: {said}.", status=err.status)
    except Busy as busy:
        said = f"The image was not uploaded: {busy.reason}. Tip: {busy.fix}."
        answer = _page(request, svc, user, state, error=said, status=503)
        answer.headers.update(busy.headers or {})
        return answer
    image = CampaignImage.of(
        campaign_id,
        made.image,
        media_type=made.media_type,
        width=made.width,
        height=made.height,
        set_by=user.user_id,
        set_at=stamp(),
    )
    quota = int(svc.settings.image_quota_mb * 1_000_000)
    try:
        added = svc.table.store.add_image(image, quota)
    except OverQuota as err:
        return _page(request, svc, user, state, error=f"The image was not uploaded: {err}.", status=413)
    return _back(campaign_id, "#images", "uploaded" if added else "kept")


@router.post("/campaigns/{campaign_id}/journal/images/{digest}/remove")
@page
def remove_image(campaign_id: str, digest: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """Remove an image no entry shows."""
    assert user is not None
    state = _gm(svc, campaign_id, user)
    showing = [e.title for e in state.journal if e.image == digest]
    if showing:
        said = f"The image is shown by “{showing[0]}”. Tip: choose another image for that entry first, then remove it."
        return _page(request, svc, user, state, error=said, status=409)
    if not svc.table.store.remove_image(campaign_id, digest):
        raise Refused(404, "There is no such image in this campaign.")
    return _back(campaign_id, "#images", "image_removed")


@router.get("/campaigns/{campaign_id}/images/{digest}")
@page
def campaign_image(campaign_id: str, digest: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """An image, to the GM and to members who may read an entry showing it; the same 404 whether there is no such
    image or the viewer may not see it."""
    assert user is not None
    state = member(svc, campaign_id, user)
    uid = user.user_id
    seen = state.is_gm(uid) or any(e.image == digest for e in journal.readable(state, uid))
    kept = svc.table.store.campaign_image(campaign_id, digest) if seen else None
    if kept is None:
        raise Refused(404, "There is no image here.")
    headers = {"ETag": f'"{kept.digest}"', "Cache-Control": f"private, max-age={KEPT_S}, immutable"}
    return Response(kept.image, media_type=kept.media_type, headers=headers)
