"""A new GM's way from registering to a first settled roll, with one player who joins and builds a hero, counted in
interactions (issue 28): at most 8 for the GM and 12 for the player. An interaction is a click, a choice from a list
or opening a link someone sent; typing a name or a password is the person's own words and is not counted."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from .test_browser import PASSWORD, PHONE, Player, browser, server  # noqa: F401


class Counted:
    """A person's page, counting what they do to it."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.page = player.page
        self.count = 0

    def click(self, target: Any) -> None:
        self.count += 1
        (self.page.locator(target) if isinstance(target, str) else target).click()

    def choose(self, selector: str, value: str) -> None:
        self.count += 1
        self.page.select_option(selector, value)

    def visit(self, url: str) -> None:
        self.count += 1
        self.page.goto(url)

    def type(self, selector: str, text: str) -> None:  # their own words: not counted
        self.page.fill(selector, text)


def test_a_new_gm_reaches_a_first_settled_roll_within_eight_interactions_and_a_player_within_twelve(
    browser,  # noqa: F811
    server,  # noqa: F811
):
    gwen = Player(browser, server, "Gwen")
    gwen.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    ana = Player(browser, server, "Ana", viewport=PHONE)
    gm, pl = Counted(gwen), Counted(ana)

    # the GM registers, makes a campaign (it comes with a player's invitation) and copies the link
    gwen.goto("/")
    gm.type("#reg-username", "gwen")
    gm.type("#reg-name", "Gwen")
    gm.type("#reg-password", PASSWORD)
    gm.click("form[action='/register'] button[type=submit]")
    gm.type("#new-name", "Harbour Nights")
    gwen.page.locator(".game-options[data-game='ltl'] > summary").click()  # to look at, not counted: not needed
    expect(gwen.page.locator(".game-options[data-game='conviction']")).to_be_hidden()  # the chosen game's only
    gwen.shot("65-new-campaign-options")
    gm.click("text=Create the campaign")
    gm.click("button[data-copy]")
    link = gwen.page.evaluate("navigator.clipboard.readText()")
    assert "/join/" in link

    # the player opens the link, registers, joins and builds a hero from the sheet's own defaults and a few choices
    pl.visit(link)
    pl.type("#reg-username", "ana")
    pl.type("#reg-name", "Ana")
    pl.type("#reg-password", PASSWORD)
    pl.click("form[action='/register'] button[type=submit]")
    ana.page.wait_for_url(re.compile(r"/join/"))
    pl.click("form button[type=submit]:has-text('Join')")
    pl.click("text=Build your hero")
    for name, words in (("writer", "Dee"), ("artist", "Max"), ("origin", "A storm at sea"), ("name", "Squall")):
        pl.type(f"[name='{name}']", words)
    for name, words in (("power_name_0", "Thunder"), ("power_stunts_0", "Clap"), ("style_name_0", "Lightning")):
        pl.type(f"[name='{name}']", words)
    pl.type("[name='motivation']", "Protect the harbour")
    pl.type("[name='costume']", "Storm grey")
    pl.choose("[name='style_die_0']", "d20")
    pl.click("text=Save the character")
    ana.page.wait_for_url(re.compile(r"/characters/[a-z0-9-]+$"))
    pl.click("text=To the table")

    # the GM opens the table, begins play and calls for a challenge from the hero's card
    gm.click("text=Open the table")
    expect(gwen.page.locator("#live-status")).to_have_text("live")
    with gwen.page.expect_response(lambda r: r.url.endswith("/table/act")):
        gm.click("#bar [data-action='structure.begin'] button[type=submit]")
    gm.click(gwen.page.locator("#play [data-character='squall'] .gm-acts > summary"))
    call = gwen.page.locator("#play [data-character='squall'] details[data-action='ltl.call']").first
    gm.click(call.locator("xpath=./summary"))
    with gwen.page.expect_response(lambda r: r.url.endswith("/table/act")):
        gm.click(call.locator("form button[type=submit]"))

    # the player rolls it and accepts the roll
    form = ana.page.locator("#play [data-character='squall'] details.called[open] form[data-action='ltl.challenge']")
    with ana.page.expect_response(lambda r: r.url.endswith("/table/act")):
        pl.click(form.locator("button[type=submit]"))
    with ana.page.expect_response(lambda r: r.url.endswith("/table/act")):
        pl.click("#play article.roll form[data-action='ltl.settle'] button[type=submit]")
    for p in (gwen, ana):
        expect(p.page.locator("#log-entries > li.entry").last).to_contain_text("Settled")
    ana.shot("64-first-roll-player-phone")
    gwen.shot("64-first-roll-gm")
    gwen.goto(gwen.page.url.replace("/table", "/settings"))
    expect(gwen.page.locator("#options-h")).to_be_visible()
    gwen.shot("66-settings-options")
    assert gm.count <= 8, gm.count
    assert pl.count <= 12, pl.count
    for p in (gwen, ana):
        p.close()
