"""The pages that change sheets and campaigns after creation: edit, retire, bring back and delete a character; rename,
archive, hand over and delete a campaign. A refusal changes nothing and says why (R-T-2, R-T-1)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from starlette.websockets import WebSocketDisconnect

from .test_account_security import receive_until_closed
from .test_live import receive
from .test_pages import cv_table, ltl_table


def events(member, cid):
    return member.client.get(f"/api/v1/campaigns/{cid}/events").json()


def log_text(member, cid):
    return unescape(member.client.get(f"/campaigns/{cid}/table/log").text)


def end_scene(t):
    assert t.gm.command(t.campaign_id, {"type": "structure.end_scene"}).is_success


# --- sheets ---


def test_a_player_edits_their_heros_story_between_scenes_and_it_is_logged(make_table):
    t = ltl_table(make_table)
    cid = t.campaign_id
    during = t.pat.client.get(f"/campaigns/{cid}/characters/comet/edit")
    assert during.status_code == 200
    assert "between scenes" in during.text and 'id="edit-form"' not in during.text  # R-T-2: not during a scene
    end_scene(t)
    page = t.pat.client.get(f"/campaigns/{cid}/characters/comet/edit").text
    assert 'id="edit-form"' in page and 'name="details.origin"' in page and "Captain Comet" in page
    form = {"name": "Captain Comet", "details.origin": "Struck by a falling star over the harbour", "notes": "Owes Ben"}
    for key in ("writer", "artist", "motivation", "costume"):
        found = re.search(rf'name="details\.{key}"[^>]*>([^<]*)</textarea>', page)
        assert found is not None
        form[f"details.{key}"] = unescape(found.group(1))
    saved = t.pat.post(f"/campaigns/{cid}/characters/comet/edit", form)
    assert saved.status_code == 303 and saved.headers["location"] == f"/campaigns/{cid}/characters/comet"
    assert "Struck by a falling star over the harbour" in t.sam.client.get(f"/campaigns/{cid}/characters/comet").text
    assert "Captain Comet's sheet is edited: origin: Struck by a falling star" in log_text(t.sam, cid)
    again = t.pat.client.get(f"/campaigns/{cid}/characters/comet/edit").text
    assert "Owes Ben" in again  # the notes come back into the form


def test_a_refused_edit_keeps_what_was_typed_and_changes_nothing(make_table):
    t = ltl_table(make_table)
    cid = t.campaign_id
    end_scene(t)
    before = events(t.gm, cid)
    blank = t.pat.post(f"/campaigns/{cid}/characters/comet/edit", {"name": "  ", "details.origin": "Typed origin"})
    assert blank.status_code == 422
    assert 'role="alert"' in blank.text and "Nothing was changed" in blank.text
    assert "Typed origin" in blank.text
    long = t.pat.post(f"/campaigns/{cid}/characters/comet/edit", {"name": "x" * 101})
    assert long.status_code == 422 and "100" in long.text  # R-T-5: a name is at most 100 characters
    other = t.sam.post(f"/campaigns/{cid}/characters/comet/edit", {"name": "Stolen"})
    assert other.status_code == 403 and "not your character" in other.text
    assert t.sam.client.get(f"/campaigns/{cid}/characters/comet/edit").status_code == 403
    assert t.sly.client.get(f"/campaigns/{cid}/characters/comet/edit").status_code == 403
    assert t.pat.client.get(f"/campaigns/{cid}/characters/nobody/edit").status_code == 404
    assert events(t.gm, cid) == before


def test_the_gm_edits_a_conviction_nature_during_a_scene(make_table):
    t = cv_table(make_table)
    cid = t.campaign_id
    page = t.gm.client.get(f"/campaigns/{cid}/characters/kes/edit").text
    assert 'name="details.virtue"' in page and 'name="details.vice"' in page
    form = {"name": "Kestrel", "details.virtue": "Brave", "details.vice": "Proud"}
    assert t.gm.post(f"/campaigns/{cid}/characters/kes/edit", form).status_code == 303
    assert "Virtue Brave, Vice Proud" in t.pat.client.get(f"/campaigns/{cid}/characters/kes").text
    blank = t.gm.post(f"/campaigns/{cid}/characters/kes/edit", {**form, "details.vice": ""})
    assert blank.status_code == 422 and "cannot be blank" in blank.text  # a Nature has both halves


def test_a_hero_retires_comes_back_and_is_deleted(make_table):
    t = ltl_table(make_table)
    cid = t.campaign_id
    edit = t.pat.client.get(f"/campaigns/{cid}/characters/comet/edit").text
    assert 'id="retire"' in edit and "data-confirm=" in edit  # deleting asks first
    gone = t.pat.post(f"/campaigns/{cid}/characters/comet/retire")
    assert gone.status_code == 303
    campaign = unescape(t.sam.client.get(f"/campaigns/{cid}").text)
    assert "retired" in campaign and "Bring Captain Comet back" not in campaign  # only its player and the GM
    mine = unescape(t.pat.client.get(f"/campaigns/{cid}").text)
    assert "Bring Captain Comet back" in mine and "Delete Captain Comet for good?" in mine
    offered = t.pat.client.get(f"/api/v1/campaigns/{cid}/actions").json()["actions"]
    assert [a["type"] for a in offered if "comet" in a["fixed"].values()] == ["character.return", "character.delete"]
    assert t.pat.post(f"/campaigns/{cid}/characters/comet/return").status_code == 303
    assert "Captain Comet comes back into play" in log_text(t.sam, cid)
    assert t.sam.post(f"/campaigns/{cid}/characters/comet/delete").status_code == 403  # not Sam's to delete
    assert t.pat.post(f"/campaigns/{cid}/characters/comet/delete").status_code == 303
    assert t.pat.client.get(f"/campaigns/{cid}/characters/comet").status_code == 404
    assert "Captain Comet is deleted from the table" in log_text(t.sam, cid)
    assert t.pat.post(f"/campaigns/{cid}/characters/comet/explode").status_code == 404


def test_a_fighter_in_a_running_conflict_is_neither_retired_nor_deleted(make_table):
    t = ltl_table(make_table)
    cid = t.campaign_id
    fight = {"type": "ltl.conflict.start", "fighters": [["comet", "heroes"], ["entropy", "villains"]]}
    assert t.gm.command(cid, fight).is_success
    page = unescape(t.pat.client.get(f"/campaigns/{cid}/characters/comet/edit").text)
    assert 'id="retire"' not in page and 'id="delete"' not in page
    assert "waits until it is settled" in page
    before = events(t.gm, cid)
    refused = t.pat.post(f"/campaigns/{cid}/characters/comet/retire")
    assert refused.status_code == 422 and "cannot be retired now" in unescape(refused.text)
    assert events(t.gm, cid) == before


# --- campaigns ---


def test_the_gm_renames_archives_and_brings_back_the_campaign(make_table, dice):
    t = ltl_table(make_table)
    cid = t.campaign_id
    assert t.pat.client.get(f"/campaigns/{cid}/settings").status_code == 403
    assert 'id="settings"' in t.gm.client.get(f"/campaigns/{cid}").text
    assert 'id="settings"' not in t.pat.client.get(f"/campaigns/{cid}").text
    renamed = t.gm.post(f"/campaigns/{cid}/settings", {"type": "campaign.rename", "name": "Harbour Days"})
    assert renamed.status_code == 303
    assert "Harbour Days" in t.pat.client.get("/").text
    before = events(t.gm, cid)
    assert t.gm.post(f"/campaigns/{cid}/settings", {"type": "campaign.rename", "name": " "}).status_code == 422
    assert t.pat.post(f"/campaigns/{cid}/settings", {"type": "campaign.rename", "name": "Mine"}).status_code == 403
    assert t.gm.post(f"/campaigns/{cid}/settings", {"type": "character.delete"}).status_code == 404
    assert events(t.gm, cid) == before
    archived = t.gm.post(f"/campaigns/{cid}/settings", {"type": "campaign.archive", "archived": "true"})
    assert archived.status_code == 303
    assert "archived" in t.pat.client.get("/").text
    roll = {"type": "table.roll", "expression": "1d6"}
    refused = t.pat.command(cid, roll)
    assert refused.status_code == 409 and "archived" in refused.text
    assert "Archived: read-only" in t.pat.client.get(f"/campaigns/{cid}/table").text  # the table says why it is still
    assert "bring it back" in t.gm.client.get(f"/campaigns/{cid}/table/bar").text
    settings = t.gm.client.get(f"/campaigns/{cid}/settings").text
    assert 'id="unarchive"' in settings and 'id="f-name"' not in settings
    back = t.gm.post(f"/campaigns/{cid}/settings", {"type": "campaign.archive", "archived": "false"})
    assert back.status_code == 303
    dice.faces.append(4)
    assert t.pat.command(cid, roll).status_code == 200
    assert "Archived" not in t.pat.client.get(f"/campaigns/{cid}/table").text


def test_the_gm_hands_the_role_to_a_player(make_table):
    t = ltl_table(make_table)
    cid = t.campaign_id
    settings = t.gm.client.get(f"/campaigns/{cid}/settings").text
    assert f'value="{t.pat.user_id}"' in settings and f'value="{t.sly.user_id}"' not in settings  # players only
    assert (
        t.gm.post(f"/campaigns/{cid}/settings", {"type": "campaign.hand_over", "to": t.sly.user_id}).status_code == 422
    )
    handed = t.gm.post(f"/campaigns/{cid}/settings", {"type": "campaign.hand_over", "to": t.pat.user_id})
    assert handed.status_code == 303 and handed.headers["location"] == f"/campaigns/{cid}"
    assert t.pat.client.get(f"/campaigns/{cid}/settings").status_code == 200
    assert t.gm.client.get(f"/campaigns/{cid}/settings").status_code == 403


def test_deleting_a_campaign_offers_its_export_and_needs_its_name(make_table):
    t = ltl_table(make_table)
    cid = t.campaign_id
    assert t.pat.client.get(f"/campaigns/{cid}/delete").status_code == 403
    page = t.gm.client.get(f"/campaigns/{cid}/delete").text
    link = re.search(r'id="export" href="([^"]+)"', page)
    assert link is not None
    exported = t.gm.client.get(link.group(1))
    assert exported.status_code == 200 and exported.json()["campaign"]["campaign_id"] == cid
    before = events(t.gm, cid)
    wrong = t.gm.post(f"/campaigns/{cid}/delete", {"confirm_name": "Harbour"})
    assert wrong.status_code == 422 and "nothing was deleted" in wrong.text
    assert 'value="Harbour"' in wrong.text  # what was typed stays
    assert t.pat.post(f"/campaigns/{cid}/delete", {"confirm_name": "Harbour Nights"}).status_code == 403
    assert events(t.gm, cid) == before
    deleted = t.gm.post(f"/campaigns/{cid}/delete", {"confirm_name": "Harbour Nights"})
    assert deleted.status_code == 303 and deleted.headers["location"] == "/"
    assert t.gm.client.get(f"/campaigns/{cid}").status_code == 404
    assert t.pat.client.get(f"/campaigns/{cid}/table").status_code == 404
    assert t.gm.client.get("/api/v1/campaigns").json() == []
    assert "Harbour Nights" not in t.pat.client.get("/").text


def test_removing_a_member_asks_first(make_table):
    t = ltl_table(make_table)
    page = unescape(t.gm.client.get(f"/campaigns/{t.campaign_id}").text)
    assert "Remove Pat from Harbour Nights? They need a new invitation link to come back." in page
    assert "data-confirm=" in t.pat.client.get(f"/campaigns/{t.campaign_id}").text  # leaving asks too


def test_a_deleted_campaigns_live_tables_are_closed_and_say_why(make_table):
    t = ltl_table(make_table)
    cid = t.campaign_id
    with (
        t.pat.client.websocket_connect(f"/ws/campaigns/{cid}") as pat_ws,
        t.sly.client.websocket_connect(f"/ws/campaigns/{cid}") as sly_ws,
    ):
        for ws in (pat_ws, sly_ws):
            assert receive(ws)["type"] == "hello"
        assert t.gm.post(f"/campaigns/{cid}/delete", {"confirm_name": "Harbour Nights"}).status_code == 303
        for ws in (pat_ws, sly_ws):
            with pytest.raises(WebSocketDisconnect) as closed:
                receive_until_closed(ws)
            assert closed.value.code == 4404 and closed.value.reason == "the GM deleted this campaign"
