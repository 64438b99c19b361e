"""What the log says of the choices that shape a Larger Than Life roll: Going For Broke with its levels, a Power
Stunt with its Superpower and name, a GM override with its reason (R-LTL-7, R-LTL-10, R-T-2)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from herotable.dice import ScriptedRng
from herotable.service import TableService
from herotable.table.audit import audit
from herotable.table.decide import decide
from herotable.table.ltl.commands import (
    Attack,
    CallKind,
    CallRoll,
    DifficultyName,
    KarmaPurpose,
    KarmaRoll,
    Override,
    Settle,
    StartConflict,
)
from herotable.table.ltl.facts import TaskSettled
from herotable.table.render import render
from herotable.table.state import Visibility

from .helpers import hero, seen, text_seen
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


# --- a Power Stunt's name on its settle (R-LTL-10, R-T-2) ---

METEOR_PUNCH = "the Power Stunt (Star Fists: Meteor Punch)"


def stunt_rolled(service: TableService, dice, faces: list[int]) -> None:
    """The GM calls for Captain Comet's Power Stunt against Hard (d10); Pat rolls it: Karma d10, then the d10."""
    call = service.execute(
        CID, "gm", CallRoll("comet", CallKind.STUNT, DifficultyName.HARD, power="Star Fists", stunt="Meteor Punch")
    )
    dice.faces = faces
    service.execute(CID, "pat", KarmaRoll("comet", call=call.events[0].command_id))


def test_a_failed_power_stunt_is_named_to_everyone_who_sees_it_fail(service, dice):
    # R-LTL-10, R-T-2: the stunt pulled off is named to the table; one that fails is named with its result too
    setup(service)
    stunt_rolled(service, dice, [2, 9])
    for user in ("sam", "sly"):  # pending: its opening is Pat's and the GM's
        assert "Meteor Punch" not in text_seen(service, CID, user)
    service.execute(CID, "pat", Settle())
    for user in ("sam", "sly", "pat", "gm"):
        assert f"Captain Comet fails {METEOR_PUNCH}" in log_lines(service, user), user
    settled = [data for kind, data in seen(service, CID, "sam") if kind == "ltl.task_settled"]
    assert [(d["outcome"], d["stunt"]) for d in settled] == [("lose", "Star Fists: Meteor Punch")]
    assert hero(service, CID, "comet").stunts_pulled_off == ()
    report = audit(service.store.load(CID))  # the settle decides again as recorded
    assert report.clean and report.agreed == report.commands and not report.older


def test_a_power_stunts_settle_names_it_whatever_the_result(service, dice):
    setup(service)
    stunt_rolled(service, dice, [5, 5])
    service.execute(CID, "pat", Settle())
    stunt_rolled(service, dice, [9, 2])
    service.execute(CID, "pat", Settle())
    lines = log_lines(service, "sam")
    assert f"A tie on {METEOR_PUNCH}: nothing changes" in lines
    assert f"Captain Comet succeeds at {METEOR_PUNCH}" in lines
    assert "Captain Comet pulls off the Power Stunt Star Fists: Meteor Punch" in lines


def test_other_rolls_settle_as_before(service, dice):
    setup(service)
    call = service.execute(CID, "gm", CallRoll("comet", CallKind.KARMA, DifficultyName.HARD)).events[0].command_id
    dice.faces = [2, 9]
    service.execute(CID, "pat", KarmaRoll("comet", call=call))
    service.execute(CID, "pat", Settle())
    assert [line for line in log_lines(service, "sam") if "fails" in line] == ["Captain Comet fails"]


@pytest.mark.parametrize("faces", [[2, 9], [7, 2]], ids=["fails", "pulls it off"])
def test_a_hidden_npcs_power_stunt_stays_unnamed_to_the_players(service, dice, faces):
    # R-T-2: a hidden character's Superpowers are on the sheet only the GM sees, pulled off or not
    setup(service)
    dice.faces = list(faces)
    stunt = KarmaRoll("entropy", DifficultyName.HARD, KarmaPurpose.STUNT, power="Decay Field", stunt="Rust Wave")
    service.execute(CID, "gm", stunt)
    service.execute(CID, "gm", Settle())
    result = "fails" if faces == [2, 9] else "succeeds"
    for user in ("pat", "sam", "sly"):
        assert f"Doctor Entropy {result}" in log_lines(service, user)
        assert "Rust Wave" not in text_seen(service, CID, user) and "Decay" not in text_seen(service, CID, user)
    assert "Doctor Entropy rolls a Power Stunt against d10 (Decay Field: Rust Wave)" in log_lines(service, "gm")


def test_a_secret_power_stunt_is_named_to_the_gm_alone(service, dice):
    # R-T-2: no command rolls a Power Stunt in secret; were one in the table, its settle would be the GM's alone
    setup(service)
    stunt_rolled(service, dice, [2, 9])
    state = service.state(CID)
    table = state.game
    secret = replace(state, game=replace(table, tasks=tuple(replace(t, secret=True) for t in table.tasks)))
    decided = decide(secret, Settle(), "gm", ScriptedRng([]), "settle")
    named = [e for e in decided.facts if "Meteor Punch" in repr(e.fact)]
    assert [type(e.fact) for e in named] == [TaskSettled]
    assert [e.visibility for e in named] == [Visibility.GM]
