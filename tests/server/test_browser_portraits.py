"""Portraits in real browsers (Debian's Chromium through Playwright), at 1400x900 and on a 390x844 phone: a player
uploads their hero's portrait from the sheet's edit page, every member sees it small on the hero's card, a file that
is no picture is refused and changes nothing, the GM's hidden villain's portrait reaches the GM's page only, and the
player removes the portrait after being asked. Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

import re
from pathlib import Path

from PIL import Image, ImageDraw
from playwright.sync_api import expect

from .test_browser import (  # noqa: F401
    DESK,
    PHONE,
    Player,
    both_widths,
    browser,
    fill,
    join,
    ltl_hero,
    open_table,
    server,
    start_campaign,
)


def painted(path: Path, colour: str, size: tuple[int, int] = (900, 1200)) -> Path:
    """A portrait made with Pillow: a figure on a coloured ground, larger than what is kept."""
    image = Image.new("RGB", size, colour)
    draw = ImageDraw.Draw(image)
    w, h = size
    draw.ellipse((w * 0.3, h * 0.12, w * 0.7, h * 0.42), fill="#f1c27d", outline="black", width=8)
    draw.rectangle((w * 0.22, h * 0.45, w * 0.78, h), fill="#2f4f8f", outline="black", width=8)
    draw.polygon([(w * 0.5, h * 0.5), (w * 0.42, h * 0.7), (w * 0.55, h * 0.66), (w * 0.47, h * 0.9)], fill="yellow")
    image.save(path)
    return path


def loaded(player: Player, selector: str) -> None:
    """The image is on the page and its pixels arrived (the Content-Security-Policy let it load)."""
    image = player.page.locator(selector)
    expect(image).to_be_visible()
    player.page.wait_for_function("e => e.complete && e.naturalWidth > 0", arg=image.element_handle())


def upload(player: Player, picture: Path) -> None:
    player.page.set_input_files("#f-portrait", str(picture))
    player.page.click("#portrait-upload")


def test_a_portrait_is_uploaded_shown_on_the_card_kept_secret_when_hidden_and_removed(browser, server, tmp_path):  # noqa: F811
    gm = Player(browser, server, "Gwen", viewport=DESK)
    ana = Player(browser, server, "Ana", viewport=DESK)
    ben = Player(browser, server, "Ben", viewport=PHONE)
    link = start_campaign(gm, "Harbour Nights", "ltl")
    campaign_url = gm.page.url.split("#")[0]
    join(ana, link, "ltl", shots=False)
    ltl_hero(ana, "Squall", "Lightning")
    join(ben, link, "ltl", shots=False)
    ltl_hero(ben, "Breaker", "Waves")

    # Ana's portrait, from the page where her sheet is edited
    ana.page.click("#edit-sheet")
    expect(ana.page.locator("#portrait")).to_contain_text("No portrait yet.")
    expect(ana.page.locator("#f-portrait-hint")).to_contain_text("PNG, JPEG or WebP, up to 1 MB")
    upload(ana, painted(tmp_path / "squall.png", "#8fbcd4"))
    ana.page.wait_for_url(re.compile(r"/characters/squall/edit#portrait$"))
    loaded(ana, "#portrait img.portrait")
    expect(ana.page.locator("#portrait img.portrait")).to_have_attribute("alt", "Portrait of Squall")
    both_widths(ana, "50-portrait-edit-page")

    # a file that is no picture is refused, says why, and the portrait stays
    notes = tmp_path / "notes.png"
    notes.write_text("these are my notes, not a picture")
    upload(ana, notes)
    expect(ana.page.locator("[role=alert]")).to_contain_text("The portrait was not changed")
    expect(ana.page.locator("[role=alert]")).to_contain_text("not a PNG, JPEG or WebP image")
    both_widths(ana, "51-portrait-refused")
    ana.page.click("text=Back >> nth=0")
    loaded(ana, "#portrait img.portrait")

    # Ben sees no upload form for Squall: only its player and the GM change it
    ben.goto(campaign_url + "/characters/squall/edit")
    expect(ben.page.locator("#f-portrait")).to_have_count(0)

    # the GM's hidden villain has a portrait too, which only the GM's page shows
    gm.goto(campaign_url)
    gm.page.click("text=New character or NPC")
    fill(gm.page, {"name": "Captain Krake", "base": "d6", "karma": "d4", "heroism": "d4", "writer": "Dee"})
    gm.page.check("#f-npc")
    gm.page.check("#f-hidden")
    gm.page.click("text=Save the character")
    gm.page.wait_for_url(re.compile(r"/characters/captain-krake$"))
    gm.goto(campaign_url + "/characters/captain-krake/edit")
    upload(gm, painted(tmp_path / "krake.png", "#7a1f1f", (600, 600)))
    gm.page.wait_for_url(re.compile(r"/characters/captain-krake/edit#portrait$"))
    loaded(gm, "#portrait img.portrait")

    for p in (gm, ana, ben):
        open_table(p, campaign_url)
        loaded(p, "#play [data-character='squall'] img.portrait-thumb")
        expect(p.page.locator("#play [data-character='squall'] img.portrait-thumb")).to_have_attribute(
            "alt", "Portrait of Squall"
        )
        expect(p.page.locator("#play [data-character='breaker'] img")).to_have_count(0)  # none set: none shown
    loaded(gm, "#play [data-character='captain-krake'] img.portrait-thumb")
    for p in (ana, ben):
        expect(p.page.locator("#play [data-character='captain-krake']")).to_contain_text("Sheet hidden by the GM")
        expect(p.page.locator("#play [data-character='captain-krake'] img")).to_have_count(0)
        assert "captain-krake" not in p.page.evaluate("[...document.images].map(i => i.src).join(' ')"), (
            "a hidden character's portrait reached a player's page"
        )
    # a live frame redraws the cards with the portraits in them
    gm.act("bar", "structure.start_adventure")
    for p in (ana, ben):
        p.log_has("Adventure 1 begins")
        loaded(p, "#play [data-character='squall'] img.portrait-thumb")
        expect(p.page.locator("#play [data-character='captain-krake'] img")).to_have_count(0)
    both_widths(gm, "52-portrait-table-gm")
    both_widths(ben, "53-portrait-table-player")

    # removing asks first; then no portrait is left, on the edit page or the card
    ana.goto(campaign_url + "/characters/squall/edit")
    asked: list[str] = []

    def answer(dialog):  # type: ignore[no-untyped-def]
        asked.append(dialog.message)
        dialog.accept()

    ana.page.once("dialog", answer)
    ana.page.click("#portrait-remove")
    ana.page.wait_for_url(re.compile(r"/characters/squall/edit#portrait$"))
    assert asked == ["Remove Squall's portrait?"]
    expect(ana.page.locator("#portrait")).to_contain_text("No portrait yet.")
    open_table(ana, campaign_url)
    expect(ana.page.locator("#play [data-character='squall'] img")).to_have_count(0)
    both_widths(ana, "54-portrait-removed-table")
    for p in (gm, ana, ben):
        p.close()
