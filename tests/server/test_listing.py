"""A member's list of campaigns on the web (`GET /api/v1/campaigns` and the campaigns page) comes from the membership
read model: it shows each campaign's name, game, the member's role, the member count and whether it is archived, as
the campaign is now, and the request does the same work with 1 or 1,000 other users' campaigns in the database."""

from __future__ import annotations

import re
from typing import Any

from herotable.dice import SeededRng
from herotable.service import TableService
from herotable.store import MemoryEventStore, open_store
from herotable.table.state import Ruleset
from herotable.table.structure import Join
from store.helpers import counted_work

from .clients import make_app, table


def listing(member: Any) -> list[dict[str, Any]]:
    answer = member.get("/api/v1/campaigns")
    assert answer.status_code == 200, answer.text
    out: list[dict[str, Any]] = answer.json()
    return out


def page_names(member: Any) -> list[str]:
    page = member.get("/")
    assert page.status_code == 200
    return [name for name in ("Harbour Days", "Ninja Island", "Other 0", "Other 999") if name in page.text]


def other_campaigns(app: Any, first: int, last: int) -> None:
    """Campaigns of users nobody here knows, imported into the app's database: a GM each, every third a player."""
    made = TableService(MemoryEventStore(), rng=SeededRng(first))
    store = app.state.services.table.store
    for n in range(first, last):
        cid = made.create_campaign(
            f"gm{n}", f"GM {n}", f"Other {n}", Ruleset.LTL, campaign_id=f"other{n:04}"
        ).campaign_id
        if n % 3 == 0:
            made.execute(cid, f"pl{n}", Join(f"Player {n}"))
        store.import_events(made.store.campaign(cid), made.store.load(cid))


def test_the_web_listing_shows_each_member_s_campaigns_as_they_are_and_does_not_grow_with_others(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'listing.db'}")
    app = make_app(store=store)
    cid, m = table(app)  # gwen the GM, pat and sam players, sly a spectator
    second = m["pat"].post("/api/v1/campaigns", {"name": "Ninja Island", "ruleset": "conviction"}).json()
    other = second["campaign_id"]
    code = m["pat"].post(f"/api/v1/campaigns/{other}/invites", {"role": "spectator"}).json()["code"]
    assert m["gm"].post(f"/api/v1/join/{code}").status_code == 200
    for body in (
        {"type": "campaign.rename", "name": "Harbour Days"},
        {"type": "member.set_role", "user": m["sly"].user_id, "role": "player"},
        {"type": "member.remove", "user": m["sam"].user_id},
        {"type": "campaign.hand_over", "user": m["pat"].user_id},
    ):
        assert m["gm"].command(cid, **body).status_code == 200, body
    assert m["pat"].command(cid, type="campaign.archive", archived=True).status_code == 200
    harbour = {"campaign_id": cid, "name": "Harbour Days", "ruleset": "ltl", "members": 3, "archived": True}
    island = {"campaign_id": other, "name": "Ninja Island", "ruleset": "conviction", "members": 2, "archived": False}
    expected = {
        "gm": [{**harbour, "role": "player"}, {**island, "role": "spectator"}],
        "pat": [{**harbour, "role": "gm"}, {**island, "role": "gm"}],
        "sly": [{**harbour, "role": "player"}],
        "sam": [],
    }
    for who, campaigns in expected.items():
        assert listing(m[who]) == campaigns, who
    assert page_names(m["gm"]) == ["Harbour Days", "Ninja Island"]
    assert page_names(m["sam"]) == []

    other_campaigns(app, 0, 1)
    listing(m["sly"])  # the first request of a kind warms what it may (statement caches), then the count starts
    with counted_work(store) as small:
        assert listing(m["sly"]) == expected["sly"]
    other_campaigns(app, 1, 1000)
    with counted_work(store) as big:
        assert listing(m["sly"]) == expected["sly"]
    assert big[0] == small[0]  # the same statements
    assert big[1] <= small[1] * 1.1, (small, big)  # visiting the same rows
    for who, campaigns in expected.items():
        assert listing(m[who]) == campaigns, who
    assert page_names(m["pat"]) == ["Harbour Days", "Ninja Island"]
    assert len(re.findall(r"Other \d+", m["gm"].get("/").text)) == 0
    store.close()
