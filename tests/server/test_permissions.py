"""Every endpoint for every role: allowed calls succeed, the rest get 401/403 and change nothing (R-T-2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from herotable.ltl.samples import CAPTAIN_COMET

from .clients import Member, make_app, register, table

ROLES = ("anonymous", "outsider", "spectator", "player", "other_player", "gm")


@pytest.fixture
def world():
    app = make_app()
    cid, m = table(app)
    m["pat"].command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET)
    outsider = register(app, "otto")
    anon_client = type(m["gm"].client)(app)
    anon = Member(anon_client, "", anon_client.get("/api/v1/csrf").json()["csrf_token"])
    who = {
        "anonymous": anon,
        "outsider": outsider,
        "spectator": m["sly"],
        "player": m["pat"],
        "other_player": m["sam"],
        "gm": m["gm"],
    }
    for member in who.values():  # an invitation for each caller to try to withdraw
        member.invite = m["gm"].post(f"/api/v1/campaigns/{cid}/invites", {"role": "player"}).json()["code"]
    return app, cid, who


Call = Callable[[Member, str], Any]

# (name, call, the roles allowed; everyone else is refused with 401 when anonymous, else 403)
CASES: list[tuple[str, Call, set[str]]] = [
    ("read me", lambda u, c: u.get("/api/v1/me"), set(ROLES) - {"anonymous"}),
    ("list campaigns", lambda u, c: u.get("/api/v1/campaigns"), set(ROLES) - {"anonymous"}),
    (
        "create campaign",
        lambda u, c: u.post("/api/v1/campaigns", {"name": "New", "ruleset": "ltl"}),
        set(ROLES) - {"anonymous"},
    ),
    ("read campaign", lambda u, c: u.get(f"/api/v1/campaigns/{c}"), {"spectator", "player", "other_player", "gm"}),
    ("read events", lambda u, c: u.get(f"/api/v1/campaigns/{c}/events"), {"spectator", "player", "other_player", "gm"}),
    (
        "act for the player's hero",
        lambda u, c: u.command(c, type="ltl.karma.try_again", character="comet"),
        {"player", "gm"},
    ),
    ("start a scene", lambda u, c: u.command(c, type="structure.start_scene"), {"gm"}),
    (
        "secret roll",
        lambda u, c: u.command(c, type="ltl.challenge", character="comet", difficulty="Hard", secret=True),
        {"gm"},
    ),
    # the latest action is the player's (creating a hero, no dice): its player or the GM may undo it
    ("undo", lambda u, c: u.command(c, type="table.undo"), {"player", "gm"}),
    ("invite", lambda u, c: u.post(f"/api/v1/campaigns/{c}/invites", {"role": "player"}), {"gm"}),
    ("list invites", lambda u, c: u.get(f"/api/v1/campaigns/{c}/invites"), {"gm"}),
    ("export", lambda u, c: u.get(f"/api/v1/campaigns/{c}/export"), {"gm"}),
    ("withdraw an invitation", lambda u, c: u.delete(f"/api/v1/campaigns/{c}/invites/{u.invite}"), {"gm"}),
]


# after an allowed call that consumes what the next role needs, put it back
RESTORE: dict[str, Callable[[dict[str, Member], str], Any]] = {
    "undo": lambda who, c: who["player"].command(
        c, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET
    ),
}


@pytest.mark.parametrize(("name", "call", "allowed"), CASES, ids=[c[0] for c in CASES])
def test_permission_matrix(world, name, call, allowed):
    app, cid, who = world
    store = app.state.services.table.store
    for role in ROLES:
        accounts = app.state.services.accounts
        before = (store.head(cid), len(store.campaigns()), len(accounts.invites_for(cid)))
        r = call(who[role], cid)
        if role in allowed:
            assert r.status_code in (200, 201), f"{name} as {role}: {r.status_code} {r.text}"
            if name in RESTORE:
                assert RESTORE[name](who, cid).status_code == 200
        else:
            assert r.status_code == (401 if role == "anonymous" else 403), f"{name} as {role}: {r.status_code}"
            assert r.headers["content-type"] == "application/problem+json" and r.json()["status"] == r.status_code
            after = (store.head(cid), len(store.campaigns()), len(accounts.invites_for(cid)))
            assert after == before, f"{name} as {role} changed something"


def test_removing_members(world):
    _app, cid, who = world
    target = who["spectator"].user_id
    for role in ("anonymous", "outsider", "player", "other_player"):
        r = who[role].delete(f"/api/v1/campaigns/{cid}/members/{target}")
        assert r.status_code == (401 if role == "anonymous" else 403)
    assert who["gm"].delete(f"/api/v1/campaigns/{cid}/members/{target}").status_code == 200


def test_live_socket_is_for_members_only(world):
    _app, cid, who = world
    for role, code in (("anonymous", 4401), ("outsider", 4403)):
        with (
            pytest.raises(WebSocketDisconnect) as closed,
            who[role].client.websocket_connect(f"/ws/campaigns/{cid}") as ws,
        ):
            ws.receive_json()
        assert closed.value.code == code
    for role in ("spectator", "player", "other_player", "gm"):
        with who[role].client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
            assert ws.receive_json()["type"] == "hello"
