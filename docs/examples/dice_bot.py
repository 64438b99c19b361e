#!/usr/bin/env python3
"""A chat bot for one herotable campaign, driven by a personal API token.

It follows the campaign's live socket and:
- answers a chat line `!odds d8 d10` with the odds of that exchange, asked of the API, in the chat;
- prints each roll and outcome the table tells as it happens (a Discord bridge would post them instead).

Make it an account of its own, invite it to the campaign as a player, and give it a token of scope `play` bound to
the campaign (the account page, or `herotable tokens create dicebot --name "dice bot" --scope play --campaign ID`).
Then:

    HEROTABLE_URL=https://table.example HEROTABLE_TOKEN=htk_… python3 dice_bot.py CAMPAIGN_ID

It needs only Python and the `websockets` package. It stops when the socket closes (the token revoked, the server
gone): run it under a supervisor that starts it again.
"""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

ODDS = re.compile(r"^\s*!odds\s+(d\d+)\s+(d\d+)\s*$", re.IGNORECASE)


class Table:
    """The API as this bot uses it: every request carries the token, and nothing else (no cookie, no CSRF token)."""

    def __init__(self, base: str, token: str, campaign: str) -> None:
        self.base, self.token, self.campaign = base.rstrip("/"), token, campaign

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        request = urllib.request.Request(
            f"{self.base}/api/v1/campaigns/{self.campaign}{path}",
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return json.load(answer)
        except urllib.error.HTTPError as refused:  # a problem (RFC 9457): its `detail` says what is wrong, `fix` how
            return json.load(refused)  # to put it right, and `code` which problem it is

    def say(self, text: str) -> None:
        self.call("POST", "/commands", {"type": "chat.say", "text": text})

    def socket_url(self) -> str:
        return f"ws{self.base.removeprefix('http')}/ws/campaigns/{self.campaign}"


def percent(odds: dict[str, Any], key: str) -> str:
    return f"{odds[key]['float']:.0%}"


def answer(table: Table, event: dict[str, Any]) -> None:
    """React to one fact of the campaign, as the bot's member sees it."""
    if event["type"] == "chat.said" and not event.get("undone"):
        asked = ODDS.match(str(event["fact"].get("text", "")))
        if asked:
            you, opp = asked.group(1).lower(), asked.group(2).lower()
            query = urllib.parse.urlencode({"you": you, "opp": opp})
            odds = table.call("GET", f"/odds/dice?{query}")
            if "detail" in odds:  # refused: the player hears why
                table.say(f"!odds {you} {opp}: {odds['detail']} ({odds['fix']})")
            else:
                table.say(
                    f"{you} against {opp}: wins {percent(odds, 'win')}, ties {percent(odds, 'tie')}, "
                    f"loses {percent(odds, 'lose')}"
                )
            print(f"answered !odds {you} {opp}", flush=True)
    elif event.get("headline") and not event.get("undone"):
        print(f"rolled: {event['text']}", flush=True)


def main() -> int:
    if len(sys.argv) != 2 or not os.environ.get("HEROTABLE_URL") or not os.environ.get("HEROTABLE_TOKEN"):
        print(__doc__, file=sys.stderr)
        return 2
    table = Table(os.environ["HEROTABLE_URL"], os.environ["HEROTABLE_TOKEN"], sys.argv[1])
    with connect(table.socket_url(), additional_headers={"Authorization": f"Bearer {table.token}"}) as socket:
        hello = json.loads(socket.recv())
        print(f"following {hello['view']['name']}", flush=True)
        try:
            for message in socket:
                for event in json.loads(message).get("events", []):
                    answer(table, event)
        except ConnectionClosed as closed:  # the server ended it: a revoked token, a removed member
            why = closed.rcvd.reason if closed.rcvd is not None else "no reason given"
            print(f"the socket closed: {why}", flush=True)
            return 1
    print("the socket closed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
