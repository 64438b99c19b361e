"""Initiative at a Larger Than Life table: what may change the roll (R-LTL-12 amended, R-LTL-17, R-LTL-10)."""

from __future__ import annotations

import pytest

from herotable.errors import RulesError
from herotable.ltl.roll import RerollSource
from herotable.service import TableService
from herotable.table.facts import upcast
from herotable.table.legal import legal_actions
from herotable.table.ltl.commands import (
    Attack,
    InitiativeFirst,
    InitiativeReroll,
    StartConflict,
    TryAgain,
)

from .helpers import facts, hero, seen, text_seen
from .test_ltl_amended import setup_with
from .test_ltl_table import CID

FIGHT = (("comet", "heroes"), ("nova", "heroes"), ("entropy", "villains"))


def _kinds(service: TableService, user: str) -> set[str]:
    return {a.type for a in legal_actions(service.state(CID), user)}


def test_a_power_the_gm_allows_rolls_initiative_one_die_type_up(service: TableService, dice):
    # R-LTL-12 (amended): a Power the GM allows (superspeed) gives initiative +1 die type; d10 base Power rolls d12
    setup_with(service, initiative="once")
    [start] = [a for a in legal_actions(service.state(CID), "gm") if a.type == "ltl.conflict.start"]
    assert "initiative_power" in start.fields
    dice.faces = [11, 4, 9]
    started = service.execute(CID, "gm", StartConflict(FIGHT, initiative_power=("comet",)))
    rolled = {p["character"]: p for t, _, p in facts(started) if t == "ltl.initiative_rolled"}
    assert (rolled["comet"]["die"], rolled["comet"]["power"]) == (12, True)
    assert (rolled["nova"]["die"], rolled["nova"]["power"]) == (10, False)
    assert service.state(CID).game.conflict.order == (("comet",), ("entropy",), ("nova",))
    assert "Captain Comet rolls d12 (one die type up for a Power) for initiative: 11" in text_seen(service, CID, "sam")
    # a conflict recorded before the grant existed had none
    assert (
        upcast("ltl.conflict_started", 3, {"fighters": [], "stakes": "physical", "fatigue": True})["initiative_power"]
        == []
    )
    assert upcast("ltl.initiative_rolled", 2, {"character": "x", "die": 6, "faces": [3]})["power"] is False


def test_specialties_motivation_and_try_again_re_roll_initiative(service: TableService, dice):
    # R-LTL-12 (amended), R-LTL-17, R-LTL-10: Specialties' re-rolls and Karma's Try Again tokens improve initiative
    setup_with(service, initiative="once")
    dice.faces = [2, 5, 9]
    service.execute(CID, "gm", StartConflict(FIGHT))
    assert service.state(CID).game.conflict.order == (("entropy",), ("nova",), ("comet",))
    offered = [a for a in legal_actions(service.state(CID), "pat") if a.type == "ltl.initiative.reroll"]
    assert {a.fixed["source"] for a in offered} == {"specialty", "motivation"}  # no Try Again token yet
    dice.faces = [10]
    rerolled = service.execute(CID, "pat", InitiativeReroll("comet", RerollSource.SPECIALTY, "aerial combat"))
    [again] = [p for t, _, p in facts(rerolled) if t == "ltl.initiative_rerolled"]
    assert (again["specialty"], again["faces"], again["kept"]) == ("Aerial Combat", [10], True)
    assert service.state(CID).game.conflict.order == (("comet",), ("entropy",), ("nova",))
    with pytest.raises(RulesError) as err:  # one re-roll from each Specialty
        service.execute(CID, "pat", InitiativeReroll("comet", RerollSource.SPECIALTY, "Aerial Combat"))
    assert err.value.code == "reroll/specialty_used"
    service.execute(CID, "sam", TryAgain("nova"))
    dice.faces = [1]
    worse = service.execute(CID, "sam", InitiativeReroll("nova", RerollSource.TRY_AGAIN))
    assert [p["kept"] for t, _, p in facts(worse) if t == "ltl.initiative_rerolled"] == [False]
    assert hero(service, CID, "nova").try_again_tokens == 1
    head = service.store.head(CID)
    with pytest.raises(RulesError) as err:  # never both tokens on one roll
        service.execute(CID, "sam", InitiativeReroll("nova", RerollSource.TRY_AGAIN))
    assert err.value.code == "reroll/try_again_twice"
    assert service.store.head(CID) == head
    dice.faces = [10]
    service.execute(CID, "sam", InitiativeReroll("nova", RerollSource.MOTIVATION))
    assert hero(service, CID, "nova").motivation_used
    assert service.state(CID).game.conflict.order == (("comet", "nova"), ("entropy",))


def test_karma_buys_acting_first_and_initiative_closes_once_someone_acts(service: TableService, dice):
    # R-LTL-12 (amended), R-LTL-10: Automatic Success on initiative = first; after the roll it costs two levels
    setup_with(service, initiative="each_round")
    dice.faces = [10, 10, 2]
    service.execute(CID, "gm", StartConflict(FIGHT, karma_initiative=("nova",)))
    assert "ltl.initiative.first" in _kinds(service, "gm")
    bought = service.execute(CID, "gm", InitiativeFirst("entropy"))
    assert service.state(CID).game.conflict.order == (("entropy",), ("comet", "nova"))
    assert hero(service, CID, "entropy").karma.name == "d4"  # d8 less two levels
    # the hidden villain's Karma is the GM's; the new order is the table's
    assert {(t, v) for t, v, _ in facts(bought)} == {
        ("ltl.karma_burned", "gm"),
        ("ltl.initiative_first", "gm"),
        ("ltl.initiative_reordered", "public"),
    }
    assert "ltl.karma_burned" not in [t for t, _ in seen(service, CID, "pat")]
    service.execute(CID, "sam", TryAgain("nova"))
    with pytest.raises(RulesError) as err:  # Nova rolled Karma for initiative: no Karma re-roll of it
        service.execute(CID, "sam", InitiativeReroll("nova", RerollSource.TRY_AGAIN))
    assert err.value.code == "reroll/karma_on_karma"
    dice.faces = [7, 6]
    service.execute(CID, "gm", Attack("entropy", "comet"))
    assert not _kinds(service, "pat") & {"ltl.initiative.reroll", "ltl.initiative.first"}
    head = service.store.head(CID)
    with pytest.raises(RulesError) as err:
        service.execute(CID, "pat", InitiativeFirst("comet"))
    assert err.value.code == "initiative/closed"
    assert service.store.head(CID) == head
