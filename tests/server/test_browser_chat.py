"""Chat in real browsers (Debian's Chromium through Playwright): a GM and two players talk, whisper and roll at the
table, at 1400x900 and on a 390x844 phone; a whisper reaches only its sender, its recipient and the GM, live.
Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from herotable.server.log_pages import SLICE

from .test_browser import PHONE, Player, browser, join, open_table, server, start_campaign  # noqa: F401

WIDE = {"width": 1400, "height": 900}


def panels_styled(player: Player) -> None:
    """The chat and log panels' own stylesheet and script (static/chat.css, static/chat.js), added to the page
    when the table page does not link them itself."""
    page = player.page
    if not page.locator("link[href='/static/chat.css']").count():
        page.add_style_tag(url="/static/chat.css")
    if not page.locator("script[src='/static/chat.js']").count():
        page.add_script_tag(url="/static/chat.js")


def send(player: Player, text: str, to: str = "") -> None:
    """Type a line in the chat box and send it; fail on a refusal."""
    page = player.page
    panel = page.locator("#chat-panel")
    if to:
        panel.locator("select[name='to']").select_option(label=f"{to} (whisper)")
    box = panel.locator("textarea[name='text']")
    box.fill(text)
    with page.expect_response(lambda r: r.url.endswith("/chat") and r.request.method == "POST") as answer:
        panel.locator("button[type=submit]").click()
    body = answer.value.text()
    assert 'role="alert"' not in body, f"{player.name}: {re.sub(r'<[^>]+>', ' ', body)}"


def test_a_whisper_reaches_only_its_target_and_the_gm(browser, server):  # noqa: F811
    gm = Player(browser, server, "Gwen", viewport=WIDE)
    ana = Player(browser, server, "Ana", viewport=WIDE)
    ben = Player(browser, server, "Ben", viewport=PHONE)
    link = start_campaign(gm, "Chat Night", "ltl")
    campaign_url = gm.page.url.split("#")[0]
    # an evening's chatter already in the log, more than its newest page holds
    cid = campaign_url.rstrip("/").rsplit("/", 1)[1]
    token = gm.page.locator("meta[name='csrf-token']").get_attribute("content")
    for n in range(SLICE):
        said = gm.page.request.post(
            f"{server.url}/api/v1/campaigns/{cid}/commands",
            data={"type": "chat.say", "text": f"earlier line {n}"},
            headers={"X-CSRF-Token": token or ""},
        )
        assert said.ok, said.text()
    for player in (ana, ben):
        join(player, link, "ltl", shots=False)
    everyone = (gm, ana, ben)
    for player in everyone:
        open_table(player, campaign_url)
        panels_styled(player)
    expect(ben.page.locator("#chat-panel textarea[name='text']")).to_be_hidden()  # a phone shows one tab at a time
    ben.page.locator(".tabs .tab[data-tab='chat']").click()
    for player in everyone:
        expect(player.page.locator("#chat-panel textarea[name='text']")).to_be_visible()

    send(ana, "Evening, all")
    send(gm, "/w Ana The cellar door is unlocked")
    send(ben, "I search the bar", to="GM · Gwen")
    send(ana, "/r 2d6+1 to hit")
    send(gm, "Roll for it")  # public, after the whispers: when it shows, everything before it has arrived
    for player in everyone:
        expect(player.page.locator("#log")).to_contain_text("Roll for it")
        expect(player.page.locator("#log")).to_contain_text("to hit: 2d6")
        expect(player.page.locator("#log")).to_contain_text("Evening, all")
    heard = {
        "The cellar door is unlocked": {gm, ana},
        "I search the bar": {gm, ben},
    }
    for text, audience in heard.items():
        for player in everyone:
            log = player.page.locator("#log")
            if player in audience:
                expect(log).to_contain_text(text)
            else:
                expect(log).not_to_contain_text(text)
    expect(ana.page.locator("#log li.whisper").first).to_contain_text("to you")
    expect(gm.page.locator("#log li.whisper:has-text('I search the bar')")).to_contain_text("to you")
    expect(ben.page.locator("#log li.whisper:has-text('I search the bar')")).to_contain_text("to the GM")

    # the log reads down to the newest; a reader who scrolled up stays where they are as news arrives
    entries = ana.page.locator("#log-entries")
    ana.page.wait_for_function(
        "() => { const l = document.getElementById('log-entries');"
        " return l.scrollHeight - l.scrollTop - l.clientHeight < 24; }"
    )
    entries.evaluate("l => { l.scrollTop = 120; l.dispatchEvent(new Event('scroll')); }")
    send(gm, "News while Ana reads")
    expect(ana.page.locator("#log")).to_contain_text("News while Ana reads")
    assert abs(entries.evaluate("l => l.scrollTop") - 120) < 2

    # reading back: older pages stay open while news arrives, until "Back to the newest"
    log = ana.page.locator("#log")
    expect(log).not_to_contain_text("earlier line 0")
    ana.page.locator("#log [data-log-older]").click()
    expect(log).to_contain_text("earlier line 0")
    expect(log).to_contain_text("Roll for it")
    send(gm, "While you read")
    expect(ben.page.locator("#log")).to_contain_text("While you read")
    ana.page.wait_for_timeout(1000)  # the frame reached ana's page too, and was held
    expect(log).not_to_contain_text("While you read")
    ana.page.locator("#log-panel .log-newest").click()
    expect(log).to_contain_text("While you read")
    expect(log).not_to_contain_text("earlier line 0")

    # a bad roll says what is wrong beside the box and keeps the line
    ana.page.locator("#chat-panel textarea[name='text']").fill("/r 2d+")
    ana.page.locator("#chat-panel button[type=submit]").click()
    expect(ana.page.locator("#chat-panel [role=alert]")).to_contain_text("Cannot read")
    expect(ana.page.locator("#chat-panel textarea[name='text']")).to_have_value("/r 2d+")

    # the Chat filter keeps the chat and drops the rest (members joining); on the phone, on the Log tab
    ben.page.locator(".tabs .tab[data-tab='log']").click()
    expect(ben.page.locator("#chat-panel")).to_be_hidden()
    for player in (ana, ben):
        player.page.locator("#log-panel button.filter[data-filter='chat']").click()
        expect(player.page.locator("#log-panel")).to_have_attribute("data-filter", "chat")
        expect(player.page.locator("#log")).not_to_contain_text("joined as a player")
        expect(player.page.locator("#log")).to_contain_text("Evening, all")
    # a live reload keeps the filter chosen
    send(gm, "Anyone else?")
    for player in (ana, ben):
        expect(player.page.locator("#log")).to_contain_text("Anyone else?")
        expect(player.page.locator("#log-panel")).to_have_attribute("data-filter", "chat")
        expect(player.page.locator("#log")).not_to_contain_text("joined as a player")
    ana.shot("chat-1400-player")
    gm.shot("chat-1400-gm")
    ben.shot("chat-390-player")
    for player in everyone:
        player.close()
