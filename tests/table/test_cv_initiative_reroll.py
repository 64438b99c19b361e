"""Initiative is a roll: pending for its roller until the GM begins the first turn, so Conviction may re-roll it
(R-CV-4 amended 2026-12-02); ties are broken after the re-rolls (R-CV-14)."""

from __future__ import annotations

import pytest

from herotable.conviction import ActionKind
from herotable.dice import ScriptedRng
from herotable.service import TableService
from herotable.store.memory import MemoryEventStore
from herotable.table.conviction.commands import (
    BeginTurns,
    CreateCvCharacter,
    InitiativeReroll,
    RollCheck,
    StartRound,
    TakeAction,
)
from herotable.table.conviction.commands import Reroll as CheckReroll
from herotable.table.legal import legal_actions
from herotable.table.state import Forbidden, Role, Ruleset
from herotable.table.structure import Join, StartAdventure, StartScene, StartSession
from herotable.table.undo import Undo

from .helpers import seen
from .test_cv_table import ANA, BEN, CID, GM, SAM, assert_replays, conviction, refused, roll, run, sheet


@pytest.fixture
def table() -> TableService:
    """Kestrel (Ana), Moss (Ben) and the GM's hidden Captain Rex, in a scene; the GM starts rounds and initiative is
    rolled: Kestrel 4 + 1 = 5, Moss 10 + 1 = 11, Rex 9 + 1 = 10."""
    service = TableService(MemoryEventStore(), rng=ScriptedRng([]))
    service.create_campaign(GM, "Gwen", "Ninja Island", Ruleset.CONVICTION, campaign_id=CID)
    run(service, ANA, Join("Ana"))
    run(service, BEN, Join("Ben"))
    run(service, SAM, Join("Sam", Role.SPECTATOR))
    run(service, ANA, CreateCvCharacter("kes", sheet("Kestrel")))
    run(service, BEN, CreateCvCharacter("mo", sheet("Moss")))
    run(service, GM, CreateCvCharacter("rex", sheet("Captain Rex"), npc=True, hidden=True))
    for cmd in (StartAdventure(), StartSession(), StartScene()):
        run(service, GM, cmd)
    run(service, GM, StartRound(), 4, 10, 9)
    return service


def _order(service: TableService, user: str) -> list[str]:
    return [o["character"] for o in service.view(CID, user)["game"]["order"]]


def test_initiative_stays_with_its_roller_until_the_gm_begins_the_first_turn(table: TableService) -> None:
    # R-CV-4 (amended): pending for the roller and the GM; a hidden NPC's is the GM's alone
    for user, mine in ((ANA, ["kes"]), (BEN, ["mo"]), (SAM, []), (GM, ["kes", "mo", "rex"])):
        rolled = [p["character"] for kind, p in seen(table, CID, user) if kind == "cv.initiative_rolled"]
        assert rolled == mine, user
    assert _order(table, ANA) == []  # nothing announced yet
    said = run(table, GM, BeginTurns())
    assert said["cv.initiative_order"] == {"order": ["mo", "rex", "kes"], "how": "rolled"}
    assert _order(table, SAM) == ["mo", "rex", "kes"]
    assert_replays(table)


def test_a_conviction_re_roll_on_initiative_counts_plus_ten_and_is_the_round_s_one_point(table: TableService) -> None:
    # R-CV-4 (amended): Kestrel's 4 re-rolled as 3 counts 13: 13 + 1 = 14 goes first; it is the round's one point
    points = conviction(table, "kes")
    offered = [a for a in legal_actions(table.state(CID), ANA) if a.type == InitiativeReroll.type]
    assert [a.fixed["character"] for a in offered] == ["kes"]
    said = run(table, ANA, InitiativeReroll("kes"), 3)
    assert said["cv.initiative_rerolled"] == {"character": "kes", "face": 3, "total": 14, "roll": "initiative:kes:1"}
    assert conviction(table, "kes") == points - 1
    assert refused(table, ANA, InitiativeReroll("kes")).code == "conviction/initiative_rerolled"
    run(table, GM, BeginTurns())
    assert _order(table, BEN) == ["kes", "mo", "rex"]
    call = roll(table, ANA, RollCheck("kes", 15, skill="Notice"), 2)["cv.check_rolled"]["check"]
    assert refused(table, ANA, CheckReroll(call)).code == "conviction/once_per_round"  # one point a round (R-CV-3)
    assert_replays(table)


def test_only_the_roller_re_rolls_and_only_before_the_first_turn(table: TableService) -> None:
    assert refused(table, BEN, InitiativeReroll("kes"), Forbidden).code == "table/not_your_character"
    # nobody acts before the first turn, and the GM begins it before starting another round
    assert refused(table, ANA, TakeAction("kes", ActionKind.MOVE)).code == "cv/initiative_open"
    assert refused(table, GM, StartRound()).code == "cv/initiative_open"
    run(table, GM, BeginTurns())
    assert refused(table, ANA, InitiativeReroll("kes")).code == "cv/initiative_closed"
    assert refused(table, GM, BeginTurns()).code == "cv/initiative_closed"
    run(table, ANA, TakeAction("kes", ActionKind.MOVE))


def test_ties_are_broken_after_the_re_rolls(table: TableService) -> None:
    # R-CV-14 (amended): Kestrel's 4 re-rolled as 9 counts 19 (20) and Rex's 9 re-rolled as 9 counts 19 (20): a tie
    # of equal Dexterity, which goes to the GM's listing (Kestrel before Rex); before the re-rolls nobody tied
    run(table, ANA, InitiativeReroll("kes"), 9)
    run(table, GM, InitiativeReroll("rex"), 9)  # the GM re-rolls the NPC's
    assert run(table, GM, BeginTurns())["cv.initiative_order"]["order"] == ["kes", "rex", "mo"]


def test_an_undo_takes_the_re_roll_back_with_its_point(table: TableService) -> None:
    points = conviction(table, "kes")
    run(table, ANA, InitiativeReroll("kes"), 3)
    run(table, GM, Undo())
    assert conviction(table, "kes") == points
    assert run(table, GM, BeginTurns())["cv.initiative_order"]["order"] == ["mo", "rex", "kes"]


def test_an_undone_re_roll_its_player_saw_cannot_be_made_again(table: TableService) -> None:
    # R-T-4 (amended 2026-12-02): a seen re-roll is knowledge; the GM's undo refunds the point, but the initiative
    # comes back as re-rolled, so no second die can be fished for
    run(table, ANA, InitiativeReroll("kes"), 3)
    run(table, GM, Undo())
    assert refused(table, ANA, InitiativeReroll("kes")).code == "roll/revealed"
    assert not [a for a in legal_actions(table.state(CID), ANA) if a.type == InitiativeReroll.type]
    run(table, GM, BeginTurns())
    run(table, GM, StartRound(roll=True), 4, 10, 9)  # the next round's initiative is a new roll
    run(table, ANA, InitiativeReroll("kes"), 3)
