"""Characters that travel (R-T-3): a character's file carries its sheet and what play added to it, another campaign of
its game checks the file whole and refuses it with a tip for every problem, a player's character waits for the GM
(seen by its player and the GM, unable to act) until the GM approves it or turns it away with a reason, and all of
it is facts: folded, replayed, exported with the campaign."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from herotable.conviction import Abilities, Nature
from herotable.conviction import Role as CvRole
from herotable.dice import ScriptedRng
from herotable.errors import RulesError
from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.service import TableService, replay_events, verified_import
from herotable.store import export_campaign
from herotable.store.memory import MemoryEventStore
from herotable.table.conviction.commands import CreateCvCharacter, CvSheet, RaiseLevel
from herotable.table.fold import snapshot_of, state_from_snapshot
from herotable.table.legal import legal_actions
from herotable.table.ltl.commands import Challenge, CreateLtlCharacter, DifficultyName, Improvement, SpendHeroPoints
from herotable.table.state import Forbidden, Role, Ruleset, TableError
from herotable.table.structure import EndAdventure, Join, StartAdventure
from herotable.table.travel import (
    FORMAT,
    ApproveArrival,
    CharacterFileRefused,
    ImportCharacter,
    TurnAwayArrival,
    document,
    renamed,
)
from herotable.table.views import view_for

from .helpers import seen, seen_types, text_seen

GM, PAT, SAM, SLY = "gm", "pat", "sam", "sly"
OTHER_GM = "gina"


def table(svc: TableService, cid: str, ruleset: Ruleset, gm: str = GM) -> None:
    """A campaign with its GM, two players (Pat, Sam) and a spectator (Sly)."""
    svc.create_campaign(gm, gm.title(), f"Campaign {cid}", ruleset, campaign_id=cid)
    svc.execute(cid, PAT, Join("Pat"))
    svc.execute(cid, SAM, Join("Sam"))
    svc.execute(cid, SLY, Join("Sly", Role.SPECTATOR))


def refused(svc: TableService, cid: str, user: str, cmd: Any, error: type[RulesError] = RulesError) -> RulesError:
    """The command is refused with `error`, and nothing is written."""
    head = svc.store.head(cid)
    with pytest.raises(error) as info:
        svc.execute(cid, user, cmd)
    assert svc.store.head(cid) == head
    return info.value


@pytest.fixture
def svc() -> TableService:
    """Larger Than Life campaign A, where Pat's Captain Comet earned Hero Points and raised his Fisticuffs, beside the
    GM's hidden villain; and campaign B of the same game, its GM another, with Pat and Sam playing."""
    service = TableService(MemoryEventStore(), rng=ScriptedRng([]))
    table(service, "a", Ruleset.LTL)
    service.execute("a", PAT, CreateLtlCharacter("comet", CAPTAIN_COMET))
    service.execute("a", GM, CreateLtlCharacter("entropy", DOCTOR_ENTROPY, npc=True, hidden=True))
    service.execute("a", GM, StartAdventure())
    service.execute("a", GM, EndAdventure({"comet": 30}))
    service.execute("a", PAT, SpendHeroPoints("comet", Improvement.RAISE_STYLE, "Fisticuffs"))
    table(service, "b", Ruleset.LTL, OTHER_GM)
    return service


def comet_file(svc: TableService) -> dict[str, Any]:
    return document(svc.state("a"), "comet", at="2026-12-04T10:00:00+00:00")


def test_a_file_carries_the_sheet_and_what_play_added_and_nothing_of_the_campaign(svc: TableService) -> None:
    made = comet_file(svc)
    assert made["format"] == FORMAT and made["format_version"] == 1 and made["game"] == "ltl"
    assert made["name"] == made["sheet"]["name"] == "Captain Comet"
    assert made["sheet"]["styles"] == {"Fisticuffs": "d20", "Flight": "d20"}  # raised: d12 to d20 (R-LTL-16)
    assert "hero_points" not in made["sheet"] and "history" not in made["sheet"]
    # 30 awarded, 20 spent on the two levels from d12 to d20 (R-LTL-1)
    assert made["advancement"] == {
        "hero_points": 10,
        "history": [
            {"improvement": "raise_style", "target": "Fisticuffs", "cost": 20, "before": "d12", "after": "d20"}
        ],
        "stunts": [],
    }
    said = repr(made)
    for elsewhere in ("Campaign a", "Doctor Entropy", "Pat", "entropy"):
        assert elsewhere not in said


def test_a_players_hero_waits_for_the_gm_unseen_by_others_and_plays_once_approved(svc: TableService) -> None:
    applied = svc.execute("b", PAT, ImportCharacter(comet_file(svc)))
    [arrived] = applied.events
    assert (arrived.type, arrived.visibility, arrived.owner) == ("character.arrived", "owner", PAT)
    cid = arrived.data["character"]
    assert cid.startswith("captain-comet-")  # its name, and a mark nobody would choose
    state = svc.state("b")
    assert not state.has_character(cid) and cid not in state.game.heroes
    # its player and the GM see it waiting; the other player and the spectator see nothing of it
    for who in (PAT, OTHER_GM):
        assert [a["ref"]["id"] for a in view_for(state, who)["arrivals"]] == [cid]
    for who in (SAM, SLY):
        assert view_for(state, who)["arrivals"] == []
        assert "Captain Comet" not in text_seen(svc, "b", who)
    assert "waits for the GM's approval" in text_seen(svc, "b", PAT)
    # it cannot act while it waits
    refused(svc, "b", PAT, Challenge(cid, DifficultyName.EASY), TableError)
    assert not any(a.fixed.get("character") == cid for a in legal_actions(state, PAT))
    # only the GM answers it
    refused(svc, "b", PAT, ApproveArrival(cid), Forbidden)
    approved = svc.execute("b", OTHER_GM, ApproveArrival(cid))
    assert [(e.type, e.visibility) for e in approved.events] == [
        ("character.joined", "public"),
        ("character.imported", "public"),
    ]
    state = svc.state("b")
    assert state.character(cid).owner == PAT and state.arrivals == ()
    comet = state.game.heroes[cid]
    assert comet.sheet.hero_points == 10 and comet.sheet.style("Fisticuffs").rating.name == "d20"
    assert [s.target for s in comet.sheet.history] == ["Fisticuffs"]
    assert any(a.fixed.get("character") == cid for a in legal_actions(state, PAT))
    assert "The GM approves Captain Comet" in text_seen(svc, "b", SAM)


def test_the_gm_turns_a_hero_away_with_a_reason_only_its_player_reads(svc: TableService) -> None:
    cid = svc.execute("b", PAT, ImportCharacter(comet_file(svc))).events[0].data["character"]
    error = refused(svc, "b", OTHER_GM, TurnAwayArrival(cid, "  "))
    assert "reason" in str(error)
    turned = svc.execute("b", OTHER_GM, TurnAwayArrival(cid, "Too powerful for this street-level campaign"))
    assert [(e.type, e.visibility, e.owner) for e in turned.events] == [("character.turned_away", "owner", PAT)]
    assert "The GM turns Captain Comet away: Too powerful for this street-level campaign" in text_seen(svc, "b", PAT)
    assert "street-level" not in text_seen(svc, "b", SAM)
    state = svc.state("b")
    assert state.arrivals == () and not state.taken(cid) and cid not in state.game.heroes
    refused(svc, "b", OTHER_GM, ApproveArrival(cid), TableError)


def test_a_file_is_checked_whole_and_every_problem_named_by_field_with_a_tip(svc: TableService) -> None:
    bad = copy.deepcopy(comet_file(svc))
    bad["sheet"].update(base="d7", styles={"Fisticuffs": "d4"}, hero_points=3)
    bad["advancement"].update(hero_points=-3, history=[{"improvement": "bribe_the_gm"}], karma="d20")
    bad["format_version"] = 9
    bad["colour"] = "blue"
    error = refused(svc, "b", PAT, ImportCharacter(bad), CharacterFileRefused)
    assert isinstance(error, CharacterFileRefused) and error.code == "character/file_refused"
    found = {p.field: p for p in error.problems}
    every = {"colour", "format_version", "sheet.hero_points", "advancement.karma", "advancement.hero_points"}
    assert every | {"advancement.history[0]", "sheet.base"} <= set(found), found
    assert all(p.fix for p in error.problems), [p for p in error.problems if not p.fix]
    assert "move it to advancement.hero_points" in found["sheet.hero_points"].fix
    assert "from 0 to 1000" in found["advancement.hero_points"].fix
    # with the ranges right, the rules read the sheet: a die no sheet holds, a Style below base Power (R-LTL-19)
    sheet_only = copy.deepcopy(comet_file(svc))
    sheet_only["sheet"].update(base="d7", styles={"Fisticuffs": "d4"})
    sheet_only["advancement"]["stunts"] = ["Star Fists"]
    error = refused(svc, "b", PAT, ImportCharacter(sheet_only), CharacterFileRefused)
    fields = {p.field: p.fix for p in error.problems}
    assert "sheet.base" in fields and "d4, d6, d8, d10, d12 or d20" in fields["sheet.base"]
    assert svc.state("b").arrivals == ()


def test_a_file_of_another_game_or_format_is_refused_naming_what_it_is(svc: TableService) -> None:
    made = comet_file(svc)
    svc.create_campaign(OTHER_GM, "Gina", "Ninja Island", Ruleset.CONVICTION, campaign_id="c")
    svc.execute("c", PAT, Join("Pat"))
    error = refused(svc, "c", PAT, ImportCharacter(made), CharacterFileRefused)
    assert isinstance(error, CharacterFileRefused)
    [problem] = error.problems
    assert (
        problem.field == "game" and "Larger Than Life character and this campaign plays Conviction" in problem.message
    )
    error = refused(svc, "b", PAT, ImportCharacter({**made, "format": "roll20.character"}), CharacterFileRefused)
    assert isinstance(error, CharacterFileRefused) and error.problems[0].field == "format"
    refused(svc, "b", PAT, ImportCharacter({**made, "portrait": {"media_type": "image/png", "data": "AAAA"}}))


def test_names_at_the_table_are_refused_with_a_tip_and_a_new_name_comes_in(svc: TableService) -> None:
    svc.execute("b", SAM, CreateLtlCharacter("comet", CAPTAIN_COMET))
    error = refused(svc, "b", PAT, ImportCharacter(comet_file(svc)), TableError)
    assert error.code == "character/name_taken" and "another name" in error.fix
    applied = svc.execute("b", PAT, ImportCharacter(renamed(comet_file(svc), "Comet Two")))
    cid = applied.events[0].data["character"]
    assert applied.events[0].data["name"] == "Comet Two"
    assert applied.events[0].data["sheet"]["name"] == "Comet Two"
    refused(svc, "b", PAT, ImportCharacter(renamed(comet_file(svc), "comet  TWO")), TableError)  # it waits: taken
    # a name taken meanwhile at the table (Sam's new hero): the GM is not offered the approval, and is told why
    svc.execute("b", SAM, CreateLtlCharacter("two", {**CAPTAIN_COMET, "name": "Comet Two"}))
    assert not [a for a in legal_actions(svc.state("b"), OTHER_GM) if a.type == ApproveArrival.type]
    error = refused(svc, "b", OTHER_GM, ApproveArrival(cid), TableError)
    assert error.code == "character/name_taken" and "turn it away" in error.fix


def test_players_import_their_own_heroes_and_the_gm_imports_npcs_at_once(svc: TableService) -> None:
    villain = document(svc.state("a"), "entropy")
    refused(svc, "b", SLY, ImportCharacter(villain), Forbidden)  # spectators watch
    refused(svc, "b", PAT, ImportCharacter(villain, npc=True, hidden=True), Forbidden)
    applied = svc.execute("b", OTHER_GM, ImportCharacter(villain, npc=True, hidden=True))
    assert [(e.type, e.visibility) for e in applied.events] == [
        ("character.joined", "public"),
        ("character.imported", "gm"),
    ]
    state = svc.state("b")
    ref = state.character("doctor-entropy")
    assert (ref.owner, ref.npc, ref.hidden) == (OTHER_GM, True, True)
    assert "Decay Field" not in text_seen(svc, "b", PAT)  # its sheet is the GM's; its name is public
    assert "Doctor Entropy" in text_seen(svc, "b", PAT)


def test_the_travels_fold_replay_snapshot_and_export_with_the_campaign(svc: TableService) -> None:
    first = svc.execute("b", PAT, ImportCharacter(comet_file(svc))).events[0].data["character"]
    svc.execute("b", OTHER_GM, ApproveArrival(first))
    second = svc.execute("b", SAM, ImportCharacter(renamed(comet_file(svc), "Meteor"))).events[0].data["character"]
    svc.execute("b", OTHER_GM, ImportCharacter(document(svc.state("a"), "entropy"), npc=True, hidden=True))
    state = svc.state("b")
    assert [a.ref.id for a in state.arrivals] == [second]
    assert replay_events(svc.store.load("b")) == state
    assert state_from_snapshot(snapshot_of(state)) == state
    other = MemoryEventStore()
    assert verified_import(other, export_campaign(svc.store, "b")) == state
    # undo does not reach across a character's coming (R-T-4): the approval is no action to undo
    assert state.done == ()


def test_a_conviction_character_travels_with_its_level_and_conviction() -> None:
    svc = TableService(MemoryEventStore(), rng=ScriptedRng([]))
    table(svc, "a", Ruleset.CONVICTION)
    kestrel = CvSheet(
        name="Kestrel",
        level=1,
        roles=(CvRole.WARRIOR, CvRole.EXPERT),
        abilities=Abilities(strength=2, dexterity=1, constitution=1, intelligence=0, wisdom=1, charisma=1),
        toughness=2,
        nature=Nature("Loyal", "Reckless"),
        combat_bonus=1,
        skills=(("Notice", 4),),
    )
    svc.execute("a", PAT, CreateCvCharacter("kes", replace(kestrel, level=2)))
    svc.execute("a", GM, RaiseLevel("kes"))  # level 3: the maximum rises to 4 and the point comes at once (R-CV-2)
    made = document(svc.state("a"), "kes")
    assert made["sheet"]["level"] == 3 and made["sheet"]["roles"] == ["warrior", "expert"]
    assert made["advancement"] == {"conviction": 4}
    table(svc, "b", Ruleset.CONVICTION, OTHER_GM)
    cid = svc.execute("b", PAT, ImportCharacter(made)).events[0].data["character"]
    svc.execute("b", OTHER_GM, ApproveArrival(cid))
    hero = svc.state("b").game.heroes[cid]
    assert (hero.sheet.level, hero.conviction, hero.sheet.first_role) == (3, 4, CvRole.WARRIOR)
    # Conviction past the level's maximum, and a sheet the rules refuse, are named with their ranges
    edited = copy.deepcopy(made)
    edited["advancement"]["conviction"] = 9
    edited["sheet"]["abilities"]["strength"] = 14
    edited["sheet"]["skills"] = [["Notice", 40]]
    error = refused(svc, "b", SAM, ImportCharacter(renamed(edited, "Kestrel Two")), CharacterFileRefused)
    fields = {p.field: p.fix for p in error.problems}
    assert "from 0 to 4" in fields["advancement.conviction"]
    assert "-5 to +10" in fields["sheet.abilities.strength"]
    assert "sheet.skills[0]" in fields
    wrong = {**made, "sheet": {**made["sheet"], "level": "three"}}
    error = refused(svc, "b", SAM, ImportCharacter(renamed(wrong, "Kestrel Two")), CharacterFileRefused)
    assert error.problems[0].field == "sheet.level"


def test_a_player_who_left_leaves_their_waiting_hero_to_the_gm(svc: TableService) -> None:
    from herotable.table.structure import RemoveMember

    cid = svc.execute("b", PAT, ImportCharacter(comet_file(svc))).events[0].data["character"]
    svc.execute("b", PAT, RemoveMember(PAT))
    assert [a["ref"]["id"] for a in view_for(svc.state("b"), OTHER_GM)["arrivals"]] == [cid]
    svc.execute("b", OTHER_GM, ApproveArrival(cid))
    assert svc.state("b").character(cid).owner == OTHER_GM
    assert "character.imported" in seen_types(svc, "b", SAM)
    assert ("character.arrived", "sam") not in [(k, p.get("owner")) for k, p in seen(svc, "b", SAM)]


def test_stunts_pulled_off_with_karma_travel_and_must_name_a_power_of_the_sheet(svc: TableService) -> None:
    # R-LTL-10, R-LTL-16: a stunt pulled off in play is learned for less; the file carries it, naming its Power
    made = comet_file(svc)
    made["advancement"]["stunts"] = ["Cosmic Flight: Barrel Roll", "Tin Opener: Can"]
    error = refused(svc, "b", PAT, ImportCharacter(made), CharacterFileRefused)
    [problem] = error.problems
    assert problem.field == "advancement.stunts[1]" and "not among the hero's Superpowers" in problem.message
    made["advancement"]["stunts"] = ["Cosmic Flight: Barrel Roll"]
    cid = svc.execute("b", PAT, ImportCharacter(made)).events[0].data["character"]
    svc.execute("b", OTHER_GM, ApproveArrival(cid))
    assert svc.state("b").game.heroes[cid].stunts_pulled_off == ("Cosmic Flight: Barrel Roll",)
    assert document(svc.state("b"), cid)["advancement"]["stunts"] == ["Cosmic Flight: Barrel Roll"]
    bought = svc.execute("b", PAT, SpendHeroPoints(cid, Improvement.ADD_POWER_STUNT, "Cosmic Flight", "Barrel Roll"))
    spent = next(e for e in bought.events if e.type == "ltl.hero_points_spent")
    assert spent.data["cost"] == 1  # a known stunt costs 1 Hero Point, not 3


def test_a_hand_edited_sheet_is_recorded_as_the_rules_read_it_so_the_campaign_folds_after_approval(
    svc: TableService,
) -> None:
    edited = comet_file(svc)
    edited["sheet"]["superpowers"] = [p["name"] for p in edited["sheet"]["superpowers"]]  # bare names, as typed
    [arrived] = svc.execute("b", PAT, ImportCharacter(edited)).events
    recorded = arrived.data["sheet"]["superpowers"]
    assert recorded and all(isinstance(p, dict) and p["name"] for p in recorded)
    cid = arrived.data["character"]
    svc.execute("b", OTHER_GM, ApproveArrival(cid))
    assert replay_events(svc.store.load("b")).game.heroes[cid].sheet.superpowers == tuple(
        svc.state("b").game.heroes[cid].sheet.superpowers
    )
    assert verified_import(MemoryEventStore(), export_campaign(svc.store, "b")).has_character(cid)


def test_a_players_import_learns_nothing_of_another_players_waiting_hero_and_the_gm_sees_the_clash(
    svc: TableService,
) -> None:
    [first] = svc.execute("b", PAT, ImportCharacter(comet_file(svc))).events
    [second] = svc.execute("b", SAM, ImportCharacter(renamed(comet_file(svc), "captain  COMET"))).events
    assert second.type == "character.arrived"  # Sam is not told that Pat's hero waits under that name
    svc.execute("b", OTHER_GM, ApproveArrival(first.data["character"]))
    clashing = refused(svc, "b", OTHER_GM, ApproveArrival(second.data["character"]))
    assert clashing.code == "character/name_taken"


@pytest.mark.parametrize("look_alike", ["Captain\u200b Comet", "Ｃaptain Comet"])
def test_a_name_that_only_looks_different_clashes(svc: TableService, look_alike: str) -> None:
    svc.execute("b", OTHER_GM, ImportCharacter(comet_file(svc)))
    clashing = refused(svc, "b", OTHER_GM, ImportCharacter(renamed(comet_file(svc), look_alike)))
    assert clashing.code == "character/name_taken"
