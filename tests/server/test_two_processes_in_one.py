"""A command is decided on the state this process remembers, without first asking the store whether another process
moved the campaign on: the append refuses a stale state, and a member or a refusal the stale state gets wrong is
looked up afresh. Two apps on one database stand for two server processes."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from herotable.store import open_store

from .clients import Member, make_app, register


def logged_in(app: Any, username: str) -> Member:
    client = TestClient(app)
    token = client.get("/api/v1/csrf").json()["csrf_token"]
    answer = client.post(
        "/api/v1/auth/login", json={"username": username, "password": "correct horse"}, headers={"X-CSRF-Token": token}
    )
    assert answer.status_code == 200, answer.text
    return Member(client, answer.json()["user"]["user_id"], answer.json()["csrf_token"])


def test_a_member_who_joined_through_another_process_is_known_at_once(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = open_store(f"sqlite:///{tmp_path / 'two.db'}")
    here, there = make_app(store=store), make_app(store=store)
    gm = register(here, "gwen")
    cid = gm.post("/api/v1/campaigns", {"name": "Two", "ruleset": "ltl"}).json()["campaign_id"]
    gm.command(cid, type="table.roll", expression="1d20")  # `here` remembers the campaign without pat
    code = gm.post(f"/api/v1/campaigns/{cid}/invites", {"role": "player"}).json()["code"]
    pat = register(there, "pat")
    assert pat.post(f"/api/v1/join/{code}").status_code == 200  # joined through the other process
    pat_here = logged_in(here, "pat")
    answer = pat_here.command(cid, type="table.roll", expression="1d20")
    assert answer.status_code == 200, answer.text
    assert [e["type"] for e in answer.json()["events"]] == ["table.dice_rolled"]


def test_a_refusal_on_a_stale_state_is_checked_afresh(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = open_store(f"sqlite:///{tmp_path / 'two.db'}")
    here, there = make_app(store=store), make_app(store=store)
    gm = register(here, "gwen")
    cid = gm.post("/api/v1/campaigns", {"name": "Two", "ruleset": "ltl"}).json()["campaign_id"]
    code = gm.post(f"/api/v1/campaigns/{cid}/invites", {"role": "player"}).json()["code"]
    pat = register(there, "pat")
    assert pat.post(f"/api/v1/join/{code}").status_code == 200
    gm.command(cid, type="table.roll", expression="1d20")  # `here` now remembers the campaign
    asked = pat.command(cid, type="request.ask", kind="other", text="may I?").json()  # through the other process
    answer = gm.command(cid, type="request.answer", request=asked["command_id"], answer="yes")
    assert answer.status_code == 200, answer.text
    # the answer holds what landed since the GM's last look (the ask, through the other process), then the answer
    events = answer.json()["events"]
    assert [e["type"] for e in events] == ["request.opened", "request.answered"]
    assert events[1]["position"] == events[0]["position"] + 1


def test_a_gm_who_hands_over_is_answered_in_their_new_stream(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The answer's cursor is the one of the stream the member reads now (a player's), never the GM's read as a
    player's: following it reads on without error and without skipping anything."""
    from .clients import table

    app = make_app(store=open_store(f"sqlite:///{tmp_path / 'two.db'}"))
    cid, m = table(app)
    m["gm"].command(cid, type="table.roll", expression="1d20", secret=True)  # the GM's stream runs ahead
    m["gm"].command(cid, type="table.roll", expression="1d20", secret=True)
    m["pat"].command(cid, type="table.roll", expression="1d20")
    handed = m["gm"].command(cid, type="campaign.hand_over", user=m["pat"].user_id)
    assert handed.status_code == 200, handed.text
    assert [e["type"] for e in handed.json()["events"]] == ["campaign.gm_handed_over"]
    cursor = handed.json()["cursor"]
    m["pat"].command(cid, type="table.roll", expression="1d20")
    after = m["gm"].get(f"/api/v1/campaigns/{cid}/events?after={cursor}")
    assert after.status_code == 200, after.text
    assert [e["type"] for e in after.json()["events"]] == ["table.dice_rolled"]
    mine = m["gm"].get(f"/api/v1/campaigns/{cid}/events").json()["events"]
    assert [e["position"] for e in mine] == list(range(1, len(mine) + 1))
