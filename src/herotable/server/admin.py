"""The server's administration: its accounts and campaigns, for the server's admins (an account made admin from the
shell, never by registering) on the web at /admin, and for whoever runs the shell through `herotable users` and
`herotable campaigns`. Both go through the functions here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from herotable.server.api.accounts import sessions_ended
from herotable.server.auth import stamp
from herotable.server.deps import MaybeUserDep, ServicesDep, check_csrf
from herotable.server.pages import Refused, page, render
from herotable.server.presenter import listed
from herotable.store.accounts import AccountStore, User
from herotable.store.port import EventStore
from herotable.table.game import game_for

router = APIRouter(dependencies=[Depends(check_csrf)])


class AdminError(ValueError):
    """An administration step that cannot be taken, in words with a tip."""


def find_user(accounts: AccountStore, name: str) -> User:
    user = accounts.user_by_name(name.lower())
    if user is None:
        raise AdminError(f"there is no user {name!r}. Tip: `herotable users list` shows every account")
    return user


def set_disabled(accounts: AccountStore, user: User, disabled: bool) -> int:
    """Disable the account (every session of it ends; the caller closes its live sockets) or enable it again; the
    number of sessions that ended."""
    if disabled == user.disabled:
        return 0
    if not disabled:
        accounts.set_disabled(user.user_id, None)
        return 0
    now = stamp()
    accounts.set_disabled(user.user_id, now)
    accounts.revoke_tokens(user.user_id, now)
    return accounts.revoke_sessions(user.user_id, now)


def user_row(user: User) -> dict[str, Any]:
    return {
        "user_id": user.user_id,
        "username": user.username,
        "display_name": user.display_name,
        "created_at": user.created_at,
        "admin": user.admin,
        "disabled_at": user.disabled_at,
    }


@dataclass(frozen=True)
class CampaignLine:
    campaign_id: str
    name: str
    game: str
    created_at: str
    events: int
    gm: str | None  # the GM's username
    members: int
    readable: bool  # False: recorded by an older herotable, kept but not served

    def to_json(self) -> dict[str, Any]:
        return dict(vars(self))


def campaign_lines(store: EventStore, accounts: AccountStore) -> list[CampaignLine]:
    """Every campaign of the server, oldest first, with its GM and how many members it has."""
    names = {u.user_id: u.username for u in accounts.users()}
    lines = []
    for row in sorted(store.campaigns(), key=lambda r: (r.created_at, r.campaign_id)):
        members = store.members(row.campaign_id)
        gm = next((m.user for m in members if m.role == "gm"), None)
        lines.append(
            CampaignLine(
                row.campaign_id,
                row.name,
                row.ruleset,
                row.created_at,
                row.head,
                names.get(gm, gm) if gm else None,
                len(members),
                row.log_version >= 2,
            )
        )
    return lines


# --- the web page ---


def _admin(user: User | None) -> User:
    if user is None or not user.admin:
        raise Refused(
            403,
            "This page is for the server's admins. Whoever runs the server makes one from its shell: "
            "herotable users promote USERNAME.",
        )
    return user


@router.get("/admin", response_class=HTMLResponse)
@page
def admin_page(request: Request, svc: ServicesDep, user: MaybeUserDep, done: str = "") -> Response:
    admin = _admin(user)
    return render(
        request,
        "admin.html",
        svc,
        admin,
        users=svc.accounts.users(),
        campaigns=campaign_lines(svc.table.store, svc.accounts),
        titles={p.ruleset.value: game_for(p.ruleset).title for p in listed()},
        notice=done[:200],
    )


def _switch(request: Request, svc: ServicesDep, user: MaybeUserDep, user_id: str, disabled: bool) -> Response:
    admin = _admin(user)
    target = svc.accounts.user(user_id)
    if target is None:
        raise Refused(404, "There is no such account.")
    if target.user_id == admin.user_id and disabled:
        raise Refused(409, "You cannot disable your own account here. Another admin can, or the shell.")
    ended = set_disabled(svc.accounts, target, disabled)
    if disabled:
        sessions_ended(request, target.user_id)  # its live tables close now, on every process
        said = f"{target.username} is disabled; {ended} session{'' if ended == 1 else 's'} ended."
    else:
        said = f"{target.username} may log in again."
    return RedirectResponse(f"/admin?done={said}", status_code=303)


@router.post("/admin/users/{user_id}/disable")
@page
def disable_form(request: Request, svc: ServicesDep, user: MaybeUserDep, user_id: str) -> Response:
    return _switch(request, svc, user, user_id, True)


@router.post("/admin/users/{user_id}/enable")
@page
def enable_form(request: Request, svc: ServicesDep, user: MaybeUserDep, user_id: str) -> Response:
    return _switch(request, svc, user, user_id, False)
