# ruff: noqa: F401, F811  (the browser and server fixtures come from the browser tests)
"""The new choices of the third rules pass, used in real browsers at both widths: a GM's
situational modifier on a called roll and on a fighter's die in exchanges (R-T-2 amended), a Conviction call's
reason, and a sheet feat whose number the table adds (R-CV-6 amended). Screenshots go to
test-artifacts/screenshots/."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .test_browser import (
    PHONE,
    Player,
    browser,
    fill,
    join,
    ltl_hero,
    ltl_villain,
    open_table,
    server,
    start_campaign,
)


def test_a_larger_than_life_gm_puts_situational_modifiers_on_a_call_and_on_a_fighter(browser, server):
    gm = Player(browser, server, "Gwen")
    ana = Player(browser, server, "Ana", viewport=PHONE)
    link = start_campaign(gm, "Harbour Lights", "ltl")
    campaign_url = gm.page.url.split("#")[0]
    join(ana, link, "ltl", shots=False)
    ltl_hero(ana, "Squall", "Lightning")
    ltl_villain(gm, campaign_url)
    for p in (gm, ana):
        open_table(p, campaign_url)
    for step in ("structure.start_adventure", "structure.start_session", "structure.start_scene"):
        gm.act("bar", step)

    # R-T-2 (amended): the GM calls Squall's challenge one die type up, and says why; Ana reads it as she rolls
    call = {"difficulty": "Hard", "shift": "1", "reason": "a running start"}
    gm.act("play", "ltl.call", call, card="squall")
    ana.log_has("(+1 die type: a running start)")
    ana.act("play", "ltl.challenge", card="squall")
    ana.log_has("Squall rolls d20")
    ana.shot("70-ltl-situational-call-phone")
    ana.roll_action("ltl.settle")

    # each side of an exchange: the GM's standing modifier on the villain's die, public with its reason
    gm.act("bar", "ltl.conflict.start")
    gm.act("play", "ltl.situational", {"shift": "-1", "reason": "blinded by the flash"}, card="captain-krake")
    ana.log_has("Captain Krake's die at -1 die type: blinded by the flash")
    ana.act("play", "ltl.attack", {"target": "captain-krake"}, card="squall")
    gm.log_has(re.compile(r"Captain Krake rolls d4: .*\(-1 die type: blinded by the flash\)"))
    gm.shot("71-ltl-situational-gm")
    ana.roll_action("ltl.settle")
    ana.shot("72-ltl-situational-exchange-phone")
    for p in (gm, ana):
        p.close()


def test_a_conviction_call_s_reason_and_a_feat_the_table_adds(browser, server):
    gm = Player(browser, server, "Gwen")
    kes = Player(browser, server, "Kes", viewport=PHONE)
    link = start_campaign(gm, "Ninja Isle", "conviction")
    campaign_url = gm.page.url.split("#")[0]
    join(kes, link, "conviction", shots=False)
    page = kes.page
    fill(page, {"name": "Kestrel", "level": "3", "first_role": "warrior", "abilities.constitution": "1"})
    fill(page, {"toughness": "2", "combat_bonus": "1", "nature.virtue": "Loyal", "nature.vice": "Reckless"})
    page.check("#f-role-warrior")
    page.check("input[name='feats'][value='Thick Scales']")
    page.check("input[name='uncounted_feats'][value='Thick Scales']")  # R-CV-6 (amended): not in Toughness yet
    kes.shot("73-cv-sheet-uncounted-feat-phone")
    page.click("text=Save the character")
    page.wait_for_url(re.compile(r"/characters/[a-z0-9-]+$"))
    for p in (gm, kes):
        open_table(p, campaign_url)
    expect(kes.page.locator("#play [data-character='kestrel']")).to_contain_text("+2 (+3 with Thick Scales)")
    for step in ("structure.start_adventure", "structure.start_session", "structure.start_scene"):
        gm.act("bar", step)
    # R-T-2 (amended): the call's modifier comes with its reason, which Kes reads on the roll and in the log
    call = {"difficulty": "15", "label": "Leap the rail", "modifier": "2", "reason": "the high ground"}
    gm.act("play", "cv.check.call", call, card="kestrel")
    kes.log_has("+2: the high ground")
    kes.act("play", "cv.check", card="kestrel")
    expect(kes.page.locator("#play article.roll")).to_contain_text("the high ground")
    kes.roll_action("cv.announce")
    gm.log_has("+2 from the high ground")
    gm.shot("74-cv-situational-gm")
    kes.shot("75-cv-situational-phone")
    for p in (gm, kes):
        p.close()
