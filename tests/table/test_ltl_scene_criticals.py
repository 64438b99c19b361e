"""Criticals outside a conflict: "next round" is the hero's next roll in the same scene (R-LTL-8 amended)."""

from __future__ import annotations

from herotable.ltl.task import CritBonus
from herotable.service import TableService
from herotable.table.ltl.commands import Challenge, DifficultyName, KarmaRoll, Push, Settle, StartConflict
from herotable.table.structure import EndScene, StartScene

from .helpers import facts, hero
from .test_ltl_amended import setup_with
from .test_ltl_table import CID

HARD = DifficultyName.HARD


def _challenge(service: TableService, dice, faces: list[int], settler: str = "gm", **settle: object) -> int:
    """The GM has Captain Comet roll Fisticuffs (sheet d12) against Hard (d10); the die he rolled."""
    dice.faces = faces
    opened = service.execute(CID, "gm", Challenge("comet", HARD, style="Fisticuffs"))
    [die] = [p["die"] for t, _, p in facts(opened) if t == "dice.rolled" and p["roller"] == "comet"]
    service.execute(CID, settler, Settle(opened.events[0].command_id, **settle))  # type: ignore[arg-type]
    return int(die)


def test_a_critical_failure_outside_a_conflict_lowers_the_next_roll_in_the_scene(service: TableService, dice):
    # R-LTL-8 (amended): outside a conflict "next round" means the hero's next roll in the same scene
    setup_with(service)
    assert _challenge(service, dice, [1, 10]) == 12  # a critical failure
    assert _challenge(service, dice, [5, 3]) == 10  # the next roll: -1 die type
    assert _challenge(service, dice, [5, 3]) == 12  # used up by that roll


def test_a_critical_success_outside_a_conflict_gives_its_advantage_to_the_next_roll(service: TableService, dice):
    # R-LTL-8 (amended): the roller's player chooses the advantage on their settle; +1 die type on a d12 rolls d20
    setup_with(service)
    assert _challenge(service, dice, [12, 1], "pat", crit_bonus=CritBonus.PLUS_ONE_NEXT) == 12
    assert _challenge(service, dice, [15, 3]) == 20


def test_the_scene_s_end_clears_what_a_critical_left_for_the_next_roll(service: TableService, dice):
    # R-LTL-8 (amended): cleared when the scene ends
    setup_with(service)
    _challenge(service, dice, [1, 10])
    assert hero(service, CID, "comet").next_round != ()  # waiting for the next roll
    service.execute(CID, "gm", EndScene())
    assert hero(service, CID, "comet").next_round == ()
    service.execute(CID, "gm", StartScene())
    assert _challenge(service, dice, [5, 3]) == 12


def test_karma_and_heroism_criticals_against_a_difficulty_reach_the_next_roll(service: TableService, dice):
    # R-LTL-8 (amended): criticals apply to Heroism and Karma rolls against a difficulty; a Push's -1 is not lost
    setup_with(service)
    dice.faces = [1, 10]  # Karma d10 against Hard d10: a critical failure
    rolled = service.execute(CID, "gm", KarmaRoll("comet", HARD))
    service.execute(CID, "gm", Settle(rolled.events[0].command_id))
    assert _challenge(service, dice, [5, 3]) == 10
    dice.faces = [1, 20]  # a Push to d20: Heroism d8 against Inconceivable, a critical failure
    service.execute(CID, "pat", Push("comet"))
    assert _challenge(service, dice, [5, 3]) == 10


def test_a_critical_earned_before_a_conflict_counts_in_its_first_round(service: TableService, dice):
    # R-LTL-8 (amended): the hero's next roll in the scene is the first round's
    setup_with(service)
    _challenge(service, dice, [1, 10])
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    assert hero(service, CID, "comet").this_round != ()
