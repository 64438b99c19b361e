"""Requests refused before any route reads them: oversized bodies, NUL characters; and the security headers on every
answer. On SQLite and PostgreSQL, since a NUL that reached PostgreSQL used to answer 500."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from http import HTTPStatus
from typing import Any

import pytest
from fastapi.testclient import TestClient

from herotable.server.app import create_app
from herotable.server.limits import MAX_BODY_BYTES
from herotable.server.settings import Settings
from herotable.store.sql import open_store
from isolation import CHEAP_HASHES

PASSWORD = "correct-horse-battery"


@pytest.fixture(params=["sqlite", "postgresql"])
def client(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[TestClient]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'limits.db'}"
    else:
        url = request.getfixturevalue("postgres_schema")()
    store = open_store(url)
    app = create_app(Settings(secret_key="limits-tests-secret-0123456789", **CHEAP_HASHES), store=store)
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c
    store.close()


def _csrf(c: TestClient) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', c.get("/login").text)
    assert found
    return found.group(1)


@pytest.fixture
def gm(client: TestClient) -> tuple[TestClient, dict[str, str], str]:
    """A logged-in GM with a campaign: (client, headers with the CSRF token, campaign id)."""
    csrf = _csrf(client)
    form = {"csrf_token": csrf, "username": "gamemaster", "display_name": "GM", "password": PASSWORD, "next": "/"}
    assert client.post("/register", data=form, follow_redirects=False).status_code == 303
    headers = {"X-CSRF-Token": _csrf(client)}
    made = client.post("/api/v1/campaigns", json={"name": "Limits", "ruleset": "ltl"}, headers=headers)
    assert made.status_code == 201, made.text
    return client, headers, made.json()["campaign_id"]


def _events(c: TestClient, cid: str) -> list[Any]:
    answer = c.get(f"/api/v1/campaigns/{cid}/events")
    assert answer.status_code == 200, answer.text
    events: list[Any] = answer.json()["events"]
    return events


def test_a_body_over_the_limit_is_refused_and_changes_nothing(gm: tuple[TestClient, dict[str, str], str]) -> None:
    c, headers, cid = gm
    before = _events(c, cid)
    huge = {"type": "table.roll", "expression": "1d20", "label": "x" * (MAX_BODY_BYTES + 1)}
    answer = c.post(f"/api/v1/campaigns/{cid}/commands", json=huge, headers=headers)
    assert answer.status_code == 413
    assert answer.json()["code"] == "request/too_large" and "64 KB" in answer.json()["detail"]
    assert _events(c, cid) == before


def test_a_streamed_body_without_a_length_is_counted_too(gm: tuple[TestClient, dict[str, str], str]) -> None:
    c, headers, cid = gm
    before = _events(c, cid)

    def chunks() -> Iterator[bytes]:
        yield b'{"type": "table.roll", "expression": "1d20", "label": "'
        for _ in range(100):
            yield b"y" * 1024
        yield b'"}'

    answer = c.post(
        f"/api/v1/campaigns/{cid}/commands",
        content=chunks(),
        headers={**headers, "content-type": "application/json"},
    )
    assert answer.status_code == 413
    assert _events(c, cid) == before


def test_a_body_under_the_limit_still_reaches_its_route(gm: tuple[TestClient, dict[str, str], str]) -> None:
    c, headers, cid = gm
    answer = c.post(
        f"/api/v1/campaigns/{cid}/commands", json={"type": "table.roll", "expression": "2d6"}, headers=headers
    )
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize(
    "path",
    ["/join/a%00b", "/campaigns/a%00b", "/api/v1/campaigns/a%00b", "/api/v1/campaigns/a%00b/events", "/login?next=%00"],
)
def test_a_nul_in_the_address_is_refused_for_anyone(client: TestClient, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 400
    error = answer.json()
    assert error["code"] == "request/nul" and "%00" in error["fix"]


@pytest.mark.parametrize(
    ("url", "form"),
    [
        ("/login", {"username": "a\0b", "password": PASSWORD}),
        ("/register", {"username": "newbie", "display_name": "a\0b", "password": PASSWORD}),
    ],
)
def test_a_nul_in_a_form_is_refused_and_registers_no_one(client: TestClient, url: str, form: dict[str, str]) -> None:
    answer = client.post(url, data={"csrf_token": _csrf(client), **form}, follow_redirects=False)
    assert answer.status_code == 422
    assert answer.json()["code"] == "request/nul"
    login = {"csrf_token": _csrf(client), "username": "newbie", "password": PASSWORD}
    assert client.post("/login", data=login, follow_redirects=False).status_code != 303


def test_a_nul_in_json_names_its_field(gm: tuple[TestClient, dict[str, str], str]) -> None:
    c, headers, cid = gm
    answer = c.post("/api/v1/campaigns", json={"name": "a\0b", "ruleset": "ltl"}, headers=headers)
    assert answer.status_code == 422
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json() | {"detail": ""} == {
        "type": "about:blank",
        "title": HTTPStatus(422).phrase,
        "status": 422,
        "code": "request/nul",
        "detail": "",
        "fix": "remove the character and send it again",
        "field": "name",
    }
    # a text that only shows a backslash and "u0000" is text like any other
    shown = c.post(
        f"/api/v1/campaigns/{cid}/commands",
        json={"type": "table.roll", "expression": "1d6", "label": "type \\u0000 to see"},
        headers=headers,
    )
    assert shown.status_code == 200, shown.text


@pytest.mark.parametrize("path", ["/", "/login", "/api/v1/campaigns", "/static/herotable.css", "/join/a%00b"])
def test_every_answer_carries_the_security_headers(client: TestClient, path: str) -> None:
    headers = client.get(path).headers
    policy = headers["content-security-policy"]
    script = next(part for part in policy.split(";") if part.strip().startswith("script-src"))
    assert script.strip() == "script-src 'self'"  # no inline script, no eval, nothing from elsewhere
    assert "frame-ancestors 'none'" in policy
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "same-origin"


def test_no_page_holds_inline_script(gm: tuple[TestClient, dict[str, str], str]) -> None:
    c, _, cid = gm
    pages: list[Callable[[], Any]] = [lambda: c.get("/"), lambda: c.get(f"/campaigns/{cid}"), lambda: c.get("/login")]
    for page in pages:
        html = page().text
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert "src=" in tag, tag
        assert not re.search(r"\son[a-z]+=", html), "an inline event handler"
        assert ' style="' not in html


def test_every_text_box_on_the_forms_says_how_long_it_may_be(gm: tuple[TestClient, dict[str, str], str]) -> None:
    # R-T-5: the limit a field is refused past is shown on its form as `maxlength`
    c, _, cid = gm
    for path in ("/login", "/", f"/campaigns/{cid}/characters/new"):
        html = c.get(path).text
        boxes = re.findall(r"<(?:input|textarea)\b[^>]*>", html)
        typed = [b for b in boxes if not re.search(r'type="(hidden|checkbox|number|radio)"', b) and "readonly" not in b]
        assert typed, path
        for box in typed:
            assert "maxlength=" in box, (path, box)


def test_answers_made_for_a_member_are_never_stored_by_caches(gm: tuple[TestClient, dict[str, str], str]) -> None:
    c, _, cid = gm
    for path in ("/", f"/campaigns/{cid}", f"/api/v1/campaigns/{cid}"):
        assert c.get(path).headers["cache-control"] == "no-store", path
    assert c.get("/static/herotable.css").headers.get("cache-control") != "no-store"  # the same for everyone


def test_campaign_and_invitation_bodies_name_no_field_they_do_not_have(
    gm: tuple[TestClient, dict[str, str], str],
) -> None:
    c, headers, cid = gm
    made = c.post("/api/v1/campaigns", json={"name": "X", "ruleset": "ltl", "campaign_id": "chosen"}, headers=headers)
    assert made.status_code == 422 and made.json()["field"] == "campaign_id"
    invite = c.post(f"/api/v1/campaigns/{cid}/invites", json={"role": "player", "uses": 10**20}, headers=headers)
    assert invite.status_code == 422 and invite.json()["field"] == "uses"


def test_invitation_links_use_the_servers_own_address_not_the_clients_host(tmp_path: Any) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'links.db'}")
    settings = Settings(
        secret_key="limits-tests-secret-0123456789", public_url="https://table.example/", **CHEAP_HASHES
    )
    # an https public URL makes the cookies Secure: the client speaks https, as a browser there would
    with TestClient(create_app(settings, store=store), base_url="https://testserver") as c:
        form = {"csrf_token": _csrf(c), "username": "gamemaster", "display_name": "GM", "password": PASSWORD}
        assert c.post("/register", data=form, follow_redirects=False).status_code == 303
        headers = {"X-CSRF-Token": _csrf(c)}
        cid = c.post("/api/v1/campaigns", json={"name": "L", "ruleset": "ltl"}, headers=headers).json()["campaign_id"]
        made = c.post(
            f"/api/v1/campaigns/{cid}/invites", json={"role": "player"}, headers={**headers, "Host": "evil.example"}
        )
        assert made.status_code == 201, made.text
        assert made.json()["link"] == f"https://table.example/join/{made.json()['code']}"
    store.close()


def test_the_body_limit_is_a_setting() -> None:
    from .clients import make_app, register

    app = make_app(body_limit_kib=16)
    gwen = register(app, "gwen")
    cid = gwen.post("/api/v1/campaigns", {"name": "Small", "ruleset": "ltl"}).json()["campaign_id"]
    refused = gwen.client.post(
        f"/api/v1/campaigns/{cid}/commands", json={"type": "chat.say", "text": "y" * 17_000}, headers=gwen.headers
    )  # under the default 64 KB, over this server's 16 KB
    assert refused.status_code == 413 and "16 KB" in refused.json()["detail"]
    assert gwen.command(cid, type="chat.say", text="a line of chat").status_code == 200


def test_a_json_body_nested_past_any_parser_is_refused_without_a_server_error() -> None:
    from .clients import make_app, register

    app = make_app()
    gwen = register(app, "gwen")
    cid = gwen.post("/api/v1/campaigns", {"name": "Deep", "ruleset": "ltl"}).json()["campaign_id"]
    for inner in ('"\\u0000"', "1"):
        body = "[" * 5000 + inner + "]" * 5000
        answer = gwen.client.post(
            f"/api/v1/campaigns/{cid}/commands",
            content=body,
            headers={**gwen.headers, "content-type": "application/json"},
        )
        assert answer.status_code == 400, answer.text
        assert answer.headers["content-type"] == "application/problem+json"
