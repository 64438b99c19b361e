"""The odds a Larger Than Life player reads before each roll they make (issue 28): beside a challenge and a Karma
roll the GM called for (every Style against the called difficulty), a Push (the die it must beat and its price)
and Recovery. Each figure is checked against the odds engine's own functions, which compute it another way."""

from __future__ import annotations

import html
import re
from fractions import Fraction
from itertools import product

from herotable.dice import Rating
from herotable.ltl.samples import CAPTAIN_COMET
from herotable.odds.distributions import beats
from herotable.odds.exchange import push_chance
from herotable.server.games.ltl_chances import percent

from .clients import make_app, table


def lines(page: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", m)) for m in re.findall(r'<p class="odds-line">(.*?)</p>', page, re.S)]


def test_a_player_reads_the_odds_of_each_roll_before_making_it():
    app = make_app()
    cid, m = table(app)
    pat = m["pat"]
    made = pat.post(
        f"/api/v1/campaigns/{cid}/commands",
        {"type": "character.create_ltl", "character": "comet", "sheet": CAPTAIN_COMET},
    )
    assert made.status_code == 200, made.text
    for step in ("structure.start_adventure", "structure.start_session", "structure.start_scene"):
        m["gm"].post(f"/api/v1/campaigns/{cid}/commands", {"type": step})
    call = {"type": "ltl.call", "character": "comet", "difficulty": "Hard", "label": "Leap the gap"}
    assert m["gm"].post(f"/api/v1/campaigns/{cid}/commands", call).status_code == 200

    page = lines(pat.get(f"/campaigns/{cid}/table").text)
    # the called challenge: each Style of the sheet against the Hard die (d10), as beats() counts it
    sheet = CAPTAIN_COMET
    challenge = next(line for line in page if line.startswith("Against Hard (d10)"))
    base = Rating.of(sheet["base"]).sides
    assert f"base Power d{base} {percent(beats(base, 10, False))}" in challenge
    for style, die in sheet["styles"].items():
        sides = Rating.of(die).sides
        assert f"{style} d{sides} {percent(beats(sides, 10, False))}" in challenge
    # Push: Heroism against the highest die it creates, and what burning costs
    push = next(line for line in page if "the highest die the Push creates" in line)
    styles = [Rating.of(d) for d in sheet["styles"].values() if Rating.of(d).sides != 20]
    best = max(styles, key=lambda r: r.position, default=None)
    chance = push_chance(Rating.of(sheet["heroism"]), Rating.of(sheet["base"]), style=best)
    assert f"{percent(chance)} to push" in push and "Heroism level" in push
    # a spectator rolls nothing, and reads no odds
    assert not lines(m["sly"].get(f"/campaigns/{cid}/table").text)


def _ltl_table_with_three():
    """Comet (Pat's), Nova (Sam's, a d8 base where Comet's is d10) and the GM's visible villain Entropy, in a scene."""
    from herotable.ltl.samples import DOCTOR_ENTROPY

    app = make_app()
    cid, m = table(app)
    nova = {**CAPTAIN_COMET, "name": "Nova", "base": "d8"}
    for who, character, sheet in (("pat", "comet", CAPTAIN_COMET), ("sam", "nova", nova)):
        made = m[who].post(
            f"/api/v1/campaigns/{cid}/commands",
            {"type": "character.create_ltl", "character": character, "sheet": sheet},
        )
        assert made.status_code == 200, made.text
    villain = {"type": "character.create_ltl", "character": "entropy", "sheet": DOCTOR_ENTROPY, "npc": True}
    assert m["gm"].post(f"/api/v1/campaigns/{cid}/commands", villain).status_code == 200
    for step in ("structure.start_adventure", "structure.start_session", "structure.start_scene"):
        m["gm"].post(f"/api/v1/campaigns/{cid}/commands", {"type": step})
    return cid, m


def test_a_team_s_roller_reads_the_team_die_s_odds_against_the_difficulty_and_the_target():
    # R-LTL-14: the team rolls its highest member's die one type up (odds.exchange.team); against Hard's d10
    from herotable.odds.exchange import team

    cid, m = _ltl_table_with_three()
    gm = m["gm"]
    called = {"type": "ltl.team.challenge", "members": ["comet", "nova"], "difficulty": "Hard"}
    assert gm.post(f"/api/v1/campaigns/{cid}/commands", called).status_code == 200
    die = team([Rating.of(CAPTAIN_COMET["base"]), Rating.of("d8")])
    line = next(x for x in lines(m["pat"].get(f"/campaigns/{cid}/table").text) if x.startswith("The team rolls"))
    assert line.startswith(f"The team rolls d{die.sides} against d10, before any re-roll: ")
    assert f"{percent(beats(die.sides, 10, False))} to succeed" in line
    assert not any(x.startswith("The team") for x in lines(m["sam"].get(f"/campaigns/{cid}/table").text))
    assert gm.post(f"/api/v1/campaigns/{cid}/commands", {"type": "ltl.team.cancel"}).status_code == 200
    # in a conflict, against the target's standing defence: Entropy's base Power until the GM sets a Style
    start = {"type": "ltl.conflict.start", "fighters": [["comet", "h"], ["nova", "h"], ["entropy", "v"]]}
    assert gm.post(f"/api/v1/campaigns/{cid}/commands", start).status_code == 200
    attack = {"type": "ltl.team.attack", "members": ["comet", "nova"], "target": "entropy"}
    assert gm.post(f"/api/v1/campaigns/{cid}/commands", attack).status_code == 200
    from herotable.ltl.samples import DOCTOR_ENTROPY
    from herotable.odds.distributions import dice_exchange

    theirs = Rating.of(DOCTOR_ENTROPY["base"]).sides
    odds = dice_exchange(die.sides, theirs)
    line = next(x for x in lines(m["pat"].get(f"/campaigns/{cid}/table").text) if x.startswith("The team's"))
    assert f"against Doctor Entropy's base Power d{theirs}" in line
    assert f"{percent(odds.win)} to win the exchange, {percent(odds.tie)} a tie" in line


def test_a_contest_s_entrant_reads_each_style_s_chance_to_roll_highest():
    # R-LTL-13: highest roll wins; Sam declared Nova's base d8 first, so Pat reads each of Comet's dice against it
    cid, m = _ltl_table_with_three()
    gm = m["gm"]
    called = {"type": "ltl.contest.call", "participants": ["comet", "nova", "entropy"]}
    assert gm.post(f"/api/v1/campaigns/{cid}/commands", called).status_code == 200
    # before anyone declares, each Style against the others at their best die (Nova's d20 Lightning, Entropy's d12)
    first = next(x for x in lines(m["pat"].get(f"/campaigns/{cid}/table").text) if "roll highest" in x)
    assert "Nova's best, d20 (not declared yet)" in first and "Doctor Entropy's best, d12" in first
    entered = m["sam"].post(f"/api/v1/campaigns/{cid}/commands", {"type": "ltl.contest.enter", "character": "nova"})
    assert entered.status_code == 200, entered.text
    line = next(x for x in lines(m["pat"].get(f"/campaigns/{cid}/table").text) if "roll highest" in x)
    base = Rating.of(CAPTAIN_COMET["base"]).sides
    # Nova's declared d8 and Entropy's best d12: Comet's die must top both, counted face by face
    faces = list(product(range(1, base + 1), range(1, 9), range(1, 13)))
    highest = Fraction(sum(1 for a, b, c in faces if a > max(b, c)), len(faces))
    assert line.startswith("Against Nova's d8, Doctor Entropy's best, d12 (not declared yet): ")
    assert f"base Power d{base} {percent(highest)}" in line and "a tie for first is rolled again" in line


def test_an_attack_s_inline_odds_give_each_style_s_chance_to_win_the_exchange():
    # R-LTL-4: the attacker chooses base Power or a Style; beside the attack, each die's chance against the
    # defender's standing defence (Entropy's base Power, d10), as dice_exchange counts it
    from herotable.ltl.samples import DOCTOR_ENTROPY
    from herotable.odds.distributions import dice_exchange

    cid, m = _ltl_table_with_three()
    start = {"type": "ltl.conflict.start", "fighters": [["comet", "h"], ["entropy", "v"]]}
    assert m["gm"].post(f"/api/v1/campaigns/{cid}/commands", start).status_code == 200
    page = m["pat"].get(f"/campaigns/{cid}/table/odds?actor=comet&inline=1").text
    [line] = lines(page)
    theirs = Rating.of(DOCTOR_ENTROPY["base"]).sides
    assert line.startswith("Against Doctor Entropy, to win this exchange: ")
    for label, die in [("base Power", CAPTAIN_COMET["base"]), *CAPTAIN_COMET["styles"].items()]:
        sides = Rating.of(die).sides
        assert f"{label} d{sides} {percent(dice_exchange(sides, theirs).win)}" in line, (label, line)
    assert "to win the conflict" in line
