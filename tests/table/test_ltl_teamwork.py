"""Teamwork at the table (R-LTL-14 amended): the GM calls a team task naming its members (R-T-3); the team's highest
member's controller rolls it with the team's die; only that member goes for broke and takes a lost exchange; in a
conflict every member spends the round's action; a hidden member's die never reaches the players."""

from __future__ import annotations

import pytest

from herotable.dice import Rating
from herotable.errors import RulesError
from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.service import TableService, replay_events
from herotable.table.ltl.commands import (
    CreateLtlCharacter,
    DifficultyName,
    EndRound,
    Override,
    PassTurn,
    SetDefence,
    SetSituational,
    Settle,
    StartConflict,
)
from herotable.table.ltl.teamwork import CallTeamAttack, CallTeamChallenge, CancelTeam, RollTeam
from herotable.table.state import Forbidden, Role, Ruleset, TableError
from herotable.table.structure import EndScene, Join, StartAdventure, StartScene, StartSession
from herotable.table.undo import Undo

from .helpers import accept_others, hero, seen, text_seen

CID = "harbour"
HARD = DifficultyName.HARD


@pytest.fixture
def table(service: TableService) -> TableService:
    service.create_campaign("gm", "Gwen", "Harbour Nights", Ruleset.LTL, campaign_id=CID)
    service.execute(CID, "pat", Join("Pat"))
    service.execute(CID, "sam", Join("Sam"))
    service.execute(CID, "sly", Join("Sly", Role.SPECTATOR))
    service.execute(CID, "pat", CreateLtlCharacter("comet", CAPTAIN_COMET))  # base d10, Styles d12 and d20
    service.execute(CID, "sam", CreateLtlCharacter("nova", {**CAPTAIN_COMET, "name": "Nova", "base": "d8"}))
    service.execute(CID, "gm", CreateLtlCharacter("entropy", DOCTOR_ENTROPY, npc=True, hidden=True))  # base d10
    weak = {**DOCTOR_ENTROPY, "name": "Grunt", "base": "d4", "styles": {}}
    service.execute(CID, "gm", CreateLtlCharacter("grunt", weak, npc=True))
    for cmd in (StartAdventure(), StartSession(), StartScene()):
        service.execute(CID, "gm", cmd)
    return service


def _actions(service: TableService, user: str) -> list[dict[str, object]]:
    return [{"type": a.type, "label": a.label} for a in service.legal_actions(CID, user)]


def _of(service: TableService, user: str, kind: str) -> list[dict[str, object]]:
    return [data for k, data in seen(service, CID, user) if k == kind]


def test_the_gm_calls_a_team_challenge_and_its_highest_member_rolls_the_team_die(table, dice):
    # R-LTL-14, R-T-3: the GM calls it and sets the difficulty; a player cannot
    with pytest.raises(Forbidden):
        table.execute(CID, "pat", CallTeamChallenge(("comet", "nova"), HARD))
    table.execute(CID, "gm", CallTeamChallenge(("nova", "comet"), HARD, label="lift the girder"))
    assert table.view(CID, "sly")["game"]["team"]["members"] == ["nova", "comet"]
    # R-LTL-14 amended: Comet's base Power d10 is the highest (a d20 Style does not count): Comet rolls, not Nova
    with pytest.raises(TableError, match="Captain Comet, its highest member, does"):
        table.execute(CID, "sam", RollTeam("nova"))
    with pytest.raises(Forbidden):
        table.execute(CID, "sam", RollTeam("comet"))
    dice.faces += [9, 6]  # two members: d10 +1 level rolls d12; the GM's Hard d10
    table.execute(CID, "pat", RollTeam("comet"))
    rolled = _of(table, "pat", "dice.rolled")
    assert rolled[-2]["roller"] == "comet" and rolled[-2]["die"] == 12 and rolled[-2]["faces"] == [9]
    assert table.view(CID, "pat")["game"]["team"] is None
    table.execute(CID, "pat", Settle())
    assert _of(table, "sly", "ltl.task_settled")[-1]["winner"] == "comet"
    log = text_seen(table, CID, "sly")
    assert "The GM calls a team challenge (lift the girder) against d10: Nova and Captain Comet act together" in log
    assert "Captain Comet rolls for the team of Nova and Captain Comet" in log
    # issue 28: the settled line names the team's task, not only the member who rolled for it
    assert "lift the girder (Nova and Captain Comet as a team): Captain Comet succeeds" in log
    assert replay_events(table.store.load(CID)) == table.state(CID)


def test_members_out_of_range_cannot_team_and_the_gm_is_told_who(table):
    # R-LTL-14 amended: within one die type of current base Power; d4 and d10 are three apart
    with pytest.raises(RulesError, match="out of range") as err:
        table.execute(CID, "gm", CallTeamChallenge(("comet", "grunt"), HARD))
    assert err.value.code == "teamwork/out_of_range"
    with pytest.raises(TableError, match="Impossible"):
        table.execute(CID, "gm", CallTeamChallenge(("comet", "nova"), DifficultyName.IMPOSSIBLE))
    with pytest.raises(RulesError, match="at least two"):
        table.execute(CID, "gm", CallTeamChallenge(("comet",), HARD))
    assert table.state(CID).game.team is None


def test_a_hidden_member_s_die_never_reaches_the_players(table, dice):
    # R-LTL-14, R-T-2: Entropy (hidden, base d10) is named first among the highest, so the GM rolls for the team
    table.execute(CID, "gm", CallTeamChallenge(("entropy", "comet", "nova"), HARD))
    for player in ("pat", "sam"):
        assert all(a["type"] != RollTeam.type for a in _actions(table, player))
    dice.faces += [11, 2]
    table.execute(CID, "gm", RollTeam("entropy"))
    table.execute(CID, "gm", Settle())
    for player in ("pat", "sam", "sly"):
        assert not _of(table, player, "dice.rolled")
        assert [d["roller"] for d in _of(table, player, "dice.revealed")] == [None]  # the difficulty's die only
        assert "(Decay)" not in text_seen(table, CID, player)
    assert _of(table, "pat", "ltl.task_settled")[-1]["winner"] == "entropy"
    assert _of(table, "gm", "dice.rolled")[-2]["die"] == 12


def test_a_player_is_not_told_a_hidden_member_s_die_when_the_team_breaks(table, dice):
    # R-T-2: a refusal never names a hidden member's rating
    table.execute(CID, "gm", CallTeamChallenge(("comet", "entropy"), HARD))
    table.execute(CID, "gm", Override("entropy", "drained", lose=2))  # Entropy d10 -> d6: out of range
    with pytest.raises(TableError) as err:
        table.execute(CID, "pat", RollTeam("comet"))
    assert err.value.code == "ltl/team_cannot_form"
    assert "d6" not in str(err.value) and "d6" not in (err.value.fix or "")
    assert all(a["type"] != RollTeam.type for a in _actions(table, "pat"))
    table.execute(CID, "gm", CancelTeam())


def test_a_team_call_keeps_the_scene_open_until_rolled_or_called_off(table):
    table.execute(CID, "gm", CallTeamChallenge(("comet", "nova"), HARD))
    with pytest.raises(TableError, match="team"):
        table.execute(CID, "gm", EndScene())
    with pytest.raises(TableError, match="already called"):
        table.execute(CID, "gm", CallTeamChallenge(("comet", "nova"), HARD))
    table.execute(CID, "gm", CancelTeam())
    assert table.state(CID).game.team is None
    table.execute(CID, "gm", EndScene())
    assert "The GM calls the team task off" in text_seen(table, CID, "sly")


def _fight(table: TableService) -> None:
    fighters = (("comet", "heroes"), ("nova", "heroes"), ("grunt", "villains"), ("entropy", "villains"))
    table.execute(CID, "gm", StartConflict(fighters))


def test_a_team_attack_rolls_the_team_die_and_its_roller_pays_broke_and_deals_the_levels(table, dice):
    # R-LTL-14 amended, R-LTL-7, R-LTL-12: Comet pays one level, rolls d8 +1 level = d10 against Grunt's d4
    _fight(table)
    with pytest.raises(Forbidden):
        table.execute(CID, "pat", CallTeamAttack(("comet", "nova"), "grunt"))
    with pytest.raises(RulesError, match="not an opponent"):
        table.execute(CID, "gm", CallTeamAttack(("comet", "nova"), "comet"))
    table.execute(CID, "gm", CallTeamAttack(("comet", "nova"), "grunt"))
    with pytest.raises(RulesError, match="effect"):
        table.execute(CID, "pat", RollTeam("comet", broke=3))
    dice.faces += [8, 2]
    table.execute(CID, "pat", RollTeam("comet", broke=1))
    game = table.state(CID).game
    assert game.conflict.open.actor == "comet" and game.conflict.open.task.actor.rating == Rating.of("d10")
    assert hero(table, CID, "comet").base_now() == Rating.of("d8")  # Comet alone paid
    assert hero(table, CID, "nova").base_now() == Rating.of("d8")
    assert game.conflict.fighter("nova").acted  # Nova's action is spent on the team
    accept_others(table, CID, "pat")
    table.execute(CID, "pat", Settle())
    assert table.state(CID).game.conflict.pending[-1].target == "grunt"
    assert table.state(CID).game.conflict.pending[-1].levels == 2
    log = text_seen(table, CID, "sly")
    assert "The GM calls a team attack: Captain Comet and Nova attack Grunt together" in log


def test_a_team_that_loses_an_exchange_loses_it_through_its_rolling_member(table, dice):
    # R-LTL-14 amended: when a team loses an exchange, the member whose die was rolled takes the loss
    _fight(table)
    table.execute(CID, "gm", CallTeamAttack(("nova", "comet"), "entropy"))
    dice.faces += [2, 9]  # Comet d12 (d10 +1) 2; Entropy's standing defence, base Power d10, 9 (R-T-3)
    table.execute(CID, "pat", RollTeam("comet"))
    with pytest.raises(TableError):
        table.execute(CID, "pat", Undo())  # R-T-4: the roll is a commit point
    accept_others(table, CID, "pat")
    table.execute(CID, "pat", Settle())
    table.execute(CID, "gm", EndRound())
    assert hero(table, CID, "comet").base_now() == Rating.of("d8")
    assert hero(table, CID, "nova").base_now() == Rating.of("d8")
    for player in ("pat", "sam", "sly"):
        assert "(Decay)" not in text_seen(table, CID, player)


def test_every_member_must_be_free_to_act(table, dice):
    # R-LTL-12, R-LTL-14: a member that has acted this round cannot join a team
    _fight(table)
    table.execute(CID, "sam", PassTurn("nova"))
    with pytest.raises(RulesError, match="already acted"):
        table.execute(CID, "gm", CallTeamAttack(("comet", "nova"), "grunt"))
    assert not [a for a in _actions(table, "gm") if a["type"] == CallTeamAttack.type and "heroes" in a["label"]]


def test_a_team_attack_meets_the_target_s_standing_defence_not_its_best_style(table, dice):
    # R-T-3: an exchange uses the defender's standing defence at once (default base Power), a team attack included
    _fight(table)
    table.execute(CID, "gm", CallTeamAttack(("nova", "comet"), "entropy"))
    dice.faces += [2, 9]
    table.execute(CID, "pat", RollTeam("comet"))
    task = table.state(CID).game.conflict.open.task
    assert task.opposition.who == "entropy" and task.opposition.rating == Rating.of("d10")  # base Power, not d12


def test_a_team_attack_meets_the_defence_style_the_gm_set(table, dice):
    # R-T-3: the GM sets an NPC's standing defence; a team attack meets it as a single attack does
    _fight(table)
    table.execute(CID, "gm", SetDefence("entropy", "Gadgets"))
    table.execute(CID, "gm", CallTeamAttack(("nova", "comet"), "entropy"))
    dice.faces += [2, 9]
    table.execute(CID, "pat", RollTeam("comet"))
    task = table.state(CID).game.conflict.open.task
    assert task.opposition.who == "entropy" and task.opposition.rating == Rating.of("d12")  # Gadgets on base d10


def test_a_team_attack_meets_the_defender_s_standing_situational_modifier(table, dice):
    # R-T-2 (amended 2026-12-02): each side of an exchange; Entropy's base d10 at -1 die type defends as a d8
    _fight(table)
    table.execute(CID, "gm", SetSituational("entropy", -1, "caught in the smoke"))
    table.execute(CID, "gm", CallTeamAttack(("nova", "comet"), "entropy"))
    dice.faces += [2, 7]
    table.execute(CID, "pat", RollTeam("comet"))
    task = table.state(CID).game.conflict.open.task
    assert task.opposition.who == "entropy" and task.opposition.rating == Rating.of("d8")
    assert replay_events(table.store.load(CID)) == table.state(CID)
