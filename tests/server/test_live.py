"""Live frames: each viewer gets what they may see, as it happens, across processes through Redis."""

from __future__ import annotations

import json
import os
import queue
import threading
from typing import Any

import pytest

from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.store import open_store

from .clients import make_app, table

REDIS_URL = os.environ.get("HEROTABLE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def receive(ws: Any, timeout: float = 10.0) -> dict[str, Any]:
    """The next frame, or a failure after `timeout` seconds (a silent socket must not hang the suite)."""
    box: queue.Queue[Any] = queue.Queue()
    threading.Thread(target=lambda: box.put(ws.receive_json()), daemon=True).start()
    try:
        frame: dict[str, Any] = box.get(timeout=timeout)
    except queue.Empty:
        pytest.fail(f"no live frame within {timeout} s")
    return frame


def frames_until(ws: Any, seq_type: str) -> list[dict[str, Any]]:
    """Frames up to and including the one carrying an event of this type."""
    got = []
    while True:
        frame = receive(ws)
        got.append(frame)
        if any(e["type"] == seq_type for e in frame["events"]):
            return got


def setup_fight(m: dict[str, Any], cid: str) -> None:
    m["pat"].command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET)
    m["gm"].command(cid, type="character.create_ltl", character="entropy", sheet=DOCTOR_ENTROPY, npc=True, hidden=True)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_secret_and_pending_rolls_never_reach_other_players_sockets(backend, request, tmp_path):
    url = f"sqlite:///{tmp_path / 'live.db'}" if backend == "sqlite" else request.getfixturevalue("postgres_schema")()
    app = make_app(store=open_store(url))
    cid, m = table(app)
    setup_fight(m, cid)
    with (
        m["gm"].client.websocket_connect(f"/ws/campaigns/{cid}") as gm_ws,
        m["sam"].client.websocket_connect(f"/ws/campaigns/{cid}") as sam_ws,
    ):
        assert receive(gm_ws)["type"] == "hello" and receive(sam_ws)["type"] == "hello"
        secret = m["gm"].command(cid, type="ltl.challenge", character="entropy", difficulty="Hard", secret=True)
        secret_id = secret.json()["events"][0]["command_id"]
        m["gm"].command(cid, type="ltl.settle", task=secret_id)
        pending = m["pat"].command(cid, type="ltl.challenge", character="comet", difficulty="Hard", style="Flight")
        pending_id = pending.json()["events"][0]["command_id"]
        m["pat"].command(cid, type="ltl.settle", task=pending_id)
        gm_frames = frames_until(gm_ws, "ltl.settle")
        while sum(e["type"] == "ltl.settle" for f in gm_frames for e in f["events"]) < 2:
            gm_frames += frames_until(gm_ws, "ltl.settle")
        sam_frames = frames_until(sam_ws, "ltl.settle")
    gm_seen = [e["command_id"] for f in gm_frames for e in f["events"]]
    sam_events = [e for f in sam_frames for e in f["events"]]
    assert secret_id in gm_seen and pending_id in gm_seen
    assert all(e["command_id"] != secret_id and e["summary"].get("task") != secret_id for e in sam_events)
    assert pending_id not in [e["command_id"] for e in sam_events]  # not while pending …
    assert any(e["type"] == "ltl.settle" and e["summary"].get("task") == pending_id for e in sam_events)  # … then yes
    text = json.dumps(sam_frames)
    assert "Decay" not in text and secret_id not in text  # nor the hidden villain's sheet, in events or views


def test_frames_reach_a_viewer_on_another_server_process_through_redis(tmp_path):
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS_URL).ping()
    except redis.exceptions.ConnectionError:
        pytest.skip(f"no Redis at {REDIS_URL}; set HEROTABLE_TEST_REDIS_URL to run the fan-out test")
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    first = make_app(store=open_store(url), redis_url=REDIS_URL)
    second = make_app(store=open_store(url), redis_url=REDIS_URL)
    cid, m = table(first)
    pat_on_second = type(m["pat"].client)(second)
    pat_on_second.cookies = m["pat"].client.cookies
    with pat_on_second as client, client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
        assert receive(ws)["type"] == "hello"
        m["gm"].command(cid, type="structure.start_scene")
        m["gm"].command(cid, type="ltl.time_passes", period="minutes")
        frames = frames_until(ws, "ltl.time_passes")
    assert any(e["type"] == "structure.start_scene" for f in frames for e in f["events"])
