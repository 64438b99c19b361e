"""The administration page in a real browser: an admin made from the shell sees every account and campaign on /admin
and disables a player, at a desk and on a phone in dark mode. Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import expect
from typer.testing import CliRunner

from herotable.cli import app as cli

from .test_browser import PASSWORD, PHONE, Player, Server, browser, server  # noqa: F401


def test_an_admin_disables_and_enables_a_player_on_the_admin_page(browser: Any, server: Server, tmp_path: Path) -> None:  # noqa: F811
    gwen = Player(browser, server, "Gwen")
    pat = Player(browser, server, "Pat", viewport=PHONE)
    pat.page.emulate_media(color_scheme="dark")
    for player in (gwen, pat):
        player.goto("/")
        player.register()
        expect(player.page.locator(".who")).to_contain_text(player.name)
    expect(gwen.page.locator("a[href='/admin']")).to_have_count(0)  # registering made nobody an admin

    database = f"sqlite:///{tmp_path / 'table.sqlite'}"
    assert CliRunner().invoke(cli, ["users", "promote", "gwen", "--database", database]).exit_code == 0
    gwen.page.click("header form[action='/logout'] button")
    gwen.goto("/login")
    gwen.page.fill("#login-username", "gwen")
    gwen.page.fill("#login-password", PASSWORD)
    gwen.page.click("form[action='/login'] button[type=submit]")
    gwen.page.click("a[href='/admin']")
    expect(gwen.page.locator("tr[data-user='pat']")).to_contain_text("may log in")
    gwen.shot("92-admin-wide")

    gwen.page.click("tr[data-user='pat'] button:has-text('Disable pat')")
    expect(gwen.page.locator(".notice")).to_contain_text("pat is disabled; 1 session ended.")
    expect(gwen.page.locator("tr[data-user='pat']")).to_contain_text("disabled since")
    pat.goto("/")
    expect(pat.page.locator("#login-username")).to_be_visible()  # logged out
    pat.page.fill("#login-username", "pat")
    pat.page.fill("#login-password", PASSWORD)
    pat.page.click("form[action='/login'] button[type=submit]")
    expect(pat.page.locator(".error")).to_contain_text("this account is disabled")
    pat.shot("93-disabled-phone-dark")

    admin_on_phone = Player(browser, server, "Gwen", viewport=PHONE)
    admin_on_phone.page.emulate_media(color_scheme="dark")
    admin_on_phone.context.add_cookies(gwen.context.cookies())
    admin_on_phone.goto("/admin")
    admin_on_phone.page.click("tr[data-user='pat'] button:has-text('Enable pat')")
    expect(admin_on_phone.page.locator(".notice")).to_contain_text("pat may log in again.")
    admin_on_phone.shot("94-admin-phone-dark")
    # the tables scroll sideways within their cards: the page itself is no wider than the phone
    assert admin_on_phone.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert not gwen.errors and not pat.errors and not admin_on_phone.errors
