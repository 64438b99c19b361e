"""Personal API tokens: a bot drives a campaign with `Authorization: Bearer` through the API and the live socket,
without a cookie or a CSRF token, within its scope and campaign; revoked, expired, or its user disabled or its
password changed, it is refused."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from herotable.server.admin import set_disabled

from .clients import Member, make_app, register


def _token(member: Member, **body: Any) -> str:
    made = member.post("/api/v1/tokens", {"name": "dice bot", "scope": "play", **body})
    assert made.status_code == 201, made.text
    token: str = made.json()["token"]
    assert token.startswith("htk_")
    return token


def _bot(app: Any, token: str) -> TestClient:
    """A client with no cookie and no CSRF token: only the bearer header."""
    return TestClient(app, headers={"Authorization": f"Bearer {token}"})


def _table(app: Any) -> tuple[str, Member, Member]:
    gm, pat = register(app, "gwen"), register(app, "pat")
    cid = gm.post("/api/v1/campaigns", {"name": "Harbour Nights", "ruleset": "ltl"}).json()["campaign_id"]
    code = gm.post(f"/api/v1/campaigns/{cid}/invites", {"role": "player"}).json()["code"]
    assert pat.post(f"/api/v1/join/{code}").status_code == 200
    return cid, gm, pat


def test_a_token_drives_a_campaign_through_the_api_and_the_socket_until_revoked() -> None:
    app = make_app()
    cid, _gm, pat = _table(app)
    token = _token(pat)
    bot = _bot(app, token)
    assert bot.get("/api/v1/me").json()["username"] == "pat"
    with bot.websocket_connect(f"/ws/campaigns/{cid}") as ws:
        assert ws.receive_json()["type"] == "hello"
        rolled = bot.post(f"/api/v1/campaigns/{cid}/commands", json={"type": "table.roll", "expression": "2d6"})
        assert rolled.status_code == 200, rolled.text  # no CSRF token: the bearer header is the proof
        frame = ws.receive_json()
        assert any(e["type"] == "table.dice_rolled" for e in frame["events"])
        [listed] = pat.get("/api/v1/tokens").json()
        assert (listed["name"], listed["scope"], listed["live"]) == ("dice bot", "play", True)
        assert listed["last_used_at"] is not None and "token" not in listed  # shown once, never again
        assert pat.delete(f"/api/v1/tokens/{listed['token_id']}").status_code == 200
        with pytest.raises(WebSocketDisconnect) as ended:  # the socket it opened closes at once
            while True:
                ws.receive_json()
        assert ended.value.code == 4401
    refused = bot.get("/api/v1/me")
    assert refused.status_code == 401 and "revoked" in refused.json()["detail"]
    with pytest.raises(WebSocketDisconnect) as closed, bot.websocket_connect(f"/ws/campaigns/{cid}") as ws:
        ws.receive_json()
    assert closed.value.code == 4401


def test_the_bearer_schemes_name_is_read_in_any_case() -> None:
    app = make_app()
    _cid, _gm, pat = _table(app)
    token = _token(pat, scope="read")
    for scheme in ("Bearer", "bearer", "BEARER"):
        answer = TestClient(app, headers={"Authorization": f"{scheme} {token}"}).get("/api/v1/me")
        assert answer.status_code == 200 and answer.json()["username"] == "pat", scheme
    assert TestClient(app, headers={"Authorization": f"Basic {token}"}).get("/api/v1/me").status_code == 401


def test_each_scope_reaches_what_it_names_and_never_the_account() -> None:
    app = make_app()
    cid, gm, pat = _table(app)
    roll = {"type": "table.roll", "expression": "1d20"}
    reader = _bot(app, _token(pat, scope="read"))
    assert reader.get(f"/api/v1/campaigns/{cid}").status_code == 200
    assert reader.post(f"/api/v1/campaigns/{cid}/commands", json=roll).status_code == 403
    gm_playing = _bot(app, _token(gm, scope="play"))
    refused = gm_playing.post(f"/api/v1/campaigns/{cid}/commands", json=roll)
    assert refused.status_code == 403 and "scope gm" in refused.json()["detail"]
    assert gm_playing.post("/api/v1/campaigns", json={"name": "X", "ruleset": "ltl"}).status_code == 403
    gm_bot = _bot(app, _token(gm, scope="gm"))
    assert gm_bot.post(f"/api/v1/campaigns/{cid}/commands", json=roll).status_code == 200
    for bot in (reader, gm_playing, gm_bot):  # no token changes its account or makes tokens
        assert bot.post("/api/v1/tokens", json={"name": "more", "scope": "gm"}).status_code == 403
        assert bot.post("/api/v1/auth/logout-everywhere").status_code == 403
    other = gm.post("/api/v1/campaigns", {"name": "Another", "ruleset": "ltl"}).json()["campaign_id"]
    bound = _bot(app, _token(gm, scope="gm", campaign_id=cid))
    assert bound.get(f"/api/v1/campaigns/{cid}").status_code == 200
    assert bound.get(f"/api/v1/campaigns/{other}").status_code == 403
    assert bound.get("/api/v1/campaigns").status_code == 403  # not even the names of the others
    with pytest.raises(WebSocketDisconnect) as closed, bound.websocket_connect(f"/ws/campaigns/{other}") as ws:
        ws.receive_json()
    assert closed.value.code == 4403
    stranger = register(app, "sam")
    assert stranger.post("/api/v1/tokens", {"name": "x", "scope": "read", "campaign_id": cid}).status_code == 403


def test_a_token_ends_with_its_users_password_or_standing_and_with_its_days() -> None:
    app = make_app()
    _cid, gm, pat = _table(app)
    changed = _bot(app, _token(pat))
    answer = pat.post("/api/v1/auth/password", {"current_password": "correct horse", "new_password": "new horse 12"})
    assert answer.status_code == 200
    assert changed.get("/api/v1/me").status_code == 401
    disabled = _bot(app, _token(gm, scope="gm"))
    set_disabled(app.state.services.accounts, app.state.services.accounts.user_by_name("gwen"), True)
    assert disabled.get("/api/v1/me").status_code == 401
    assert _bot(app, "htk_notatoken").get("/api/v1/me").status_code == 401
    made = pat.post("/api/v1/tokens", {"name": "a day", "scope": "read", "days": 0})
    assert made.status_code == 422  # at least a day


def test_a_token_sends_at_most_its_commands_a_minute() -> None:
    app = make_app(token_commands_per_minute=3)
    cid, _gm, pat = _table(app)
    bot = _bot(app, _token(pat))
    roll = {"type": "table.roll", "expression": "1d6"}
    codes = [bot.post(f"/api/v1/campaigns/{cid}/commands", json=roll).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    assert pat.command(cid, **roll).status_code == 200  # the person's own session is not the token's count


def test_a_wrong_bearer_never_falls_back_to_the_cookie() -> None:
    app = make_app()
    _cid, _gm, pat = _table(app)
    answer = pat.client.get("/api/v1/me", headers={"Authorization": "Bearer htk_12345678_forged-forged-forged-forged"})
    assert answer.status_code == 401


def test_the_shell_makes_lists_and_revokes_a_users_tokens(tmp_path: Any) -> None:
    import json

    from typer.testing import CliRunner

    from herotable.cli import app as cli
    from herotable.store import open_store

    db = f"sqlite:///{tmp_path / 'tokens.db'}"
    app = make_app(store=open_store(db))
    cid, _gm, pat = _table(app)
    run = CliRunner().invoke
    made = run(
        cli,
        ["tokens", "create", "pat", "--name", "bot", "--scope", "play", "--campaign", cid, "--json", "--database", db],
    )
    assert made.exit_code == 0, made.output
    token = json.loads(made.stdout)["token"]
    bot = _bot(app, token)
    assert (
        bot.post(f"/api/v1/campaigns/{cid}/commands", json={"type": "table.roll", "expression": "1d6"}).status_code
        == 200
    )
    [listed] = json.loads(run(cli, ["tokens", "list", "pat", "--json", "--database", db]).stdout)["tokens"]
    assert (listed["name"], listed["scope"], listed["campaign_id"], listed["live"]) == ("bot", "play", cid, True)
    assert token not in run(cli, ["tokens", "list", "pat", "--database", db]).stdout
    assert run(cli, ["tokens", "create", "pat", "--name", "x", "--scope", "admin", "--database", db]).exit_code == 2
    foreign = run(
        cli, ["tokens", "create", "pat", "--name", "x", "--scope", "gm", "--campaign", "nope", "--database", db]
    )
    assert foreign.exit_code == 1 and "is not a member of a campaign 'nope'" in foreign.stderr
    assert (
        run(cli, ["tokens", "revoke", "pat", listed["token_id"], "--database", db]).stdout
        == f"revoked {listed['token_id']}\n"
    )
    assert bot.get("/api/v1/me").status_code == 401
    again = run(cli, ["tokens", "revoke", "pat", listed["token_id"], "--database", db])
    assert again.exit_code == 1 and "no live token" in again.stderr
    assert pat.get("/api/v1/me").status_code == 200
