"""Behind a reverse proxy: forwarded headers believed only from trusted proxies, and the live socket's Origin
compared by scheme, host and port with the public URL or the request's own address."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from herotable.server.proxy import origin_of, same_site

from .clients import Member, make_app, register

FORWARDED = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "table.example", "X-Forwarded-For": "203.0.113.9"}


def _campaign(app: object, peer: tuple[str, int] = ("testclient", 50000)) -> tuple[str, Member]:
    gm = register(app, "gwen")
    gm.client = _moved(gm.client, peer)
    cid = gm.post("/api/v1/campaigns", {"name": "Harbour Nights", "ruleset": "ltl"}).json()["campaign_id"]
    return cid, gm


def _moved(client: TestClient, peer: tuple[str, int]) -> TestClient:
    moved = TestClient(client.app, client=peer)
    moved.cookies = client.cookies
    return moved


def _socket_closes(gm: Member, cid: str, headers: dict[str, str]) -> int | None:
    """The close code when the socket is refused, None when it says hello."""
    try:
        with gm.client.websocket_connect(f"/ws/campaigns/{cid}", headers=headers) as ws:
            assert ws.receive_json()["type"] == "hello"
            return None
    except WebSocketDisconnect as closed:
        return closed.code


def test_origins_are_compared_by_scheme_host_and_port() -> None:
    assert origin_of("https://Table.Example") == ("https", "table.example", 443)
    assert origin_of("wss://table.example:443/ws") == ("https", "table.example", 443)
    assert origin_of("evil://127.0.0.1:8201") is None and origin_of("null") is None
    here = {"public_url": None, "scheme": "ws", "host": "127.0.0.1:8201"}
    assert same_site("http://127.0.0.1:8201", **here)
    assert not same_site("evil://127.0.0.1:8201", **here)  # passed when only host and port were compared
    assert not same_site("https://127.0.0.1:8201", **here)
    assert not same_site("http://127.0.0.1:8202", **here)
    assert same_site("https://table.example", public_url="https://table.example", scheme="ws", host="127.0.0.1:8000")
    assert not same_site("http://127.0.0.1:8000", public_url="https://table.example", scheme="ws", host="127.0.0.1")


def test_a_socket_from_another_scheme_or_port_is_refused_without_a_public_url() -> None:
    cid, gm = _campaign(make_app())
    assert _socket_closes(gm, cid, {"origin": "http://testserver"}) is None
    assert _socket_closes(gm, cid, {"origin": "http://testserver:80"}) is None
    for origin in ("evil://testserver", "https://testserver", "http://testserver:8080", "null"):
        assert _socket_closes(gm, cid, {"origin": origin}) == 4403, origin


def test_with_a_public_url_only_its_origin_opens_a_socket_whatever_the_host_header() -> None:
    cid, gm = _campaign(make_app(public_url="https://table.example", secure_cookies=False))
    assert _socket_closes(gm, cid, {"origin": "https://table.example"}) is None  # nginx sent Host: 127.0.0.1:8000
    assert _socket_closes(gm, cid, {"origin": "http://testserver"}) == 4403
    assert _socket_closes(gm, cid, {"origin": "https://table.example:8443"}) == 4403


def test_a_trusted_proxys_forwarded_scheme_and_host_are_the_requests_own() -> None:
    app = make_app(trusted_proxies=("127.0.0.1",), secure_cookies=False)
    cid, gm = _campaign(app, peer=("127.0.0.1", 40000))
    assert _socket_closes(gm, cid, {"origin": "https://table.example", **FORWARDED}) is None
    assert _socket_closes(gm, cid, {"origin": "http://testserver", **FORWARDED}) == 4403
    invite = gm.client.post(
        f"/api/v1/campaigns/{cid}/invites", json={"role": "player"}, headers={**gm.headers, **FORWARDED}
    )
    assert invite.json()["link"].startswith("https://table.example/join/")


def test_anyone_elses_forwarded_headers_are_ignored() -> None:
    app = make_app(trusted_proxies=("127.0.0.1",))
    cid, gm = _campaign(app, peer=("198.51.100.4", 40000))
    assert _socket_closes(gm, cid, {"origin": "https://table.example", **FORWARDED}) == 4403
    assert _socket_closes(gm, cid, {"origin": "http://testserver", **FORWARDED}) is None
    invite = gm.client.post(
        f"/api/v1/campaigns/{cid}/invites", json={"role": "player"}, headers={**gm.headers, **FORWARDED}
    )
    assert invite.json()["link"].startswith("http://testserver/join/")


@pytest.mark.parametrize("host", ["evil.example/path", "a b", "table.example:99999999", ""])
def test_a_forwarded_host_that_is_no_host_is_ignored(host: str) -> None:
    app = make_app(trusted_proxies=("127.0.0.1",))
    cid, gm = _campaign(app, peer=("127.0.0.1", 40000))
    headers = {**gm.headers, "X-Forwarded-Host": host}
    invite = gm.client.post(f"/api/v1/campaigns/{cid}/invites", json={"role": "player"}, headers=headers)
    assert invite.json()["link"].startswith("http://testserver/join/")


def test_an_https_public_url_makes_the_session_cookie_secure() -> None:
    client = TestClient(make_app(public_url="https://table.example"), base_url="https://table.example")
    cookie = client.get("/api/v1/csrf").headers["set-cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie
    plain = TestClient(make_app()).get("/api/v1/csrf").headers["set-cookie"]
    assert "Secure" not in plain
