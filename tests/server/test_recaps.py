"""Session recaps on the web and in the API (R-T-1, R-T-2, R-T-4): each member's recap as a page, a Markdown file, a
printable HTML file and JSON; a GM secret roll and a hidden NPC's numbers reach none of a player's; the GM's paragraph
is written through its form and kept safe; bad input is refused with what to do, and changes nothing."""

from __future__ import annotations

import html

import pytest
from markupsafe import escape

from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY

NOTE = "<script>alert('boo')</script> The heroes *won* & went home"


@pytest.fixture
def played(make_table, dice):
    """An LTL table's first session: Pat's Karma, the hidden villain's Karma and a GM secret roll, a scene ended,
    the GM's paragraph; its second session begun."""
    t = make_table("ltl")
    cid = t.campaign_id
    assert t.pat.command(cid, {"type": "character.create_ltl", "character": "comet", "sheet": CAPTAIN_COMET}).is_success
    villain = {"type": "character.create_ltl", "character": "entropy", "sheet": DOCTOR_ENTROPY, "npc": True}
    assert t.gm.command(cid, {**villain, "hidden": True}).is_success
    assert t.gm.command(cid, {"type": "structure.begin"}).is_success
    assert t.pat.command(cid, {"type": "ltl.karma.try_again", "character": "comet"}).is_success
    assert t.gm.command(cid, {"type": "ltl.karma.try_again", "character": "entropy"}).is_success
    dice.faces = [3, 5]
    secret = {"type": "ltl.challenge", "character": "entropy", "difficulty": "Average", "secret": True}
    opened = t.gm.command(cid, secret)
    assert opened.is_success, opened.text
    task = opened.json()["command_id"]
    assert t.gm.command(cid, {"type": "ltl.settle", "task": task}).is_success
    assert t.gm.command(cid, {"type": "structure.end_scene"}).is_success
    assert t.gm.command(cid, {"type": "campaign.recap", "session": 1, "text": NOTE}).is_success
    assert t.gm.command(cid, {"type": "structure.end_session"}).is_success
    assert t.gm.command(cid, {"type": "structure.start_session"}).is_success
    t.secret = task  # type: ignore[attr-defined]
    return t


def surfaces(member, cid: str, number: int = 1) -> dict[str, str]:
    """A session's recap as the member gets it: page, Markdown file, printable HTML file, API."""
    base = f"/campaigns/{cid}/recaps/{number}"
    got = {
        "page": member.client.get(base),
        "md": member.client.get(f"{base}/recap.md"),
        "html": member.client.get(f"{base}/recap.html"),
        "api": member.client.get(f"/api/v1/campaigns/{cid}/recaps/{number}"),
    }
    for name, answer in got.items():
        assert answer.status_code == 200, (name, answer.text)
    return {name: answer.text for name, answer in got.items()}


def test_every_member_reads_the_recap_on_every_surface_and_a_player_no_secret(played):
    cid = played.campaign_id
    gm = surfaces(played.gm, cid)
    for text in gm.values():
        assert "Doctor Entropy burned 1 level of Karma" in text and "Doctor Entropy fails" in text
        assert "Captain Comet burned 1 level of Karma (try again)" in text
    for member in (played.pat, played.sly):
        for name, text in surfaces(member, cid).items():
            assert "Captain Comet burned 1 level of Karma (try again)" in text, name
            assert "Doctor Entropy burned" not in text and "Doctor Entropy fails" not in text, name
            assert "Rolls" not in text and played.secret not in text, name
            assert "Decay" not in text, name  # the hidden sheet's Power


def test_the_files_are_markdown_and_a_standalone_printable_page(played):
    cid = played.campaign_id
    md = played.pat.client.get(f"/campaigns/{cid}/recaps/1/recap.md")
    assert md.headers["content-type"] == "text/markdown; charset=utf-8"
    assert md.headers["content-disposition"] == 'attachment; filename="harbour-nights-session-1.md"'
    assert md.text.startswith("# Harbour Nights: Game session 1\n")
    printable = played.pat.client.get(f"/campaigns/{cid}/recaps/1/recap.html")
    assert printable.headers["content-type"] == "text/html; charset=utf-8"
    assert printable.headers["content-disposition"] == 'attachment; filename="harbour-nights-session-1.html"'
    page = printable.text
    assert page.startswith("<!doctype html>") and "@media print" in page
    assert "<script" not in page.replace(html.escape("<script>"), "") and "src=" not in page and "href=" not in page


def test_the_gms_paragraph_is_shown_as_text_everywhere(played):
    cid = played.campaign_id
    shown = surfaces(played.sam, cid)
    escaped = str(escape(NOTE))  # as Jinja escapes it
    for name in ("page", "html"):
        assert escaped in shown[name] and "<script>alert" not in shown[name], name
    assert r"\<script\>alert('boo')\</script\> The heroes \*won\* \& went home" in shown["md"]
    assert played.sam.client.get(f"/api/v1/campaigns/{cid}/recaps/1").json()["note"]["text"] == NOTE
    listed = played.sam.client.get(f"/api/v1/campaigns/{cid}/recaps").json()
    assert [(s["session"], s["noted"]) for s in listed] == [(0, False), (1, True), (2, False)]
    assert listed[1]["ended_at"] is not None and listed[2]["ended_at"] is None


def test_the_gm_writes_the_paragraph_again_through_the_page(played):
    cid = played.campaign_id
    page = played.gm.client.get(f"/campaigns/{cid}/recaps/1").text
    assert 'id="f-note"' in page and 'maxlength="2000"' in page
    assert 'id="f-note"' not in played.pat.client.get(f"/campaigns/{cid}/recaps/1").text
    saved = played.gm.post(f"/campaigns/{cid}/recaps/1", {"text": "A quiet night at the harbour"})
    assert saved.status_code == 303 and saved.headers["location"].endswith("/recaps/1?done=saved#note")
    again = played.pat.client.get(f"/campaigns/{cid}/recaps/1").text
    assert "A quiet night at the harbour" in again and "alert(" not in again
    log = played.pat.client.get(f"/api/v1/campaigns/{cid}/events").json()["events"]
    assert log[-1]["text"] == "The GM writes the recap of game session 1: A quiet night at the harbour"


def test_bad_input_is_refused_with_what_to_do_and_changes_nothing(played, app):
    cid = played.campaign_id
    store = app.state.services.table.store
    head = store.head(cid)
    too_long = played.gm.post(f"/campaigns/{cid}/recaps/1", {"text": "x" * 2001})
    assert too_long.status_code == 422
    assert "Your paragraph is 2001 characters long" in too_long.text and "x" * 2001 in too_long.text
    by_player = played.pat.post(f"/campaigns/{cid}/recaps/1", {"text": "mine now"})
    assert by_player.status_code == 403 and "Only the GM" in by_player.text
    assert played.gm.post(f"/campaigns/{cid}/recaps/9", {"text": "later"}).status_code == 404
    api = played.gm.command(cid, {"type": "campaign.recap", "session": 9, "text": "later"})
    assert api.status_code == 409 and api.json()["code"] == "recap/no_session" and "from 0" in api.json()["fix"]
    assert store.head(cid) == head
    missing = played.pat.client.get(f"/campaigns/{cid}/recaps/9")
    assert missing.status_code == 404 and "There is no game session &#39;9&#39;" in missing.text
    assert played.pat.client.get(f"/campaigns/{cid}/recaps/nine/recap.md").status_code == 404
    assert played.pat.client.get(f"/campaigns/{cid}/recaps/²").status_code == 404  # a digit, but no number
    problem = played.pat.client.get(f"/api/v1/campaigns/{cid}/recaps/9")
    assert problem.status_code == 404 and problem.headers["content-type"] == "application/problem+json"
    assert problem.json()["code"] == "recap/no_session" and problem.json()["fix"] == "ask for one of sessions 0 to 2"
    assert played.pat.client.get(f"/api/v1/campaigns/{cid}/recaps/-1").json()["code"] == "validation"


def test_only_members_read_recaps(played, login):
    cid = played.campaign_id
    stranger = login("stella")
    assert stranger.client.get(f"/campaigns/{cid}/recaps/1").status_code == 403
    assert stranger.client.get(f"/campaigns/{cid}/recaps/1/recap.md").status_code == 403
    assert stranger.client.get(f"/api/v1/campaigns/{cid}/recaps/1").status_code == 403
    assert played.gm.client.get("/campaigns/nowhere/recaps").status_code == 404


def test_sessions_are_listed_and_linked_from_the_campaign_and_the_table(played):
    cid = played.campaign_id
    listed = played.sly.client.get(f"/campaigns/{cid}/recaps").text
    for number in (0, 1, 2):
        assert f'href="/campaigns/{cid}/recaps/{number}"' in listed
    assert "the GM's words" in listed and "still going" in listed
    assert f'href="/campaigns/{cid}/recaps"' in played.sly.client.get(f"/campaigns/{cid}").text
    assert f'href="/campaigns/{cid}/recaps"' in played.sly.client.get(f"/campaigns/{cid}/table").text


def test_a_conviction_recap_comes_through_the_same_pages(make_table):
    # the game's part through the Game interface: nothing in the server names a game
    t = make_table("conviction")
    cid = t.campaign_id
    assert t.gm.command(cid, {"type": "structure.begin"}).is_success
    assert t.gm.command(cid, {"type": "structure.mark_dramatic"}).is_success
    page = t.pat.client.get(f"/campaigns/{cid}/recaps/1").text
    assert "Conviction" in page and "Scene 1, dramatic, still going" in page


def test_a_paragraph_of_2000_characters_typed_in_lines_is_saved_and_a_huge_number_is_no_session(played):
    cid = played.campaign_id
    typed = "\r\n".join(["y" * 99] * 20)[: 2000 + 19]  # 20 lines as a form sends them: CR LF between
    text = typed.replace("\r\n", "\n")
    assert len(text) <= 2000 < len(typed)
    saved = played.gm.post(f"/campaigns/{cid}/recaps/1", {"text": typed})
    assert saved.status_code in (200, 303), saved.text
    assert played.pat.client.get(f"/api/v1/campaigns/{cid}/recaps/1").json()["note"]["text"] == text
    huge = "9" * 5000
    for path in (f"/campaigns/{cid}/recaps/{huge}", f"/campaigns/{cid}/recaps/{huge}/recap.md"):
        assert played.gm.client.get(path).status_code == 404
