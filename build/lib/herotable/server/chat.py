"""The log and chat panels of the table page, each with its own routes returning fragments; `log_fragment` and
`chat_fragment` render them for one viewer, for a live frame. The log's pages are read by `log_pages`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from herotable.errors import RulesError
from herotable.server import board
from herotable.server.deps import MaybeUserDep, ServicesDep, check_csrf
from herotable.server.log_pages import CHAT_FACTS, FILTERS, read_log
from herotable.server.pages import Refused, member, page, render, templates
from herotable.service import TableService
from herotable.table.chat import ChatRolled, parse_line
from herotable.table.render import LogEntry, Seen, log_entries
from herotable.table.state import Role, TableState

router = APIRouter(dependencies=[Depends(check_csrf)])

# --- the panels ---


@dataclass(frozen=True)
class Entry:
    """A log entry as the panel shows it: `kind` "chat" for chat (messages and rolls), `to` whom a whisper went."""

    log: LogEntry
    kind: str
    to: str
    lines: tuple[str, ...]
    faces: Any


def _once(seen: Sequence[Seen]) -> list[Seen]:
    """The facts without a command's second copy of one fact: a whisper between two players is stored once for each
    of them, and the GM reads both."""
    out: list[Seen] = []
    for s in seen:
        if out and out[-1].command_id == s.command_id and out[-1].fact == s.fact:
            continue
        out.append(s)
    return out


def entries(state: TableState, seen: Sequence[Seen], viewer: str) -> list[Entry]:
    """The page's entries, oldest first: the log reads down to the newest, as a conversation does."""
    names = state.names()
    facts = _once(seen)
    chat = {s.command_id: s for s in facts if s.fact.type in CHAT_FACTS}
    out = []
    for e in log_entries(state, facts):
        found = chat.get(e.command_id)
        if found is None:
            out.append(Entry(e, "", "", e.lines, _faces(e)))
            continue
        said: Any = found.fact
        out.append(Entry(e, "chat", _whom(state, found.actor, said.to, viewer, names), _words(said), _faces(e)))
    return out


def _whom(state: TableState, actor: str | None, to: str | None, viewer: str, names: dict[str, str]) -> str:
    """Whom a chat entry went to, as its viewer reads it ("" for everyone)."""
    if to is None:
        return ""
    if to == actor:
        return "the GM only (secret)"
    if to == viewer:
        return "you"
    return "the GM" if to == state.gm else names.get(to, "a former member")


def _words(said: Any) -> tuple[str, ...]:
    if isinstance(said, ChatRolled):
        return ((f"{said.label}: " if said.label else "") + said.text,)
    return (said.text,)


def _faces(e: LogEntry) -> Any:
    return board.faces(e) if e.dice else ""


@dataclass(frozen=True)
class LogView:
    """What parts/log.html shows: a panel, or with `more` only the next entries and the button after them."""

    url: str
    filter: str
    entries: list[Entry]
    older: str | None
    more: bool = False
    oob: bool = False
    filters: tuple[tuple[str, str], ...] = tuple(FILTERS.items())


def log_view(
    table: TableService, state: TableState, viewer: str, kind: str = "all", before: str | None = None
) -> LogView:
    """The log panel for `viewer`: the newest page in the filter `kind`, or the page before the cursor `before`."""
    got = read_log(table, state.campaign_id, viewer, kind, before=before)
    url = f"/campaigns/{state.campaign_id}/table/log"
    return LogView(url, kind, entries(state, got.seen, viewer), got.older, more=before is not None)


def log_fragment(
    table: TableService, state: TableState, viewer: str, kind: str = "all", *, oob: bool = False
) -> Markup:
    """The log panel for one viewer as HTML (its newest page), for a live frame: with `oob`, marked to replace the
    panel out of band (`hx-swap-oob`)."""
    view = log_view(table, state, viewer, kind)
    view = LogView(view.url, view.filter, view.entries, view.older, oob=oob)
    return Markup(templates.get_template("parts/log.html").render(logview=view, campaign=state))


@dataclass(frozen=True)
class ChatView:
    """What parts/chat.html shows: the form, with whom the viewer may whisper to, and what they typed when it was
    refused."""

    url: str
    recipients: tuple[tuple[str, str], ...]
    roll: bool
    to: str = ""
    text: str = ""
    error: str = ""
    oob: bool = False


def chat_view(state: TableState, viewer: str, *, to: str = "", text: str = "", error: str = "") -> ChatView:
    others = tuple(
        (m.user, ("GM · " if m.user == state.gm else "") + m.name) for m in state.members if m.user != viewer
    )
    role = state.role_of(viewer)
    playing = role is not None and role is not Role.SPECTATOR
    return ChatView(f"/campaigns/{state.campaign_id}/chat", others, playing, to, text, error)


def chat_fragment(state: TableState, viewer: str, csrf: str = "", *, oob: bool = False) -> Markup:
    """The chat panel for one viewer as HTML, for a live frame (`oob`: replace it out of band). The form carries
    `csrf` when given; htmx sends the page's token in a header either way."""
    view = chat_view(state, viewer)
    view = ChatView(view.url, view.recipients, view.roll, oob=oob)
    return Markup(templates.get_template("parts/chat.html").render(chatview=view, campaign=state, csrf=csrf))


# --- routes ---


@router.get("/campaigns/{campaign_id}/table/log", response_class=HTMLResponse)
@page
def log_part(
    campaign_id: str,
    request: Request,
    svc: ServicesDep,
    user: MaybeUserDep,
    filter: str = Query("all", max_length=10),
    before: str | None = Query(None, max_length=40),
) -> Response:
    """The log panel (newest first), in a filter; with `before`, only the entries before that cursor and the
    button to read on."""
    assert user is not None
    if filter not in FILTERS:
        raise Refused(422, f"There is no log filter {filter[:10]!r}: use one of {', '.join(FILTERS)}.")
    state = member(svc, campaign_id, user)
    try:
        view = log_view(svc.table, state, user.user_id, filter, before)
    except RulesError as err:
        raise Refused(422, f"{err.reason[0].upper()}{err.reason[1:]}. Tip: {err.fix}.") from None
    return render(request, "parts/log.html", svc, user, logview=view, campaign=state)


@router.get("/campaigns/{campaign_id}/chat", response_class=HTMLResponse)
@page
def chat_part(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """The chat panel: the box, and whom the viewer may whisper to."""
    assert user is not None
    state = member(svc, campaign_id, user)
    return render(request, "parts/chat.html", svc, user, chatview=chat_view(state, user.user_id), campaign=state)


@router.post("/campaigns/{campaign_id}/chat")
async def chat_post(
    campaign_id: str,
    request: Request,
    svc: ServicesDep,
    user: MaybeUserDep,
    text: str = Form(""),
    to: str = Form(""),
) -> Response:
    return await run_in_threadpool(
        _chat, campaign_id=campaign_id, request=request, svc=svc, user=user, text=text, to=to
    )


@page
def _chat(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep, text: str, to: str) -> Response:
    """Send what was typed: a message, a whisper or a roll. Refused, the panel comes back with the reason and the
    text as typed, and nothing is recorded."""
    assert user is not None
    state = member(svc, campaign_id, user)
    htmx = bool(request.headers.get("HX-Request"))
    try:
        svc.table.execute(campaign_id, user.user_id, parse_line(state, user.user_id, text, to or None))
    except RulesError as err:
        message = f"{err.reason[0].upper()}{err.reason[1:]}. Tip: {err.fix}."
        if not htmx:
            raise Refused(422, message) from None
        view = chat_view(state, user.user_id, to=to, text=text, error=message)
        return render(request, "parts/chat.html", svc, user, chatview=view, campaign=state)
    if not htmx:
        return RedirectResponse(f"/campaigns/{campaign_id}/table", status_code=303)
    fresh = svc.table.state(campaign_id)
    response = render(
        request, "parts/chat.html", svc, user, chatview=chat_view(fresh, user.user_id, to=to), campaign=fresh
    )
    response.headers["HX-Trigger"] = "chatted"
    return response
