"""A game's campaign options on the web and the API (issue 28): the new-campaign form shows each game's options with
a sentence each, the settings page changes them between scenes, the API takes them with a new campaign and lists
them per game, and a form shows initiative's fields only where initiative is rolled (R-T-1, R-LTL-12)."""

from __future__ import annotations

import re
from html import unescape

from .test_pages import ltl_table


def view_options(member, cid):
    return member.client.get(f"/api/v1/campaigns/{cid}").json()["game"]["options"]


def test_the_new_campaign_form_shows_each_game_s_options_and_makes_the_campaign_with_them(login):
    gm = login("gwen")
    page = unescape(gm.client.get("/").text)
    assert 'data-game="ltl"' in page and 'data-game="conviction"' in page
    assert "Who acts first in a conflict" in page and "What a Disabled character may do" in page
    before = gm.client.get("/api/v1/campaigns").json()
    bad = gm.post("/campaigns", {"name": "Harbour", "ruleset": "ltl", "option.ltl.effect_cap": "lots"})
    assert bad.status_code == 422 and "Most levels one exchange deals must be a whole number" in unescape(bad.text)
    odd = gm.post("/campaigns", {"name": "Harbour", "ruleset": "ltl", "option.ltl.initiative": "sometimes"})
    said = unescape(odd.text)
    assert odd.status_code == 422 and "give initiative one of: simultaneous (Everyone at once), each_round" in said
    assert gm.client.get("/api/v1/campaigns").json() == before  # nothing was made
    made = gm.post(
        "/campaigns",
        {
            "name": "Harbour",
            "ruleset": "ltl",
            "option.ltl.initiative": "each_round",
            "option.ltl.exploding": "true",
            "option.conviction.disabled_actions": "nonsense",  # another game's: not read
        },
    )
    assert made.status_code == 303
    cid = made.headers["location"].rsplit("/", 1)[1]
    options = view_options(gm, cid)
    assert options["initiative"] == "each_round" and options["exploding"] is True and options["effect_cap"] == 3


def test_the_api_takes_options_with_a_new_campaign_and_lists_each_game_s(login):
    gm = login("gwen")
    games = {g["ruleset"]: g for g in gm.client.get("/api/v1/games").json()}
    initiative = next(o for o in games["ltl"]["options"] if o["name"] == "initiative")
    assert initiative["default"] == "simultaneous" and initiative["changeable"] is True
    assert (
        initiative["values"]["choices"] == ["simultaneous", "each_round", "once"] and initiative["rule"] == "R-LTL-12"
    )
    post = gm.client.post
    headers = {"X-CSRF-Token": gm.csrf}
    body = {"name": "Isle", "ruleset": "conviction", "options": {"disabled_actions": "standard_or_move"}}
    made = post("/api/v1/campaigns", json=body, headers=headers)
    assert made.status_code == 201 and made.json()["game"]["options"]["disabled_actions"] == "standard_or_move"
    wrong = post("/api/v1/campaigns", json={**body, "options": {"initiative": "once"}}, headers=headers)
    assert wrong.status_code == 422
    assert wrong.json()["detail"] == "this game has no option 'initiative'"


def test_the_gm_changes_options_on_the_settings_page_between_scenes(make_table, dice):
    t = ltl_table(make_table)
    cid = t.campaign_id
    form = unescape(t.gm.client.get(f"/campaigns/{cid}/settings").text)
    assert 'action="/campaigns/' in form and 'name="option.initiative"' in form and "counts from the next round" in form
    start = next(
        a
        for a in t.gm.client.get(f"/api/v1/campaigns/{cid}/actions").json()["actions"]
        if a["type"] == "ltl.conflict.start"
    )
    assert "karma_initiative" not in start["fields"]  # everyone acts at once: no initiative to roll
    changed = t.gm.post(
        f"/campaigns/{cid}/settings/options", {"option.initiative": "each_round", "option.effect_cap": "3"}
    )
    assert changed.status_code == 303 and view_options(t.pat, cid)["initiative"] == "each_round"
    log = unescape(t.sam.client.get(f"/campaigns/{cid}/table/log").text)
    assert "The GM changes the campaign's options (Initiative: Initiative rolled each round)" in log  # what changed
    start = next(
        a
        for a in t.gm.client.get(f"/api/v1/campaigns/{cid}/actions").json()["actions"]
        if a["type"] == "ltl.conflict.start"
    )
    assert "karma_initiative" in start["fields"] and "initiative_power" in start["fields"]
    assert t.pat.post(f"/campaigns/{cid}/settings/options", {"option.initiative": "once"}).status_code == 403

    fight = {"type": "ltl.conflict.start", "fighters": [["comet", "heroes"], ["entropy", "villains"]]}
    dice.faces += [5, 3]  # initiative is rolled now: Power each
    assert t.gm.command(cid, fight).is_success
    page = unescape(t.gm.client.get(f"/campaigns/{cid}/settings").text)
    assert "not while anything is open: the conflict is in round 1" in page
    refused = t.gm.post(f"/campaigns/{cid}/settings/options", {"option.initiative": "once"})
    assert refused.status_code == 422 and "the conflict is in round 1" in unescape(refused.text)
    assert view_options(t.pat, cid)["initiative"] == "each_round"


def test_settings_refusals_name_fields_as_the_form_does_and_players_by_name(make_table):
    # a refusal on the settings page says "New name", "Most levels one exchange deals", a player's name: never the
    # command's field names or a bare user id, and changes nothing
    t = ltl_table(make_table)
    cid = t.campaign_id

    def refusal(url, form):
        answer = t.gm.post(f"/campaigns/{cid}/{url}", form)
        assert answer.status_code == 422
        alert = re.search(r'<div class="error-summary" role="alert".*?</div>', answer.text, re.S)
        assert alert is not None
        return " ".join(unescape(re.sub(r"<[^>]+>", " ", alert.group(0))).split())

    said = refusal("settings", {"type": "campaign.rename", "name": " "})
    assert "New name is empty. Tip: write the new name." in said
    said = refusal("settings/options", {"option.effect_cap": "99"})
    assert "Most levels one exchange deals cannot be 99. Tip: give most levels one exchange deals a whole" in said
    assert "effect_cap" not in said
    said = refusal("settings", {"type": "campaign.hand_over", "to": "nobody"})
    assert f"choose one of Pat ({t.pat.user_id}), Sam ({t.sam.user_id})" in said
    assert view_options(t.pat, cid)["effect_cap"] == 3


def test_a_refused_new_campaign_form_keeps_the_options_chosen(login):
    # the form comes back with its problem and with every option as the GM set it, not reset to the defaults
    gm = login("gwen")
    sent = {"name": " ", "ruleset": "ltl", "option.ltl.effect_cap": "5", "option.ltl.initiative": "once"}
    page = gm.post("/campaigns", {**sent, "option.ltl.exploding": ["false", "true"]})
    assert page.status_code == 422
    assert re.search(r'name="option.ltl.effect_cap"[^>]*value="5"', page.text)
    assert re.search(r'<option value="once" selected', page.text)
    assert re.search(r'<input type="checkbox" [^>]*name="option.ltl.exploding" value="true" checked', page.text)
    assert not re.search(
        r'<input type="checkbox" [^>]*name="option.ltl.stun_on_damage" value="true" checked', page.text
    )


def test_a_settings_change_says_it_went_through(make_table):
    # the page the GM comes back to says what happened: options changed, or nothing to change; a rename too
    t = ltl_table(make_table)
    cid = t.campaign_id
    changed = t.gm.post(f"/campaigns/{cid}/settings/options", {"option.effect_cap": "4"})
    assert changed.status_code == 303
    page = unescape(t.gm.client.get(changed.headers["location"]).text)
    assert '<p class="notice" role="status">The options are changed from now on' in page
    same = t.gm.post(f"/campaigns/{cid}/settings/options", {"option.effect_cap": "4"})
    assert "Nothing changed: the options were already so." in unescape(t.gm.client.get(same.headers["location"]).text)
    renamed = t.gm.post(f"/campaigns/{cid}/settings", {"type": "campaign.rename", "name": "Harbour Days"})
    assert "The campaign is renamed." in unescape(t.gm.client.get(renamed.headers["location"]).text)
    assert '<p class="notice" role="status">' not in t.gm.client.get(f"/campaigns/{cid}/settings").text  # once
