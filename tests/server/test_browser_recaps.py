"""Session recaps in real browsers (Debian's Chromium through Playwright), in three contexts: the GM writes their
paragraph on the recap page and reads the whole session, a player reads it without the GM's secret roll or the hidden
villain's Karma, and a spectator on a phone in dark mode finds it from the list; each downloads the Markdown and the
printable HTML file, which hold the same as their page, and axe-core finds no serious accessibility violation.
Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import expect

from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY

from .test_browser import DESK, PHONE, SHOTS, Player, Server, both_widths, browser, server  # noqa: F401
from .test_browser_axe import violations
from .test_browser_webhooks import api_of

NOTE = "The heroes chased <Doctor Entropy> across the harbour & lost him in the fog."


def download(player: Player, selector: str) -> str:
    """The file a link on the page downloads, as text."""
    with player.page.expect_download() as got:
        player.page.click(selector)
    path = got.value.path()
    assert path is not None
    return Path(path).read_text()


def joined(player: Player, gm_api: httpx.Client, url: str, cid: str, role: str) -> httpx.Client:
    api = api_of(player, url)
    code = gm_api.post(f"/api/v1/campaigns/{cid}/invites", json={"role": role}).json()["code"]
    assert api.post(f"/api/v1/join/{code}", json={}).status_code == 200
    return api


def command(api: httpx.Client, cid: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = api.post(f"/api/v1/campaigns/{cid}/commands", json=body)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def test_a_recap_read_by_the_gm_a_player_and_a_spectator_with_its_files(browser, server: Server) -> None:  # noqa: F811
    gm = Player(browser, server, "Gwen", viewport=DESK)
    pat = Player(browser, server, "Pat", viewport=DESK)
    sly = Player(browser, server, "Sly", viewport=PHONE)
    sly.page.emulate_media(color_scheme="dark")
    for p in (gm, pat, sly):
        p.goto("/")
        p.register()
        expect(p.page.locator("#new-name, .top .who").first).to_be_visible()
    gm_api = api_of(gm, server.url)
    cid = gm_api.post("/api/v1/campaigns", json={"name": "Harbour Nights", "ruleset": "ltl"}).json()["campaign_id"]
    pat_api = joined(pat, gm_api, server.url, cid, "player")
    joined(sly, gm_api, server.url, cid, "spectator")

    # a first session: Pat's Karma in the open; the hidden villain's Karma and a secret roll, the GM's alone
    command(pat_api, cid, {"type": "character.create_ltl", "character": "comet", "sheet": CAPTAIN_COMET})
    villain = {"type": "character.create_ltl", "character": "entropy", "sheet": DOCTOR_ENTROPY}
    command(gm_api, cid, {**villain, "npc": True, "hidden": True})
    command(gm_api, cid, {"type": "structure.begin"})
    command(gm_api, cid, {"type": "structure.mark_dramatic"})
    command(pat_api, cid, {"type": "ltl.karma.try_again", "character": "comet"})
    command(gm_api, cid, {"type": "ltl.karma.try_again", "character": "entropy"})
    secret = {"type": "ltl.challenge", "character": "entropy", "difficulty": "Average", "secret": True}
    task = command(gm_api, cid, secret)["command_id"]
    command(gm_api, cid, {"type": "ltl.settle", "task": task})
    command(gm_api, cid, {"type": "structure.end_scene"})
    command(gm_api, cid, {"type": "structure.end_session"})

    # the GM finds the session from the table, writes their paragraph, and reads the whole of it
    gm.goto(f"/campaigns/{cid}/table")
    gm.page.click("#recaps-link")
    gm.page.click("[data-session='1'] a")
    gm.page.fill("#f-note", NOTE)
    gm.page.click("#save-note")
    expect(gm.page.locator("[role=status]")).to_contain_text("Your paragraph is saved")
    expect(gm.page.locator("#note")).to_contain_text(NOTE)
    recap = gm.page.locator("article.recap")
    expect(recap).to_contain_text("Doctor Entropy burned 1 level of Karma (try again)")
    expect(recap).to_contain_text("Rolls")
    expect(recap).to_contain_text("Scene 1, dramatic")
    both_widths(gm, "110-recap-gm")
    assert violations(gm) == []  # axe-core: no serious or critical accessibility violation
    gm_md = download(gm, "#recap-md")
    assert NOTE.replace("<", "\\<").replace(">", "\\>").replace("&", "\\&") in gm_md
    assert "Doctor Entropy burned 1 level of Karma" in gm_md

    # the player reads the same session without the GM's secrets, on the page and in both files
    pat.goto(f"/campaigns/{cid}")
    pat.page.click("#recaps")
    pat.page.click("[data-session='1'] a")
    recap = pat.page.locator("article.recap")
    expect(recap).to_contain_text("Captain Comet burned 1 level of Karma (try again)")
    expect(pat.page.locator("#note")).to_contain_text(NOTE)
    expect(pat.page.locator("#f-note")).to_have_count(0)
    for text in (recap.inner_text(), download(pat, "#recap-md"), download(pat, "#recap-html")):
        assert "Captain Comet burned 1 level of Karma" in text
        assert "Doctor Entropy burned" not in text and "Rolls" not in text and task not in text
    both_widths(pat, "111-recap-player")
    printable = download(pat, "#recap-html")
    paper = browser.new_page(viewport=DESK)
    paper.set_content(printable)
    expect(paper.locator("h1")).to_have_text("Harbour Nights: Game session 1")
    assert paper.evaluate("document.scripts.length") == 0
    paper.screenshot(path=str(SHOTS / "112-recap-printable-desk.png"), full_page=True)
    paper.emulate_media(media="print")
    paper.screenshot(path=str(SHOTS / "113-recap-printable-print.png"), full_page=True)
    paper.set_viewport_size(PHONE)
    paper.emulate_media(media="screen")
    paper.screenshot(path=str(SHOTS / "112-recap-printable-phone.png"), full_page=True)
    paper.close()

    # the spectator, on a phone in dark mode, finds it in the list of sessions
    sly.goto(f"/campaigns/{cid}/recaps")
    expect(sly.page.locator("[data-session='1']")).to_contain_text("the GM's words")
    both_widths(sly, "114-recaps-list-spectator-dark")
    sly.page.click("[data-session='1'] a")
    expect(sly.page.locator("#note")).to_contain_text(NOTE)
    expect(sly.page.locator("article.recap")).not_to_contain_text("Doctor Entropy burned")
    assert sly.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    spectator_md = download(sly, "#recap-md")
    assert spectator_md.startswith("# Harbour Nights: Game session 1") and "Doctor Entropy burned" not in spectator_md
    both_widths(sly, "115-recap-spectator-dark")
    assert violations(sly) == []
    for p in (gm, pat, sly):
        assert not p.errors, p.errors
        p.close()
