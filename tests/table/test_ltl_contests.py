"""Quick contests and races at the table (R-LTL-13): the GM calls one (R-T-3), each participant's controller
declares a Style, the dice roll together once all have declared, ties are re-rolled among the tied."""

from __future__ import annotations

import pytest

from herotable.errors import RulesError
from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.service import TableService, replay_events
from herotable.table.game import TextDomain
from herotable.table.ltl.commands import CreateLtlCharacter, RecordDefeat
from herotable.table.ltl.contests import CallContest, CancelContest, EnterContest
from herotable.table.state import Forbidden, Role, Ruleset, TableError
from herotable.table.structure import EndScene, Join, StartAdventure, StartScene, StartSession
from herotable.table.undo import Undo

from .helpers import seen, seen_types, text_seen

CID = "harbour"


@pytest.fixture
def table(service: TableService) -> TableService:
    service.create_campaign("gm", "Gwen", "Harbour Nights", Ruleset.LTL, campaign_id=CID)
    service.execute(CID, "pat", Join("Pat"))
    service.execute(CID, "sam", Join("Sam"))
    service.execute(CID, "sly", Join("Sly", Role.SPECTATOR))
    service.execute(CID, "pat", CreateLtlCharacter("comet", CAPTAIN_COMET))  # base d10, Fisticuffs d12
    service.execute(CID, "sam", CreateLtlCharacter("nova", {**CAPTAIN_COMET, "name": "Nova", "base": "d8"}))
    service.execute(CID, "gm", CreateLtlCharacter("entropy", DOCTOR_ENTROPY, npc=True, hidden=True))
    for cmd in (StartAdventure(), StartSession(), StartScene()):
        service.execute(CID, "gm", cmd)
    return service


def _decided(service: TableService, user: str) -> dict[str, object]:
    return [data for kind, data in seen(service, CID, user) if kind == "ltl.contest_decided"][-1]


def test_a_quick_contest_is_called_by_the_gm_declared_by_each_and_rolled_once_all_have(table, dice):
    # R-T-3: only the GM calls for the rolls
    with pytest.raises(Forbidden):
        table.execute(CID, "pat", CallContest(("comet", "nova")))
    table.execute(CID, "gm", CallContest(("comet", "nova"), label="to the control switch"))
    assert table.view(CID, "pat")["game"]["contest"]["waiting"] == ["comet", "nova"]
    # R-T-3: each declares their own character's Style; nobody else's
    with pytest.raises(Forbidden):
        table.execute(CID, "pat", EnterContest("nova"))
    table.execute(CID, "pat", EnterContest("comet", "Fisticuffs"))
    with pytest.raises(TableError, match="already declared"):
        table.execute(CID, "pat", EnterContest("comet"))
    dice.faces += [7, 7, 3, 5]  # Comet d12 7, Nova d8 7: a tie for first, re-rolled among the tied (R-LTL-13)
    table.execute(CID, "sam", EnterContest("nova"))
    assert _decided(table, "sly") == {
        "contest": _decided(table, "gm")["contest"],
        "race": False,
        "places": [["nova"], ["comet"]],
    }
    rolled = [d for k, d in seen(table, CID, "sly") if k == "ltl.contest_rolled"][-1]
    assert rolled["rounds"] == [[["comet", 12, [7]], ["nova", 8, [7]]], [["comet", 12, [3]], ["nova", 8, [5]]]]
    assert table.state(CID).game.contest is None
    log = text_seen(table, CID, "sly")
    assert "Nova wins; Captain Comet suffers defeat's consequences" in log and "tie re-rolled" in log


def test_a_race_places_everyone_and_a_hidden_runner_s_die_stays_the_gm_s(table, dice):
    table.execute(CID, "gm", CallContest(("comet", "nova", "entropy"), kind="race"))
    table.execute(CID, "gm", EnterContest("entropy", "Decay"))  # the GM declares for the hidden villain
    table.execute(CID, "pat", EnterContest("comet"))
    pat_view = table.view(CID, "pat")["game"]["contest"]
    assert pat_view["waiting"] == ["nova"]
    assert {"character": "entropy"} in pat_view["declared"]  # declared, but not with which die
    dice.faces += [8, 5, 2]  # in the order declared: Entropy 8, Comet d10 5, Nova d8 2
    table.execute(CID, "sam", EnterContest("nova"))
    assert _decided(table, "pat")["places"] == [["entropy"], ["comet"], ["nova"]]
    assert "ltl.contest_rolled" in seen_types(table, CID, "gm")
    for player in ("pat", "sam", "sly"):
        assert "ltl.contest_rolled" not in seen_types(table, CID, player)
        assert "Decay" not in text_seen(table, CID, player)


def test_a_contest_blocks_the_scene_until_it_ends_or_is_called_off_and_replays(table, dice):
    table.execute(CID, "gm", CallContest(("comet", "nova")))
    with pytest.raises(TableError, match="contest"):
        table.execute(CID, "gm", EndScene())
    with pytest.raises(TableError, match="already open"):
        table.execute(CID, "gm", CallContest(("comet", "nova")))
    table.execute(CID, "pat", EnterContest("comet"))
    table.execute(CID, "pat", Undo())  # a declaration before any die is rolled can be taken back (R-T-4)
    assert table.state(CID).game.contest.waiting == ("comet", "nova")
    table.execute(CID, "gm", CancelContest())
    table.execute(CID, "gm", EndScene())
    state = table.state(CID)
    assert replay_events(table.store.load(CID)) == state


def test_a_roll_in_a_contest_cannot_be_undone_by_a_player(table, dice):
    # R-T-4: rolls are commit points
    table.execute(CID, "gm", CallContest(("comet", "nova")))
    table.execute(CID, "pat", EnterContest("comet"))
    dice.faces += [9, 1]
    table.execute(CID, "sam", EnterContest("nova"))
    with pytest.raises(TableError):
        table.execute(CID, "sam", Undo())
    assert _decided(table, "gm")["places"] == [["comet"], ["nova"]]


def test_only_able_characters_take_part(table):
    with pytest.raises(TableError, match="at least two"):
        table.execute(CID, "gm", CallContest(("comet",)))
    with pytest.raises(TableError, match="comet"):
        table.execute(CID, "gm", CallContest(("comet", "comet")))
    with pytest.raises(TableError):
        table.execute(CID, "gm", CallContest(("comet", "nobody")))
    with pytest.raises(TableError, match="neither"):
        table.execute(CID, "gm", CallContest(("comet", "nova"), kind="duel"))


def test_the_gm_records_what_losing_a_quick_contest_costs_the_losers(table, dice):
    # R-LTL-13: everyone but the winner suffers defeat's consequences, which the GM records (R-LTL-5)
    table.execute(CID, "gm", CallContest(("comet", "nova")))
    table.execute(CID, "pat", EnterContest("comet"))
    dice.faces += [9, 2]  # Comet d10 9, Nova d8 2: Nova loses
    table.execute(CID, "sam", EnterContest("nova"))
    offered = [a for a in table.legal_actions(CID, "gm") if a.type == "ltl.defeat" and a.fixed["character"] == "nova"]
    assert offered and isinstance(offered[0].fields["consequence"], TextDomain)  # any consequence, not only giving up
    table.execute(CID, "gm", RecordDefeat("nova", "captured"))
    assert table.state(CID).game.hero("nova").defeat == "captured"
    assert "captured" in text_seen(table, CID, "sly")
    # the winner lost nothing: a defeat for Comet is still refused, save giving up
    with pytest.raises(RulesError, match="not defeated"):
        table.execute(CID, "gm", RecordDefeat("comet", "captured"))
    assert replay_events(table.store.load(CID)) == table.state(CID)
