"""The REST API: accounts, sessions, CSRF, campaigns, invitations, commands and their errors."""

from __future__ import annotations

import base64

import pytest

from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.server.security import SESSION_COOKIE
from herotable.server.settings import Settings
from herotable.store import open_store

from .clients import anonymous, make_app, register, table


@pytest.fixture(params=["sqlite", "postgresql"])
def app(request, tmp_path):
    """The API over a real database: a SQLite file, or a fresh PostgreSQL schema."""
    url = (
        f"sqlite:///{tmp_path / 'api.db'}"
        if request.param == "sqlite"
        else request.getfixturevalue("postgres_schema")()
    )
    return make_app(store=open_store(url))


def test_register_login_logout_and_me(app):
    member = register(app, "gwen", "Gwen")
    assert member.get("/api/v1/me").json()["display_name"] == "Gwen"
    cookie = member.client.cookies.get(SESSION_COOKIE)
    assert cookie and "gwen" not in cookie  # signed, not readable as the user name
    set_cookie = member.post("/api/v1/auth/logout").headers["set-cookie"].lower()
    assert "httponly" in set_cookie and "samesite=lax" in set_cookie
    assert member.get("/api/v1/me").status_code == 401
    token = member.get("/api/v1/csrf").json()["csrf_token"]
    r = member.client.post(
        "/api/v1/auth/login", json={"username": "GWEN", "password": "correct horse"}, headers={"X-CSRF-Token": token}
    )
    assert r.status_code == 200 and member.client.get("/api/v1/me").status_code == 200


def test_passwords_are_stored_as_argon2_hashes(app):
    register(app, "gwen")
    stored = app.state.services.accounts.user_by_name("gwen")
    assert stored.password_hash.startswith("$argon2") and "correct horse" not in stored.password_hash


def test_a_hash_costs_what_the_settings_say_and_a_cheaper_setting_still_checks_older_hashes(monkeypatch):
    """64 MiB and three passes unless set otherwise; each hash records its cost, so a password hashed at full cost
    is still checked after the setting is lowered."""
    from herotable.server.auth import HashGate

    full = HashGate(1, 1.0)
    hashed = full.hash("correct horse")
    assert "$m=65536,t=3," in hashed
    assert (Settings().hash_memory_kib, Settings().hash_rounds) == (65536, 3)
    cheap = HashGate(1, 1.0, memory_kib=256, rounds=1)
    assert "$m=256,t=1," in cheap.hash("x") and cheap.check(hashed, "correct horse")
    assert not cheap.check(hashed, "wrong horse") and not cheap.check(None, "correct horse")
    monkeypatch.setenv("HEROTABLE_SECRET_KEY", "a-key-so-that-no-file-is-made")
    monkeypatch.setenv("HEROTABLE_HASH_MEMORY_KIB", "1024")
    monkeypatch.setenv("HEROTABLE_HASH_ROUNDS", "2")
    assert (Settings.load().hash_memory_kib, Settings.load().hash_rounds) == (1024, 2)
    with pytest.raises(ValueError, match="at least 32 KiB"):
        HashGate(1, 1.0, memory_kib=16)


def test_registration_errors_name_every_field(app):
    client = anonymous(app)
    token = client.get("/api/v1/csrf").json()["csrf_token"]
    r = client.post(
        "/api/v1/auth/register",
        json={"username": "x", "password": "short", "display_name": "X"},
        headers={"X-CSRF-Token": token},
    )
    assert r.status_code == 422 and r.headers["content-type"] == "application/problem+json"
    problem = r.json()
    assert (problem["type"], problem["status"], problem["code"]) == ("about:blank", 422, "validation")
    assert [e["field"] for e in problem["errors"]] == ["username", "password"]  # every error, not only the first
    assert problem["field"] == "username" and "username:" in problem["detail"] and "password:" in problem["detail"]
    assert all(e["message"].startswith(f"{e['field']}: ") and e["fix"] for e in problem["errors"])
    register(app, "gwen")
    r = client.post(
        "/api/v1/auth/register",
        json={"username": "gwen", "password": "long enough", "display_name": "G"},
        headers={"X-CSRF-Token": token},
    )
    assert r.status_code == 400 and "not available" in r.json()["detail"]


def test_every_unsafe_request_needs_the_csrf_token(app):
    member = register(app, "gwen")
    r = member.client.post("/api/v1/campaigns", json={"name": "X", "ruleset": "ltl"})
    assert r.status_code == 403 and "CSRF" in r.json()["detail"]
    r = member.client.post(
        "/api/v1/campaigns", json={"name": "X", "ruleset": "ltl"}, headers={"X-CSRF-Token": "0" * 64}
    )
    assert r.status_code == 403
    assert member.get("/api/v1/campaigns").json() == []


def test_login_attempts_are_rate_limited():
    app = make_app(login_attempts=3, login_window_s=60)
    register(app, "gwen")
    client = anonymous(app)
    token = client.get("/api/v1/csrf").json()["csrf_token"]

    def attempt(password):
        return client.post(
            "/api/v1/auth/login", json={"username": "gwen", "password": password}, headers={"X-CSRF-Token": token}
        )

    assert [attempt("wrong password").status_code for _ in range(3)] == [401, 401, 401]
    blocked = attempt("correct horse")
    assert blocked.status_code == 429 and int(blocked.headers["Retry-After"]) > 0
    assert blocked.json()["code"] == "auth/rate_limited"


def test_campaign_invite_join_and_members(app):
    cid, m = table(app)
    view = m["pat"].get(f"/api/v1/campaigns/{cid}").json()
    assert {x["role"] for x in view["members"]} == {"gm", "player", "spectator"}
    assert [c["campaign_id"] for c in m["sly"].get("/api/v1/campaigns").json()] == [cid]
    assert m["pat"].post("/api/v1/join/nonsense").status_code == 404
    assert m["gm"].delete(f"/api/v1/campaigns/{cid}/members/{m['sly'].user_id}").status_code == 200
    assert m["sly"].get(f"/api/v1/campaigns/{cid}").status_code == 403
    assert m["pat"].delete(f"/api/v1/campaigns/{cid}/members/{m['pat'].user_id}").status_code == 200


def test_commands_run_through_the_rules_and_errors_are_json(app):
    cid, m = table(app)
    r = m["pat"].command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET)
    assert r.status_code == 200
    assert [e["type"] for e in r.json()["events"]] == ["character.joined", "ltl.sheet_recorded"]
    bad = m["pat"].command(
        cid,
        type="character.create_ltl",
        character="bad",
        sheet={**CAPTAIN_COMET, "base": "d7", "drawbacks": ["a", "b"]},
    )
    assert bad.status_code == 422
    err = bad.json()
    assert err["code"] == "sheet/invalid" and {p["field"] for p in err["problems"]} == {"base", "drawbacks"}
    chosen = m["pat"].command(cid, type="ltl.challenge", character="comet", difficulty="Hard")
    assert chosen.status_code == 403 and chosen.json()["code"] == "ltl/gm_sets_difficulty"  # R-T-3
    impossible = m["gm"].command(cid, type="ltl.challenge", character="comet", difficulty="Impossible")
    assert impossible.status_code == 409
    err = impossible.json()
    assert (err["code"], err["ruling"]) == ("challenge/impossible", "R-LTL-2") and "Inconceivable" in err["fix"]
    unknown = m["pat"].command(cid, type="ltl.fly_to_the_moon")
    assert unknown.status_code == 422 and "ltl.fly_to_the_moon" in unknown.json()["detail"]
    extra = m["pat"].command(cid, type="ltl.challenge", character="comet", difficulty="Hard", bogus=1)
    assert extra.status_code == 422 and extra.json()["field"] == "bogus"
    assert "leave bogus out" in extra.json()["fix"]
    both = m["pat"].command(cid, type="ltl.challenge", character="comet", difficulty="Hard", style=5, bogus=1)
    assert [(e["field"], e["fix"]) for e in both.json()["errors"]] == [
        ("style", "correct this field and send the request again"),
        ("bogus", "leave bogus out: the command has no such field"),
    ]
    for wrong in ({"auto_success": "yes"}, {"auto_success": 1}, {"style": 5}):  # R-T-5: no coercion
        typed = m["pat"].command(cid, type="ltl.challenge", character="comet", difficulty="Hard", **wrong)
        assert typed.status_code == 422 and typed.json()["field"] == next(iter(wrong))
    for amount in ("5", 5.0, True):
        award = m["gm"].command(cid, type="ltl.hero_points.award", character="comet", points=amount)
        assert award.status_code == 422 and award.json()["field"] == "points"
    broken = m["pat"].client.post(
        f"/api/v1/campaigns/{cid}/commands",
        content=b'{"type": "ltl.challenge",',
        headers={**m["pat"].headers, "Content-Type": "application/json"},
    )
    assert broken.status_code == 422 and "not valid JSON" in broken.json()["detail"]
    long = m["pat"].command(cid, type="ltl.challenge", character="comet", difficulty="Hard", style="x" * 101)
    assert long.status_code == 422 and "at most 100" in long.json()["detail"]
    forbidden = m["sam"].command(cid, type="ltl.karma.try_again", character="comet")
    assert forbidden.status_code == 403 and forbidden.json()["code"] == "table/not_your_character"
    gm_only = m["pat"].command(cid, type="ltl.conflict.start", fighters=[["comet", "h"]])
    assert gm_only.status_code == 403
    # none of the refusals wrote anything
    assert [e["type"] for e in m["gm"].get(f"/api/v1/campaigns/{cid}/events").json()["events"]][-2:] == [
        "character.joined",
        "ltl.sheet_recorded",
    ]


def test_a_player_attack_makes_the_villain_lose_a_level_through_the_api(app):
    cid, m = table(app)
    m["pat"].command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET)
    m["gm"].command(cid, type="character.create_ltl", character="entropy", sheet=DOCTOR_ENTROPY, npc=True)
    m["gm"].command(cid, type="ltl.conflict.start", fighters=[["comet", "heroes"], ["entropy", "villains"]])
    for _ in range(30):
        opened = m["pat"].command(cid, type="ltl.attack", actor="comet", target="entropy", style="Fisticuffs")
        assert opened.status_code == 200, opened.text
        # R-LTL-3 (rules version 8): the GM accepts the villain's side; Pat's Accept then settles the exchange
        waits = m["gm"].command(cid, type="ltl.settle").json()["events"][0]
        assert (waits["type"], waits["fact"]["characters"]) == ("ltl.roll_accepted", ["entropy"])
        settled = m["pat"].command(cid, type="ltl.settle").json()["events"][0]
        assert settled["type"] == "ltl.task_settled"
        m["gm"].command(cid, type="ltl.conflict.end_round")
        if settled["fact"]["loser"] == "entropy":
            break
    view = m["gm"].get(f"/api/v1/campaigns/{cid}").json()
    assert view["game"]["heroes"]["entropy"]["losses"]


def test_the_events_are_each_viewers_own_stream_read_by_cursor(app):
    # R-T-2: a pending roll is its controller's and the GM's; a secret roll is the GM's alone
    cid, m = table(app)
    m["pat"].command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET)
    call = m["gm"].command(cid, type="ltl.call", character="comet", difficulty="Hard").json()["command_id"]
    heads = {who: m[who].get(f"/api/v1/campaigns/{cid}/events").json() for who in ("gm", "pat", "sam")}
    assert m["gm"].command(cid, type="table.roll", expression="1d20", label="a secret", secret=True).status_code == 200
    assert m["pat"].command(cid, type="ltl.challenge", character="comet", call=call).status_code == 200
    assert m["pat"].command(cid, type="table.roll", expression="1d6", label="in the open").status_code == 200

    def newer(who):
        return m[who].get(f"/api/v1/campaigns/{cid}/events?after={heads[who]['last']}").json()

    assert [e["type"] for e in newer("sam")["events"]] == ["table.dice_rolled"]
    assert [e["type"] for e in newer("pat")["events"]] == [
        "ltl.call_closed",
        "ltl.task_opened",
        "dice.rolled",
        "dice.rolled",
        "table.dice_rolled",
    ]
    assert [e["type"] for e in newer("gm")["events"]] == [
        "table.dice_rolled",
        "ltl.call_closed",
        "ltl.task_opened",
        "dice.rolled",
        "dice.rolled",
        "table.dice_rolled",
    ]
    sam = newer("sam")
    assert sam["events"][0]["position"] == heads["sam"]["events"][-1]["position"] + 1  # no gap betrays a secret
    assert [e["position"] for e in newer("pat")["events"]] == [
        heads["pat"]["events"][-1]["position"] + i for i in (1, 2, 3, 4, 5)
    ]
    assert newer("sam")["events"][0]["command_id"] == newer("pat")["events"][-1]["command_id"]
    back = m["sam"].get(f"/api/v1/campaigns/{cid}/events?before={sam['last']}&limit=2").json()
    assert [e["position"] for e in back["events"]] == [
        e["position"] for e in heads["sam"]["events"][-1:] + sam["events"]
    ]
    older = m["sam"].get(f"/api/v1/campaigns/{cid}/events?before={back['first']}&limit=500").json()
    assert [e["position"] for e in older["events"]] == list(range(1, back["events"][0]["position"]))
    forged = [base64.urlsafe_b64encode(t.encode()).decode().rstrip("=") for t in ("99999999999.0", "5_0.0", " 5.0")]
    forged += ["not-a-cursor", base64.urlsafe_b64encode("٣.0".encode()).decode().rstrip("=")]
    for cursor in forged:
        answer = m["sam"].client.get(f"/api/v1/campaigns/{cid}/events", params={"after": cursor})
        assert answer.status_code == 422 and answer.json()["code"] == "table/bad_cursor", cursor
    both = m["sam"].client.get(f"/api/v1/campaigns/{cid}/events", params={"after": sam["last"], "before": sam["last"]})
    assert both.status_code == 422 and both.json()["code"] == "table/two_cursors"


def test_actions_list_what_each_member_may_send_now(app):
    cid, m = table(app)
    m["pat"].command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET)
    gm = m["gm"].get(f"/api/v1/campaigns/{cid}/actions").json()["actions"]
    comet = {"character": "comet", "kind": "challenge"}
    calling = next(a for a in gm if a["type"] == "ltl.call" and a["fixed"] == comet)
    assert "Impossible" not in calling["fields"]["difficulty"]["choices"]  # R-LTL-2: no roll against it
    call = {"type": "ltl.call", **calling["fixed"], "difficulty": calling["fields"]["difficulty"]["choices"][0]}
    called = m["gm"].command(cid, **call).json()["command_id"]
    actions = m["pat"].get(f"/api/v1/campaigns/{cid}/actions").json()["actions"]
    challenge = next(a for a in actions if a["type"] == "ltl.challenge")
    assert challenge["fixed"] == {"character": "comet", "call": called}  # R-T-3: the GM's call, the player's roll
    assert "difficulty" not in challenge["fields"]
    assert m["pat"].command(cid, type="ltl.challenge", **challenge["fixed"]).status_code == 200
    assert not [
        a
        for a in m["sam"].get(f"/api/v1/campaigns/{cid}/actions").json()["actions"]
        if a["fixed"].get("character") == "comet"
    ]
    spectator = m["sly"].get(f"/api/v1/campaigns/{cid}/actions").json()["actions"]
    assert {a["type"] for a in spectator} == {"chat.say", "member.remove"}  # a spectator may only talk and leave
    assert next(a for a in spectator if a["type"] == "member.remove")["fixed"] == {"user": m["sly"].user_id}
    assert any(
        a["type"] == "structure.start_adventure"
        for a in m["gm"].get(f"/api/v1/campaigns/{cid}/actions").json()["actions"]
    )
    assert "structure.start_adventure" not in {a["type"] for a in actions}


def test_openapi_schema_and_command_catalogue(app):
    client = anonymous(app)
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    assert "/api/v1/campaigns/{campaign_id}/commands" in paths and "/api/v1/auth/login" in paths
    body = paths["/api/v1/campaigns/{campaign_id}/commands"]["post"]["requestBody"]["content"]["application/json"]
    union = body["schema"]
    assert union["discriminator"]["propertyName"] == "type"
    assert "ltl.challenge" in union["discriminator"]["mapping"] and "cv.check" in union["discriminator"]["mapping"]
    challenge = spec["components"]["schemas"][union["discriminator"]["mapping"]["ltl.challenge"].split("/")[-1]]
    assert challenge["required"] == ["character"] and challenge["additionalProperties"] is False
    assert {"difficulty", "call"} <= set(challenge["properties"])  # a player's call, or the GM's difficulty (R-T-3)
    catalogue = client.get("/api/v1/commands").json()
    assert "ltl.challenge" in catalogue and "cv.check" in catalogue
    assert "difficulty" in catalogue["ltl.challenge"]["fields"]


def test_unexpected_errors_are_json_without_a_stack_trace(app):
    cid, m = table(app)

    def boom(*args, **kwargs):
        raise RuntimeError("secret internals")

    app.state.services.table.view = boom
    client = m["pat"].client
    client_raise = type(client)(app, raise_server_exceptions=False)
    client_raise.cookies = client.cookies
    r = client_raise.get(f"/api/v1/campaigns/{cid}")
    assert r.status_code == 500 and r.json()["code"] == "internal"
    assert "secret internals" not in r.text and "Traceback" not in r.text


def test_export_is_for_the_gm(app):
    cid, m = table(app)
    assert m["pat"].get(f"/api/v1/campaigns/{cid}/export").status_code == 403
    doc = m["gm"].get(f"/api/v1/campaigns/{cid}/export").json()
    assert doc["format"] == "herotable.campaign" and doc["event_count"] == len(doc["events"])


def test_the_games_are_listed_and_a_new_campaign_must_name_one_of_them(app):
    gm = register(app, "gwen")
    games = anonymous(app).get("/api/v1/games").json()
    assert [(g["ruleset"], g["title"]) for g in games] == [("ltl", "Larger Than Life"), ("conviction", "Conviction")]
    assert all(g["rules_version"] >= 1 for g in games)
    refused = gm.post("/api/v1/campaigns", {"name": "Knights", "ruleset": "chess"})
    assert refused.status_code == 422
    said = refused.json()
    assert "'chess'" in said["detail"] and "ltl, conviction" in said["detail"]  # what is wrong, what to send
    assert "Value error" not in said["detail"]
    assert gm.get("/api/v1/campaigns").json() == []  # nothing was made
    spec = anonymous(app).get("/openapi.json").json()
    assert spec["components"]["schemas"]["NewCampaign"]["properties"]["ruleset"]["enum"] == ["ltl", "conviction"]


def test_every_command_in_the_schema_says_in_a_sentence_of_its_own_what_it_does() -> None:
    from fastapi.testclient import TestClient

    from herotable.table.commands import COMMANDS

    from .clients import make_app

    schemas = TestClient(make_app()).get("/openapi.json").json()["components"]["schemas"]
    described = {
        s["properties"]["type"].get("const") or (s["properties"]["type"].get("enum") or [None])[0]: s.get(
            "description", ""
        )
        for s in schemas.values()
        if "type" in s.get("properties", {})
    }
    for kind, spec in COMMANDS.items():
        text = described.get(kind, spec.cls.__doc__ or "")
        assert text and not text.startswith(spec.cls.__name__ + "("), f"{kind}: {text[:60]!r}"
        assert len(text.split()) >= 4, kind


def test_the_conflict_chart_is_declared_as_the_svg_it_is() -> None:
    from fastapi.testclient import TestClient

    from .clients import make_app

    operation = (
        TestClient(make_app())
        .get("/openapi.json")
        .json()["paths"]["/api/v1/campaigns/{campaign_id}/odds/conflict.svg"]["get"]
    )
    assert list(operation["responses"]["200"]["content"]) == ["image/svg+xml"]
