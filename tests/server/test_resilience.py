"""A live table that survives what goes wrong: a retried command lands once, a Redis outage never turns a recorded
command into an error, and when Redis is back every viewer catches up, missing and repeating nothing.

The outage tests run their own Redis server (`redis-server` on a free port), so stopping it disturbs nobody else."""

from __future__ import annotations

from typing import Any

from herotable.store import open_store

from .clients import make_app, table
from .test_live import receive


def test_a_retried_command_id_is_recorded_once_and_answers_as_the_first_time():
    app = make_app()
    cid, m = table(app)
    url = f"/api/v1/campaigns/{cid}/commands?command_id=roll-0001"
    first = m["pat"].post(url, {"type": "table.roll", "expression": "2d6", "label": "once"})
    assert first.status_code == 200, first.text
    assert first.json()["repeated"] is False and first.json()["command_id"] == "roll-0001"
    head = app.state.services.table.store.head(cid)
    again = m["pat"].post(url, {"type": "table.roll", "expression": "2d6", "label": "once"})
    assert again.status_code == 200, again.text
    assert again.json()["repeated"] is True
    assert app.state.services.table.store.head(cid) == head  # nothing written
    assert [e["fact"] for e in again.json()["events"]] == [e["fact"] for e in first.json()["events"]]  # same dice


def test_a_command_id_names_one_command_of_one_member():
    app = make_app()
    cid, m = table(app)
    url = f"/api/v1/campaigns/{cid}/commands?command_id=roll-0002"
    assert m["pat"].post(url, {"type": "table.roll", "expression": "1d20"}).status_code == 200
    head = app.state.services.table.store.head(cid)
    other = m["pat"].post(url, {"type": "table.roll", "expression": "1d6"})
    assert other.status_code == 409 and other.json()["error"]["code"] == "command/id_reused"
    someone_else = m["sam"].post(url, {"type": "table.roll", "expression": "1d20"})
    assert someone_else.status_code == 409
    assert app.state.services.table.store.head(cid) == head
    bad = m["pat"].post(f"/api/v1/campaigns/{cid}/commands?command_id=no", {"type": "table.roll", "expression": "1"})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "query.command_id"


# --- Redis outages ---


def positions(frames: list[dict[str, Any]]) -> list[int]:
    return [e["position"] for f in frames for e in f["events"]]


def test_a_command_is_answered_and_recorded_while_redis_is_down(tmp_path, private_redis):
    app = make_app(store=open_store(f"sqlite:///{tmp_path / 'down.db'}"), redis_url=private_redis.url)
    cid, m = table(app)
    with m["pat"].client as client, client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
        assert receive(ws)["type"] == "hello"
        private_redis.stop()
        answer = m["gm"].command(cid, type="structure.start_scene")
        assert answer.status_code == 200, answer.text  # recorded, so never "nothing was changed"
        assert app.state.services.table.state(cid).structure.scene == 1
        frame = receive(ws)  # this process's own viewers are told directly
        assert [e["type"] for e in frame["events"]] == ["structure.scene_started"]


def test_after_an_outage_every_viewer_on_another_process_catches_up_once(tmp_path, private_redis):
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    first = make_app(store=open_store(url), redis_url=private_redis.url)
    second = make_app(store=open_store(url), redis_url=private_redis.url)
    cid, m = table(first)
    pat_on_second = type(m["pat"].client)(second)
    pat_on_second.cookies = m["pat"].client.cookies
    with (
        m["gm"].client,
        pat_on_second as client,
        client.websocket_connect(f"/ws/campaigns/{cid}") as ws,
    ):
        hello = receive(ws)
        assert hello["type"] == "hello"
        m["gm"].command(cid, type="structure.start_adventure")
        frames = [receive(ws)]
        private_redis.stop()
        assert m["gm"].command(cid, type="structure.start_session").status_code == 200  # missed by the second
        assert m["gm"].command(cid, type="structure.start_scene").status_code == 200
        private_redis.start()
        frames.append(receive(ws, timeout=30))  # the listener is back: the viewer catches up from the store
        while sum(len(f["events"]) for f in frames) < 3:
            frames.append(receive(ws, timeout=30))
        m["gm"].command(cid, type="ltl.time_passes", period="minutes")
        frames.append(receive(ws, timeout=30))
    kinds = [e["type"] for f in frames for e in f["events"]]
    assert kinds == [
        "structure.adventure_started",
        "structure.session_started",
        "structure.scene_started",
        "ltl.time_passed",
    ]
    seen = positions(frames)
    assert seen == list(range(seen[0], seen[0] + len(seen)))  # nothing missed, nothing twice


def test_the_service_keeps_the_most_recently_used_campaigns_in_memory(monkeypatch):
    from herotable import service as service_module
    from herotable.service import TableService
    from herotable.store import MemoryEventStore
    from herotable.table.state import Ruleset

    monkeypatch.setattr(service_module, "CACHED_CAMPAIGNS", 2)
    svc = TableService(MemoryEventStore())
    ids = [svc.create_campaign("gm", "GM", f"C{n}", Ruleset.LTL).campaign_id for n in range(3)]
    svc.state(ids[0])  # used again: the oldest is now the second
    assert list(svc._cache) == [ids[2], ids[0]]
    assert svc.state(ids[1]).name == "C1"  # rebuilt from the store when needed
    assert list(svc._cache) == [ids[0], ids[1]]
