"""A game of each, played through in three browsers: the GM at a desk (1400×900), a player at a desk in dark mode, a
player on a phone (390×844). Larger Than Life: a called challenge, a team challenge, and a conflict to its end with
a Push and a Karma re-roll; Conviction: a combat round with a Conviction re-roll and a Toughness save. At each step
it asserts what the table promises (issue 28): the odds in front of the player before each choice, the answer on
the card where the action was taken and a toast for the others, the clicks a roll takes, the log oldest first with
each roll's label, the tracker pinned at the top, dark mode, and no serious axe-core violation. Screenshots of each
state, at both widths, go to test-artifacts/screenshots/8x-*."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .test_browser import (  # noqa: F401
    DESK,
    PHONE,
    Player,
    both_widths,
    browser,
    cv_hero,
    cv_villain,
    in_view,
    join,
    ltl_hero,
    ltl_villain,
    open_table,
    server,
    start_campaign,
)
from .test_browser_axe import violations


def click(player: Player, button: Any) -> int:
    """Press one button that sends an action and wait for its answer: one click counted."""
    with player.page.expect_response(lambda r: r.url.endswith("/table/act")) as answer:
        button.click()
    assert 'role="alert"' not in answer.value.text(), answer.value.text()
    return 1


def dark(player: Player) -> bool:
    """Whether the page is drawn dark: its background's luminance below a third."""
    rgb = player.page.evaluate("getComputedStyle(document.body).backgroundColor")
    r, g, b = (int(x) for x in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255 < 1 / 3


def last_entry(player: Player) -> Any:
    return player.page.locator("#log-entries > li.entry").last


def three(browser: Any, server: Any) -> tuple[Player, Player, Player]:  # noqa: F811
    gm = Player(browser, server, "Gwen", viewport=DESK)
    ana = Player(browser, server, "Ana", viewport=DESK)
    ana.page.emulate_media(color_scheme="dark")
    ben = Player(browser, server, "Ben", viewport=PHONE)
    return gm, ana, ben


def no_serious_violation(*players: Player) -> None:
    found = [f"{p.name}: {v}" for p in players for v in violations(p)]
    assert not found, "\n".join(found)


def test_larger_than_life_a_challenge_a_team_and_a_conflict_in_three_browsers(browser, server):  # noqa: F811
    gm, ana, ben = three(browser, server)
    link = start_campaign(gm, "Harbour Nights", "ltl")
    campaign = gm.page.url.split("#")[0]
    join(ana, link, "ltl", shots=False)
    ltl_hero(ana, "Squall", "Lightning")
    join(ben, link, "ltl", shots=False)
    ltl_hero(ben, "Breaker", "Waves")
    ltl_villain(gm, campaign)
    for p in (gm, ana, ben):
        open_table(p, campaign)
    assert dark(ana) and not dark(gm)
    gm.act("bar", "structure.begin")
    for p in (ana, ben):
        p.log_has("Scene 1 begins")

    # a called challenge: the player reads its odds on her card, rolls and accepts in two clicks, and the answer stays
    # on her card; the others hear of it in a toast; the log's newest entry, at the bottom, carries the call's label
    gm.act("play", "ltl.call", {"difficulty": "Hard", "label": "Leap the gap"}, card="squall")
    card = ana.page.locator("#play [data-character='squall']")
    expect(card.locator(".odds-line").filter(has_text="Against Hard (d10)")).to_contain_text("Lightning d20")
    both_widths(ana, "80-scenario-ltl-called-challenge-dark")
    clicks = click(ana, card.locator("details.called[open] form[data-action='ltl.challenge'] button[type=submit]"))
    accept = ana.page.locator("#play article.roll form[data-action='ltl.settle'] button[type=submit]")
    expect(accept).to_have_text("Accept the roll")
    clicks += click(ana, accept)
    assert clicks == 2
    expect(card.locator(":scope > .answer")).to_contain_text("Leap the gap: Squall")
    expect(ben.page.locator("#toasts .toast.note").last).to_contain_text("Leap the gap")
    for p in (gm, ana, ben):
        expect(last_entry(p)).to_contain_text("Leap the gap")
    order = gm.page.locator("#log-entries > li.entry").all_inner_texts()
    assert "created 'Harbour Nights'" in order[0] and "Leap the gap" in order[-1]  # oldest first, newest last

    # a team challenge: the team's roller reads the team die's odds before rolling; the log names the team
    gm.act("bar", "ltl.team.challenge", {"difficulty": "Hard", "label": "Lift the wreck"},
           checks=("members=squall", "members=breaker"))  # fmt: skip
    for p in (ana, ben):
        p.log_has("Lift the wreck")  # the call's frame has reached both: the roller's card offers the team's roll
    team_roll = "#play details[data-action='ltl.team.roll'], #play form[data-action='ltl.team.roll']"
    roller = next(p for p in (ana, ben) if p.page.locator(team_roll).count())
    expect(roller.page.locator("#play .odds-line").filter(has_text="The team rolls")).to_contain_text("against d10")
    both_widths(roller, "81-scenario-ltl-team-odds")
    roller.act("play", "ltl.team.roll", card="squall" if roller is ana else "breaker")
    roller.roll_action("ltl.settle")
    for p in (gm, ana, ben):
        expect(last_entry(p)).to_contain_text("as a team")

    # the conflict: the tracker is pinned at the top of every page
    gm.act("bar", "ltl.conflict.start")
    for p in (gm, ana, ben):
        expect(p.page.locator("#play .tracker")).to_contain_text("Conflict, round 1")
    ben.page.evaluate("window.scrollTo(0, 0)")
    in_view(ben, "#play .tracker")

    # Ben reads the Push's price and odds on his card before pushing; its answer lands on his card, a toast on Ana's
    breaker = ben.page.locator("#play [data-character='breaker']")
    expect(breaker.locator(".odds-line").filter(has_text="the highest die the Push creates")).to_contain_text(
        "Heroism d10"
    )
    ben.act("play", "ltl.heroism.push", card="breaker")
    expect(breaker.locator(":scope > .answer")).to_contain_text("Breaker rolls Heroism")
    expect(ana.page.locator("#toasts .toast.note").last).to_contain_text("Breaker rolls Heroism")

    # Ben's attack: the exchange's odds stand on his card first; a Karma re-roll (Try Again), then one Accept from
    # each side: his, then the GM's for the villain, the card saying whom it waits for meanwhile
    expect(breaker.locator(".odds-inline")).to_contain_text("to win the conflict")
    ben.act("play", "ltl.attack", {"target": "captain-krake"}, card="breaker")
    ben.act("play", "ltl.karma.try_again", card="breaker")
    expect(ben.page.locator("#play article.roll form[data-action='ltl.reroll']").first).to_be_attached()
    ben.roll_action("ltl.reroll", fixed={"source": "try_again"})
    ben.roll_action("ltl.settle")
    for p, whose in ((gm, "you (Captain Krake)"), (ana, "Captain Krake (the GM)"), (ben, "Captain Krake (the GM)")):
        expect(p.page.locator("#play article.roll .roll-status")).to_contain_text(f"waiting for {whose}")
    # Ben's card shows Krake's die as hidden until the exchange settles, not as missing
    expect(ben.page.locator("#play article.roll figcaption")).to_contain_text(["Breaker", "Captain Krake: hidden"])
    both_widths(ben, "82-scenario-ltl-exchange-waiting")
    gm.roll_action("ltl.settle")
    for p in (gm, ana, ben):
        expect(p.page.locator("#play article.roll")).to_have_count(0)
        expect(last_entry(p)).to_contain_text("Breaker")
    expect(gm.page.locator("#play [data-character='breaker'] > .answer")).to_be_visible()

    # Ana's attack, accepted in two clicks and the GM's one; then the GM ends the fight by ruling, and "End the
    # conflict" comes first once one side is left
    ana.act("play", "ltl.attack", {"target": "captain-krake"}, card="squall")
    click(ana, ana.page.locator("#play article.roll form[data-action='ltl.settle'] button[type=submit]"))
    gm.roll_action("ltl.settle")
    gm.act("bar", "ltl.conflict.end_round")
    if "defeated" not in gm.page.locator("#play [data-character='captain-krake']").inner_text():
        ruling = gm.forms("#play [data-character='captain-krake']", "ltl.override").first
        gm.open(ruling)
        most = ruling.locator("[name='lose']").get_attribute("max") or "5"  # every level Krake has left
        gm.act("play", "ltl.override", {"reason": "the harbour wins", "lose": most}, card="captain-krake")
    for p in (gm, ana, ben):
        expect(p.page.locator("#play [data-character='captain-krake']")).to_contain_text("defeated")
    first = gm.page.locator("#bar .rounds [data-action]").first
    expect(first).to_have_attribute("data-action", "ltl.conflict.end")
    for p in (ana, ben):
        expect(p.page.locator("#play [data-character] form[data-action='ltl.attack']")).to_have_count(0)
    both_widths(gm, "83-scenario-ltl-conflict-over-gm")
    both_widths(ana, "84-scenario-ltl-conflict-over-dark")
    gm.act("bar", "ltl.conflict.end")
    for p in (ana, ben):
        p.log_has("The conflict ends")
    no_serious_violation(gm, ana, ben)
    for p in (gm, ana, ben):
        p.close()


def test_conviction_a_combat_round_with_a_re_roll_and_a_toughness_save_in_three_browsers(browser, server):  # noqa: F811
    gm, kes, moss = three(browser, server)
    link = start_campaign(gm, "Ninja Island", "conviction")
    campaign = gm.page.url.split("#")[0]
    join(kes, link, "conviction", shots=False)
    cv_hero(kes, "Kestrel", "Loyal")
    join(moss, link, "conviction", shots=False)
    cv_hero(moss, "Moss", "Curious")
    cv_villain(gm, campaign, hidden=False)
    for p in (gm, kes, moss):
        open_table(p, campaign)
    assert dark(kes)
    gm.act("bar", "structure.begin")
    gm.act("bar", "cv.round.start")
    gm.act("bar", "cv.round.begin")
    # the tracker, pinned at the top, gives the order and marks whose turn it is
    for p in (gm, kes, moss):
        tracker = p.page.locator("#play .tracker")
        expect(tracker).to_contain_text("Kestrel")
        expect(tracker.locator("li.group[aria-current=step]")).to_have_count(1)
    moss.page.evaluate("window.scrollTo(0, 0)")
    in_view(moss, "#play .tracker")

    # Kestrel strikes at Rex: the GM calls the roll against Rex's Defense with Strength, leaving the skill to her;
    # she reads each skill's chance before rolling, and on the roll card the re-roll's own chance beside it
    gm.act("play", "cv.check.call", {"difficulty": "13", "label": "Strike at Rex", "ability": "strength"},
           card="kestrel")  # fmt: skip
    card = kes.page.locator("#play [data-character='kestrel']")
    expect(card.locator(".odds-line")).to_contain_text("Chance by skill with Strength, as it is: Notice")
    both_widths(kes, "85-scenario-cv-called-strike-dark")
    click(kes, card.locator("details.called[open] form[data-action='cv.check'] button[type=submit]"))
    expect(kes.page.locator("#play article.roll .odds-line")).to_contain_text("re-roll")
    kes.roll_action("cv.reroll")
    accept = kes.page.locator("#play article.roll form[data-action='cv.announce'] button[type=submit]")
    expect(accept).to_have_text("Accept the roll (announce it)")
    click(kes, accept)
    expect(card.locator(":scope > .answer")).to_contain_text("Strike at Rex")
    expect(moss.page.locator("#toasts .toast.note").last).to_contain_text("Strike at Rex")
    for p in (gm, kes, moss):
        expect(last_entry(p)).to_contain_text("Strike at Rex")

    # Rex hits Moss: the GM rolls Moss's Toughness save; on Moss's phone the pending save carries the Conviction
    # re-roll's chance before he chooses; he re-rolls and accepts
    gm.act("bar", "cv.toughness_save", {"character": "moss", "damage_bonus": "3"})
    expect(moss.page.locator("#play article.roll .odds-line")).to_contain_text("re-roll")
    both_widths(moss, "86-scenario-cv-toughness-save-phone")
    moss.roll_action("cv.reroll")
    moss.roll_action("cv.announce")
    for p in (gm, kes, moss):
        expect(last_entry(p)).to_contain_text("Toughness")
    both_widths(gm, "87-scenario-cv-after-save-gm")
    no_serious_violation(gm, kes, moss)
    for p in (gm, kes, moss):
        p.close()
