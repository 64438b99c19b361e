"""The live socket's protocol as a schema (docs/socket-protocol.schema.json): every frame a real server sends in a
session of play validates against it, for a GM, a player and a spectator, in a hello, a frame that changes the
panels, a frame of the log alone, a resumed socket and a new role; and a frame that breaks it is refused."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from .clients import table
from .test_live import frames_until, make_app, of_type, receive, setup_fight

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "socket-protocol.schema.json").read_text())
VALIDATOR = Draft202012Validator(SCHEMA)


def _problems(frame: dict[str, Any]) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(frame)]


def test_the_schema_is_a_valid_json_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)


def test_every_frame_of_a_session_of_play_matches_the_schema() -> None:
    app = make_app()
    cid, m = table(app)
    frames: list[dict[str, Any]] = []
    with (
        m["gm"].client.websocket_connect(f"/ws/campaigns/{cid}") as gm,
        m["pat"].client.websocket_connect(f"/ws/campaigns/{cid}") as pat,
        m["sly"].client.websocket_connect(f"/ws/campaigns/{cid}") as sly,
    ):
        for ws in (gm, pat, sly):
            frames.append(receive(ws))
        setup_fight(m, cid)  # characters made (the panels change), one hidden from the players
        for ws in (gm, pat, sly):
            frames += frames_until(ws, of_type("character.joined"))
        m["gm"].command(cid, type="chat.say", text="the storm breaks")  # the log alone: no view, no panels
        m["pat"].command(cid, type="table.roll", expression="2d6", label="a roll")
        for ws in (gm, pat, sly):
            frames += frames_until(ws, of_type("table.dice_rolled"))
        cursor, role = frames[-1]["cursor"], frames[-1]["role"]
    m["gm"].command(cid, type="chat.say", text="while the spectator was away")
    with m["sly"].client.websocket_connect(f"/ws/campaigns/{cid}?after={cursor}&role={role}") as resumed:
        frames.append(receive(resumed))
    kinds = {(f["type"], "view" in f) for f in frames}
    assert {("hello", True), ("events", True), ("events", False)} <= kinds
    assert frames[-1]["type"] == "events" and frames[-1]["events"][0]["text"]
    for frame in frames:
        assert _problems(frame) == [], frame["type"]


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        (lambda f: f.pop("cursor"), "'cursor' is a required property"),
        (lambda f: f.update(type="welcome"), "'welcome' is not one of"),
        (lambda f: f["events"][0].pop("position"), "'position' is a required property"),
        (lambda f: f.update(extra=1), "Additional properties are not allowed"),
    ],
)
def test_a_frame_that_breaks_the_protocol_is_refused(change: Any, complaint: str) -> None:
    app = make_app()
    cid, m = table(app)
    with m["gm"].client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
        hello = receive(ws)
    assert _problems(hello) == []
    broken = copy.deepcopy(hello)
    change(broken)
    assert any(complaint in p for p in _problems(broken))
