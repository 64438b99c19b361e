"""Requests to the GM: asked by a player, seen by them and the GM, answered by the GM only (R-T-2, R-T-3)."""

from __future__ import annotations

import pytest

from herotable.ltl.samples import CAPTAIN_COMET
from herotable.service import replay_events
from herotable.table.ltl.commands import CreateLtlCharacter
from herotable.table.requests import AnswerGm, AskGm, RequestKind
from herotable.table.state import Forbidden, Role, Ruleset, TableError
from herotable.table.structure import Join
from herotable.table.undo import Undo

from .helpers import facts, seen_types

CID = "harbour"


@pytest.fixture
def table(service):
    service.create_campaign("gm", "Gwen", "Harbour Nights", Ruleset.LTL, campaign_id=CID)
    service.execute(CID, "pat", Join("Pat"))
    service.execute(CID, "sam", Join("Sam"))
    service.execute(CID, "sly", Join("Sly", Role.SPECTATOR))
    service.execute(CID, "pat", CreateLtlCharacter("comet", CAPTAIN_COMET))
    return service


def test_a_request_reaches_the_asker_and_the_gm_only(table):
    # R-T-2: a Deus Ex Machina cost is the GM's call; the question is between the player and the GM
    asked = table.execute(CID, "pat", AskGm(RequestKind.DEUS_EX_MACHINA, "the bridge holds", "comet"))
    rid = asked.events[0].command_id
    assert [r["id"] for r in table.view(CID, "pat")["requests"]] == [rid]
    assert [r["id"] for r in table.view(CID, "gm")["requests"]] == [rid]
    assert table.view(CID, "sam")["requests"] == []
    assert "request.opened" not in seen_types(table, CID, "sam")
    assert "request.opened" in seen_types(table, CID, "pat")


def test_only_the_gm_answers_and_the_answer_closes_the_request(table):
    rid = table.execute(CID, "pat", AskGm(RequestKind.DIFFICULTY, "jump the gap")).events[0].command_id
    with pytest.raises(Forbidden):
        table.execute(CID, "pat", AnswerGm(rid, "Easy"))
    answered = table.execute(CID, "gm", AnswerGm(rid, "Hard", granted=True))
    assert answered.events[0].visibility == "owner" and answered.events[0].owner == "pat"
    [(_, _, data)] = facts(answered)
    assert data["answer"] == "Hard" and data["asked"] == "jump the gap" and data["granted"] is True
    assert table.view(CID, "gm")["requests"] == []
    with pytest.raises(TableError):
        table.execute(CID, "gm", AnswerGm(rid, "again"))


def test_spectators_and_strangers_characters_cannot_ask(table):
    with pytest.raises(Forbidden):
        table.execute(CID, "sly", AskGm(RequestKind.OTHER, "may I?"))
    with pytest.raises(Forbidden):
        table.execute(CID, "sam", AskGm(RequestKind.LAST_CHANCE, "", "comet"))
    with pytest.raises(TableError):
        table.execute(CID, "pat", AskGm(RequestKind.OTHER, "  "))


def test_requests_replay_and_undo(table):
    table.execute(CID, "pat", AskGm(RequestKind.MUST_SUCCEED, "defuse it", "comet"))
    state = table.state(CID)
    assert replay_events(table.store.load(CID)) == state
    table.execute(CID, "pat", Undo())
    assert table.state(CID).requests == ()
