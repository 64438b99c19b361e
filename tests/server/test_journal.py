"""The journal on the web: an entry before it is shown leaks through no surface (page, socket, events, view, search,
export, image, webhook); shown to one player it reaches that player alone, live; shown to everyone, spectators and
webhooks too. Images pass the portraits' checks and a per-campaign quota; Markdown is rendered safely; private notes
reach a character's player and the GM alone (R-T-4)."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from herotable.ltl.samples import CAPTAIN_COMET

from .clients import Member, make_app, table
from .receiver import Receiver
from .test_live import frames_until, of_type

TITLE = "The smuggler's ledger"
BODY = "Captain Rook pays the harbour master in **pearls**."
SECRET = "pays the harbour master"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.close()


def form(member: Member, url: str, **fields: Any) -> Any:
    return member.client.post(url, data={"csrf_token": member.csrf, **fields}, follow_redirects=False)


def png(colour: tuple[int, int, int] = (200, 40, 40), size: int = 64) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (size, size), colour).save(out, "PNG")
    return out.getvalue()


def upload(member: Member, cid: str, data: bytes) -> Any:
    files = {"image": ("map.png", data, "image/png")}
    return member.client.post(
        f"/campaigns/{cid}/journal/images", data={"csrf_token": member.csrf}, files=files, follow_redirects=False
    )


def everything_seen(member: Member, cid: str) -> str:
    """What a member can read of the campaign over HTTP: the journal page and a search, the table page, the view, the
    events, and the export (refused to players)."""
    parts = [
        member.get(f"/campaigns/{cid}/journal").text,
        member.get(f"/campaigns/{cid}/journal?q=ledger").text,
        member.get(f"/campaigns/{cid}/table").text,
        member.get(f"/api/v1/campaigns/{cid}").text,
        member.get(f"/api/v1/campaigns/{cid}/events?limit=200").text,
        member.get(f"/api/v1/campaigns/{cid}/journal").text,
        member.get(f"/api/v1/campaigns/{cid}/journal?q=ledger").text,
        member.get(f"/campaigns/{cid}/recaps/1").text,
        member.get(f"/campaigns/{cid}/recaps/1/recap.md").text,
        member.get(f"/campaigns/{cid}/recaps/1/recap.html").text,
        member.get(f"/api/v1/campaigns/{cid}/recaps/1").text,
        member.get(f"/campaigns/{cid}/charts").text,
        member.get(f"/api/v1/campaigns/{cid}/export").text,
    ]
    return "\n".join(parts)


def test_an_entry_reaches_no_one_before_it_is_shown_then_exactly_its_readers(receiver: Receiver) -> None:
    app = make_app(webhook_private_addresses=True)
    cid, m = table(app)
    gm, pat, sam, sly = m["gm"], m["pat"], m["sam"], m["sly"]
    made = gm.post(f"/api/v1/campaigns/{cid}/webhooks", {"url": receiver.url + "/in", "format": "json"})
    assert made.status_code == 201, made.text
    courier = app.state.courier
    assert gm.command(cid, type="structure.begin").status_code == 200  # session 1, whose recap is read below

    def sent() -> str:
        while courier.deliver_due():
            pass
        return "\n".join(g.body.decode() for g in receiver.got)

    with (
        pat.client.websocket_connect(f"/ws/campaigns/{cid}") as pat_ws,
        sly.client.websocket_connect(f"/ws/campaigns/{cid}") as sly_ws,
    ):
        for ws in (pat_ws, sly_ws):
            ws.receive_json()  # the hello
        written = form(gm, f"/campaigns/{cid}/journal", title=TITLE, body=BODY)
        assert written.status_code == 303 and written.headers["location"].endswith("?done=written#e1")
        gm.command(cid, type="chat.say", text="marker one")  # what every socket hears next
        for ws in (pat_ws, sly_ws):
            heard = json.dumps(frames_until(ws, of_type("chat.said")))
            assert TITLE not in heard and SECRET not in heard
        for who in (pat, sam, sly):
            seen = everything_seen(who, cid)
            assert TITLE not in seen and SECRET not in seen and "smuggler" not in seen, who.user_id
            assert "0 entries hold" in who.get(f"/campaigns/{cid}/journal?q=ledger").text
        assert TITLE not in sent()
        gm_page = gm.get(f"/campaigns/{cid}/journal").text
        assert TITLE.replace("'", "&#39;") in gm_page and "Yours alone" in gm_page

        shown = form(gm, f"/campaigns/{cid}/journal/e1/show", to="chosen", readers=pat.user_id)
        assert shown.status_code == 303
        frames = frames_until(pat_ws, of_type("journal.shown"))
        assert SECRET in json.dumps(frames)
        assert any("smuggler" in (f.get("html") or "") for f in frames)  # the table's journal menu, live
        gm.command(cid, type="chat.say", text="marker two")
        assert SECRET not in json.dumps(frames_until(sly_ws, of_type("chat.said")))
        assert SECRET in pat.get(f"/campaigns/{cid}/journal").text
        assert "1 entry holds" in pat.get(f"/campaigns/{cid}/journal?q=ledger").text
        [found] = pat.get(f"/api/v1/campaigns/{cid}/journal?q=harbour+PEARLS").json()["entries"]
        assert found["body"] == BODY and "readers" not in found
        assert sly.get(f"/api/v1/campaigns/{cid}/journal?q=harbour").json()["entries"] == []
        handouts = pat.get(f"/api/v1/campaigns/{cid}/recaps/1").json()["sections"][-1]
        assert handouts == {"title": "Handouts", "lines": [f"“{TITLE}” was shown"]}
        for who in (sam, sly):
            assert SECRET not in everything_seen(who, cid), who.user_id
        assert SECRET not in sent() and TITLE not in sent()

        form(gm, f"/campaigns/{cid}/journal/e1/show", to="everyone")
        assert SECRET in json.dumps(frames_until(sly_ws, of_type("journal.shown")))
        assert (
            SECRET in sly.get(f"/campaigns/{cid}/journal").text and SECRET in sam.get(f"/campaigns/{cid}/journal").text
        )
        assert TITLE in sent()  # what everyone sees goes out


def test_a_wrong_show_says_what_to_do_and_a_player_may_not_write(receiver: Receiver) -> None:
    app = make_app()
    cid, m = table(app)
    gm, pat = m["gm"], m["pat"]
    form(gm, f"/campaigns/{cid}/journal", title="Map", body="")
    nobody = form(gm, f"/campaigns/{cid}/journal/e1/show", to="chosen")
    assert nobody.status_code == 409 and "Tick the members" in nobody.text
    unknown = form(gm, f"/campaigns/{cid}/journal/e9/show", to="everyone")
    assert unknown.status_code == 409 and "no journal entry &#39;e9&#39;" in unknown.text
    blank = form(gm, f"/campaigns/{cid}/journal", title="  ", body="text")
    assert blank.status_code == 409 and "Nothing was changed" in blank.text
    refused = form(pat, f"/campaigns/{cid}/journal", title="Mine", body="x")
    assert refused.status_code == 403 and "Only the GM may do this" in refused.text
    forged = form(gm, f"/campaigns/{cid}/journal/e1/show", to="bogus")
    assert forged.status_code == 422 and "Choose whom to show it to" in forged.text
    ticked = form(gm, f"/campaigns/{cid}/journal/e1/show", to="nobody", readers=pat.user_id)  # ticks say whom
    assert ticked.status_code == 303
    assert gm.get(f"/api/v1/campaigns/{cid}").json()["journal"]["entries"] == [
        {"id": "e1", "title": "Map", "image": None, "everyone": False, "readers": [pat.user_id]}
    ]
    two_lines = gm.command(cid, type="journal.write", title="Map\nsecond line", body="")
    assert two_lines.status_code == 409 and two_lines.json()["code"] == "journal/title_lines"


def test_markdown_is_rendered_without_raw_html_scripts_or_outside_images() -> None:
    app = make_app()
    cid, m = table(app)
    gm = m["gm"]
    body = "# Orders\n<script>alert(1)</script>\n[trap](javascript:alert(1)) [map](https://example.com/map)\n![x](https://evil.example/pixel.png)"
    form(gm, f"/campaigns/{cid}/journal", title="Orders", body=body)
    page = gm.get(f"/campaigns/{cid}/journal").text
    entry = page.split('<div class="prose">', 1)[1].split("</div>", 1)[0]
    assert "<h1>Orders</h1>" in entry and "&lt;script&gt;" in entry and "<script>" not in entry
    assert 'href="javascript:' not in entry and "<img" not in entry  # an outside picture stays a link
    assert 'rel="nofollow noopener noreferrer" href="https://example.com/map"' in entry


def test_an_image_is_checked_counted_against_the_quota_and_served_only_to_its_readers() -> None:
    app = make_app(image_quota_mb=0.004)  # 4,000 bytes
    cid, m = table(app)
    gm, pat, sam = m["gm"], m["pat"], m["sam"]
    assert upload(pat, cid, png()).status_code == 403
    bad = upload(gm, cid, b"not a picture at all")
    assert bad.status_code == 415 and "not uploaded" in bad.text
    first = upload(gm, cid, png())
    assert first.status_code == 303 and first.headers["location"].endswith("?done=uploaded#images")
    assert upload(gm, cid, png()).headers["location"].endswith("?done=kept#images")  # the same picture: kept once
    noise = Image.effect_noise((300, 300), 90).convert("RGB")
    out = io.BytesIO()
    noise.save(out, "PNG")
    over = upload(gm, cid, out.getvalue())
    assert over.status_code == 413 and "raise the quota" in over.text
    [digest] = re.findall(r"/campaigns/[^/]+/images/([0-9a-f]{64})", gm.get(f"/campaigns/{cid}/journal").text)
    form(gm, f"/campaigns/{cid}/journal", title="The map", body="Here", image=digest)
    form(gm, f"/campaigns/{cid}/journal/e1/show", to="chosen", readers=pat.user_id)
    url = f"/campaigns/{cid}/images/{digest}"
    served = pat.get(url)
    assert served.status_code == 200 and served.headers["content-type"] == "image/webp"
    assert served.content[:4] == b"RIFF"  # re-encoded, as a portrait is
    assert sam.get(url).status_code == 404 and m["sly"].get(url).status_code == 404
    in_use = form(gm, f"/campaigns/{cid}/journal/images/{digest}/remove")
    assert in_use.status_code == 409 and "The map" in in_use.text
    foreign = form(gm, f"/campaigns/{cid}/journal", title="Other", body="", image="f" * 64)
    assert foreign.status_code == 409 and "not one uploaded to this campaign" in foreign.text
    through_api = gm.command(cid, type="journal.write", title="Other", body="", image="f" * 64)
    assert through_api.status_code == 409 and through_api.json()["code"] == "journal/unknown_image"
    kept = gm.command(cid, type="journal.write", entry="e1", title="The map, redrawn", body="Here")  # no image named
    assert kept.status_code == 200 and pat.get(url).status_code == 200
    assert pat.get(f"/api/v1/campaigns/{cid}/journal").json()["entries"] == [
        {"id": "e1", "title": "The map, redrawn", "image": digest, "body": "Here"}
    ]
    exported = gm.get(f"/api/v1/campaigns/{cid}/export").json()
    assert [i["digest"] for i in exported["images"]] == [digest]


def test_private_notes_reach_the_characters_player_and_the_gm_alone() -> None:
    app = make_app()
    cid, m = table(app)
    gm, pat, sam = m["gm"], m["pat"], m["sam"]
    assert pat.command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET).status_code == 200
    page = pat.get(f"/campaigns/{cid}/journal").text
    assert 'action="/campaigns/' + cid + '/journal/notes/comet"' in page
    saved = form(pat, f"/campaigns/{cid}/journal/notes/comet", text="I owe the Admiral a favour")
    assert saved.status_code == 303
    assert "I owe the Admiral" in pat.get(f"/campaigns/{cid}/journal").text
    assert "I owe the Admiral" in gm.get(f"/campaigns/{cid}/journal").text
    assert "I owe the Admiral" not in everything_seen(sam, cid)
    assert "notes/comet" not in sam.get(f"/campaigns/{cid}/journal").text
    stolen = form(sam, f"/campaigns/{cid}/journal/notes/comet", text="overwritten")
    assert stolen.status_code == 403 and "not your character" in stolen.text
