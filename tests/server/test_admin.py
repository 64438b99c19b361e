"""Running a server for others: who may register (open, by invitation, closed), admins made only from the shell,
accounts listed, disabled (sessions and live tables end at once) and enabled, campaigns listed; on the command line
and on /admin."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect
from typer.testing import CliRunner

from herotable.cli import app as cli
from herotable.server.auth import SESSION_KEPT_S
from herotable.store import open_store
from herotable.store.accounts import accounts_for

from .clients import Member, anonymous, make_app, register, shared_clock
from .test_account_security import PASSWORD, login

NEW = {"username": "newbie", "password": "correct horse", "display_name": "Newbie"}


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'admin.db'}"
    url: str = request.getfixturevalue("postgres_schema")()
    return url


def run(*args: str, given: str | None = None) -> Any:
    return CliRunner().invoke(cli, list(args), input=given)


def _register(client: Any, body: dict[str, Any]) -> Any:
    token = client.get("/api/v1/csrf").json()["csrf_token"]
    return client.post("/api/v1/auth/register", json=body, headers={"X-CSRF-Token": token})


# --- the command line ---


def test_the_shell_makes_lists_promotes_and_demotes_accounts(db_url: str) -> None:
    assert run("db", "upgrade", "--database", db_url).exit_code == 0  # PostgreSQL's tables are made when told
    made = run(
        "users",
        "create",
        "Gwen",
        "--name",
        "Gwen the GM",
        "--admin",
        "--database",
        db_url,
        given="pw-long-enough\n" * 2,
    )
    assert made.exit_code == 0 and "made gwen (admin)" in made.stdout, made.output
    assert run("users", "create", "pat", "--database", db_url, given="pw-long-enough\n" * 2).exit_code == 0
    listed = json.loads(run("users", "list", "--json", "--database", db_url).stdout)["users"]
    assert [(u["username"], u["display_name"], u["admin"], u["disabled_at"]) for u in listed] == [
        ("gwen", "Gwen the GM", True, None),
        ("pat", "pat", False, None),
    ]
    assert "password" not in json.dumps(listed)
    assert run("users", "promote", "PAT", "--database", db_url).stdout == "pat is now an admin\n"
    assert run("users", "demote", "gwen", "--database", db_url).stdout == "gwen is no longer an admin\n"
    text = run("users", "list", "--database", db_url).stdout
    assert "gwen" in text and "2 accounts" in text
    assert [u["admin"] for u in json.loads(run("users", "list", "--json", "--database", db_url).stdout)["users"]] == [
        False,
        True,
    ]


def test_the_shell_refuses_what_it_cannot_do_and_changes_nothing(db_url: str) -> None:
    assert run("db", "upgrade", "--database", db_url).exit_code == 0
    assert run("users", "create", "gwen", "--database", db_url, given="pw-long-enough\n" * 2).exit_code == 0
    taken = run("users", "create", "GWEN", "--database", db_url, given="pw-long-enough\n" * 2)
    assert taken.exit_code == 1 and "is not available" in taken.stderr
    short = run("users", "create", "ana", "--database", db_url, given="short\nshort\n")
    assert short.exit_code == 2 and "password" in short.stderr and "nothing was made" in short.stderr
    for command in ("promote", "disable", "enable"):
        unknown = run("users", command, "nobody", "--database", db_url)
        assert unknown.exit_code == 1 and "there is no user 'nobody'" in unknown.stderr
    assert [
        u["username"] for u in json.loads(run("users", "list", "--json", "--database", db_url).stdout)["users"]
    ] == ["gwen"]


def test_disabling_from_the_shell_ends_every_session_and_stops_the_login(db_url: str) -> None:
    app = make_app(store=open_store(db_url))
    gwen = register(app, "gwen")
    assert gwen.get("/api/v1/me").status_code == 200
    disabled = run("users", "disable", "gwen", "--database", db_url)
    assert disabled.exit_code == 0 and disabled.stdout == "gwen is disabled; 1 session ended\n"
    shared_clock().advance(SESSION_KEPT_S)  # without Redis between them, a server reads it within this
    assert gwen.get("/api/v1/me").status_code == 401
    refused = login(anonymous(app), "gwen", "correct horse")
    assert refused.status_code == 403 and "disabled" in refused.json()["detail"]
    wrong = login(anonymous(app), "gwen", "not the password")
    assert wrong.status_code == 401 and "disabled" not in wrong.text  # only the password's owner learns it
    assert run("users", "disable", "gwen", "--database", db_url).stdout == "gwen was disabled already\n"
    assert run("users", "enable", "gwen", "--database", db_url).exit_code == 0
    assert login(anonymous(app), "gwen", "correct horse").status_code == 200


def test_campaigns_are_listed_with_their_gm_and_members(db_url: str) -> None:
    app = make_app(store=open_store(db_url))
    gwen = register(app, "gwen")
    cid = gwen.post("/api/v1/campaigns", {"name": "Harbour Nights", "ruleset": "ltl"}).json()["campaign_id"]
    code = gwen.post(f"/api/v1/campaigns/{cid}/invites", {"role": "player"}).json()["code"]
    pat = register(app, "pat")
    assert pat.post(f"/api/v1/join/{code}").status_code == 200
    listed = json.loads(run("campaigns", "list", "--json", "--database", db_url).stdout)["campaigns"]
    assert [(c["campaign_id"], c["name"], c["game"], c["gm"], c["members"], c["readable"]) for c in listed] == [
        (cid, "Harbour Nights", "ltl", "gwen", 2, True)
    ]
    assert listed[0]["events"] >= 2
    text = run("campaigns", "list", "--database", db_url).stdout
    assert f"{cid}  Harbour Nights  [ltl]  GM gwen, 2 members" in text and "1 campaign\n" in text


# --- registration ---


def test_registering_first_makes_nobody_an_admin() -> None:
    app = make_app()
    first = register(app, "first")
    assert first.get("/api/v1/me").json()["admin"] is False
    assert first.client.get("/admin").status_code == 403


def test_a_closed_server_makes_no_accounts_on_the_web() -> None:
    app = make_app(registration="closed")
    refused = _register(anonymous(app), NEW)
    assert refused.status_code == 403 and "ask the server's owner" in refused.json()["detail"]
    page = anonymous(app).get("/login").text
    assert "Accounts on this server are made by its owner" in page and 'action="/register"' not in page


def test_an_invitation_only_server_makes_accounts_only_through_a_live_invitation() -> None:
    app = make_app(registration="invite")
    gm = _gm_of_closed_server(app)
    cid = gm.post("/api/v1/campaigns", {"name": "Harbour Nights", "ruleset": "ltl"}).json()["campaign_id"]
    code = gm.post(f"/api/v1/campaigns/{cid}/invites", {"role": "player", "max_uses": 1}).json()["code"]

    assert _register(anonymous(app), NEW).status_code == 403
    assert _register(anonymous(app), {**NEW, "invite": "no-such-code"}).status_code == 403
    assert "made by invitation" in anonymous(app).get("/login").text
    visitor = anonymous(app)
    joining = visitor.get(f"/join/{code}")  # the invited visitor is shown the form
    assert 'action="/register"' in joining.text
    token = visitor.get("/api/v1/csrf").json()["csrf_token"]
    form = {**NEW, "csrf_token": token, "next": f"/join/{code}"}
    assert visitor.post("/register", data=form, follow_redirects=False).status_code == 303
    token = visitor.get("/api/v1/csrf").json()["csrf_token"]
    assert visitor.post(f"/join/{code}", data={"csrf_token": token}, follow_redirects=False).status_code == 303
    used_up = _register(anonymous(app), {**NEW, "username": "second", "invite": code})
    assert used_up.status_code == 403  # its one use is spent


def test_a_link_for_one_player_makes_one_account_even_before_anyone_joins() -> None:
    app = make_app(registration="invite")
    gm = _gm_of_closed_server(app)
    cid = gm.post("/api/v1/campaigns", {"name": "Harbour Nights", "ruleset": "ltl"}).json()["campaign_id"]
    code = gm.post(f"/api/v1/campaigns/{cid}/invites", {"role": "player", "max_uses": 2}).json()["code"]
    made = [_register(anonymous(app), {**NEW, "username": f"guest{n}", "invite": code}).status_code for n in range(4)]
    assert made == [201, 201, 403, 403]
    refused = _register(anonymous(app), {**NEW, "username": "guest9", "invite": code}).json()["detail"]
    assert "as many accounts as it has places" in refused
    assert gm.get(f"/api/v1/campaigns/{cid}/invites").json()[0]["uses"] == 0  # nobody joined yet


def _gm_of_closed_server(app: Any) -> Member:
    """A GM's account on a server that registers nobody freely: made as the shell would, then logged in."""
    from herotable.server.auth import HashGate
    from herotable.store.accounts import User

    svc = app.state.services
    svc.accounts.add_user(
        User("u-gwen", "gwen", "Gwen", HashGate(1, 5.0, memory_kib=256, rounds=1).hash(PASSWORD), "2026-01-01")
    )
    client = anonymous(app)
    answer = login(client, "gwen", PASSWORD)
    assert answer.status_code == 200, answer.text
    return Member(client, "u-gwen", answer.json()["csrf_token"])


# --- /admin ---


def test_an_admin_sees_every_account_and_campaign_and_disables_one_whose_table_closes_at_once(tmp_path: Any) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'web.db'}")
    app = make_app(store=store)
    gwen, pat = register(app, "gwen"), register(app, "pat")
    cid = gwen.post("/api/v1/campaigns", {"name": "Harbour Nights", "ruleset": "ltl"}).json()["campaign_id"]
    code = gwen.post(f"/api/v1/campaigns/{cid}/invites", {"role": "player"}).json()["code"]
    assert pat.post(f"/api/v1/join/{code}").status_code == 200
    assert pat.client.get("/admin").status_code == 403
    accounts_for(store).set_admin(gwen.user_id, True)  # as `herotable users promote gwen` does
    shared_clock().advance(SESSION_KEPT_S)  # the server reads it within this

    page = gwen.client.get("/admin")
    assert page.status_code == 200
    assert "Harbour Nights" in page.text and 'data-user="pat"' in page.text and "Larger Than Life" in page.text
    assert 'href="/admin"' in gwen.client.get("/").text and 'href="/admin"' not in pat.client.get("/").text
    with pat.client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
        assert ws.receive_json()["type"] == "hello"
        done = gwen.client.post(
            f"/admin/users/{pat.user_id}/disable", data={"csrf_token": gwen.csrf}, follow_redirects=False
        )
        assert done.status_code == 303
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                ws.receive_json()
        assert closed.value.code == 4401
    assert "pat is disabled; 1 session ended." in gwen.client.get(done.headers["location"]).text
    assert pat.get("/api/v1/me").status_code == 401
    own = gwen.client.post(f"/admin/users/{gwen.user_id}/disable", data={"csrf_token": gwen.csrf})
    assert own.status_code == 409 and gwen.get("/api/v1/me").status_code == 200
    no_token = gwen.client.post(f"/admin/users/{pat.user_id}/enable", data={})
    assert no_token.status_code == 403
    enabled = gwen.client.post(f"/admin/users/{pat.user_id}/enable", data={"csrf_token": gwen.csrf})
    assert enabled.status_code == 200 and "pat may log in again." in enabled.text
    assert login(anonymous(app), "pat", "correct horse").status_code == 200
    store.close()  # type: ignore[attr-defined]


def test_disabling_from_the_shell_closes_the_live_tables_at_once_through_redis(
    tmp_path: Any, shared_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from .clients import redis_prefix

    url = f"sqlite:///{tmp_path / 'redis.db'}"
    app = make_app(store=open_store(url), redis_url=shared_redis)
    gwen = register(app, "gwen")
    cid = gwen.post("/api/v1/campaigns", {"name": "Harbour Nights", "ruleset": "ltl"}).json()["campaign_id"]
    monkeypatch.setenv("HEROTABLE_REDIS_URL", shared_redis)
    monkeypatch.setenv("HEROTABLE_REDIS_PREFIX", redis_prefix())
    with gwen.client as client, client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
        assert ws.receive_json()["type"] == "hello"
        assert run("users", "disable", "gwen", "--database", url).exit_code == 0
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                ws.receive_json()
        assert closed.value.code == 4401
        assert client.get("/api/v1/me").status_code == 401  # no wait: the server heard it
