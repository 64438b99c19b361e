"""A live table that survives what goes wrong: a retried command lands once, a Redis outage never turns a recorded
command into an error, nor an account request (logins, limits and sessions fall back to the database), and when
Redis is back every viewer catches up, missing and repeating nothing; a socket that dropped reconnects with its cursor
and gets what it missed and may see, once and in order.

The outage tests run their own Redis server (`redis-server` on a Unix socket of their own), so stopping it
disturbs nobody else."""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from herotable.server.redis_link import BACK_OFF_S
from herotable.server.security import SESSION_COOKIE
from herotable.store import open_store
from herotable.store.schema import ThrottleRecord

from .clients import SteadyClock, anonymous, called, make_app, register, shared_clock, table
from .test_account_security import PASSWORD, login
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
    assert other.status_code == 409 and other.json()["code"] == "command/id_reused"
    someone_else = m["sam"].post(url, {"type": "table.roll", "expression": "1d20"})
    assert someone_else.status_code == 409
    assert app.state.services.table.store.head(cid) == head
    bad = m["pat"].post(f"/api/v1/campaigns/{cid}/commands?command_id=no", {"type": "table.roll", "expression": "1"})
    assert bad.status_code == 422 and bad.json()["field"] == "command_id"


def test_a_database_connection_lost_under_the_pool_answers_503_and_the_next_request_works(postgres_schema, monkeypatch):
    """PostgreSQL restarted, or dropped a connection the pool holds, within the second in which a connection is
    taken unchecked: the request that meets it is told to try again (503, with Retry-After), the pool is renewed,
    and the next request is served."""
    import sqlalchemy as sa

    from herotable.store import engine as engines

    name = "ht_lost_connection"
    url = postgres_schema() + f"&application_name={name}"
    app = make_app(store=open_store(url))
    _, m = table(app)
    assert m["gm"].get("/api/v1/campaigns").status_code == 200
    monkeypatch.setattr(engines, "PING_AFTER_IDLE_S", 3600.0)  # every pooled connection counts as used a moment ago
    killer = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with killer.connect() as connection:
            ended = connection.exec_driver_sql(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                f"WHERE application_name = '{name}' AND pid <> pg_backend_pid()"
            ).scalar_one()
    finally:
        killer.dispose()
    assert ended >= 1
    lost = m["gm"].get("/api/v1/campaigns")
    assert lost.status_code == 503 and lost.headers["retry-after"] == "1"
    assert lost.json()["code"] == "store/unavailable" and "again" in lost.json()["detail"]
    assert m["gm"].get("/api/v1/campaigns").status_code == 200


# --- Redis outages ---


def positions(frames: list[dict[str, Any]]) -> list[int]:
    return [e["position"] for f in frames for e in f["events"]]


def test_a_command_is_answered_and_recorded_while_redis_is_down(tmp_path, private_redis, caplog):
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
        assert m["gm"].command(cid, type="ltl.time_passes", period="minutes").status_code == 200
        assert [e["type"] for e in receive(ws)["events"]] == ["ltl.time_passed"]
    failed = [r for r in caplog.records if r.levelno == logging.WARNING and "could not publish" in r.getMessage()]
    assert len(failed) == 1  # once for the outage, not once per command


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


def throttles(url: str) -> dict[str, int]:
    """The attempts the database counts, by key."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            return {
                key: count for key, count in connection.execute(sa.select(ThrottleRecord.key, ThrottleRecord.count))
            }
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_accounts_work_while_redis_is_down_counting_limits_in_the_database_and_go_back_to_redis(
    backend, request, tmp_path, private_redis, monkeypatch, caplog
):
    """Two processes on one database lose Redis: registering, logging in (right or wrong), changing a password and
    logging out still work, the limits still count across both (in the database), an ending on one is refused at once
    by the other (which keeps no session while it cannot hear endings), each process warns once; once Redis is back,
    the limits count there again, and nothing more in the database."""
    import redis

    url = f"sqlite:///{tmp_path / 'down.db'}" if backend == "sqlite" else request.getfixturevalue("postgres_schema")()
    ticks = SteadyClock()  # how long Redis is left alone after failing: moved by the test alone
    first, second = (make_app(store=open_store(url), redis_url=private_redis.url, ticks=ticks) for _ in range(2))
    lost = [called(monkeypatch, app.state.services.live_sessions, "unheard") for app in (first, second)]
    back = [called(monkeypatch, app.state.services.live_sessions, "heard") for app in (first, second)]
    with TestClient(first), TestClient(second):  # their hubs listen to Redis
        gwen = register(first, "gwen")
        gwen_there = TestClient(second, cookies={SESSION_COOKIE: gwen.client.cookies.get(SESSION_COOKIE)})
        assert gwen_there.get("/api/v1/me").status_code == 200  # kept by the second process
        caplog.set_level(logging.WARNING, logger="herotable.server.redis_link")
        private_redis.stop()
        nia = register(second, "nia")  # registering, counted in the database
        assert throttles(url)["register-address:testclient"] == 1
        one, two = anonymous(first), anonymous(second)
        assert [login(one, "nia", "wrong guess").status_code for _ in range(3)] == [401] * 3
        assert [login(two, "nia", "wrong guess").status_code for _ in range(2)] == [401] * 2
        assert login(one, "nia", PASSWORD).status_code == 429  # five counted across both processes
        assert throttles(url)["login-account:nia"] == 5
        shared_clock().advance(1.5)  # the wait the limit asked for
        assert login(one, "nia", PASSWORD).status_code == 200  # nia on the first process too
        assert "login-account:nia" not in throttles(url)  # a login that gets in clears the account's count
        assert one.get("/api/v1/me").status_code == 200

        for event in lost:  # each listener found Redis gone: from now on they read every session from the store
            assert event.wait(30), "a process never noticed that Redis was gone"
        assert one.get("/api/v1/me").status_code == gwen_there.get("/api/v1/me").status_code == 200  # not kept
        body = {"current_password": PASSWORD, "new_password": "a new secret"}
        changed = nia.post("/api/v1/auth/password", body)  # through the second process
        assert changed.status_code == 200 and changed.json() == {"other_sessions_ended": 1}
        assert one.get("/api/v1/me").status_code == 401  # refused at once on the first
        assert gwen.post("/api/v1/auth/logout").status_code == 200  # through the first
        assert gwen_there.get("/api/v1/me").status_code == 401  # refused at once on the second
        assert login(two, "gwen", PASSWORD).status_code == 200
        away = [r for r in caplog.records if r.levelno == logging.WARNING and r.name == "herotable.server.redis_link"]
        assert len(away) == 2  # one warning per process for the whole outage

        private_redis.start()
        for event in back:
            assert event.wait(30), "a process never listened to Redis again"
        ticks.advance(BACK_OFF_S)  # the processes ask Redis again
        before = throttles(url)
        assert login(one, "nia", "wrong guess").status_code == 401
        assert login(two, "nia", "a new secret").status_code == 200
        assert throttles(url) == before  # counted in Redis alone
        counted = redis.Redis.from_url(private_redis.url)
        prefix = first.state.services.settings.redis_prefix + "throttle:"
        try:
            assert counted.hget(prefix + "login-address:testclient", "count") == b"1"  # the wrong one (the right one
            assert not counted.exists(prefix + "login-account:nia")  # took its own back and cleared the account)
        finally:
            counted.close()


def test_the_service_keeps_the_most_recently_used_campaigns_in_memory(monkeypatch):
    from herotable.service import TableService
    from herotable.service import memory as service_memory
    from herotable.store import MemoryEventStore
    from herotable.table.state import Ruleset

    monkeypatch.setattr(service_memory, "CACHED_CAMPAIGNS", 2)
    svc = TableService(MemoryEventStore())
    ids = [svc.create_campaign("gm", "GM", f"C{n}", Ruleset.LTL).campaign_id for n in range(3)]
    svc.state(ids[0])  # used again: the oldest is now the second
    assert list(svc.memory._cache) == [ids[2], ids[0]]
    assert svc.state(ids[1]).name == "C1"  # rebuilt from the store when needed
    assert list(svc.memory._cache) == [ids[0], ids[1]]


def test_a_server_keeps_as_many_campaigns_in_memory_as_its_setting_says():
    from herotable.server.app import create_app
    from herotable.server.settings import Settings
    from herotable.store import MemoryEventStore
    from herotable.table.state import Ruleset

    app = create_app(Settings(secret_key="cache-tests-secret-0123456789", cached_campaigns=2), store=MemoryEventStore())
    svc = app.state.services.table
    ids = [svc.create_campaign("gm", "GM", f"C{n}", Ruleset.LTL).campaign_id for n in range(3)]
    assert list(svc.memory._cache) == ids[1:]


# --- a dropped socket ---


def said(e: dict[str, Any]) -> str:
    """What a roll or chat fact says, to tell them apart: its label or its text."""
    return str(e["fact"].get("label") or e["fact"].get("text"))


def act(member: Any, cid: str, **body: Any) -> None:
    answer = member.command(cid, **body)
    assert answer.status_code == 200, answer.text


def frames_for(ws: Any, count: int) -> list[dict[str, Any]]:
    """Frames until they hold `count` events (fails if the socket goes quiet first)."""
    got: list[dict[str, Any]] = []
    while sum(len(f["events"]) for f in got) < count:
        got.append(receive(ws, timeout=30))
    return got


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_dropped_socket_reconnects_with_its_cursor_and_gets_each_missed_fact_it_may_see_once_in_order(
    backend, request, tmp_path
):
    # a socket dropped and reconnected catches up (a player and the GM, each with their own stream)
    url = f"sqlite:///{tmp_path / 'drop.db'}" if backend == "sqlite" else request.getfixturevalue("postgres_schema")()
    app = make_app(store=open_store(url))
    cid, m = table(app)
    ids = {who: m[who].user_id for who in m}
    with (
        m["sam"].client.websocket_connect(f"/ws/campaigns/{cid}") as sam_ws,
        m["gm"].client.websocket_connect(f"/ws/campaigns/{cid}") as gm_ws,
    ):
        assert receive(sam_ws)["type"] == receive(gm_ws)["type"] == "hello"
        act(m["pat"], cid, type="table.roll", expression="1d20", label="before")
        last = {"sam": frames_for(sam_ws, 1)[-1], "gm": frames_for(gm_ws, 1)[-1]}
    # both sockets are closed; the table goes on: more than a page (200) of facts Sam may see, and some he may not
    sent: list[tuple[str, str | None]] = []  # what was said, and to whom alone (None: everyone; "gm": the GM's)
    for n in range(230):
        act(m[("pat", "gm")[n % 2]], cid, type="table.roll", expression="1d6", label=f"roll {n}")
        sent.append((f"roll {n}", None))
        if n % 20 == 0:
            act(m["gm"], cid, type="table.roll", expression="1d4", label=f"secret {n}", secret=True)
            sent.append((f"secret {n}", "gm"))
            act(m["pat"], cid, type="chat.say", text=f"to the GM {n}", to=ids["gm"])
            sent.append((f"to the GM {n}", "gm"))
            act(m["pat"], cid, type="chat.say", text=f"to Sam {n}", to=ids["sam"])
            sent.append((f"to Sam {n}", "sam"))

    def meanwhile() -> None:  # the table does not wait for a socket that is reconnecting
        for n in range(10):
            act(m["pat"], cid, type="table.roll", expression="1d8", label=f"meanwhile {n}")
            sent.append((f"meanwhile {n}", None))

    for who in ("sam", "gm"):
        cursor, role = last[who]["cursor"], last[who]["role"]
        if who == "sam":
            expected = [text for text, only in sent if only in (None, "sam")] + [f"meanwhile {n}" for n in range(10)]
        else:  # the GM sees everything, a whisper between two players as both its copies (one for each)
            expected = [text for text, only in sent for _ in range(2 if only == "sam" else 1)]
        writer = threading.Thread(target=meanwhile)
        with m[who].client.websocket_connect(f"/ws/campaigns/{cid}?after={cursor}&role={role}") as ws:
            if who == "sam":
                writer.start()
            frames = frames_for(ws, len(expected))
            if who == "sam":
                writer.join()
            act(m["pat"], cid, type="table.roll", expression="1d4", label=f"{who} is back")
            frames += frames_for(ws, 1)
        sent.append((f"{who} is back", None))
        assert {f["type"] for f in frames} == {"events"}, who  # carried on, not greeted afresh
        got = [e for f in frames for e in f["events"]]
        assert [said(e) for e in got] == [*expected, f"{who} is back"], who  # each once, in order, nothing else
        place = last[who]["events"][-1]["position"]
        assert [e["position"] for e in got] == list(range(place + 1, place + 1 + len(got))), who  # no gap, no repeat
        if who == "sam":
            text = json.dumps(frames)
            assert "secret" not in text and "to the GM" not in text


def test_a_socket_whose_cursor_or_role_no_longer_holds_is_greeted_afresh(tmp_path):
    app = make_app(store=open_store(f"sqlite:///{tmp_path / 'fresh.db'}"))
    cid, m = table(app)
    with m["sly"].client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
        assert receive(ws)["type"] == "hello"
        act(m["pat"], cid, type="table.roll", expression="1d20", label="seen")
        cursor = frames_for(ws, 1)[-1]["cursor"]
    act(m["gm"], cid, type="table.roll", expression="1d4", label="hidden", secret=True)
    beyond = m["gm"].get(f"/api/v1/campaigns/{cid}/events").json()["last"]  # the GM's: past the end of Sly's
    for query in (f"after={cursor}&role=gm", f"after={beyond}&role=spectator", "after=bm90LW91cnM&role=spectator"):
        with m["sly"].client.websocket_connect(f"/ws/campaigns/{cid}?{query}") as ws:
            hello = receive(ws)
            assert hello["type"] == "hello" and hello["role"] == "spectator", query
            assert said(hello["events"][-1]) == "seen"  # the newest of the stream, as on a first connection
    act(m["gm"], cid, type="member.set_role", user=m["sly"].user_id, role="player")
    with m["sly"].client.websocket_connect(f"/ws/campaigns/{cid}?after={cursor}&role=spectator") as ws:
        hello = receive(ws)  # a player reads another stream than a spectator did: it starts afresh
        assert hello["type"] == "hello" and hello["role"] == "player"
