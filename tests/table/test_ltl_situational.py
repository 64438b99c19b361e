"""Larger Than Life situational modifiers (R-T-2 amended 2026-12-02): −2..+2 die types on the die rolled, applied last
through R-LTL-1's die types (a d12 +1 rolls d20; a d4 under −1 or −2 counts its face one or two lower; criticals are
judged on the natural face), with a reason the roller sees, in the odds before the roll, the log and the audit."""

from __future__ import annotations

import pytest

from herotable.dice import Rating, shifted
from herotable.errors import RulesError
from herotable.odds.exchange import Roll, exchange
from herotable.server.games.ltl_odds import exchange_odds
from herotable.service import TableService, replay_events
from herotable.table.audit import audit
from herotable.table.ltl.commands import (
    Attack,
    Attempt,
    CallKind,
    Challenge,
    DifficultyName,
    Override,
    SetSituational,
    Settle,
    StartConflict,
)
from herotable.table.state import Forbidden

from .helpers import facts, text_seen
from .test_ltl_table import CID, called, setup

HARD = DifficultyName.HARD


def test_a_shift_moves_the_die_by_types_and_below_a_d4_counts_its_face_lower():
    # R-T-2 (amended) through R-LTL-1's die types: positions 1 = d4 … 5 = d12, 6 = a d20 down a level, 7 = d20
    assert shifted(5, 1) == (7, 0)  # a d12 +1 rolls d20
    assert shifted(4, 2) == (7, 0)  # a d10 +2: d12, then d20
    assert shifted(7, -1) == (5, 0) and shifted(6, -1) == (5, 0)  # a d20 -1 rolls d12
    assert shifted(1, -1) == (0, 1) and shifted(1, -2) == (0, 2)  # a d4 counts one or two lower
    assert shifted(0, -1) == (0, 2) and shifted(0, -2) == (0, 2)  # never more than two
    assert shifted(0, 1) == (1, 0)  # a d4 under a critical's -1 and a +1: a plain d4


def _rolled(applied, roller: str) -> dict:
    [die] = [p for kind, _, p in facts(applied) if kind == "dice.rolled" and p["roller"] == roller]
    return die


def test_a_called_challenge_carries_the_gm_s_die_types_and_reason(service: TableService, dice):
    # R-T-2 (amended): the GM calls Comet's challenge at +1 die type for a running start: Fisticuffs d12 rolls d20
    setup(service)
    call = called(service, "comet", HARD, shift=1, reason="a running start")
    [offer] = [a for a in service.legal_actions(CID, "pat") if a.fixed.get("call") == call]
    assert "+1 die type: a running start" in offer.label  # the roller reads it before rolling
    dice.faces = [15, 3]
    die = _rolled(service.execute(CID, "pat", Challenge("comet", style="Fisticuffs", call=call)), "comet")
    assert (die["die"], die["shift"], die["reason"]) == (20, 1, "a running start")
    assert "+1 die type: a running start" in text_seen(service, CID, "pat")
    assert replay_events(service.store.load(CID)) == service.state(CID)
    assert audit(service.store.load(CID)).findings == []


def test_a_d4_two_types_down_counts_its_face_two_lower_and_the_log_folds_to_it(service: TableService, dice):
    # R-T-2 (amended): Comet's base Power worn down to d4, at -2: its natural 4 counts 2 and only ties Hard's 2;
    # a natural maximum still is one for criticals, but the 2 is no 1
    setup(service)
    service.execute(CID, "gm", Override("comet", "worn down", lose=3))
    dice.faces = [4, 2]
    opened = service.execute(CID, "gm", Challenge("comet", HARD, shift=-2, reason="in the dark"))
    die = _rolled(opened, "comet")
    assert (die["rating"], die["die"], die["penalty"]) == (0, 4, 2)
    settled = next(p for kind, _, p in facts(service.execute(CID, "gm", Settle())) if kind == "ltl.task_settled")
    assert settled["outcome"] == "tie"
    assert replay_events(service.store.load(CID)) == service.state(CID)


def test_each_side_of_an_exchange_carries_its_fighter_s_standing_modifier(service: TableService, dice):
    # R-T-2 (amended): the GM sets Entropy at -1 die type (blinded); its base d10 defends as a d8, and the odds Pat
    # sees before attacking are those of a d12 against that d8
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    service.execute(CID, "gm", SetSituational("entropy", -1, "blinded by the flash"))
    odds = exchange_odds(service.state(CID), "gm", "comet", "entropy", style="Fisticuffs")  # Entropy's sheet: the GM's
    planned = next(o for o in odds["options"] if o["key"] == "as_planned")
    expected = exchange(Roll(Rating.of("d12")), Roll(Rating.of("d8")))
    assert planned["win"]["exact"] == str(expected.win)
    dice.faces = [5, 6]
    applied = service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    die = _rolled(applied, "entropy")
    assert (die["die"], die["shift"], die["reason"]) == (8, -1, "blinded by the flash")
    service.execute(CID, "pat", Settle())
    assert replay_events(service.store.load(CID)) == service.state(CID)


def test_a_called_attempt_carries_its_modifier_too(service: TableService, dice):
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    call = called(service, "comet", HARD, kind=CallKind.ATTEMPT, shift=-1, reason="the deck pitches")
    dice.faces = [7, 3]
    die = _rolled(service.execute(CID, "pat", Attempt("comet", call=call, style="Fisticuffs")), "comet")
    assert (die["die"], die["shift"]) == (10, -1)


def test_the_modifier_is_the_gm_s_and_stays_within_two_die_types(service: TableService):
    setup(service)
    head = service.store.head(CID)
    with pytest.raises(RulesError) as err:
        called(service, "comet", HARD, shift=3, reason="too much")
    assert err.value.code == "table/out_of_range"
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    with pytest.raises(Forbidden):
        service.execute(CID, "pat", SetSituational("comet", 1, "I say so"))
    call = called(service, "comet", HARD)
    with pytest.raises(Forbidden):
        service.execute(CID, "pat", Challenge("comet", call=call, shift=1))
    assert service.store.head(CID) == head + 2  # the conflict and the plain call, nothing refused
