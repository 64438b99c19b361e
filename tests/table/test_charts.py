"""One reader's charts of a campaign, from scripted campaigns of both games: the dice each reader saw, each die once
(the GM, a player, another player, a spectator; a GM secret roll, a roll shown again when revealed, a whisper, an
undone roll), and each game's charts of its history, a hidden NPC's numbers the GM's alone."""

from __future__ import annotations

from collections import Counter

import pytest

from herotable.dice import ScriptedRng
from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.service import TableService
from herotable.store.memory import MemoryEventStore
from herotable.table.charts import Charts, charts_for
from herotable.table.chat import ChatRoll, ChatRolled
from herotable.table.conviction.commands import Announce, BeginTurns, Reroll, RollCheck, StartRound, Surge
from herotable.table.dice_roll import FreeRoll
from herotable.table.ltl.commands import (
    Challenge,
    CreateLtlCharacter,
    DifficultyName,
    Improvement,
    Override,
    Push,
    Settle,
    SpendHeroPoints,
    TimePasses,
    TryAgain,
)
from herotable.table.ltl.commands import Reroll as LtlReroll
from herotable.table.ltl.facts import InitiativeRolled
from herotable.table.series import Kind, Series
from herotable.table.state import Role, Ruleset
from herotable.table.structure import (
    EndAdventure,
    EndScene,
    EndSession,
    Join,
    StartAdventure,
    StartScene,
    StartSession,
)
from herotable.table.throws import once
from herotable.table.undo import Undo

from .test_cv_table import (
    ANA,
    BEN,
    GM,
    SAM,
    roll,
    run,
    svc,  # noqa: F401  (the Conviction campaign, in a round)
)
from .test_cv_table import CID as CV
from .test_ltl_table import CID as LTL
from .test_ltl_table import called, setup

Die = tuple[int, int]


def charts(service: TableService, campaign: str, user: str) -> Charts:
    return charts_for(service.state(campaign), service.store.load(campaign), user)


def counted(service: TableService, campaign: str, user: str) -> Counter[Die]:
    """The dice `user`'s fairness chart counts, by (sides, face)."""
    return Counter(
        {
            (d.sides, i + 1): n
            for d in charts(service, campaign, user).fairness.dice
            for i, n in enumerate(d.counts)
            if n
        }
    )


def dice(*faces: Die) -> Counter[Die]:
    return Counter(faces)


def by_key(service: TableService, campaign: str, user: str) -> dict[str, tuple[tuple[str, ...], tuple[Series, ...]]]:
    return {c.key: (c.x, c.series) for c in charts(service, campaign, user).charts}


# --- Larger Than Life ---


@pytest.fixture
def ltl() -> TableService:
    service = TableService(MemoryEventStore(), rng=ScriptedRng([]))
    setup(service)
    return service


def faces(service: TableService, *rolled: Die) -> None:
    service.rng = ScriptedRng(rolled)


def test_each_reader_counts_each_ltl_die_they_saw_once(ltl: TableService) -> None:
    # R-T-2, R-T-4: a roll is its roller's and the GM's until settled, then everyone's: counted once by each
    faces(ltl, (20, 9), (10, 4))
    task = ltl.execute(LTL, "pat", Challenge("comet", style="Flight", call=called(ltl, "comet"))).events[0].command_id
    assert counted(ltl, LTL, "gm") == counted(ltl, LTL, "pat") == dice((20, 9), (10, 4))  # the difficulty die too
    assert counted(ltl, LTL, "sam") == counted(ltl, LTL, "sly") == Counter()
    ltl.execute(LTL, "pat", TryAgain("comet"))
    faces(ltl, (20, 15))
    ltl.execute(LTL, "pat", LtlReroll("comet", "try_again", task))
    assert counted(ltl, LTL, "pat") == dice((20, 9), (20, 15), (10, 4))  # the first face was thrown too
    ltl.execute(LTL, "pat", Settle(task))  # revealed: the whole throw again, to everyone
    seen_by_all = dice((20, 9), (20, 15), (10, 4))
    for user in ("gm", "pat", "sam", "sly"):
        assert counted(ltl, LTL, user) == seen_by_all, user

    faces(ltl, (10, 3), (6, 5))  # the GM's secret roll, settled: still the GM's alone
    secret = ltl.execute(LTL, "gm", Challenge("entropy", DifficultyName.AVERAGE, secret=True)).events[0].command_id
    ltl.execute(LTL, "gm", Settle(secret))
    faces(ltl, (6, 2))
    ltl.execute(LTL, "gm", FreeRoll("1d6", secret=True))
    faces(ltl, (8, 7))
    ltl.execute(LTL, "sam", FreeRoll("1d8", "a free roll"))
    faces(ltl, (12, 11))  # whispered: a copy for each of the two players, and the GM sees both
    ltl.execute(LTL, "pat", ChatRoll("1d12", to="sam"))
    faces(ltl, (4, 1))  # undone: it counts for no one
    ltl.execute(LTL, "gm", FreeRoll("1d4"))
    ltl.execute(LTL, "gm", Undo())

    assert counted(ltl, LTL, "gm") == seen_by_all + dice((10, 3), (6, 5), (6, 2), (8, 7), (12, 11))
    assert counted(ltl, LTL, "pat") == counted(ltl, LTL, "sam") == seen_by_all + dice((8, 7), (12, 11))
    assert counted(ltl, LTL, "sly") == seen_by_all + dice((8, 7))
    assert counted(ltl, LTL, "stranger") == Counter()  # not a member: nothing


def test_larger_than_life_charts_adventures_and_sessions_and_keeps_a_hidden_npc_for_the_gm(ltl: TableService) -> None:
    # adventure 1, session 1: Karma and Heroism burned, levels lost and healed, Hero Points spent after its end
    ltl.execute(LTL, "pat", TryAgain("comet"))  # R-LTL-10: one level of Karma
    ltl.execute(LTL, "sam", Push("nova", burn=True))  # R-LTL-11: to d20 (her Fisticuffs), two levels
    ltl.execute(LTL, "gm", Override("comet", "the bridge falls", lose=2))
    ltl.execute(LTL, "gm", Override("entropy", "his own field", lose=3))  # public in the log, but a hidden sheet
    ltl.execute(LTL, "pat", TryAgain("comet"))
    ltl.execute(LTL, "pat", Undo())  # undone: no Karma burned
    ltl.execute(LTL, "gm", TimePasses("weeks"))  # R-LTL-6: every loss heals
    ltl.execute(LTL, "gm", EndAdventure({"comet": 12}))  # its scene and session end with it
    ltl.execute(LTL, "pat", SpendHeroPoints("comet", Improvement.ADD_SPECIALTY, "Piloting"))  # R-LTL-16: 5 points
    # adventure 2, session 2
    for cmd in (StartAdventure(), StartSession(), StartScene()):
        ltl.execute(LTL, "gm", cmd)
    ltl.execute(LTL, "gm", Override("nova", "ambushed", lose=1))
    ltl.execute(LTL, "pat", TryAgain("comet"))

    ones = ("1", "2")
    player = by_key(ltl, LTL, "sam")
    assert player == {
        "hero_points": (ones, (Series("Captain Comet", (5, 0)),)),
        "levels_lost": (ones, (Series("Captain Comet", (2, 0)), Series("Nova", (0, 1)))),
        "levels_healed": (ones, (Series("Captain Comet", (2, 0)),)),
        "spent": (ones, (Series("Karma", (1, 1)), Series("Heroism", (2, 0)))),
    }
    assert by_key(ltl, LTL, "sly") == player  # a spectator sees what the players see
    gm = by_key(ltl, LTL, "gm")
    assert gm["levels_lost"] == (
        ones,
        (Series("Captain Comet", (2, 0)), Series("Doctor Entropy", (3, 0)), Series("Nova", (0, 1))),
    )
    assert gm["levels_healed"][1][1] == Series("Doctor Entropy", (3, 0))
    kinds = {c.key: c.kind for c in charts(ltl, LTL, "gm").charts}
    assert set(kinds.values()) == {Kind.BARS}


# --- Conviction ---


def test_each_reader_counts_each_conviction_die_they_saw_once(svc: TableService) -> None:  # noqa: F811
    # the campaign began with initiative 12, 10, 5 (Kestrel's, Moss's, hidden Captain Rex's), each its roller's
    assert counted(svc, CV, GM) == dice((20, 12), (20, 10), (20, 5))
    roll(svc, ANA, RollCheck("kes", 15, label="climb"), 7)
    run(svc, ANA, Reroll(), 4)  # R-CV-4: the roller and the GM see it; announced, everyone sees both faces again
    run(svc, ANA, Announce())
    run(svc, GM, RollCheck("kes", 12, label="ambush", skill="Notice", secret=True), 9)
    run(svc, GM, Announce())  # a secret check, announced: still the GM's
    roll(svc, BEN, RollCheck("mo", 20, label="leap"), 3)  # pending: Ben's and the GM's
    assert counted(svc, CV, GM) == dice((20, 12), (20, 10), (20, 5), (20, 7), (20, 4), (20, 9), (20, 3))
    assert counted(svc, CV, ANA) == dice((20, 12), (20, 7), (20, 4))
    assert counted(svc, CV, BEN) == dice((20, 10), (20, 7), (20, 4), (20, 3))
    assert counted(svc, CV, SAM) == dice((20, 7), (20, 4))


def test_conviction_charts_each_hero_s_conviction_by_session_and_what_was_spent(svc: TableService) -> None:  # noqa: F811
    run(svc, ANA, Surge("kes"))  # R-CV-3: 3 → 2
    for cmd in (EndScene(), EndSession(), StartSession(), StartScene()):
        run(svc, GM, cmd)
    run(svc, GM, StartRound(), 11, 8, 2)  # a new scene: initiative again
    run(svc, GM, BeginTurns())
    run(svc, BEN, Surge("mo"))
    run(svc, GM, StartRound())
    run(svc, BEN, Surge("mo"))  # 3 → 1
    run(svc, GM, StartRound())
    run(svc, BEN, Surge("mo"))
    run(svc, GM, Undo())  # undone: Moss keeps his last point

    ana = by_key(svc, CV, ANA)
    assert ana == {
        "conviction": (("1", "2"), (Series("Kestrel", (2, 2)), Series("Moss", (3, 1)))),
        "spent": (("1", "2"), (Series("Conviction", (1, 2)),)),
    }
    assert by_key(svc, CV, SAM) == ana
    gm = by_key(svc, CV, GM)
    assert gm["conviction"][1] == (Series("Kestrel", (2, 2)), Series("Moss", (3, 1)), Series("Captain Rex", (3, 3)))
    assert {c.key: c.kind for c in charts(svc, CV, GM).charts} == {"conviction": Kind.LINE, "spent": Kind.BARS}


def test_a_campaign_with_nothing_rolled_yet_says_too_few_rolls() -> None:
    service = TableService(MemoryEventStore(), rng=ScriptedRng([]))
    service.create_campaign("gm", "Gwen", "Quiet", Ruleset.LTL, campaign_id="quiet")
    service.execute("quiet", "pat", Join("Pat"))
    service.execute("quiet", "sly", Join("Sly", Role.SPECTATOR))
    service.execute("quiet", "pat", CreateLtlCharacter("comet", CAPTAIN_COMET))
    service.execute("quiet", "gm", CreateLtlCharacter("entropy", DOCTOR_ENTROPY, npc=True))
    got = charts(service, "quiet", "pat")
    assert got.fairness.dice == () and got.fairness.says == "too few rolls to tell"
    assert all(c.series == () for c in got.charts)


def test_copies_of_one_fact_count_once_and_facts_alike_only_in_their_dice_count_each():
    # a whisper's two copies are one fact of one command; two fighters' equal initiative dice are two dice
    comet, nova = InitiativeRolled("comet", 8, (5,)), InitiativeRolled("nova", 8, (5,))
    whisper = ChatRolled("1d12", "", 9, "1d12 (9) = 9", ((12, 9),), "sam")
    facts = [("c1", comet), ("c1", nova), ("c2", whisper), ("c2", whisper), ("c3", whisper)]
    assert once(facts, lambda f: None) == [(8, 5), (8, 5), (12, 9), (12, 9)]
