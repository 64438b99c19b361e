"""The example bot of docs/examples/dice_bot.py runs against a real server with a token of its own: it follows the
campaign's socket, answers `!odds d8 d10` in the chat with the API's odds, and prints each roll as it happens."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

from .clients import over_http
from .test_browser import Server, server  # noqa: F401

BOT = Path(__file__).resolve().parents[2] / "docs" / "examples" / "dice_bot.py"
PASSWORD = "example-bot-password"


def _member(url: str, name: str) -> Any:
    return over_http(url, name, PASSWORD)


def _said_by(ws: Any, actor: str) -> str:
    """The next chat line `actor` says, as the GM's socket carries it."""
    while True:
        for event in json.loads(ws.recv(timeout=60))["events"]:
            if event["type"] == "chat.said" and event["actor"] == actor:
                return str(event["fact"]["text"])


def test_the_example_bot_answers_odds_and_prints_rolls(server: Server) -> None:  # noqa: F811
    gm, bot_account = _member(server.url, "gwen"), _member(server.url, "dicebot")
    cid = gm.post("/api/v1/campaigns", json={"name": "Harbour Nights", "ruleset": "ltl"}).json()["campaign_id"]
    code = gm.post(f"/api/v1/campaigns/{cid}/invites", json={"role": "player"}).json()["code"]
    joined = bot_account.post(f"/api/v1/join/{code}", json={}).json()
    bot_id = bot_account.get("/api/v1/me").json()["user_id"]
    assert joined
    token = bot_account.post("/api/v1/tokens", json={"name": "dice bot", "scope": "play", "campaign_id": cid})
    env = {"HEROTABLE_URL": server.url, "HEROTABLE_TOKEN": token.json()["token"], "PATH": "/usr/bin:/bin"}
    bot = subprocess.Popen([sys.executable, str(BOT), cid], env=env, stdout=subprocess.PIPE, text=True)
    assert bot.stdout is not None
    try:
        assert bot.stdout.readline().strip() == "following Harbour Nights"
        cookie = "; ".join(f"{k}={v}" for k, v in gm.cookies.items())
        with connect(
            f"ws{server.url.removeprefix('http')}/ws/campaigns/{cid}", additional_headers={"Cookie": cookie}
        ) as ws:
            assert json.loads(ws.recv(timeout=60))["type"] == "hello"
            assert gm.post(
                f"/api/v1/campaigns/{cid}/commands", json={"type": "chat.say", "text": "!odds d8 d10"}
            ).is_success
            assert _said_by(ws, bot_id) == "d8 against d10: wins 35%, ties 10%, loses 55%"
            assert bot.stdout.readline().strip() == "answered !odds d8 d10"
            assert gm.post(
                f"/api/v1/campaigns/{cid}/commands", json={"type": "chat.say", "text": "!odds d7 d10"}
            ).is_success
            assert "is not a die of the ladder" in _said_by(ws, bot_id)  # the API's own words, passed on
        assert bot.stdout.readline().strip() == "answered !odds d7 d10"
        rolled = gm.post(
            f"/api/v1/campaigns/{cid}/commands",
            json={"type": "table.roll", "expression": "2d6", "label": "for the bot"},
        )
        assert rolled.is_success
        line = bot.stdout.readline()
        assert line.startswith("rolled: ") and "2d6" in line, line
        listed = bot_account.get("/api/v1/tokens").json()
        assert bot_account.delete(f"/api/v1/tokens/{listed[0]['token_id']}").is_success
        # revoked: the bot is shut out at once, and says why
        assert bot.stdout.readline().strip() == "the socket closed: this API token was revoked or its account ended"
        assert bot.wait(60) == 1
    finally:
        bot.kill()
