"""Larger Than Life at the table under the rulings amended on 2026-12-01."""

from __future__ import annotations

import pytest

from herotable.errors import RulesError
from herotable.ltl.samples import CAPTAIN_COMET
from herotable.service import TableService
from herotable.table.legal import legal_actions
from herotable.table.ltl.commands import (
    BuySuccess,
    CreateLtlCharacter,
    DifficultyName,
    Heal,
    KarmaPurpose,
    KarmaRoll,
    Override,
    Settle,
)
from herotable.table.state import Forbidden

from .helpers import facts, hero
from .test_ltl_table import CID, setup


def test_a_power_stunt_cannot_be_bought_with_burned_karma(service: TableService, dice):
    # R-LTL-10: roll Karma (but not burn it) for a Power Stunt; a bought stunt would cost 1 Hero Point, not 3
    setup(service)
    dice.faces = [2, 9]
    opened = service.execute(
        CID, "pat", KarmaRoll("comet", DifficultyName.HARD, KarmaPurpose.STUNT, "Star Fists", "Meteor Punch")
    )
    roll = opened.events[0].command_id
    assert not [a for a in legal_actions(service.state(CID), "pat") if a.type == "ltl.buy_success"]
    head = service.store.head(CID)
    with pytest.raises(RulesError) as err:
        service.execute(CID, "pat", BuySuccess("comet", roll))
    assert err.value.code == "karma/stunt_no_burn"
    assert service.store.head(CID) == head
    service.execute(CID, "pat", Settle(roll))
    assert hero(service, CID, "comet").stunts_pulled_off == ()


DOC = {
    **CAPTAIN_COMET,
    "name": "Doc Mender",
    "superpowers": [{"name": "Mending", "healing": True}, {"name": "Flight", "stunts": []}],
    "styles": {"Mending": "d12", "Flight": "d20"},
}


def _wound_nova(service: TableService) -> None:
    service.execute(CID, "gm", Override("nova", "a bad fall", lose=2))


def test_only_a_healing_superpower_heals_at_the_table(service: TableService, dice):
    # R-LTL-15 (amended): Captain Comet has no healing Power; Doc Mender rolls Mending's d12, not base Power
    setup(service)
    service.execute(CID, "sam", CreateLtlCharacter("doc", DOC))
    _wound_nova(service)
    assert not [a for a in legal_actions(service.state(CID), "pat") if a.type == "ltl.heal"]
    head = service.store.head(CID)
    with pytest.raises(RulesError) as err:
        service.execute(CID, "pat", Heal("comet", "nova"))
    assert err.value.code == "healing/no_power"
    assert service.store.head(CID) == head
    [offered] = [a for a in legal_actions(service.state(CID), "sam") if a.type == "ltl.heal"]
    assert "lowered" not in offered.fields  # the GM's choice
    dice.faces = [11, 2]
    healed = service.execute(CID, "sam", Heal("doc", "nova", power="Mending"))
    rolled = next(p for t, _, p in facts(healed) if t == "ltl.healing_rolled")
    assert (rolled["die"], rolled["style"], rolled["difficulty"], rolled["healed"]) == (12, "Mending", 2, True)
    assert hero(service, CID, "nova").losses == ()


def test_whether_healing_is_lowered_is_the_gms_choice(service: TableService, dice):
    # R-LTL-15 (amended): "can be lowered" is the GM's choice per attempt (default lowered), R-T-3
    setup(service)
    service.execute(CID, "sam", CreateLtlCharacter("doc", DOC))
    _wound_nova(service)
    with pytest.raises(Forbidden):
        service.execute(CID, "sam", Heal("doc", "nova", lowered=False))
    dice.faces = [5, 5]
    healed = service.execute(CID, "gm", Heal("doc", "nova", lowered=False))
    rolled = next(p for t, _, p in facts(healed) if t == "ltl.healing_rolled")
    assert (rolled["difficulty"], rolled["against"], rolled["healed"]) == (3, 8, False)
