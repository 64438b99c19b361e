"""Characters that travel, in three browsers (Debian's Chromium through Playwright): Ana downloads her hero Squall from
Gwen's campaign A and imports the file into Gwen's campaign B, where it waits for the GM, unseen by Ben; Gwen approves
it and it plays a called challenge; Gwen saves her hidden villain from A to her library and adds it to B, hidden, so
that Ben, on a phone in dark mode, sees its name and never its sheet; a file Ben edited is refused with a tip for each
problem. Screenshots at a desk and on a phone go to test-artifacts/screenshots/ (100-109)."""

from __future__ import annotations

import json
import re

from playwright.sync_api import expect

from .test_browser import (  # noqa: F401
    DESK,
    PHONE,
    Player,
    both_widths,
    browser,
    fill,
    ltl_hero,
    open_table,
    server,
    start_campaign,
)


def joins(player: Player, link: str, register: bool) -> str:
    """The player opens an invitation link (registering first, once) and joins; the campaign's address."""
    player.goto(link)
    if register:
        player.register()
        player.page.wait_for_url(re.compile(r"/join/"))
    player.page.click("form button[type=submit]:has-text('Join')")
    player.page.wait_for_url(re.compile(r"/campaigns/[0-9a-f]+$"))
    return player.page.url


def second_campaign(gm: Player, name: str) -> tuple[str, str]:
    """The GM's second campaign of the same game, and its invitation link."""
    gm.goto("/")
    gm.page.fill("#new-name", name)
    gm.page.select_option("#new-ruleset", "ltl")
    gm.page.click("text=Create the campaign")
    gm.page.wait_for_url(re.compile(r"/campaigns/[0-9a-f]+$"))
    url = gm.page.url
    link: str = gm.page.locator("input.invite-link").first.input_value()
    return url, link


def hidden_villain(gm: Player, campaign_url: str) -> None:
    gm.goto(campaign_url)
    gm.page.click("text=New character or NPC")
    fill(gm.page, {"name": "Captain Krake", "base": "d6", "karma": "d4", "heroism": "d4", "writer": "Dee"})
    fill(gm.page, {"power_name_0": "Kraken Call", "motivation": "Own the harbour"})
    gm.page.check("#f-npc")
    gm.page.check("#f-hidden")
    gm.page.click("text=Save the character")
    gm.page.wait_for_url(re.compile(r"/characters/captain-krake$"))


def test_a_hero_travels_between_campaigns_and_a_villain_comes_from_the_library(browser, server, tmp_path):  # noqa: F811
    gm = Player(browser, server, "Gwen", viewport=DESK)
    ana = Player(browser, server, "Ana", viewport=DESK)
    ben = Player(browser, server, "Ben", viewport=PHONE)
    ben.page.emulate_media(color_scheme="dark")
    link_a = start_campaign(gm, "Harbour Nights", "ltl")
    campaign_a = gm.page.url.split("#")[0]
    joins(ana, link_a, register=True)
    ana.page.click("text=Build your hero")
    ltl_hero(ana, "Squall", "Lightning")
    hidden_villain(gm, campaign_a)
    campaign_b, link_b = second_campaign(gm, "Storm Front")
    joins(ana, link_b, register=False)
    joins(ben, link_b, register=True)
    gm.page.emulate_media(color_scheme="dark")
    open_table(gm, campaign_b)

    # Ana downloads Squall from A
    ana.goto(campaign_a + "/characters/squall")
    expect(ana.page.locator("#save-to-library")).to_have_count(0)  # the GM's library is the GM's
    both_widths(ana, "100-travel-sheet-download")
    with ana.page.expect_download() as downloading:
        ana.page.click("#download")
    squall_file = tmp_path / downloading.value.suggested_filename
    downloading.value.save_as(squall_file)
    assert squall_file.name == "squall.herotable.json"
    assert json.loads(squall_file.read_text())["sheet"]["styles"] == {"Lightning": "d20"}

    # …and imports it into B, where it waits for the GM
    ana.goto(campaign_b)
    ana.page.click("#import-link")
    both_widths(ana, "101-travel-import-form")
    ana.page.set_input_files("#f-file", str(squall_file))
    ana.page.click("#import-submit")
    ana.page.wait_for_url(re.compile(r"/arrivals/squall-[0-9a-f]+$"))
    squall = ana.page.url.rsplit("/", 1)[1]
    expect(ana.page.locator("#waiting-notice")).to_contain_text("cannot act: the GM approves or turns them away")
    expect(ana.page.locator("#approve")).to_have_count(0)
    both_widths(ana, "102-travel-waiting-player")

    # Ben sees nothing of it; a file he edited is refused, each problem with its tip, and nothing is kept
    ben.goto(campaign_b)
    expect(ben.page.locator("#chars-h")).to_be_visible()
    expect(ben.page.locator("main")).not_to_contain_text("Squall")
    edited = json.loads(squall_file.read_text())
    edited["name"] = edited["sheet"]["name"] = "Breaker"
    edited["sheet"]["base"] = "d7"
    edited["advancement"]["hero_points"] = 5000
    bad_file = tmp_path / "breaker.herotable.json"
    bad_file.write_text(json.dumps(edited))
    ben.page.click("#import-link")
    ben.page.set_input_files("#f-file", str(bad_file))
    ben.page.click("#import-submit")
    problems = ben.page.locator("#problems")
    expect(problems).to_contain_text("Nothing was imported")
    expect(problems).to_contain_text("advancement.hero_points")
    expect(problems).to_contain_text("Tip: give a whole number from 0 to 1000")
    expect(problems).to_contain_text("sheet.base")
    both_widths(ben, "103-travel-import-refused-dark")

    # Gwen, at B's table in dark mode, hears of it live, finds it waiting, and approves it
    arrivals = gm.page.locator("#bar #arrivals")
    expect(arrivals).to_have_text("1 from another campaign, waiting for you")
    both_widths(gm, "109-travel-table-waiting-dark")
    arrivals.click()
    gm.page.wait_for_url(re.compile(r"#waiting-h$"))
    waiting = gm.page.locator("ul[aria-labelledby='waiting-h']")
    expect(waiting).to_contain_text("Squall")
    expect(waiting).to_contain_text("0 Hero Points held")
    both_widths(gm, "104-travel-campaign-waiting-dark")
    waiting.locator("a", has_text="Squall").click()
    expect(gm.page.locator("#waiting-tag")).to_have_text("waiting for the GM")
    both_widths(gm, "105-travel-approve-dark")
    gm.page.click("#approve")
    gm.page.wait_for_url(re.compile(rf"/characters/{squall}$"))

    # it plays: a challenge the GM calls, Ana rolls and accepts
    for p in (gm, ana, ben):
        open_table(p, campaign_b)
    gm.act("bar", "structure.begin")
    gm.act("play", "ltl.call", {"difficulty": "Hard", "label": "Climb the lighthouse"}, card=squall)
    ana.act("play", "ltl.challenge", card=squall)
    ana.roll_action("ltl.settle")
    for p in (gm, ana, ben):
        p.log_has("Climb the lighthouse")
        expect(p.page.locator(f"#play [data-character='{squall}']")).to_contain_text("Squall")

    # Gwen saves her hidden villain from A to her library, and adds it to B: hidden, by default
    gm.goto(campaign_a + "/characters/captain-krake")
    gm.page.click("#save-to-library")
    gm.page.wait_for_url(re.compile(r"/library\?saved="))
    expect(gm.page.locator("ul.library")).to_contain_text("Captain Krake")
    expect(gm.page.locator("ul.library")).to_contain_text("saved from Harbour Nights")
    both_widths(gm, "106-travel-library-dark")
    gm.goto(campaign_b)
    gm.page.click("#library-link")
    expect(gm.page.locator("ul.library input[name='hidden'][type=checkbox]")).to_be_checked()
    gm.page.locator("ul.library button", has_text="Add to Storm Front").click()
    gm.page.wait_for_url(re.compile(r"/characters/captain-krake$"))
    expect(gm.page.locator(".sheet-view")).to_contain_text("Kraken Call")

    # Ben sees the villain's name on the table and never its sheet
    card = ben.page.locator("#play [data-character='captain-krake']")
    expect(card).to_contain_text("Sheet hidden by the GM")
    expect(ben.page.locator("#play")).not_to_contain_text("Kraken Call")
    both_widths(ben, "107-travel-table-hidden-villain-dark")
    ben.goto(campaign_b + "/characters/captain-krake")
    expect(ben.page.locator("[role=alert]")).to_contain_text("sheet is the GM's secret")
    ana.goto(campaign_b + "/characters/captain-krake/export")
    expect(ana.page.locator("[role=alert]")).to_contain_text("not yours to export")
    gm.goto(campaign_b)
    both_widths(gm, "108-travel-campaign-after-dark")
    for p in (gm, ana, ben):
        p.close()
