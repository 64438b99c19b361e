"""A GM sets a Discord webhook on the campaign's webhooks page, sends a test, and sees the table's rolls (never a
secret one) reach the channel, an undo edit the message, and each outcome listed; at a desk and on a phone in dark
mode. The channel is a local receiver; what it received is drawn as Discord draws an embed (`discord_mock`), so the
messages can be looked at. Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from herotable.dice import SeededRng
from herotable.server.app import create_app
from herotable.server.settings import Settings
from herotable.store.sql import open_store
from isolation import CHEAP_HASHES

from .clients import listening_socket, port_of, until
from .discord_mock import discord_page
from .receiver import Receiver
from .test_browser import PHONE, SHOTS, Player, Server, browser  # noqa: F401


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.close()


@pytest.fixture
def hooked_server(tmp_path: Any, request: pytest.FixtureRequest) -> Iterator[Server]:
    import uvicorn

    listening = listening_socket()
    url = f"http://127.0.0.1:{port_of(listening)}"
    app = create_app(
        Settings(
            secret_key="browser-tests-secret-0123456789",
            public_url=url,
            webhook_private_addresses=True,  # the channel is a receiver on this machine
            **CHEAP_HASHES,
        ),
        store=open_store(f"sqlite:///{tmp_path / 'table.sqlite'}"),
        rng=SeededRng(request.node.name),
    )
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws="auto"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    yield Server(url)
    server.should_exit = True
    thread.join(timeout=10)
    listening.close()


def api_of(player: Player, url: str) -> httpx.Client:
    """The player's own session, from their browser, for the API."""
    client = httpx.Client(base_url=url, cookies={c["name"]: c["value"] for c in player.context.cookies()})
    client.headers["X-CSRF-Token"] = client.get("/api/v1/csrf").json()["csrf_token"]
    return client


def test_a_gm_sends_the_tables_rolls_to_a_discord_channel(
    browser: Any,  # noqa: F811
    hooked_server: Server,
    receiver: Receiver,
) -> None:
    gm = Player(browser, hooked_server, "Gwen")
    gm.goto("/")
    gm.register()
    api = api_of(gm, hooked_server.url)
    cid = api.post("/api/v1/campaigns", json={"name": "Harbour Nights", "ruleset": "ltl"}).json()["campaign_id"]

    gm.goto(f"/campaigns/{cid}/settings")
    gm.page.click("#to-webhooks")
    gm.page.fill("#f-url", receiver.url + "/api/webhooks/1234/s3cret-token")
    gm.page.select_option("#f-format", "discord")
    gm.page.fill("#f-hook-name", "#dice channel")
    gm.page.click("#add-webhook")
    expect(gm.page.locator("#made")).to_contain_text("shown this once")
    expect(gm.page.locator("#made-url")).to_have_value(receiver.url + "/api/webhooks/1234/s3cret-token")
    gm.shot("97-webhook-added-wide")
    gm.page.click("button:has-text('Send a test to #dice channel')")
    expect(gm.page.locator(".notice")).to_contain_text("A test message is on its way")
    assert until(lambda: len(receiver.got) == 1)
    assert receiver.got[0].json()["embeds"][0]["title"] == "A test message"

    rolled = api.post(
        f"/api/v1/campaigns/{cid}/commands", json={"type": "table.roll", "expression": "3d6", "label": "Harbour swim"}
    )
    api.post(f"/api/v1/campaigns/{cid}/commands", json={"type": "table.roll", "expression": "1d20", "secret": True})
    api.post(f"/api/v1/campaigns/{cid}/commands", json={"type": "table.roll", "expression": "2d10", "label": "Leap"})
    assert until(lambda: len(receiver.got) == 3)
    assert api.post(f"/api/v1/campaigns/{cid}/commands", json={"type": "table.undo"}).status_code == 200
    assert until(lambda: any(g.method == "PATCH" for g in receiver.got))
    posts = [g.json() for g in receiver.got if g.method == "POST"]
    assert len(posts) == 3 and all("1d20" not in str(p) for p in posts)  # the secret roll never went
    assert "Harbour swim" in posts[1]["embeds"][0]["description"]
    assert posts[1]["embeds"][0]["url"] == f"{hooked_server.url}/campaigns/{cid}/table"
    edited = next(g.json() for g in receiver.got if g.method == "PATCH")
    assert edited["embeds"][0]["title"].startswith("Undone") and "Leap" in edited["embeds"][0]["description"]
    assert rolled.status_code == 200

    gm.page.reload()
    hook = gm.page.locator(".webhook")
    expect(hook.locator("tr.delivery")).to_have_count(4)  # the test, two rolls, the undo: the secret roll had none
    expect(hook.locator("tr.delivery.sent")).to_have_count(4)
    expect(gm.page.locator("body")).not_to_contain_text("s3cret-token")  # the address: shown once
    gm.shot("98-webhook-deliveries-wide")

    phone = Player(browser, hooked_server, "Gwen", viewport=PHONE)
    phone.page.emulate_media(color_scheme="dark")
    phone.context.add_cookies(gm.context.cookies())
    phone.goto(f"/campaigns/{cid}/webhooks")
    expect(phone.page.locator(".webhook h2")).to_contain_text("#dice channel")
    assert phone.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    phone.shot("99-webhooks-phone-dark")

    # what the channel shows: the messages as received (the roll, its undo applied), drawn as Discord draws embeds
    shown = [posts[0], posts[1], edited]
    for name, viewport in (("wide", {"width": 1280, "height": 900}), ("phone", PHONE)):
        page = browser.new_page(viewport=viewport)
        page.set_content(discord_page(shown))
        expect(page.locator(".embed")).to_have_count(3)
        expect(page.locator(".embed").nth(1)).to_contain_text("Harbour swim")
        expect(page.locator(".embed").nth(2)).to_contain_text("Undone")
        page.screenshot(path=str(SHOTS / f"99-discord-messages-{name}.png"), full_page=True)
        page.close()
    assert not gm.errors and not phone.errors
