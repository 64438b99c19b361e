"""A player makes an API token on their account page, copies it once, sees when it was last used, and revokes it;
at a desk and on a phone in dark mode. Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import expect

from .test_browser import PHONE, Player, Server, browser, server  # noqa: F401


def test_a_token_is_made_shown_once_used_and_revoked_on_the_account_page(browser: Any, server: Server) -> None:  # noqa: F811
    pat = Player(browser, server, "Pat")
    pat.goto("/")
    pat.register()
    pat.goto("/account")
    pat.page.fill("#token-name", "dice bot")
    pat.page.select_option("#token-scope", "read")
    pat.page.click("#tokens button[type=submit]:has-text('Make a token')")
    token = pat.page.locator("#new-token").input_value()
    assert token.startswith("htk_")
    pat.shot("95-token-made-wide")
    bot = httpx.get(f"{server.url}/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert bot.status_code == 200 and bot.json()["username"] == "pat"

    phone = Player(browser, server, "Pat", viewport=PHONE)
    phone.page.emulate_media(color_scheme="dark")
    phone.context.add_cookies(pat.context.cookies())
    phone.goto("/account")
    row = phone.page.locator("#tokens tr").filter(has_text="dice bot")
    expect(row).not_to_contain_text("never")  # the bot's call shows as its last use
    expect(phone.page.locator("#new-token")).to_have_count(0)  # the text is never shown again
    assert phone.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    phone.shot("96-tokens-phone-dark")
    row.locator("button:has-text('Revoke dice bot')").click()
    expect(phone.page.locator(".notice")).to_contain_text("The token is revoked")
    expect(phone.page.locator("#tokens tr").filter(has_text="dice bot")).to_contain_text("revoked")
    assert httpx.get(f"{server.url}/api/v1/me", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    assert not pat.errors and not phone.errors
