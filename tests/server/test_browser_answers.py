"""Every action answers where it was taken (issue 28): the card it was sent from shows its dice and outcome in words
at once and keeps them through the live redraw it causes; a refusal shows there too; and the other members hear of
a roll in a toast, without reading the log. Toasts sit in the page's flow and cover no button."""

from __future__ import annotations

from playwright.sync_api import expect

from .test_browser import PHONE, Player, browser, server, squall_in_a_scene, start_campaign  # noqa: F401


def test_a_card_s_action_answers_on_the_card_and_the_others_hear_of_it(browser, server):  # noqa: F811
    gm = Player(browser, server, "Gwen")
    ana = Player(browser, server, "Ana", viewport=PHONE)
    squall_in_a_scene(gm, ana)

    ana.act("play", "ltl.heroism.push", card="squall")
    answer = ana.page.locator("#play [data-character='squall'] > .answer")
    expect(answer).to_contain_text("Squall rolls Heroism")  # on the card, after the redraw the push brought
    expect(gm.page.locator("#toasts .toast.note").last).to_contain_text("Squall rolls Heroism")  # the GM hears of it
    assert ana.page.locator("#play .answer").count() == 1  # said once, on the card, not again in the form

    assert not ana.page.locator("#toasts .toast").count()  # her own answer is on her card, not a toast too

    # the GM pushes for Squall: Ana hears of it in a toast, which on a phone sits in the page's flow and covers none
    # of the card's buttons
    gm.act("play", "ltl.heroism.push", card="squall")
    expect(ana.page.locator("#toasts .toast.note")).to_contain_text("Squall rolls Heroism")
    toast = ana.page.locator("#toasts .toast").last.bounding_box()
    assert toast is not None
    for button in ana.page.locator("#play [data-character='squall'] summary, #play button").all()[:12]:
        box = button.bounding_box()
        if box:
            apart = box["y"] >= toast["y"] + toast["height"] or box["y"] + box["height"] <= toast["y"]
            assert apart, "a toast covers a button"
    ana.shot("61-ltl-table-player-answer-on-card-phone")

    # dismissed, it goes; a refusal answers on the card the same way
    answer.locator(".dismiss").click()
    expect(answer).to_have_count(0)
    # the log reads down to the newest entry, and is scrolled to it
    for p in (gm, ana):
        expect(p.page.locator("#log-entries > li.entry").last).to_contain_text("Squall rolls Heroism")
        expect(p.page.locator("#log-entries > li.entry").first).to_contain_text("created")
        p.page.wait_for_function(
            "() => { const l = document.getElementById('log-entries'); "
            "return l.scrollHeight - l.scrollTop - l.clientHeight < 24; }"
        )

    # a refusal answers on the card too (the browser's own checks bypassed, as an old browser would)
    form = gm.forms("#play [data-character='squall']", "ltl.hero_points.award").first
    form.evaluate("f => { f.noValidate = true; }")
    form.locator("[name='points']").fill("-3")
    form.locator("button[type=submit]").click()
    # beside the ruling it answers, in the GM's section, not up at the card's top
    refusal = gm.page.locator(
        "#play [data-character='squall'] .gm-acts details[data-action='ltl.hero_points.award'] > .answer [role=alert]"
    )
    expect(refusal).to_contain_text("points")
    ana.act("bar", "request.ask", {"kind": "deus_ex_machina", "character": "squall", "text": "the crane falls"})
    expect(gm.page.locator("#inbox .count")).to_have_text("1")
    expect(gm.page.locator("#play .answer")).to_have_count(1)  # redrawn, and still one answer beside its ruling
    expect(refusal).to_contain_text("points")
    assert not form.locator(".result").inner_text().strip()  # said on the card, once
    gm.shot("62-ltl-table-gm-refusal-on-card")
    for p in (gm, ana):
        p.close()


def test_an_invitation_link_is_copied_with_one_click(browser, server):  # noqa: F811
    gm = Player(browser, server, "Gwen")
    gm.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    start_campaign(gm, "Harbour Nights", "ltl")
    link = gm.page.locator("input.invite-link").first.input_value()
    gm.page.locator("button[data-copy]").first.click()
    expect(gm.page.locator("button[data-copy]").first).to_have_text("Copied")
    assert gm.page.evaluate("navigator.clipboard.readText()") == link
    gm.close()


def test_a_player_answers_the_gm_s_call_in_two_clicks(browser, server):  # noqa: F811
    gm = Player(browser, server, "Gwen")
    ana = Player(browser, server, "Ana", viewport=PHONE)
    squall_in_a_scene(gm, ana)
    gm.act("play", "ltl.call", {"difficulty": "Average", "label": "Leap the gap"}, card="squall")

    clicks = 0
    called = ana.page.locator("#play [data-character='squall'] details.called[open] form[data-action='ltl.challenge']")
    expect(called).to_be_visible()  # open on the card: the one thing to do now, its odds beside it
    odds = ana.page.locator("#play [data-character='squall'] .odds-line").filter(has_text="Against Average (d6)")
    expect(odds).to_contain_text("Lightning d20")
    with ana.page.expect_response(lambda r: r.url.endswith("/table/act")):
        called.locator("button[type=submit]").click()
        clicks += 1
    accept = ana.page.locator("#play article.roll form[data-action='ltl.settle'] button[type=submit]")
    expect(accept).to_have_text("Accept the roll")  # nothing to choose: one button
    with ana.page.expect_response(lambda r: r.url.endswith("/table/act")):
        accept.click()
        clicks += 1
    assert clicks == 2

    expect(ana.page.locator("#play article.roll")).to_have_count(0)
    # the roll is everyone's now: its entry is no longer marked private (the GM's call to her still is)
    rolled = ana.page.locator("#log-entries > li.entry").filter(has_text="Squall rolls a challenge")
    expect(rolled.locator(".tag")).to_have_count(0)
    # the settled roll's answer stays in front of her, on her character's card
    expect(ana.page.locator("#play [data-character='squall'] > .answer")).to_contain_text("Leap the gap: Squall")
    for p in (gm, ana):
        expect(p.page.locator("#log-entries > li.entry").last).to_contain_text("Leap the gap")
    ana.shot("63-ltl-table-player-called-roll-settled-phone")

    # the same by keyboard, for the GM: "?" lists the keys, "a" goes to the open roll's Accept, Enter accepts it
    gm.page.keyboard.press("?")
    expect(gm.page.locator("dialog#keys")).to_be_visible()
    gm.page.keyboard.press("Escape")
    expect(gm.page.locator("dialog#keys")).to_be_hidden()
    gm.act("play", "ltl.call", {"difficulty": "Easy", "label": "Climb the crane"}, card="squall")
    gm.page.locator("#play [data-character='squall'] details.called[open] form button[type=submit]").click()
    expect(gm.page.locator("#play article.roll form[data-action='ltl.settle'] button")).to_be_visible()
    gm.page.locator("body").click(position={"x": 5, "y": 5})  # out of the form: keys act on the page
    gm.page.keyboard.press("a")
    expect(gm.page.locator("#play article.roll form[data-action='ltl.settle'] button")).to_be_focused()
    with gm.page.expect_response(lambda r: r.url.endswith("/table/act")):
        gm.page.keyboard.press("Enter")
    expect(gm.page.locator("#log-entries > li.entry").last).to_contain_text("Climb the crane")
    for p in (gm, ana):
        p.close()
