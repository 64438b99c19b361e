"""Game sessions' recaps on the web, for every member: the list of sessions, a session's recap as a page, as a
Markdown file and as a printable HTML file (standalone: its own print style, no script), and the GM's form for their
own paragraph.

Each is built for its reader (`herotable.service.recaps`): a player's recap holds nothing the player may not see, on
any of the three. The game's part comes through the `Game` interface (`Game.recap`): nothing here asks which game a
campaign plays.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import RedirectResponse, Response

from herotable.errors import RulesError
from herotable.server.deps import MaybeUserDep, ServicesDep, check_csrf
from herotable.server.pages import Refused, labelled, member, page, render, templates
from herotable.service.recaps import Listed, no_such_session, read_recap, sessions_of
from herotable.table.commands import command_from_json
from herotable.table.recap import Recap, head_line, markdown, scene_words, session_title, when, who_words
from herotable.table.recap_notes import NOTE_LENGTH, WRITE
from herotable.table.state import TableState

router = APIRouter(dependencies=[Depends(check_csrf)])

FIELD_LABELS = {"text": "Your paragraph"}


def file_name(recap: Recap, extension: str) -> str:
    """A download's name: the campaign's in plain letters, and the session's number."""
    slug = re.sub(r"[^a-z0-9]+", "-", recap.campaign.lower()).strip("-")[:60] or "campaign"
    return f"{slug}-session-{recap.session}.{extension}"


def _recap(svc: ServicesDep, state: TableState, number: str, user: Any) -> Recap:
    """The recap of session `number` (as the address spells it) for the user; refused as a page when there is none."""
    plain = number.isascii() and number.isdigit() and len(number) <= 9  # no session number is longer
    found = read_recap(svc.table.store, state, int(number), user.user_id) if plain else None
    if found is None:
        said, fix = no_such_session(state, number)
        raise Refused(404, f"{said[:1].upper()}{said[1:]}: {fix}.")
    return found


def _context(recap: Recap) -> dict[str, Any]:
    """What both HTML forms of a recap show, in words."""
    return {
        "recap": recap,
        "head_line": head_line(recap),
        "scenes": [scene_words(s) for s in recap.scenes],
        "who": who_words(recap),
        "note_at": when(recap.note.at) if recap.note else "",
        "paragraphs": recap.note.text.split("\n") if recap.note else [],
    }


def _listed_words(s: Listed) -> dict[str, Any]:
    return {
        "number": s.number,
        "title": session_title(s.number),
        "adventure": s.adventure if s.number else 0,
        "started": when(s.started_at),
        "ended": when(s.ended_at),
        "noted": s.noted,
    }


@router.get("/campaigns/{campaign_id}/recaps")
@page
def recaps_page(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """The campaign's game sessions, newest first, each linking its recap."""
    assert user is not None
    state = member(svc, campaign_id, user)
    listed = [_listed_words(s) for s in reversed(sessions_of(svc.table.store, state, user.user_id))]
    return render(request, "recaps.html", svc, user, campaign=state, sessions=listed)


def _page(
    request: Request,
    svc: ServicesDep,
    user: Any,
    state: TableState,
    recap: Recap,
    *,
    typed: str | None = None,
    error: Any = None,
) -> Response:
    last = state.structure.session
    return render(
        request,
        "recap.html",
        svc,
        user,
        status=422 if error else 200,
        campaign=state,
        gm=state.is_gm(user.user_id) and not state.archived,
        typed=typed if typed is not None else (recap.note.text if recap.note else ""),
        error=error,
        note_length=NOTE_LENGTH,
        previous=recap.session - 1 if recap.session > 0 else None,
        next=recap.session + 1 if recap.session < last else None,
        done=request.query_params.get("done") == "saved" and not error,
        **_context(recap),
    )


@router.get("/campaigns/{campaign_id}/recaps/{number}")
@page
def recap_page(campaign_id: str, number: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """One session's recap as its reader may see it; the GM's form for their own paragraph."""
    assert user is not None
    state = member(svc, campaign_id, user)
    return _page(request, svc, user, state, _recap(svc, state, number, user))


@router.post("/campaigns/{campaign_id}/recaps/{number}")
@page
def write_note(
    campaign_id: str, number: str, request: Request, svc: ServicesDep, user: MaybeUserDep, text: str = Form("")
) -> Response:
    """The GM writes (or writes again, or empties) their paragraph; a refusal comes back with what was typed."""
    assert user is not None
    state = member(svc, campaign_id, user)
    if not state.is_gm(user.user_id):
        raise Refused(403, "Only the GM writes a paragraph of their own in a recap.")
    recap = _recap(svc, state, number, user)
    try:
        svc.table.execute(
            campaign_id,
            user.user_id,
            # a form sends each line break as CR LF: counted as one, as the paragraph keeps it
            command_from_json({"type": WRITE, "session": recap.session, "text": text.replace("\r\n", "\n")}),
        )
    except RulesError as err:
        return _page(request, svc, user, state, recap, typed=text, error=labelled(err, FIELD_LABELS))
    return RedirectResponse(f"/campaigns/{campaign_id}/recaps/{recap.session}?done=saved#note", status_code=303)


@router.get("/campaigns/{campaign_id}/recaps/{number}/recap.md")
@page
def recap_markdown(campaign_id: str, number: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """The recap as a Markdown file, for its reader."""
    assert user is not None
    recap = _recap(svc, member(svc, campaign_id, user), number, user)
    return Response(
        markdown(recap),
        media_type="text/markdown; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{file_name(recap, "md")}"'},
    )


@router.get("/campaigns/{campaign_id}/recaps/{number}/recap.html")
@page
def recap_printable(campaign_id: str, number: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """The recap as a printable HTML file, for its reader: one page of its own, styled for paper, without script."""
    assert user is not None
    recap = _recap(svc, member(svc, campaign_id, user), number, user)
    shown = templates.get_template("recap_print.html").render(**_context(recap))
    return Response(
        shown,
        media_type="text/html; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{file_name(recap, "html")}"'},
    )
