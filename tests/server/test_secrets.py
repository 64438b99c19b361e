"""What a hidden sheet, a secret roll or an opponent's choice must never give away (R-T-2, R-LTL-8)."""

from __future__ import annotations

import json

import pytest
from starlette.websockets import WebSocketDisconnect

from herotable.dice import ScriptedRng
from herotable.ltl.options import Initiative
from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.table.state import Ruleset

from .clients import make_app, register, table


def villain_table(rng=None):
    app = make_app(rng=rng)
    cid, m = table(app)
    m["pat"].command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET)
    m["gm"].command(cid, type="character.create_ltl", character="entropy", sheet=DOCTOR_ENTROPY, npc=True, hidden=True)
    return cid, m


def seen_by(member, cid):
    return json.dumps(member.get(f"/api/v1/campaigns/{cid}/events").json()) + json.dumps(
        member.get(f"/api/v1/campaigns/{cid}").json()
    )


def events_of(member, cid):
    return member.get(f"/api/v1/campaigns/{cid}/events").json()["events"]


def about(events, character):
    return [e for e in events if character in (e["fact"].get("character"), e["fact"].get("actor"))]


def test_a_hidden_villains_karma_and_heroism_uses_are_the_gms():
    cid, m = villain_table()
    for body in (
        {"type": "ltl.karma.try_again", "character": "entropy"},
        {"type": "ltl.heroism.push", "character": "entropy", "burn": True},
        {"type": "ltl.hero_points.award", "character": "entropy", "points": 5},
    ):
        assert m["gm"].command(cid, **body).status_code == 200
    kinds = {"ltl.karma_burned", "ltl.heroism_burned", "ltl.hero_points_awarded"}
    assert [e["type"] for e in about(events_of(m["sam"], cid), "entropy")] == ["character.joined"]  # a name only
    assert kinds <= {e["type"] for e in about(events_of(m["gm"], cid), "entropy")}
    assert "Decay" not in seen_by(m["sam"], cid)
    m["pat"].command(cid, type="ltl.karma.try_again", character="comet")
    assert "ltl.karma_burned" in [e["type"] for e in about(events_of(m["sam"], cid), "comet")]


def test_initiative_dice_do_not_reveal_a_hidden_villain():
    app = make_app(rng=ScriptedRng([(10, 7), (10, 3)]))
    gm, pat = register(app, "gwen"), register(app, "pat")
    state = app.state.services.table.create_campaign(
        gm.user_id, "Gwen", "Rolls once", Ruleset.LTL, options={"initiative": Initiative.ONCE.value}
    )
    cid = state.campaign_id
    pat.post(f"/api/v1/join/{gm.post(f'/api/v1/campaigns/{cid}/invites', {'role': 'player'}).json()['code']}")
    pat.command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET)
    gm.command(cid, type="character.create_ltl", character="entropy", sheet=DOCTOR_ENTROPY, npc=True, hidden=True)
    r = gm.command(cid, type="ltl.conflict.start", fighters=[["comet", "h"], ["entropy", "v"]])
    assert r.status_code == 200, r.text
    view = pat.get(f"/api/v1/campaigns/{cid}").json()
    assert [roll[0] for roll in view["game"]["conflict"]["initiative_rolls"]] == ["comet"]
    rolled = [e["fact"]["character"] for e in events_of(pat, cid) if e["type"] == "ltl.initiative_rolled"]
    assert rolled == ["comet"]
    assert len(gm.get(f"/api/v1/campaigns/{cid}").json()["game"]["conflict"]["initiative_rolls"]) == 2
    gm_rolled = [e["fact"]["character"] for e in events_of(gm, cid) if e["type"] == "ltl.initiative_rolled"]
    assert sorted(gm_rolled) == ["comet", "entropy"]


def test_a_secret_must_succeed_failure_stays_with_the_gm():
    cid, m = villain_table(rng=ScriptedRng([(20, 2), (20, 19)]))
    opened = m["gm"].command(
        cid,
        type="ltl.challenge",
        character="comet",
        difficulty="Inconceivable",
        style="Flight",
        secret=True,
        must_succeed=True,
    )
    task = opened.json()["events"][0]["fact"]["task"]
    assert m["gm"].command(cid, type="ltl.settle", task=task).status_code == 200
    assert m["pat"].get(f"/api/v1/campaigns/{cid}").json()["game"]["failed"] == []
    assert len(m["gm"].get(f"/api/v1/campaigns/{cid}").json()["game"]["failed"]) == 1
    assert task not in seen_by(m["pat"], cid)


def test_odds_are_for_your_own_fighters_and_never_for_a_hidden_one():
    cid, m = villain_table()
    r = m["pat"].get(f"/api/v1/campaigns/{cid}/odds/exchange?actor=entropy&target=comet")
    assert r.status_code == 409 and r.json()["code"] == "odds/not_yours"
    assert m["pat"].get(f"/api/v1/campaigns/{cid}/odds/conflict.svg?actor=entropy&target=comet").status_code == 409


def test_the_loser_cannot_choose_the_winners_critical_reward():
    # R-LTL-8 (amended 2026-12-02): the winner's controller chooses; a settler's choice for the other side is no choice
    cid, m = villain_table(rng=ScriptedRng([(12, 1), (12, 12)]))
    m["gm"].command(cid, type="ltl.conflict.start", fighters=[["comet", "h"], ["entropy", "v"]])
    chosen = m["pat"].command(
        cid, type="ltl.attack", actor="comet", target="entropy", style="Fisticuffs", target_style="Decay"
    )
    error = chosen.json()  # the defender's Style is its standing defence, never the attacker's (R-T-3)
    assert chosen.status_code == 422 and error["field"] == "target_style"
    assert m["gm"].command(cid, type="ltl.defence", character="entropy", style="Decay").status_code == 200
    m["pat"].command(cid, type="ltl.attack", actor="comet", target="entropy", style="Fisticuffs")
    assert m["gm"].command(cid, type="ltl.settle").status_code == 200  # the GM accepts first (R-LTL-3)
    refused = m["pat"].command(cid, type="ltl.settle", crit_bonus="other", crit_penalty="mishap")
    assert refused.json()["code"] == "ltl/no_critical"  # her own 1 is no critical to reward (version 7)
    settled = m["pat"].command(cid, type="ltl.settle").json()
    summary = settled["events"][0]["fact"]
    assert (summary["winner"], summary["effect"], summary["crit_bonus"]) == ("entropy", 1, "due")
    comet = m["gm"].get(f"/api/v1/campaigns/{cid}").json()["game"]["heroes"]["comet"]
    assert comet["next_round"] == ["minus_one"]  # a mishap instead is the GM's call
    taken = m["pat"].command(cid, type="ltl.crit.choose", character="entropy", bonus="other")
    assert taken.status_code == 403
    assert m["gm"].command(cid, type="ltl.crit.choose", character="entropy", bonus="extra_level").status_code == 200
    pending = m["gm"].get(f"/api/v1/campaigns/{cid}").json()["game"]["conflict"]["pending"]
    assert [(p["target"], p["levels"]) for p in pending] == [("comet", 1), ("comet", 1)]


def test_login_never_redirects_off_the_site():
    _, m = villain_table()
    for target in ("//evil.example/x", "https://evil.example/", "/\\evil.example"):
        r = m["pat"].client.get(f"/login?next={target}", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/"
    assert m["pat"].client.get("/login?next=/campaigns", follow_redirects=False).headers["location"] == "/campaigns"


def test_cross_site_live_connections_are_refused():
    cid, m = villain_table()
    with (
        pytest.raises(WebSocketDisconnect) as closed,
        m["pat"].client.websocket_connect(f"/ws/campaigns/{cid}", headers={"origin": "https://evil.example"}) as ws,
    ):
        ws.receive_json()
    assert closed.value.code == 4403
    with m["pat"].client.websocket_connect(f"/ws/campaigns/{cid}", headers={"origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "hello"
