"""Server-rendered pages (Jinja2 + htmx). Handlers only gather what the templates show."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from herotable.server import api
from herotable.server.deps import MaybeUserDep, ServicesDep, check_csrf

templates = Jinja2Templates(directory=Path(__file__).with_name("templates"))
router = APIRouter(dependencies=[Depends(check_csrf)])


def render(request: Request, name: str, svc: ServicesDep, user: Any, status: int = 200, **context: Any) -> HTMLResponse:
    csrf = svc.sessions.csrf_token(request.state.session)
    return templates.TemplateResponse(request, name, {"user": user, "csrf": csrf, **context}, status_code=status)


@router.get("/", response_class=HTMLResponse)
def index(request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    if user is None:
        return render(request, "login.html", svc, None)
    return render(request, "campaigns.html", svc, user, campaigns=api.my_campaigns(svc, user))


@router.post("/login")
def login_form(
    request: Request, svc: ServicesDep, username: str = Form(...), password: str = Form(...), next: str = Form("/")
) -> Response:
    try:
        user = api.authenticate(request, svc, username, password)
    except HTTPException as err:
        return render(request, "login.html", svc, None, status=err.status_code, error=err.detail, username=username)
    response = RedirectResponse(next if next.startswith("/") else "/", status_code=303)
    api.login_session(request, response, svc, user)
    return response


@router.post("/register")
def register_form(
    request: Request,
    svc: ServicesDep,
    username: str = Form(...),
    password: str = Form(...),
    display_name: str = Form(...),
) -> Response:
    from pydantic import ValidationError

    from herotable.store.accounts import UsernameTaken

    try:
        body = api.Registration(username=username, password=password, display_name=display_name)
        user = api.register_user(svc, body)
    except ValidationError as err:
        first = err.errors()[0]
        message = f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
        return render(request, "login.html", svc, None, status=422, register_error=message, username=username)
    except UsernameTaken as err:
        return render(request, "login.html", svc, None, status=409, register_error=err.reason, username=username)
    response = RedirectResponse("/", status_code=303)
    api.login_session(request, response, svc, user)
    return response


@router.post("/logout")
def logout_form(request: Request, svc: ServicesDep) -> Response:
    response = RedirectResponse("/", status_code=303)
    api.login_session(request, response, svc, None)
    return response


@router.get("/join/{code}", response_class=HTMLResponse, name="join_page")
def join_page(code: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    invite = svc.accounts.invite(code)
    if invite is None:
        return render(
            request,
            "message.html",
            svc,
            user,
            status=404,
            message="This invitation is unknown or was withdrawn. Ask the GM for a new link.",
        )
    state = svc.table.state(invite.campaign_id)
    if user is None:
        return render(
            request, "login.html", svc, None, next=f"/join/{code}", notice=f"Log in or register to join {state.name}."
        )
    if state.role_of(user.user_id) is not None:
        return RedirectResponse(f"/campaigns/{invite.campaign_id}", status_code=303)
    return render(request, "join.html", svc, user, code=code, campaign=state, role=invite.role)


@router.post("/join/{code}")
def join_form(
    code: str, request: Request, svc: ServicesDep, user: MaybeUserDep, display_name: str = Form("")
) -> Response:
    if user is None:
        return RedirectResponse(f"/join/{code}", status_code=303)
    campaign_id = api.join_with_code(svc, code, user, display_name.strip() or None)
    return RedirectResponse(f"/campaigns/{campaign_id}", status_code=303)
