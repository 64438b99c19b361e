"""Larger Than Life at the table under the rulings amended on 2026-12-01."""

from __future__ import annotations

import pytest

from herotable.errors import RulesError
from herotable.service import TableService
from herotable.table.legal import legal_actions
from herotable.table.ltl.commands import BuySuccess, DifficultyName, KarmaPurpose, KarmaRoll, Settle

from .helpers import hero
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
