"""The odds a Larger Than Life player reads before each roll they make (issue 28): beside a challenge and a Karma
roll the GM called for (every Style against the called difficulty), a Push (the die it must beat and its price)
and Recovery. Each figure is checked against the odds engine's own functions, which compute it another way."""

from __future__ import annotations

import html
import re

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
