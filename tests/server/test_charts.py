"""The charts page and its API: every member sees the dice they saw and the game's charts, drawn on the server with
a text alternative, and nothing they may not see (a GM's secret roll, a hidden NPC's numbers) reaches them on either
surface; strangers and visitors are refused."""

from __future__ import annotations

import re
from html import unescape

from .test_pages import cv_table, ltl_table

ZAP = {"type": "ltl.override", "character": "entropy", "reason": "his own field", "lose": 3}  # the hidden villain's


def charts(member, cid):
    answer = member.client.get(f"/api/v1/campaigns/{cid}/charts")
    assert answer.status_code == 200, answer.text
    return answer.json()


def counts(body):
    """The dice a reader's chart counts: {sides: [count of face 1, …]}."""
    return {d["sides"]: d["counts"] for d in body["fairness"]["dice"]}


def test_each_member_gets_the_dice_they_saw_and_the_game_s_charts(make_table, dice):
    t = ltl_table(make_table)
    cid = t.campaign_id
    dice.faces = [1, 2, 3, 4, 5, 6] * 5  # 30 rolls of a d6: each face expects 5, so the d6 is tested
    assert t.pat.command(cid, {"type": "table.roll", "expression": "30d6"}).is_success
    dice.faces = [77]
    assert t.gm.command(cid, {"type": "table.roll", "expression": "1d100", "secret": True}).is_success
    dice.faces = [9]
    assert t.pat.command(cid, {"type": "chat.roll", "expression": "1d12", "to": t.sam.user_id}).is_success
    assert t.pat.command(cid, {"type": "ltl.karma.try_again", "character": "comet"}).is_success
    assert t.gm.command(cid, ZAP).is_success

    d6 = [5] * 6
    twelve = [0] * 8 + [1] + [0] * 3
    gm, pat, sam, sly = (charts(m, cid) for m in (t.gm, t.pat, t.sam, t.sly))
    assert counts(gm) == {6: d6, 12: twelve, 100: [0] * 76 + [1] + [0] * 23}
    assert counts(pat) == counts(sam) == {6: d6, 12: twelve}  # the whisper's two copies count once
    assert counts(sly) == {6: d6}
    [six, *_] = pat["fairness"]["dice"]
    assert (six["tested"], six["chi_square"], six["says"], six["expected"]) == (True, 0.0, "nothing unusual", 5.0)
    assert pat["fairness"]["says"] == "nothing unusual" and pat["fairness"]["alpha"] == 0.01
    assert pat["fairness"]["dice"][1] | {"counts": None} == {
        "sides": 12,
        "rolled": 1,
        "counts": None,
        "expected": 1 / 12,
        "tested": False,
        "chi_square": None,
        "p_value": None,
        "holm_p": None,
        "says": "too few rolls to tell",
        "needed": 59,
    }
    by_key = {c["key"]: c for c in sly["charts"]}
    assert [c["key"] for c in sly["charts"]] == ["hero_points", "levels_lost", "levels_healed", "spent"]
    assert by_key["spent"]["series"] == [{"name": "Karma", "values": [1]}] and by_key["spent"]["x"] == ["1"]
    assert by_key["levels_lost"]["series"] == []  # the hidden villain's losses are the GM's
    lost = {c["key"]: c for c in gm["charts"]}["levels_lost"]
    assert lost["series"] == [{"name": "Doctor Entropy", "values": [3]}] and lost["kind"] == "bars"


def test_the_page_draws_each_chart_with_a_text_alternative_and_keeps_secrets(make_table, dice):
    t = ltl_table(make_table)
    cid = t.campaign_id
    dice.faces = [4, 4, 4, 4]
    assert t.pat.command(cid, {"type": "table.roll", "expression": "4d8"}).is_success
    dice.faces = [77]
    assert t.gm.command(cid, {"type": "table.roll", "expression": "1d100", "secret": True}).is_success
    assert t.pat.command(cid, {"type": "ltl.karma.try_again", "character": "comet"}).is_success
    assert t.gm.command(cid, ZAP).is_success

    page = t.pat.client.get(f"/campaigns/{cid}/charts")
    assert page.status_code == 200
    text = unescape(page.text)
    # drawn on the server: an image named and described, with the same numbers as a table
    svgs = re.findall(r"<svg [^>]*>.*?</svg>", text, re.S)
    assert len(svgs) == 2  # the d8, and Karma and Heroism spent: the other charts have nothing yet
    for svg in svgs:
        assert 'role="img"' in svg and "<title id=" in svg and "<desc id=" in svg
        assert "#000" not in svg and "black" not in svg  # colours come from the theme's stylesheet
    assert "d8: 4 rolled, too few rolls to tell" in svgs[0]
    assert "4 came up 4" in svgs[0] and re.search(r"<th scope=\"row\">Rolled</th>(<td>0</td>){3}<td>4</td>", text)
    assert "Karma: 1." in svgs[1] and '<th scope="row">Karma</th><td>1</td>' in text
    assert "36 more rolls to test it" in text and "No dice" not in text
    # nothing of the GM's: no d100, no hidden villain's losses
    assert "d100" not in text and "Doctor Entropy" not in text
    gm_page = unescape(t.gm.client.get(f"/campaigns/{cid}/charts").text)
    assert "d100: 1 rolled" in gm_page and "Doctor Entropy" in gm_page
    # the table page links to it, for every member
    for member in (t.gm, t.pat, t.sly):
        assert f'href="/campaigns/{cid}/charts"' in member.client.get(f"/campaigns/{cid}/table").text


def test_conviction_draws_each_hero_s_conviction_as_a_line(make_table, dice):
    t = cv_table(make_table)
    cid = t.campaign_id
    assert t.pat.command(cid, {"type": "cv.surge", "character": "kes"}).is_success
    body = charts(t.sam, cid)
    held = {c["key"]: c for c in body["charts"]}["conviction"]
    assert held["kind"] == "line" and held["x"] == ["1"]
    assert held["series"] == [{"name": "Kestrel", "values": [3]}, {"name": "Moss", "values": [4]}]
    page = unescape(t.sam.client.get(f"/campaigns/{cid}/charts").text)
    assert "<polyline" not in page and 'class="marker s0"' in page  # one session: a point, no line yet
    assert "Captain Rex" not in page and "Captain Rex" in t.gm.client.get(f"/campaigns/{cid}/charts").text
    assert "No dice you saw have been thrown yet." in page


def test_strangers_visitors_and_unknown_campaigns_are_refused(make_table, login, anonymous):
    t = ltl_table(make_table)
    cid = t.campaign_id
    eve = login("eve")
    assert eve.client.get(f"/api/v1/campaigns/{cid}/charts").status_code == 403
    refused = eve.client.get(f"/campaigns/{cid}/charts")
    assert refused.status_code == 403 and "not a member" in refused.text and "<svg" not in refused.text
    assert anonymous.get(f"/api/v1/campaigns/{cid}/charts").status_code == 401
    sent = anonymous.get(f"/campaigns/{cid}/charts", follow_redirects=False)
    assert sent.status_code == 303 and sent.headers["location"] == f"/login?next=/campaigns/{cid}/charts"
    assert t.pat.client.get("/api/v1/campaigns/nope/charts").status_code == 404
    assert t.pat.client.get("/campaigns/nope/charts").status_code == 404
