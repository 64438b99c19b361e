"""Watching a server: /metrics (what it counts, and who may read it) and the log (one line per request and per
command, with the request's id, JSON when asked, and never a password, token, cookie or what anyone wrote)."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from herotable.cli import app as cli
from herotable.server.logs import JsonLines, TextLines
from herotable.store import open_store

from .clients import Member, make_app, register

HEROTABLE = str(Path(sys.executable).with_name("herotable"))
LOCAL = ("127.0.0.1", 40000)


def scrape(app: Any, peer: tuple[str, int] = LOCAL, **headers: str) -> httpx.Response:
    return TestClient(app, client=peer).get("/metrics", headers=headers)


def value(text: str, series: str) -> float:
    found = re.search(rf"^{re.escape(series)} (\S+)$", text, re.M)
    return float(found.group(1)) if found else 0.0


def _campaign(app: Any) -> tuple[str, Member]:
    gm = register(app, "gwen")
    cid = gm.post("/api/v1/campaigns", {"name": "Harbour Nights", "ruleset": "ltl"}).json()["campaign_id"]
    return cid, gm


def test_metrics_count_commands_by_type_and_outcome_sockets_frames_and_requests() -> None:
    app = make_app()
    cid, gm = _campaign(app)
    before = scrape(app).text
    assert scrape(app).headers["content-type"].startswith("text/plain")
    assert gm.command(cid, type="table.roll", expression="2d6").status_code == 200
    assert gm.command(cid, type="table.roll", expression="2d6").status_code == 200
    refused = gm.command(cid, type="structure.end_scene")  # no scene is running: the rules refuse it
    assert refused.status_code == 409, refused.text
    with gm.client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
        assert ws.receive_json()["type"] == "hello"
        during = scrape(app).text
        assert gm.command(cid, type="table.roll", expression="1d20").status_code == 200
        ws.receive_json()
        sent = scrape(app).text
    after = scrape(app).text
    ok = 'herotable_commands_total{outcome="ok",type="table.roll"}'
    assert value(before, ok) == 0 and value(after, ok) == 3
    assert value(after, "herotable_command_seconds_count") == value(before, "herotable_command_seconds_count") + 4
    assert (
        sum(float(v) for v in re.findall(r'^herotable_commands_total\{outcome="refused",[^}]*\} (\S+)$', after, re.M))
        == 1
    )
    assert value(during, "herotable_live_sockets") == 1 and value(after, "herotable_live_sockets") == 0
    assert value(sent, "herotable_frames_sent_total") >= 2  # the hello and the roll
    assert value(after, 'herotable_requests_total{status="2xx"}') > value(
        before, 'herotable_requests_total{status="2xx"}'
    )


def test_metrics_answer_only_the_allowed_addresses() -> None:
    app = make_app()
    assert scrape(app).status_code == 200
    assert scrape(app, ("203.0.113.5", 1)).status_code == 403
    # nginx on this machine, not named a trusted proxy: every request would look local
    assert scrape(app, LOCAL, **{"X-Forwarded-For": "203.0.113.5"}).status_code == 403
    behind = make_app(trusted_proxies=("127.0.0.1",))
    assert scrape(behind, LOCAL, **{"X-Forwarded-For": "203.0.113.5"}).status_code == 403  # the world, through it
    assert scrape(behind, LOCAL, **{"X-Forwarded-For": "127.0.0.1"}).status_code == 200
    monitoring = make_app(trusted_proxies=("127.0.0.1",), metrics_allow=("10.0.0.0/8",))
    assert scrape(monitoring, ("10.1.2.3", 1)).status_code == 200
    assert scrape(monitoring, LOCAL).status_code == 403
    off = make_app(metrics_allow=())
    assert scrape(off).status_code == 404
    assert "/metrics" not in TestClient(app).get("/openapi.json").text


def test_each_request_and_command_is_one_line_with_its_id_and_no_secret(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = f"sqlite:///{tmp_path / 'log.db'}"
    app = make_app(store=open_store(db))
    caplog.set_level(logging.DEBUG, logger="herotable")
    cid, gm = _campaign(app)
    code = gm.post(f"/api/v1/campaigns/{cid}/invites", {"role": "player"}).json()["code"]
    pat = register(app, "pat")
    pat.post(f"/api/v1/join/{code}")
    whispered = gm.client.post(
        f"/api/v1/campaigns/{cid}/commands",
        json={"type": "chat.say", "text": "the butler did it", "to": pat.user_id},
        headers={**gm.headers, "X-Request-ID": "req-1234"},
    )
    assert whispered.status_code == 200 and whispered.headers["x-request-id"] == "req-1234"
    made = gm.client.get("/api/v1/me", headers={"X-Request-ID": "bad id with spaces"}).headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{16}", made)
    link = CliRunner().invoke(cli, ["users", "reset-password", "pat", "--database", db, "--base-url", "http://x"])
    token = link.stdout.strip().rsplit("/", 1)[1]
    assert gm.client.get(f"/reset/{token}").status_code == 200

    lines = [JsonLines().format(r) for r in caplog.records] + [TextLines().format(r) for r in caplog.records]
    docs = [json.loads(line) for line in lines[: len(caplog.records)]]
    said = [d for d in docs if d["logger"] == "herotable.command" and d.get("request_id") == "req-1234"]
    assert [(d["command"], d["outcome"], d["campaign"]) for d in said] == [("chat.say", "ok", cid)]
    routes = [d["route"] for d in docs if d["logger"] == "herotable.request"]
    assert "/api/v1/campaigns/{campaign_id}/commands" in routes and "/reset/{token}" in routes
    request = next(d for d in docs if d.get("request_id") == "req-1234" and d["logger"] == "herotable.request")
    assert (request["method"], request["status"], request["campaign"]) == ("POST", 200, cid)
    cookie = gm.client.cookies.get("herotable_session") or next(iter(gm.client.cookies.values()))
    for secret in ("correct horse", "the butler did it", token, code, cookie, gm.csrf):
        assert not any(secret in line for line in lines), secret


def test_serve_writes_json_lines_when_asked(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "HEROTABLE_DATA_DIR": str(tmp_path),
        "HEROTABLE_LOG_FORMAT": "json",
        "HEROTABLE_HASH_MEMORY_KIB": "256",
        "HEROTABLE_HASH_ROUNDS": "1",
    }
    env.pop("HEROTABLE_DATABASE_URL", None)
    process = subprocess.Popen(
        [HEROTABLE, "serve", "--port", "0"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    lines: list[str] = []
    url = None
    for line in process.stderr:
        lines.append(line)
        if found := re.search(r"running on (http://127\.0\.0\.1:\d+)", line):
            url = found.group(1)
            break
    assert url, "".join(lines)
    rest: list[str] = []
    reader = threading.Thread(target=lambda: rest.extend(process.stderr or []), daemon=True)
    reader.start()
    client = httpx.Client(base_url=url)
    token = client.get("/api/v1/csrf").json()["csrf_token"]
    body = {"username": "gwen", "password": "correct horse", "display_name": "Gwen"}
    assert client.post("/api/v1/auth/register", json=body, headers={"X-CSRF-Token": token}).status_code == 201
    process.terminate()
    process.wait(20)
    reader.join(20)
    docs = [json.loads(line) for line in lines + rest if line.strip()]  # every line is JSON
    assert any(d.get("route") == "/api/v1/auth/register" and d.get("status") == 201 for d in docs)
    assert any("Uvicorn running on" in d["message"] for d in docs)
    assert "correct horse" not in "".join(lines + rest)


def test_a_failure_is_logged_by_the_routes_pattern_never_its_token(caplog: pytest.LogCaptureFixture) -> None:
    from sqlalchemy.exc import OperationalError

    app = make_app()
    svc = app.state.services
    caplog.set_level(logging.DEBUG)

    def down(*_: Any, **__: Any) -> None:
        raise OperationalError("SELECT", {}, Exception("server closed the connection"))

    def broken(*_: Any, **__: Any) -> None:
        raise RuntimeError("a bug")

    svc.accounts.reset_user = down
    svc.accounts.invite = broken
    client = TestClient(app, raise_server_exceptions=False)
    assert client.get("/reset/SECRET-RESET-TOKEN").status_code == 503
    crashed = client.get("/join/SECRET-INVITE-CODE")
    assert crashed.status_code == 500
    assert "cannot say whether the request took effect" in crashed.json()["detail"]  # never "nothing"
    lines = [TextLines().format(r) for r in caplog.records if r.name.startswith("herotable")]  # the server's own
    assert any("the database failed on GET /reset/{token}: server closed the connection" in line for line in lines)
    assert any("unhandled error on GET /join/{code}" in line for line in lines)
    assert not [line for line in lines if "SECRET" in line]


def test_a_proxy_s_own_forwarded_values_count_and_mapped_addresses_are_their_ipv4() -> None:
    app = make_app(trusted_proxies=("127.0.0.1",))
    client = TestClient(app, client=("::ffff:127.0.0.1", 1))  # the proxy, reached over IPv6
    headers = [("X-Forwarded-Host", "evil.example"), ("X-Forwarded-Host", "client.example, table.example")]
    request = client.build_request("GET", "/api/v1/csrf", headers=headers)
    assert client.send(request).status_code == 200
    assert scrape(app, ("::ffff:127.0.0.1", 1)).status_code == 200  # loopback, written as IPv6
    gm = register(app, "gwen")
    gm.client = TestClient(app, client=("::ffff:127.0.0.1", 1), cookies=gm.client.cookies)
    cid = gm.post("/api/v1/campaigns", {"name": "Harbour Nights", "ruleset": "ltl"}).json()["campaign_id"]
    forwarded = httpx.Headers(
        [
            ("X-Forwarded-Host", "evil.example"),
            ("X-Forwarded-Host", "table.example"),
            ("X-Forwarded-Proto", "http, https"),
        ]
    )
    invite = gm.client.post(
        f"/api/v1/campaigns/{cid}/invites", json={"role": "player"}, headers={**gm.headers, **dict(forwarded)}
    )
    assert invite.json()["link"].startswith("https://table.example/join/")


def test_the_demo_is_made_whatever_the_registration_setting() -> None:
    from herotable.server.games.demo import seed_demo

    app = make_app(registration="closed")
    logins = seed_demo(app.state.services)
    assert [login.username for login in logins] == ["gwen", "ana", "ben"]
