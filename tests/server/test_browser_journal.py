"""The journal in three real browsers (Debian's Chromium through Playwright): the GM writes a handout with an image,
shows it to one player, then to everyone; the other player sees nothing of it until then, live at the table and on
the journal page. Screenshots (130–134) go to test-artifacts/screenshots/, at both widths and in dark mode."""

from __future__ import annotations

import io

from PIL import Image
from playwright.sync_api import expect

from .test_browser import PHONE, Player, both_widths, browser, join, open_table, server, start_campaign  # noqa: F401

WIDE = {"width": 1400, "height": 900}
TITLE = "The harbour map"
TEXT = "Rook's warehouse is the third on the quay"


def picture() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (320, 200), (30, 90, 160)).save(out, "PNG")
    return out.getvalue()


def test_a_handout_shown_to_one_player_then_to_everyone(browser, server):  # noqa: F811
    gm = Player(browser, server, "Gwen", viewport=WIDE)
    ana = Player(browser, server, "Ana", viewport=PHONE)
    ben = Player(browser, server, "Ben", viewport=WIDE)
    ben.page.emulate_media(color_scheme="dark")
    link = start_campaign(gm, "Harbour Nights", "ltl")
    campaign_url = gm.page.url.split("#")[0]
    for player in (ana, ben):
        join(player, link, "ltl", shots=False)
        open_table(player, campaign_url)

    journal = campaign_url + "/journal"
    gm.goto(journal)
    gm.page.set_input_files("#image-file", files=[{"name": "map.png", "mimeType": "image/png", "buffer": picture()}])
    gm.page.click("#images button[type=submit]")
    expect(gm.page.locator("p.notice")).to_contain_text("The image is uploaded")
    gm.page.fill("#new-title", TITLE)
    gm.page.fill("#new-body", f"**{TEXT}.**\n\n- the back door sticks\n- the dogs sleep at midnight")
    gm.page.select_option("#new-image", index=1)
    gm.page.click("text=Write the entry")
    expect(gm.page.locator("#e1 .readers")).to_have_text("Yours alone: shown to nobody yet")
    for player in (ana, ben):
        expect(player.page.locator("#journal-menu .count")).to_have_text("0")
    both_widths(gm, "130-journal-gm")

    gm.page.check("#e1 input[name='to'][value='chosen']")
    gm.page.check("#e1 .reader:has-text('Ana') input")
    gm.page.click("#e1 .show-form button[type=submit]")
    expect(gm.page.locator("#e1 .readers")).to_have_text("Shown to Ana")
    expect(ana.page.locator("#journal-menu .count")).to_have_text("1")  # live, at the table
    expect(ana.page.locator("#toasts")).to_contain_text(TITLE)
    ana.shot("131-journal-table-ana-phone")
    expect(ben.page.locator("#journal-menu .count")).to_have_text("0")
    assert TITLE not in ben.page.content()
    ben.goto(journal)
    expect(ben.page.locator("#no-entries")).to_have_text("The GM has shown you nothing yet.")
    ben.page.fill("#q", "warehouse")
    ben.page.click("form.journal-search button")
    expect(ben.page.locator("#found")).to_contain_text("0 entries hold")

    ana.goto(journal)
    entry = ana.page.locator("#e1")
    expect(entry.locator("h2")).to_have_text(TITLE)
    expect(entry.locator(".prose strong")).to_contain_text(TEXT)
    assert entry.locator("img.journal-image").evaluate("i => i.complete && i.naturalWidth > 0")
    expect(entry.locator("form")).to_have_count(0)  # a player reads; the GM alone shows and edits
    both_widths(ana, "132-journal-ana")

    gm.page.check("#e1 input[name='to'][value='everyone']")
    gm.page.click("#e1 .show-form button[type=submit]")
    expect(gm.page.locator("#e1 .readers")).to_have_text("Shown to everyone")
    ben.goto(journal + "?q=warehouse")
    expect(ben.page.locator("#found")).to_contain_text("1 entry holds")
    expect(ben.page.locator("#e1 .prose")).to_contain_text(TEXT)
    both_widths(ben, "133-journal-ben-dark")
    for player in (gm, ana, ben):
        assert player.errors == [], (player.name, player.errors)
        player.close()
