"""Odds at the table: next to every choice, never against a hidden sheet, and the outcome chart."""

from __future__ import annotations

from fractions import Fraction

from herotable.dice import Rating
from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.odds.exchange import Roll, exchange

from .clients import Member, make_app, opened, table


def heroes_and_villains() -> tuple[str, dict[str, Member]]:
    """Pat's hero, the GM's villain, and a villain with a hidden sheet."""
    cid, m = table(make_app())
    m["pat"].command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET)
    m["gm"].command(cid, type="character.create_ltl", character="entropy", sheet=DOCTOR_ENTROPY, npc=True)
    shadow = {**DOCTOR_ENTROPY, "name": "Shadow"}
    m["gm"].command(cid, type="character.create_ltl", character="shadow", sheet=shadow, npc=True, hidden=True)
    return cid, m


def test_exchange_odds_for_each_choice_match_the_odds_engine():
    cid, m = heroes_and_villains()
    r = m["pat"].get(
        f"/api/v1/campaigns/{cid}/odds/exchange?actor=comet&target=entropy&style=Fisticuffs&target_style=Decay"
    )
    assert r.status_code == 200, r.text
    options = {o["key"]: o for o in r.json()["options"]}
    d12 = exchange(Roll(Rating.of("d12")), Roll(Rating.of("d12")))
    assert options["as_planned"]["win"]["exact"] == str(d12.win)
    assert Fraction(options["karma_now"]["win"]["exact"]) == 1  # Automatic Success wins the exchange (R-LTL-10)
    assert {"broke_1", "push_roll", "push_burn"} <= set(options)
    hidden = m["pat"].get(f"/api/v1/campaigns/{cid}/odds/exchange?actor=comet&target=shadow")
    assert hidden.status_code == 409 and hidden.json()["code"] == "odds/hidden"
    assert m["gm"].get(f"/api/v1/campaigns/{cid}/odds/exchange?actor=comet&target=shadow").status_code == 200
    chart = m["pat"].get(f"/api/v1/campaigns/{cid}/odds/conflict.svg?actor=comet&target=entropy")
    assert chart.headers["content-type"].startswith("image/svg+xml")
    assert chart.text.startswith("<svg") and "Captain Comet wins" in chart.text and "Doctor Entropy wins" in chart.text
    check = m["pat"].get(f"/api/v1/campaigns/{cid}/odds/check?bonus=5&dc=20").json()
    plain = next(o for o in check["options"] if o["change"]["exact"] == "0")
    assert plain["success"]["exact"] == str(Fraction(6, 20))  # needs 15+ on the d20 (R-CV-1)
    assert m["sly"].get(f"/api/v1/campaigns/{cid}/odds/check?bonus=5&dc=20").status_code == 200


def test_the_table_page_shows_the_odds_of_each_choice_during_a_conflict():
    cid, m = heroes_and_villains()
    assert "Odds appear here during a conflict" in m["pat"].get(f"/campaigns/{cid}/table/odds").text
    m["gm"].command(
        cid, type="ltl.conflict.start", fighters=[["comet", "heroes"], ["entropy", "villains"], ["shadow", "villains"]]
    )
    page = m["pat"].get(f"/campaigns/{cid}/table/odds").text
    assert "Captain Comet against Doctor Entropy" in page and "<svg" in page and "win the conflict" in page
    assert "Automatic Success" in page and "go for broke" in page
    assert "sheet is hidden" in page  # no odds against the hidden villain for a player
    assert "Captain Comet against" not in m["sam"].get(f"/campaigns/{cid}/table/odds").text  # not sam's fighter
    gm_page = m["gm"].get(f"/campaigns/{cid}/table/odds").text
    assert "Captain Comet against Shadow" in gm_page and gm_page.count("<svg") == 4  # every pairing, both ways
    assert f"/campaigns/{cid}/table/odds?actor=comet" in m["pat"].get(f"/campaigns/{cid}/table").text  # on the card
    attacked = m["pat"].command(cid, type="ltl.attack", actor="comet", target="entropy")
    assert attacked.status_code == 200, attacked.text
    waiting = m["pat"].get(f"/campaigns/{cid}/table/odds").text
    assert "None of your fighters can open an exchange now" in waiting and "<svg" not in waiting


def test_the_table_page_offers_free_dice_and_logs_the_total():
    app = make_app()
    cid, m = table(app)
    page = opened(m["pat"], m["pat"].get(f"/campaigns/{cid}/table").text)
    assert "Roll dice (free notation)" in page and "Secret (only you see it)" not in page
    assert "Secret (only you see it)" in opened(m["gm"], m["gm"].get(f"/campaigns/{cid}/table").text)
    form = {"type": "table.roll", "expression": "3d6", "label": "falling rocks", "csrf_token": m["pat"].csrf}
    answer = m["pat"].client.post(f"/campaigns/{cid}/table/act", data=form)
    assert answer.status_code == 200 and 'role="alert"' not in answer.text
    log = m["sam"].get(f"/campaigns/{cid}/table/log").text
    total = m["gm"].get(f"/api/v1/campaigns/{cid}/events").json()["events"][-1]["fact"]["total"]
    assert "falling rocks: 3d6 (" in log and f") = {total}</p>" in log


def test_the_odds_panel_is_computed_once_per_state_and_viewer(monkeypatch):
    from herotable.server.games.ltl_odds import LtlDuels

    computed: list[tuple[int, str]] = []
    real = LtlDuels.panel

    def counting(state, uid, acts):  # the real computation, counted
        computed.append((state.seq, uid))
        return real(state, uid, acts)

    monkeypatch.setattr(LtlDuels, "panel", staticmethod(counting))
    cid, m = heroes_and_villains()
    m["gm"].command(
        cid, type="ltl.conflict.start", fighters=[["comet", "heroes"], ["entropy", "villains"], ["shadow", "villains"]]
    )
    first = m["pat"].get(f"/campaigns/{cid}/table/odds").text
    assert m["pat"].get(f"/campaigns/{cid}/table/odds").text == first  # every reload of the panel: from memory
    assert len(computed) == 1
    m["gm"].get(f"/campaigns/{cid}/table/odds")
    assert len(computed) == 2  # another viewer, other odds
    m["pat"].command(cid, type="ltl.attack", actor="comet", target="entropy")
    assert "None of your fighters can open an exchange now" in m["pat"].get(f"/campaigns/{cid}/table/odds").text
    assert len(computed) == 3  # the state moved on: computed again


def test_the_whole_fight_says_whether_its_odds_are_exact():
    cid, m = heroes_and_villains()
    m["gm"].command(cid, type="ltl.conflict.start", fighters=[["comet", "heroes"], ["entropy", "villains"]])
    r = m["pat"].get(f"/api/v1/campaigns/{cid}/odds/exchange?actor=comet&target=entropy")
    assert r.status_code == 200, r.text
    body = r.json()
    fight, duel = body["fight"], m["pat"].get(f"/api/v1/campaigns/{cid}/odds/conflict.svg?actor=comet&target=entropy")
    assert body["method"] == "exact" and fight["method"] == "exact" and fight["says"] == "exact"
    assert fight["fighters"] == [["Captain Comet"], ["Doctor Entropy"]]
    # one against one is the duel model rolling base Power: the exact fractions add up
    total = sum(Fraction(fight[k]["exact"]) for k in ("a_wins", "b_wins", "draw"))
    assert total == 1 and duel.status_code == 200


def test_a_fight_with_a_hidden_villain_gives_a_player_no_odds_but_the_gm_gets_them():
    cid, m = heroes_and_villains()
    m["gm"].command(
        cid, type="ltl.conflict.start", fighters=[["comet", "heroes"], ["entropy", "villains"], ["shadow", "villains"]]
    )
    fight = m["pat"].get(f"/api/v1/campaigns/{cid}/odds/exchange?actor=comet&target=entropy").json()["fight"]
    assert "refused" in fight and "hidden" in fight["refused"] and "a_wins" not in fight
    gm = m["gm"].get(f"/api/v1/campaigns/{cid}/odds/exchange?actor=comet&target=entropy").json()["fight"]
    assert gm["method"] in ("exact", "monte_carlo") and gm["fighters"][1] == ["Doctor Entropy", "Shadow"]


def test_monte_carlo_fight_odds_say_so_with_their_interval():
    from herotable.odds.melee import melee
    from herotable.server.games.ltl_odds import estimate, says

    big = [Rating(7)] * 3
    odds = melee(big, big, seed=5, trials=2000)
    assert says(odds) == "Monte Carlo estimate from 2,000 simulated fights, 95% interval"
    shown = estimate(odds.a_wins)
    assert shown["low"] < shown["estimate"] < shown["high"] and "exact" not in shown
    small = melee([Rating(2)], [Rating(3)])
    assert says(small) == "exact" and estimate(small.a_wins)["exact"] == str(small.a_wins.exact)


def test_duel_odds_on_a_conviction_campaign_say_which_game_it_plays():
    """Exchange and conflict odds are of Larger Than Life duels: on a Conviction campaign they answer 409 naming the
    game and pointing to a check's odds, never a server error; nothing is changed."""
    cid, m = table(make_app(), "conviction")
    sheet = {
        "name": "Kestrel",
        "level": 3,
        "roles": ["warrior"],
        "toughness": 2,
        "nature": {"virtue": "Loyal", "vice": "Reckless"},
        "combat_bonus": 2,
        "abilities": {"strength": 2, "dexterity": 1, "constitution": 1, "intelligence": 0, "wisdom": 1, "charisma": 1},
        "skills": [["Notice", 4]],
    }
    assert m["pat"].command(cid, type="character.create_cv", character="kes", sheet=sheet).status_code == 200
    before = m["gm"].get(f"/api/v1/campaigns/{cid}/events").json()
    for path in ("odds/exchange", "odds/conflict.svg"):
        for who in ("pat", "gm"):
            answer = m[who].get(f"/api/v1/campaigns/{cid}/{path}?actor=kes&target=kes")
            assert answer.status_code == 409, answer.text
            error = answer.json()
            assert error["code"] == "odds/wrong_game"
            assert "plays Conviction" in error["detail"] and "Larger Than Life" in error["detail"]
            assert "odds/check" in error["fix"]
    assert m["gm"].get(f"/api/v1/campaigns/{cid}/events").json() == before


def test_the_gm_may_let_players_see_odds_against_a_hidden_sheet():
    # R-T-2, issue 28: off by default; the refusal says where to turn it on, and once on the player gets the odds
    cid, m = heroes_and_villains()
    refused = m["pat"].get(f"/api/v1/campaigns/{cid}/odds/exchange?actor=comet&target=shadow")
    assert refused.status_code == 409 and "campaign's settings" in refused.json()["fix"]
    assert m["gm"].command(cid, type="campaign.options", options={"hidden_odds": True}).status_code == 200
    shown = m["pat"].get(f"/api/v1/campaigns/{cid}/odds/exchange?actor=comet&target=shadow")
    assert shown.status_code == 200 and shown.json()["options"]
