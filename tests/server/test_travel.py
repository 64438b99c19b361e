"""Characters that travel, through the real app: a character's file is exported by its player or the GM only (a hidden
NPC's by the GM alone), with its portrait; another campaign of its game takes it whole or not at all (every problem
with a fix, its portrait through the portrait checks, nothing written when refused); a player's hero waits for the
GM, its portrait seen only by its player and the GM, and plays once approved. A GM's library is theirs alone: no
other user lists, reads, adds or deletes its entries. A database from before the library upgrades and keeps its
campaigns, characters and portraits."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest
from PIL import Image

from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.server.limits import FILE_BODY_BYTES
from herotable.store.sql import open_store

from .clients import Member, make_app, register, table


def picture(size: tuple[int, int] = (600, 800), colour: str = "#8fbcd4") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "PNG")
    return out.getvalue()


def upload(who: Member, cid: str, character: str, data: bytes) -> Any:
    return who.client.post(
        f"/campaigns/{cid}/portraits/{character}",
        data={"csrf_token": who.csrf},
        files={"portrait": ("face.png", data, "image/png")},
        follow_redirects=False,
    )


def second_campaign(
    app: Any, m: dict[str, Member], name: str = "Storm Front", ruleset: str = "ltl"
) -> tuple[str, Member]:
    """Another campaign, GMed by Gina, with Pat and Sam as its players and Sly watching."""
    gina = register(app, "gina")
    cid = gina.post("/api/v1/campaigns", {"name": name, "ruleset": ruleset}).json()["campaign_id"]
    for who, role in (("pat", "player"), ("sam", "player"), ("sly", "spectator")):
        code = gina.post(f"/api/v1/campaigns/{cid}/invites", {"role": role}).json()["code"]
        assert m[who].post(f"/api/v1/join/{code}").status_code == 200
    return cid, gina


@pytest.fixture
def two() -> tuple[Any, str, str, dict[str, Member]]:
    """Campaign A (Gwen's): Pat's Captain Comet, with a portrait, and Gwen's hidden Doctor Entropy, with one too.
    Campaign B (Gina's): the same players, nobody yet."""
    app = make_app()
    a, m = table(app)
    assert m["pat"].command(a, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET).status_code == 200
    made = m["gm"].command(
        a, type="character.create_ltl", character="entropy", sheet=DOCTOR_ENTROPY, npc=True, hidden=True
    )
    assert made.status_code == 200
    assert upload(m["pat"], a, "comet", picture()).status_code == 303
    assert upload(m["gm"], a, "entropy", picture(colour="#7a1f1f")).status_code == 303
    b, gina = second_campaign(app, m)
    m["gina"] = gina
    return app, a, b, m


def exported(who: Member, cid: str, character: str) -> Any:
    return who.get(f"/api/v1/campaigns/{cid}/characters/{character}/export")


def test_a_character_is_exported_by_its_player_or_the_gm_and_a_hidden_npc_by_the_gm_alone(two: Any) -> None:
    _app, a, _b, m = two
    mine = exported(m["pat"], a, "comet")
    assert mine.status_code == 200
    made = mine.json()
    assert made["format"] == "herotable.character" and made["game"] == "ltl" and made["name"] == "Captain Comet"
    image = base64.b64decode(made["portrait"]["data"])
    assert made["portrait"]["media_type"] == "image/webp" and Image.open(io.BytesIO(image)).size == (384, 512)
    assert "Harbour Nights" not in json.dumps(made) and "Doctor Entropy" not in json.dumps(made)
    assert exported(m["gm"], a, "comet").status_code == 200
    for who in ("sam", "sly", "gina"):  # another player, a spectator, a stranger to the campaign
        refused = exported(m[who], a, "comet")
        assert refused.status_code == 403 and refused.headers["content-type"] == "application/problem+json"
    assert exported(m["pat"], a, "entropy").status_code == 403
    assert "Decay" not in exported(m["pat"], a, "entropy").text
    assert exported(m["gm"], a, "entropy").json()["sheet"]["styles"]["Decay"] == "d12"
    assert exported(m["gm"], a, "nobody").status_code == 409
    # the page's download: a file named after the character, for the same people only
    page = m["pat"].get(f"/campaigns/{a}/characters/comet/export")
    assert page.status_code == 200 and page.json()["name"] == "Captain Comet"
    assert page.headers["content-disposition"] == 'attachment; filename="captain-comet.herotable.json"'
    assert m["sam"].get(f"/campaigns/{a}/characters/comet/export").status_code == 403
    assert m["pat"].get(f"/campaigns/{a}/characters/entropy/export").status_code == 403
    sheet = m["pat"].get(f"/campaigns/{a}/characters/comet").text
    assert 'id="download"' in sheet and 'id="save-to-library"' not in sheet
    assert 'id="download"' not in m["sam"].get(f"/campaigns/{a}/characters/comet").text
    assert 'id="save-to-library"' in m["gm"].get(f"/campaigns/{a}/characters/comet").text


def test_an_imported_hero_waits_unseen_by_others_then_plays_with_its_portrait(two: Any) -> None:
    _app, a, b, m = two
    made = exported(m["pat"], a, "comet").json()
    brought = m["pat"].post(f"/api/v1/campaigns/{b}/characters/import", {"document": made})
    assert brought.status_code == 201, brought.text
    answer = brought.json()
    cid = answer["character"]
    assert answer["waiting"] is True and answer["name"] == "Captain Comet"
    assert [w["ref"]["id"] for w in answer["view"]["arrivals"]] == [cid]
    portrait = f"/campaigns/{b}/portraits/{cid}"
    assert m["pat"].get(portrait).status_code == 200 and m["gina"].get(portrait).status_code == 200
    for who in ("sam", "sly"):
        assert m[who].get(portrait).status_code == 404
        assert m[who].get(f"/api/v1/campaigns/{b}").json()["arrivals"] == []
        assert m[who].get(f"/campaigns/{b}/arrivals/{cid}").status_code == 404
        assert "Captain Comet" not in m[who].get(f"/campaigns/{b}").text
    assert "waiting for the GM" in m["pat"].get(f"/campaigns/{b}").text
    assert "1 from another campaign, waiting for you" in m["gina"].get(f"/campaigns/{b}/table").text
    for who in ("pat", "sam"):
        assert 'id="arrivals"' not in m[who].get(f"/campaigns/{b}/table").text
    page = m["gina"].get(f"/campaigns/{b}/arrivals/{cid}").text
    assert "10 Hero Points" not in page and "0 Hero Points held" in page and 'id="approve"' in page
    assert 'id="approve"' not in m["pat"].get(f"/campaigns/{b}/arrivals/{cid}").text
    # it cannot act; the GM approves it, and it plays with its portrait, which everyone now sees
    assert m["pat"].command(b, type="ltl.challenge", character=cid, difficulty="Easy").status_code == 409
    assert m["pat"].command(b, type="character.approve", character=cid).status_code == 403
    approved = m["gina"].client.post(
        f"/campaigns/{b}/arrivals/{cid}/approve", data={"csrf_token": m["gina"].csrf}, follow_redirects=False
    )
    assert approved.status_code == 303 and approved.headers["location"] == f"/campaigns/{b}/characters/{cid}"
    view = m["sam"].get(f"/api/v1/campaigns/{b}").json()
    assert cid in view["game"]["heroes"] and m["sam"].get(portrait).status_code == 200


def test_the_gm_turns_a_hero_away_its_player_reads_why_and_its_portrait_goes(two: Any) -> None:
    app, a, b, m = two
    made = exported(m["pat"], a, "comet").json()
    cid = m["pat"].post(f"/api/v1/campaigns/{b}/characters/import", {"document": made}).json()["character"]
    form = {"csrf_token": m["gina"].csrf, "reason": ""}
    blank = m["gina"].client.post(f"/campaigns/{b}/arrivals/{cid}/turn-away", data=form, follow_redirects=False)
    assert blank.status_code == 422 and "its player reads it" in blank.text
    form["reason"] = "This campaign is for new heroes only"
    gone = m["gina"].client.post(f"/campaigns/{b}/arrivals/{cid}/turn-away", data=form, follow_redirects=False)
    assert gone.status_code == 303
    log = json.dumps(m["pat"].get(f"/api/v1/campaigns/{b}/events").json())
    assert "The GM turns Captain Comet away: This campaign is for new heroes only" in log
    assert "new heroes only" not in json.dumps(m["sam"].get(f"/api/v1/campaigns/{b}/events").json())
    assert app.state.services.table.store.portrait(b, cid) is None


def test_a_refused_file_is_named_problem_by_problem_and_writes_nothing(two: Any) -> None:
    app, a, b, m = two
    store = app.state.services.table.store
    made = exported(m["pat"], a, "comet").json()
    head = store.head(b)
    bad = {**made, "sheet": {**made["sheet"], "base": "d7"}, "advancement": {**made["advancement"], "hero_points": -1}}
    bad["portrait"] = {"media_type": "image/png", "data": base64.b64encode(b"these are notes").decode()}
    refused = m["pat"].post(f"/api/v1/campaigns/{b}/characters/import", {"document": bad})
    assert refused.status_code == 422 and refused.headers["content-type"] == "application/problem+json"
    body = refused.json()
    assert body["code"] == "character/file_refused"
    found = {p["field"]: p for p in body["problems"]}
    assert set(found) == {"sheet.base", "advancement.hero_points", "portrait"}, found
    assert "not a PNG, JPEG or WebP" in found["portrait"]["message"] and found["portrait"]["fix"]
    assert all(p.get("fix") for p in body["problems"])
    sheet_bad = {**made, "sheet": {**made["sheet"], "base": "d7"}}
    said = m["pat"].post(f"/api/v1/campaigns/{b}/characters/import", {"document": sheet_bad}).json()
    assert [p["field"] for p in said["problems"]] == ["sheet.base"]
    assert "d4, d6, d8, d10, d12 or d20" in said["problems"][0]["fix"]
    assert store.head(b) == head and store.portrait_digests(b) == {}
    # the page shows each problem beside its tip, and the name typed stays
    page = m["pat"].client.post(
        f"/campaigns/{b}/import",
        data={"csrf_token": m["pat"].csrf, "name": "Comet Again"},
        files={"file": ("comet.herotable.json", json.dumps(sheet_bad).encode(), "application/json")},
        follow_redirects=False,
    )
    assert page.status_code == 422 and "Nothing was imported" in page.text and "sheet.base" in page.text
    assert 'value="Comet Again"' in page.text
    not_json = m["pat"].client.post(
        f"/campaigns/{b}/import",
        data={"csrf_token": m["pat"].csrf},
        files={"file": ("notes.txt", b"these are my notes", "text/plain")},
        follow_redirects=False,
    )
    assert not_json.status_code == 422 and "the file is not JSON" in not_json.text
    assert store.head(b) == head


def test_a_file_is_imported_from_the_page_under_another_name(two: Any) -> None:
    _app, a, b, m = two
    assert m["pat"].command(b, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET).status_code == 200
    made = m["pat"].get(f"/campaigns/{a}/characters/comet/export").content

    def send(name: str = "") -> Any:
        return m["pat"].client.post(
            f"/campaigns/{b}/import",
            data={"csrf_token": m["pat"].csrf, "name": name},
            files={"file": ("captain-comet.herotable.json", made, "application/json")},
            follow_redirects=False,
        )

    clash = send()
    assert clash.status_code == 409 and "already here" in clash.text and "another name" in clash.text
    sent = send("Comet of Storm Front")
    assert sent.status_code == 303 and "/arrivals/comet-of-storm-front-" in sent.headers["location"]
    assert "Comet of Storm Front" in m["pat"].get(sent.headers["location"]).text
    assert m["sly"].get(f"/campaigns/{b}/import").status_code == 403


def test_a_file_larger_than_any_character_is_refused_before_it_is_read(two: Any) -> None:
    _app, _a, b, m = two
    huge = {"document": {"notes": "x" * FILE_BODY_BYTES}}
    refused = m["pat"].post(f"/api/v1/campaigns/{b}/characters/import", huge)
    assert refused.status_code == 413 and refused.json()["code"] == "character/file_too_large"


def test_a_gms_library_is_theirs_alone_and_its_npc_joins_hidden_by_default(two: Any) -> None:
    _app, a, b, m = two
    gwen, gina = m["gm"], m["gina"]
    assert m["pat"].post(f"/api/v1/campaigns/{a}/characters/comet/library").status_code == 403
    saved = gwen.post(f"/api/v1/campaigns/{a}/characters/entropy/library")
    assert saved.status_code == 201
    entry = saved.json()
    assert entry["name"] == "Doctor Entropy" and entry["game"] == "ltl" and entry["saved_from"] == "Harbour Nights"
    eid = entry["entry_id"]
    assert [e["entry_id"] for e in gwen.get("/api/v1/library").json()] == [eid]
    assert gwen.get(f"/api/v1/library/{eid}").json()["document"]["portrait"]["media_type"] == "image/webp"
    # nobody else lists, reads, adds or deletes it
    for who in ("gina", "pat", "sam"):
        assert m[who].get("/api/v1/library").json() == []
        assert m[who].get(f"/api/v1/library/{eid}").status_code == 404
        assert m[who].delete(f"/api/v1/library/{eid}").status_code == 404
        assert "Doctor Entropy" not in m[who].get("/library").text
    assert gina.post(f"/api/v1/campaigns/{b}/library/{eid}", {}).status_code == 404  # the same as no such entry
    assert m["pat"].post(f"/api/v1/campaigns/{b}/library/{eid}", {}).status_code == 403  # not the GM there
    # Gwen adds it to a campaign of hers: Gina's is not
    assert gwen.post(f"/api/v1/campaigns/{b}/library/{eid}", {}).status_code == 403
    c = gwen.post("/api/v1/campaigns", {"name": "Harbour Nights II", "ruleset": "ltl"}).json()["campaign_id"]
    code = gwen.post(f"/api/v1/campaigns/{c}/invites", {"role": "player"}).json()["code"]
    assert m["sam"].post(f"/api/v1/join/{code}").status_code == 200
    added = gwen.post(f"/api/v1/campaigns/{c}/library/{eid}", {})
    assert added.status_code == 201, added.text
    cid = added.json()["character"]
    assert added.json()["waiting"] is False
    view = m["sam"].get(f"/api/v1/campaigns/{c}").json()
    [ref] = [r for r in view["characters"] if r["id"] == cid]
    assert (ref["name"], ref["npc"], ref["hidden"], ref["owner"]) == ("Doctor Entropy", True, True, gwen.user_id)
    assert "Decay" not in json.dumps(view) and m["sam"].get(f"/campaigns/{c}/characters/{cid}").status_code == 403
    assert m["sam"].get(f"/campaigns/{c}/portraits/{cid}").status_code == 404
    assert gwen.get(f"/campaigns/{c}/portraits/{cid}").status_code == 200
    visible = gwen.post(f"/api/v1/campaigns/{c}/library/{eid}", {"hidden": False, "name": "Entropy Prime"})
    assert visible.status_code == 201
    assert m["sam"].get(f"/campaigns/{c}/characters/{visible.json()['character']}").status_code == 200
    # a Conviction campaign of hers takes no Larger Than Life villain
    d = gwen.post("/api/v1/campaigns", {"name": "Ninja Island", "ruleset": "conviction"}).json()["campaign_id"]
    other_game = gwen.post(f"/api/v1/campaigns/{d}/library/{eid}", {})
    assert other_game.status_code == 409 and other_game.json()["code"] == "library/other_game"
    # the library page lists it by game, and adds it straight to a campaign hidden unless the box is cleared
    page = gwen.get(f"/library?campaign={c}").text
    assert "Doctor Entropy" in page and "Add to Harbour Nights II" in page and "checked" in page
    assert gina.get(f"/library?campaign={c}").status_code == 403
    form = {"csrf_token": gwen.csrf, "campaign_id": c, "hidden": "true", "back": c}
    third = gwen.client.post(f"/library/{eid}/add", data=form, follow_redirects=False)
    assert third.status_code == 409 and "already here" in third.text  # its name is at the table twice over now
    renamed = gwen.client.post(f"/library/{eid}/add", data=form | {"name": "Doctor Entropy's twin"})
    assert renamed.status_code == 200 and "Doctor Entropy&#39;s twin" in renamed.text  # the page's name field
    assert gina.client.post(f"/library/{eid}/delete", data={"csrf_token": gina.csrf}).status_code == 404
    assert gwen.delete(f"/api/v1/library/{eid}").json() == {"removed": eid}
    assert gwen.get("/api/v1/library").json() == []
    assert m["sam"].get(f"/api/v1/campaigns/{c}").json()["characters"]  # what was added from it stays


def test_the_library_page_saves_from_a_characters_page_and_deletes(two: Any) -> None:
    _app, a, _b, m = two
    gwen = m["gm"]
    saved = gwen.client.post(
        f"/campaigns/{a}/characters/entropy/library", data={"csrf_token": gwen.csrf}, follow_redirects=False
    )
    assert saved.status_code == 303 and saved.headers["location"].startswith("/library?saved=")
    page = gwen.get(saved.headers["location"]).text
    assert "Doctor Entropy" in page and "just saved" in page and "Harbour Nights" in page
    eid = gwen.get("/api/v1/library").json()[0]["entry_id"]
    gone = gwen.client.post(f"/library/{eid}/delete", data={"csrf_token": gwen.csrf}, follow_redirects=False)
    assert gone.status_code == 303 and gwen.get("/api/v1/library").json() == []
    assert "Your library is empty" in gwen.get("/library").text


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_campaign_from_before_the_library_keeps_its_characters_and_portraits_after_the_upgrade(
    backend: str, request: pytest.FixtureRequest, tmp_path: Any
) -> None:
    from alembic import command

    from herotable.store.engine import create_store_engine
    from herotable.store.migrate import _config, current_revision, head_revision
    from herotable.store.sql import parse_database_url

    url = f"sqlite:///{tmp_path / 'old.db'}" if backend == "sqlite" else request.getfixturevalue("postgres_schema")()
    app = make_app(store=open_store(url))
    a, m = table(app)
    m["pat"].command(a, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET)
    m["gm"].command(a, type="character.create_ltl", character="entropy", sheet=DOCTOR_ENTROPY, npc=True, hidden=True)
    assert upload(m["pat"], a, "comet", picture()).status_code == 303
    store = app.state.services.table.store
    before, portrait = app.state.services.table.state(a), store.portrait(a, "comet")
    store.close()
    engine = create_store_engine(parse_database_url(url))
    with engine.begin() as connection:  # the schema as revision 0011 left it, with the campaign in it
        command.downgrade(_config(connection), "0011")
    assert current_revision(engine) == "0011"
    engine.dispose()
    upgraded = make_app(store=open_store(url))  # opening upgrades it
    store = upgraded.state.services.table.store
    try:
        assert current_revision(store.engine) == head_revision()
        assert upgraded.state.services.table.state(a) == before
        assert store.portrait(a, "comet") == portrait
        gm = Member(type(m["gm"].client)(upgraded), m["gm"].user_id, m["gm"].csrf)
        gm.client.cookies = m["gm"].client.cookies
        assert gm.post(f"/api/v1/campaigns/{a}/characters/entropy/library").status_code == 201
        assert [e["name"] for e in gm.get("/api/v1/library").json()] == ["Doctor Entropy"]
    finally:
        store.close()
