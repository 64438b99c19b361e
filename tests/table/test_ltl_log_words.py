"""What the log says of the choices that shape a Larger Than Life roll: Going For Broke with its levels, a Power
Stunt with its Superpower and name, a GM override with its reason (R-LTL-7, R-LTL-10, R-T-2)."""

from __future__ import annotations

from herotable.service import TableService
from herotable.table.ltl.commands import (
    Attack,
    CallKind,
    CallRoll,
    DifficultyName,
    KarmaRoll,
    Override,
    Settle,
    StartConflict,
)
from herotable.table.render import render

from .test_ltl_table import CID, setup


def log_lines(service: TableService, user: str) -> list[str]:
    """The log as `user` reads it, line by line (the words only, none of the facts' data)."""
    state = service.state(CID)
    return [str(render(state, s.fact)) for s in service.stream(CID, user, limit=10_000).seen]


def test_going_for_broke_is_in_the_log_with_its_levels(service, dice):
    # R-LTL-7
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    dice.faces = [5, 3]
    service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs", broke=2))
    assert "Captain Comet attacks Doctor Entropy, going for broke with 2 level(s)" in log_lines(service, "sam")


def test_a_power_stunt_is_in_the_log_by_its_superpower_and_name(service, dice):
    # R-LTL-10
    setup(service)
    called = (
        service.execute(
            CID, "gm", CallRoll("comet", CallKind.STUNT, DifficultyName.HARD, power="Star Fists", stunt="Meteor Punch")
        )
        .events[0]
        .command_id
    )
    dice.faces = [9, 2]
    service.execute(CID, "pat", KarmaRoll("comet", call=called))
    said = "Captain Comet rolls a Power Stunt against d10 (Star Fists: Meteor Punch)"
    assert said in log_lines(service, "pat")
    assert "The GM calls for Captain Comet's Power Stunt (Star Fists: Meteor Punch) against Hard" in log_lines(
        service, "pat"
    )
    service.execute(CID, "pat", Settle())
    assert "Captain Comet pulls off the Power Stunt Star Fists: Meteor Punch" in log_lines(service, "sam")


def test_a_gm_override_is_in_the_log_with_its_reason(service):
    # R-T-2
    setup(service)
    service.execute(CID, "gm", Override("comet", "the bridge collapses on him", lose=1))
    assert "GM override on Captain Comet: the bridge collapses on him" in log_lines(service, "sam")
