"""Larger Than Life at the table: what the GM decides (R-T-3). The GM sets every difficulty, whether a Last Chance is
harder and how often Recovery may be tried; players roll what the GM calls for; a defender rolls its standing defence
Style, never one the attacker names."""

from __future__ import annotations

import pytest

from herotable.errors import RulesError
from herotable.service import TableService
from herotable.table.ltl.commands import (
    Attack,
    Attempt,
    Challenge,
    DifficultyName,
    KarmaRoll,
    LastChance,
    Override,
    Recover,
    Settle,
    StartConflict,
)
from herotable.table.state import Forbidden

from .helpers import facts, hero
from .test_ltl_table import CID, setup

HARD = DifficultyName.HARD


def refused(service: TableService, user: str, cmd: object, error: type[Exception] = RulesError) -> RulesError:
    """The refusal of a command, which changes nothing."""
    head = service.store.head(CID)
    with pytest.raises(error) as err:
        service.execute(CID, user, cmd)  # type: ignore[arg-type]
    assert service.store.head(CID) == head
    assert isinstance(err.value, RulesError)
    return err.value


@pytest.mark.xfail(strict=True, reason="R-T-3: players open challenges and Karma rolls at difficulties of their own")
def test_a_player_never_rolls_against_a_difficulty_they_chose(service: TableService, dice):
    # R-T-3: the GM sets every difficulty; a player rolls only what the GM calls for
    setup(service)
    dice.faces = [5, 5] * 3
    refused(service, "pat", Challenge("comet", HARD, style="Flight"), Forbidden)
    refused(service, "pat", KarmaRoll("comet", HARD), Forbidden)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    refused(service, "pat", Attempt("comet", HARD), Forbidden)


@pytest.mark.xfail(strict=True, reason="R-T-3: a player rolls Last Chance without the GM saying if it is harder")
def test_a_last_chance_roll_waits_for_the_gms_call(service: TableService, dice):
    # R-T-3, R-LTL-10: whether Last Chance is one level harder is the GM's; the player may still burn for it
    setup(service)
    dice.faces = [1, 10]
    service.execute(CID, "gm", Challenge("comet", HARD, must_succeed=True))
    service.execute(CID, "gm", Settle())
    dice.faces = [5, 5]
    refused(service, "pat", LastChance("comet"), Forbidden)


@pytest.mark.xfail(strict=True, reason="R-LTL-11 amended: Recovery is tried without the GM's leave")
def test_recovery_rolled_or_burned_needs_the_gms_leave(service: TableService, dice):
    # R-LTL-11 amended: a rolled Recovery needs the GM's leave, and the leave counts burned Recoveries too
    setup(service)
    service.execute(CID, "gm", Override("comet", "a falling girder", lose=1))
    dice.faces = [8, 1]
    assert refused(service, "pat", Recover("comet")).code == "ltl/recovery_leave"
    assert refused(service, "pat", Recover("comet", burn=True)).code == "ltl/recovery_leave"
    assert hero(service, CID, "comet").losses


@pytest.mark.xfail(strict=True, reason="R-T-3: a defender nobody set a Style for rolls its best Style, not base Power")
def test_a_defender_rolls_base_power_until_its_defence_style_is_set(service: TableService, dice):
    # R-T-3: each fighter has a standing defence Style, base Power by default; the attacker never names it
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    dice.faces = [6, 4]
    attack = service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    [defence] = [p for t, _, p in facts(attack) if t == "dice.rolled" and p["side"] == "opposition"]
    assert defence["style"] is None and defence["die"] == 10  # Doctor Entropy's base Power, not his d12 Decay
