"""Sheets and campaigns after creation, in real browsers (Debian's Chromium through Playwright), at 1400x900 and on a
390x844 phone: a player edits, retires, brings back and deletes their hero; the GM renames, archives, brings back and
deletes the campaign, downloading its export first. Every destructive step asks first. Screenshots go to
test-artifacts/screenshots/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .test_browser import PHONE, Player, browser, join, ltl_hero, server, start_campaign  # noqa: F401

WIDE = {"width": 1400, "height": 900}
LAYOUTS = {"wide-gm": (WIDE, PHONE), "phone-gm": (PHONE, WIDE)}


def answer_dialog(player: Player, accept: bool, seen: list[str]) -> None:
    """Answer the next confirmation the page asks, and keep its question."""

    def handle(dialog):  # type: ignore[no-untyped-def]
        seen.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    player.page.once("dialog", handle)


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_a_hero_is_edited_retired_brought_back_and_deleted(browser, server, layout):  # noqa: F811
    gm_size, player_size = LAYOUTS[layout]
    gm = Player(browser, server, "Gwen", viewport=gm_size)
    ana = Player(browser, server, "Ana", viewport=player_size)
    width = player_size["width"]
    link = start_campaign(gm, "Harbour Nights", "ltl")
    campaign_url = gm.page.url.split("#")[0]
    join(ana, link, "ltl", shots=False)
    ltl_hero(ana, "Squall", "Lightning")
    sheet_url = ana.page.url

    # between scenes a player edits what describes their hero; each edit is a line in the log
    ana.page.click("#edit-sheet")
    expect(ana.page.locator("#f-details-origin")).to_have_value("A storm at sea")
    ana.page.fill("#f-details-origin", "Struck by lightning on the harbour wall")
    ana.page.fill("#f-notes", "Owes Breaker a boat")
    ana.shot(f"40-sheet-edit-{width}")
    ana.page.click("text=Save the sheet")
    ana.page.wait_for_url(sheet_url)
    expect(ana.page.locator(".sheet-dl")).to_contain_text("Struck by lightning on the harbour wall")
    ana.shot(f"41-sheet-edited-{width}")

    # during a scene the player's form is not offered, and the page says why
    gm.goto(campaign_url + "/table")
    expect(gm.page.locator("#live-status")).to_have_text("live")
    for step in ("structure.start_adventure", "structure.start_session", "structure.start_scene"):
        gm.act("bar", step)
    ana.page.click("#edit-sheet")
    expect(ana.page.locator("main")).to_contain_text("between scenes")
    expect(ana.page.locator("#edit-form")).to_have_count(0)
    ana.shot(f"42-sheet-edit-in-scene-{width}")

    # retired: out of play, kept, listed on the campaign page, brought back as it was
    ana.page.click("#retire")
    ana.page.wait_for_url(re.compile(r"/campaigns/[0-9a-f]+#chars-h$"))
    retired = ana.page.locator("ul[aria-labelledby='retired-h']")
    expect(retired).to_contain_text("Squall")
    ana.shot(f"43-campaign-retired-{width}")
    gm.goto(campaign_url + "/table")
    expect(gm.page.locator("#play")).not_to_contain_text("Squall")
    ana.page.click("text=Bring Squall back")
    ana.page.wait_for_url(sheet_url)
    expect(ana.page.locator(".sheet-dl")).to_contain_text("Struck by lightning on the harbour wall")

    # deleting asks first: dismissed, nothing happens; accepted, the hero is gone and the log still names them
    ana.page.click("#edit-sheet")
    asked: list[str] = []
    answer_dialog(ana, False, asked)
    ana.page.click("#delete")
    assert asked and "Delete Squall for good?" in asked[0]
    expect(ana.page.locator("h1")).to_have_text("Squall")
    answer_dialog(ana, True, asked)
    ana.page.click("#delete")
    ana.page.wait_for_url(re.compile(r"/campaigns/[0-9a-f]+#chars-h$"))
    expect(ana.page.locator("#chars-h + *")).not_to_contain_text("Squall")
    ana.shot(f"44-campaign-deleted-hero-{width}")
    gm.goto(campaign_url + "/table")
    expect(gm.page.locator("#log")).to_contain_text("Squall is deleted from the table")
    for p in (gm, ana):
        p.close()


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_the_gm_renames_archives_and_deletes_the_campaign(browser, server, layout):  # noqa: F811
    gm_size, player_size = LAYOUTS[layout]
    gm = Player(browser, server, "Gwen", viewport=gm_size)
    ana = Player(browser, server, "Ana", viewport=player_size)
    width = gm_size["width"]
    link = start_campaign(gm, "Harbour Nights", "ltl")
    campaign_url = gm.page.url.split("#")[0]
    join(ana, link, "ltl", shots=False)

    # removing a member asks first; dismissed, Ana stays
    gm.goto(campaign_url)
    asked: list[str] = []
    answer_dialog(gm, False, asked)
    gm.page.click("text=Remove Ana")
    assert asked == ["Remove Ana from Harbour Nights? They need a new invitation link to come back."]
    expect(gm.page.locator("#members-h + ul")).to_contain_text("Ana")

    gm.page.click("#settings")
    gm.shot(f"45-campaign-settings-{width}")
    gm.page.fill("#f-name", "Harbour Days")
    gm.page.click("text=Rename the campaign")
    expect(gm.page.locator("h1")).to_have_text("Harbour Days")
    ana.goto("/")
    expect(ana.page.locator("main")).to_contain_text("Harbour Days")

    ana.goto(campaign_url + "/table")
    expect(ana.page.locator("#live-status")).to_have_text("live")
    answer_dialog(gm, True, asked)
    gm.page.click("#archive")
    expect(gm.page.locator("#unarchive")).to_be_visible()
    gm.shot(f"46-campaign-archived-{width}")
    expect(ana.page.locator("#bar #archived")).to_have_text("Archived: read-only")  # live, at the open table
    ana.goto("/")
    expect(ana.page.locator("main li", has_text="Harbour Days")).to_contain_text("archived")
    ana.goto(campaign_url)
    expect(ana.page.locator("main")).to_contain_text("archived: read-only")
    expect(ana.page.locator("text=Build your hero")).to_have_count(0)
    gm.page.click("#unarchive")
    expect(gm.page.locator("#archive")).to_be_visible()

    # deleting: the export first, then the name typed; a wrong name deletes nothing
    gm.page.click("#to-delete")
    gm.shot(f"47-campaign-delete-{width}")
    with gm.page.expect_download() as download:
        gm.page.click("#export")
    exported = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert exported["campaign"]["campaign_id"] == campaign_url.rsplit("/", 1)[1]
    assert "campaign.renamed" in {e["type"] for e in exported["events"]}
    gm.page.fill("#f-confirm", "Harbour")
    gm.page.click("#delete-campaign")
    expect(gm.page.locator("#confirm-error")).to_contain_text("nothing was deleted")
    gm.shot(f"48-campaign-delete-refused-{width}")
    gm.page.fill("#f-confirm", "Harbour Days")
    gm.page.click("#delete-campaign")
    gm.page.wait_for_url(server.url + "/")
    expect(gm.page.locator("main")).to_contain_text("No campaigns yet")
    ana.goto(campaign_url)
    expect(ana.page.locator("main")).to_contain_text("There is no such campaign")
    for p in (gm, ana):
        p.close()
