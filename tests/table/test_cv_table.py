"""Conviction at the table: every command through the service, with scripted dice, per-viewer visibility,
permissions, undo and replay (R-CV-1 … R-CV-14, R-T-1, R-T-2, R-T-4)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from herotable.conviction import Abilities, Ability, ActionKind, Lethal, Nature, NatureTrait, Setback, ShakeOff, Side
from herotable.conviction import Role as CvRole
from herotable.dice import ScriptedRng
from herotable.errors import IllegalAction, NotEnough, RulesError
from herotable.service import TableService, replay_events
from herotable.store.memory import MemoryEventStore
from herotable.table.commands import Command
from herotable.table.conviction.commands import (
    AddFatigue,
    Announce,
    AwardNature,
    BeginTurns,
    CallCheck,
    CreateCvCharacter,
    CvOverride,
    CvSheet,
    DesignateWit,
    Determination,
    DyingCheck,
    EscapeDeath,
    Expertise,
    GainFromSetback,
    HeroicFeat,
    InterfereExit,
    OverrideCheck,
    PassExit,
    PressExit,
    RaiseLevel,
    RecoverNow,
    RecoveryCheck,
    RegainCheck,
    Reroll,
    Rest,
    RollCheck,
    SetPresence,
    SetSides,
    ShakeOffCondition,
    StartExit,
    StartRound,
    StrenuousGuard,
    Stun,
    Surge,
    TakeAction,
    TheTalent,
    ToughnessSave,
    UseTalentPower,
    UseWit,
)
from herotable.table.fold import snapshot_of, state_from_snapshot
from herotable.table.legal import legal_actions
from herotable.table.state import Forbidden, Role, Ruleset, TableError, TableState
from herotable.table.structure import (
    EndAdventure,
    EndScene,
    EndSession,
    Join,
    MarkDramatic,
    RemoveMember,
    StartAdventure,
    StartScene,
    StartSession,
)
from herotable.table.undo import Undo

from .helpers import seen, seen_types, text_seen

CID = "isle"
GM, ANA, BEN, SAM = "gm", "ana", "ben", "sam"
Facts = dict[str, dict[str, Any]]


def sheet(name: str, role: CvRole = CvRole.WARRIOR, **changes: Any) -> CvSheet:
    base = CvSheet(
        name=name,
        level=1,
        roles=(role,),
        abilities=Abilities(strength=2, dexterity=1, constitution=1, intelligence=0, wisdom=1, charisma=1),
        toughness=2,
        nature=Nature("Loyal", "Reckless"),
        combat_bonus=1,
        skills=(("Notice", 4), ("Diplomacy", 2)),
    )
    return replace(base, **changes)


def run(svc: TableService, user: str, cmd: Command, *faces: int) -> Facts:
    """Execute with exactly these d20 faces; return the command's facts by type (the last of each type)."""
    rng = ScriptedRng([(20, f) for f in faces])
    svc.rng = rng
    applied = svc.execute(CID, user, cmd)
    assert rng.remaining == 0
    return {e.type: dict(e.data) for e in applied.events}


def roll(svc: TableService, user: str, cmd: RollCheck, *faces: int) -> Facts:
    """A player's check as the table runs it: the GM calls for it, then the player rolls it (R-T-3). Returns the
    roll's facts by type."""
    called = CallCheck(cmd.character, cmd.difficulty or 0, cmd.label, cmd.modifier, cmd.ability, cmd.skill)
    call = run(svc, GM, called)["cv.check_called"]["call"]
    return run(svc, user, RollCheck(cmd.character, call=call), *faces)


def refused(svc: TableService, user: str, cmd: Command, error: type[RulesError] = RulesError) -> RulesError:
    """The command is refused with `error` and nothing is appended."""
    head = svc.store.head(CID)
    svc.rng = ScriptedRng([(20, 10)] * 3)
    with pytest.raises(error) as info:
        svc.execute(CID, user, cmd)
    assert svc.store.head(CID) == head
    return info.value


def state(svc: TableService) -> TableState:
    return svc.state(CID)


def hero(svc: TableService, cid: str) -> Any:
    return state(svc).game.hero(cid)


def conviction(svc: TableService, cid: str) -> int:
    return int(hero(svc, cid).conviction)


def conditions(svc: TableService, cid: str) -> list[str]:
    return list(hero(svc, cid).conditions.names())


def pending(svc: TableService, user: str) -> list[dict[str, Any]]:
    """The pending checks `user` sees, as the view shows them."""
    checks: list[dict[str, Any]] = svc.view(CID, user)["game"]["checks"]
    return checks


def assert_replays(svc: TableService) -> None:
    assert replay_events(svc.store.load(CID)) == svc.state(CID)


@pytest.fixture
def svc() -> TableService:
    """A Conviction campaign: two players with a hero each, a spectator, and the GM's hidden villain, in a scene."""
    service = TableService(MemoryEventStore(), rng=ScriptedRng([]))
    service.create_campaign(GM, "Gwen", "Ninja Island", Ruleset.CONVICTION, campaign_id=CID)
    run(service, ANA, Join("Ana"))
    run(service, BEN, Join("Ben"))
    run(service, SAM, Join("Sam", Role.SPECTATOR))
    run(service, ANA, CreateCvCharacter("kes", sheet("Kestrel")))
    run(service, BEN, CreateCvCharacter("mo", sheet("Moss", CvRole.EXPERT)))
    run(service, GM, CreateCvCharacter("rex", sheet("Captain Rex"), npc=True, hidden=True))
    for cmd in (StartAdventure(), StartSession(), StartScene()):
        run(service, GM, cmd)
    run(service, GM, StartRound(), 12, 10, 5)  # initiative, d20 + Dexterity +1 each: Kestrel, Moss, Captain Rex
    run(service, GM, BeginTurns())  # announced, no re-roll spent on it (R-CV-4 amended)
    return service


# --- characters ---


def test_characters_start_with_their_levels_conviction_and_a_hidden_npc_is_gm_only(svc: TableService) -> None:
    # R-CV-2: 3 points at 1st level; a hidden NPC's sheet reaches only the GM, its name everyone
    assert conviction(svc, "kes") == 3
    rex = state(svc).character("rex")
    assert rex.hidden and rex.owner == GM
    assert [p["character"] for t, p in seen(svc, CID, ANA) if t == "character.joined"] == ["kes", "mo", "rex"]
    assert [p["character"] for t, p in seen(svc, CID, ANA) if t == "cv.sheet_recorded"] == ["kes", "mo"]
    assert [p["character"] for t, p in seen(svc, CID, GM) if t == "cv.sheet_recorded"] == ["kes", "mo", "rex"]
    rex_for_ana = svc.view(CID, ANA)["game"]["heroes"]["rex"]
    assert rex_for_ana == {"name": "Captain Rex", "hidden": True, "status": []}
    assert svc.view(CID, GM)["game"]["heroes"]["rex"]["sheet"]["toughness"] == 2
    assert_replays(svc)


def test_players_create_only_their_own_heroes_and_names_are_unique(svc: TableService) -> None:
    # R-T-2: the GM creates NPCs; players their own heroes; spectators none
    refused(svc, ANA, CreateCvCharacter("goon", sheet("Goon"), npc=True), Forbidden)
    refused(svc, ANA, CreateCvCharacter("b2", sheet("Bee"), owner=BEN), Forbidden)
    refused(svc, SAM, CreateCvCharacter("s", sheet("Sam's")), Forbidden)
    refused(svc, ANA, CreateCvCharacter("kes2", sheet("kestrel")), TableError)  # the engine knows heroes by name
    refused(svc, ANA, CreateCvCharacter("kes", sheet("Other")), TableError)
    err = refused(svc, ANA, CreateCvCharacter("x", sheet("X", level=0)))
    assert (err.code, err.field) == ("table/out_of_range", "sheet.level")  # R-CV-2, R-T-5: a level is 1..20


def test_an_ltl_campaign_refuses_conviction_commands() -> None:
    # R-T-1: a campaign uses one ruleset
    service = TableService(MemoryEventStore(), rng=ScriptedRng([]))
    service.create_campaign(GM, "Gwen", "Capes", Ruleset.LTL, campaign_id=CID)
    assert refused(service, GM, CreateCvCharacter("kes", sheet("Kestrel")), TableError).code == "table/other_game"
    refused(service, GM, StartRound(), TableError)


# --- checks: pending, re-roll, announce (R-CV-1, R-CV-4) ---


def test_a_pending_check_reaches_only_the_roller_and_the_gm(svc: TableService) -> None:
    # R-CV-4: the roller and the GM see a pending roll; everyone else when it is announced
    rolled = roll(svc, ANA, RollCheck("kes", 15, ability=Ability.STRENGTH, skill="Notice"), 7)["cv.check_rolled"]
    assert (rolled["first"], rolled["modifier"], rolled["difficulty"]) == (7, 6, 15)  # R-CV-1
    [shown] = pending(svc, ANA)
    assert (shown["total"], shown["succeeded"]) == (13, False)
    assert "cv.check_rolled" in seen_types(svc, CID, ANA) and "cv.check_rolled" in seen_types(svc, CID, GM)
    assert "cv.check_rolled" not in seen_types(svc, CID, BEN) + seen_types(svc, CID, SAM)
    assert len(pending(svc, GM)) == 1 and pending(svc, BEN) == []
    assert_replays(svc)


def test_conviction_reroll_counts_plus_ten_and_the_announcement_is_public(svc: TableService) -> None:
    # R-CV-4: a 1–10 on the re-roll counts as 11–20; keep the better; then announced to everyone
    roll(svc, ANA, RollCheck("kes", 15, label="climb the rigging", ability=Ability.STRENGTH), 7)
    said = run(svc, ANA, Reroll(), 4)
    assert said["cv.check_rerolled"]["face"] == 4 and said["cv.conviction_spent"]["conviction"] == 2
    [shown] = pending(svc, ANA)
    assert (shown["d20"], shown["reroll"], shown["reroll_counts_as"], shown["kept"], shown["total"]) == (
        7,
        4,
        14,
        14,
        16,
    )
    assert "cv.check_rerolled" not in seen_types(svc, CID, BEN)
    assert "cv.conviction_spent" in seen_types(svc, CID, BEN)  # a spend is made at the table
    assert refused(svc, ANA, Reroll()).code == "conviction/already_rerolled"  # a roll takes one re-roll
    run(svc, ANA, Announce())
    [announced] = [p for t, p in seen(svc, CID, BEN) if t == "cv.check_announced"]
    assert (announced["first"], announced["second"], announced["total"], announced["succeeded"]) == (7, 4, 16, True)
    assert state(svc).game.checks == ()
    refused(svc, ANA, Reroll(), TableError)  # R-CV-4: nothing pending any more
    assert_replays(svc)


def test_a_secret_gm_roll_stays_gm_only_even_announced(svc: TableService) -> None:
    # R-CV-4, R-T-2: secret rolls are the GM's; players may not make them, see them, or learn their ids
    refused(svc, ANA, RollCheck("kes", 10, secret=True), Forbidden)
    secret = svc.execute(CID, GM, RollCheck("kes", 12, label="ambush Notice", skill="Notice", secret=True))
    assert pending(svc, ANA) == []
    err = refused(svc, ANA, Reroll(), TableError)
    assert secret.events[0].command_id not in err.reason + err.fix
    run(svc, GM, Announce())
    for user in (ANA, BEN, SAM):
        assert not {"cv.check_rolled", "cv.check_announced"} & set(seen_types(svc, CID, user))
        assert secret.events[0].command_id not in text_seen(svc, CID, user)
    assert {"cv.check_rolled", "cv.check_announced"} <= set(seen_types(svc, CID, GM))
    assert_replays(svc)


def test_the_gm_overrides_a_pending_check_with_a_reason(svc: TableService) -> None:
    # R-T-2: the GM can override any computed result; the override is logged with who made it
    roll(svc, BEN, RollCheck("mo", 20, label="leap the chasm"), 3)
    refused(svc, BEN, OverrideCheck(True, "pity"), Forbidden)
    refused(svc, GM, OverrideCheck(True, "  "), TableError)
    check_id = pending(svc, BEN)[0]["id"]
    said = run(svc, GM, OverrideCheck(True, "the rope holds"))
    assert said["cv.check_overridden"] == {"check": check_id, "succeeded": True, "by": GM, "reason": "the rope holds"}
    announced = run(svc, BEN, Announce())["cv.check_announced"]
    assert announced["succeeded"] and announced["overridden"] and announced["total"] < announced["difficulty"]
    assert_replays(svc)


# --- spending limits and rounds (R-CV-3, R-CV-5, R-CV-8) ---


def test_one_point_a_round_then_a_new_round_allows_another(svc: TableService) -> None:
    # R-CV-3: at most one point per round
    assert run(svc, ANA, Surge("kes", ActionKind.STANDARD))["cv.conviction_spent"]["conviction"] == 2
    err = refused(svc, ANA, Surge("kes", ActionKind.MOVE), IllegalAction)
    assert err.code == "conviction/once_per_round"
    run(svc, GM, StartRound())
    run(svc, ANA, Surge("kes", ActionKind.MOVE))
    assert conviction(svc, "kes") == 1
    assert_replays(svc)


def test_a_surge_adds_an_action_to_the_round(svc: TableService) -> None:
    # R-CV-5: one extra standard action this round
    run(svc, ANA, TakeAction("kes", ActionKind.STANDARD, what="swing"))
    run(svc, ANA, TakeAction("kes", ActionKind.MOVE))
    assert refused(svc, ANA, TakeAction("kes", ActionKind.STANDARD)).code == "actions/none_left"
    run(svc, ANA, Surge("kes"))
    said = run(svc, ANA, TakeAction("kes", ActionKind.STANDARD, what="swing again"))
    assert said["cv.action_taken"]["what"] == "swing again"
    assert refused(svc, ANA, TakeAction("kes", ActionKind.MOVE)).code == "actions/none_left"
    assert_replays(svc)


def test_disabled_spends_freely_until_a_bought_recovery_ends_disabled(svc: TableService) -> None:
    # R-CV-3 (Disabled exception and its recovery edge case), R-CV-8, R-CV-9, R-CV-13
    run(svc, GM, ToughnessSave("kes", damage_bonus=5, attacker="rex"), 5)  # 5 + 2 = 7 vs 20: fails by 13
    assert "cv.check_rolled" in seen_types(svc, CID, ANA) and "cv.check_rolled" not in seen_types(svc, CID, BEN)
    run(svc, ANA, Announce())
    assert conditions(svc, "kes")[0] == "disabled" and conviction(svc, "kes") == 4  # by an enemy: +1, above 3
    run(svc, ANA, StrenuousGuard("kes"))
    run(svc, ANA, Surge("kes", ActionKind.STANDARD))  # a second point this round: Disabled may
    assert not run(svc, ANA, TakeAction("kes", ActionKind.STANDARD))["cv.action_taken"]["dropped_to_dying"]
    run(svc, ANA, RecoverNow("kes"), 15)  # a third point: a recovery check now
    assert run(svc, ANA, Announce())["cv.check_announced"]["succeeded"]
    assert "disabled" not in conditions(svc, "kes") and conviction(svc, "kes") == 1
    err = refused(svc, ANA, Surge("kes", ActionKind.MOVE), IllegalAction)
    assert err.code == "conviction/recovered_from_disabled"
    run(svc, GM, StartRound())
    run(svc, ANA, Surge("kes", ActionKind.MOVE))
    assert_replays(svc)


def test_a_strenuous_action_while_disabled_drops_to_dying(svc: TableService) -> None:
    # R-CV-8: a strenuous action while Disabled drops the character to dying
    run(svc, GM, CvOverride("kes", "the cliff fall", lethal=Lethal.DISABLED))
    run(svc, GM, StartRound())
    run(svc, ANA, Surge("kes", ActionKind.STANDARD))
    assert run(svc, ANA, TakeAction("kes", ActionKind.STANDARD))["cv.action_taken"]["dropped_to_dying"]
    assert conditions(svc, "kes")[0] == "dying"
    assert_replays(svc)


# --- damage, dying, escape death (R-CV-8, R-CV-10) ---


def test_damage_to_dying_then_an_assisting_ally_escapes_death_for_them(svc: TableService) -> None:
    # R-CV-8: failing by 15+ against lethal damage is dying; R-CV-10: an assisting ally stabilises
    refused(svc, BEN, ToughnessSave("kes", damage_bonus=5), Forbidden)  # no attacker named: the GM's call
    refused(svc, BEN, ToughnessSave("kes", damage_bonus=5, attacker="rex"), Forbidden)  # not Ben's attacker
    run(svc, GM, ToughnessSave("kes", damage_bonus=5, attacker="rex"), 1)  # 1 + 2 = 3 vs 20: fails by 17
    run(svc, ANA, Announce())
    assert conditions(svc, "kes")[0] == "dying" and conviction(svc, "kes") == 4  # knocked out: +1 (R-CV-13)
    run(svc, ANA, DyingCheck("kes"), 12)  # 12 + 1 = 13 vs 10: alive, not stable
    assert run(svc, ANA, Announce())["cv.check_announced"]["succeeded"]
    assert conditions(svc, "kes")[0] == "dying"
    refused(svc, ANA, DyingCheck("kes"), IllegalAction)  # one a round
    assert refused(svc, BEN, EscapeDeath("mo", "kes")).code == "conviction/not_assisting"
    refused(svc, ANA, EscapeDeath("mo", "kes", assisting=True), Forbidden)  # Ana cannot spend Moss's point
    run(svc, BEN, EscapeDeath("mo", "kes", assisting=True))
    assert conditions(svc, "kes")[:2] == ["disabled", "unconscious"]
    assert conviction(svc, "mo") == 2 and conviction(svc, "kes") == 4
    assert hero(svc, "kes").conditions.stable
    assert_replays(svc)


def test_a_dying_hero_escapes_death_on_their_own(svc: TableService) -> None:
    # R-CV-10: yourself
    run(svc, GM, ToughnessSave("kes", damage_bonus=5, attacker="rex"), 2)
    run(svc, ANA, Announce())
    run(svc, ANA, EscapeDeath("kes"))
    assert hero(svc, "kes").conditions.stable
    assert_replays(svc)


def test_a_players_attack_makes_the_hidden_villain_save_out_of_sight(svc: TableService) -> None:
    # R-T-3: Ben's attack hits, the GM calls for the save; the effects touch the GM's villain; R-CV-4: the GM sees
    # it pending
    refused(svc, BEN, ToughnessSave("rex", damage_bonus=2, attacker="mo", by_enemy=False), Forbidden)
    run(svc, GM, ToughnessSave("rex", damage_bonus=2, lethal=False, attacker="mo"), 6)  # 8 vs 17: fails by 9
    assert "cv.check_rolled" not in seen_types(svc, CID, BEN)
    refused(svc, BEN, Announce(), TableError)  # Ben cannot see it, so there is nothing he could name
    run(svc, GM, Announce())
    assert conditions(svc, "rex") == ["dazed", "bruised x1"]
    assert svc.view(CID, BEN)["game"]["heroes"]["rex"]["status"] == ["dazed", "bruised x1"]
    ben = seen(svc, CID, BEN)
    assert ben[-1] == (
        "cv.conditions_changed",
        {"character": "rex", "changes": {"bruised": 1, "nonlethal": 2, "dazed_rounds": 1}, "cause": "toughness save"},
    )
    assert not any(t in ("cv.check_rolled", "cv.check_announced") and p["character"] == "rex" for t, p in ben)
    assert_replays(svc)


def test_stun_fatigue_rest_and_shaking_off(svc: TableService) -> None:
    # R-CV-8: stunned, strained → fatigued; R-CV-9: shake off stunned or strained
    refused(svc, ANA, Stun("mo"), Forbidden)
    run(svc, GM, Stun("kes", attacker="rex"))
    assert refused(svc, ANA, Surge("kes")).code == "conviction/cannot_act"
    run(svc, ANA, ShakeOffCondition("kes", ShakeOff.STUNNED))
    assert not hero(svc, "kes").conditions.stunned
    run(svc, GM, AddFatigue("mo"))
    run(svc, BEN, ShakeOffCondition("mo", ShakeOff.STRAINED))
    run(svc, GM, AddFatigue("mo", steps=2))
    refused(svc, BEN, Rest("mo"), Forbidden)
    refused(svc, GM, Rest("mo", steps=0), TableError)
    run(svc, GM, Rest("mo"))
    assert conditions(svc, "mo") == ["strained"]
    assert_replays(svc)


def test_recovery_check_improves_one_step(svc: TableService) -> None:
    # R-CV-8: a recovery check is Constitution against 10
    refused(svc, ANA, RecoveryCheck("kes"), IllegalAction)  # nothing to recover from
    run(svc, GM, ToughnessSave("kes", damage_bonus=0, attacker="rex"), 12)  # 14 vs 15: hurt
    run(svc, ANA, Announce())
    run(svc, ANA, RecoveryCheck("kes"), 10)
    run(svc, ANA, Announce())
    assert conditions(svc, "kes") == []
    assert_replays(svc)


# --- spends: feats and core abilities (R-CV-6, R-CV-7) ---


def test_heroic_feat_from_the_sample_catalogue(svc: TableService) -> None:
    # R-CV-6: a feat open to one of the roles whose prerequisites the sheet meets, for one round
    assert refused(svc, ANA, HeroicFeat("kes", "Keen Eye")).code == "conviction/feat_out_of_reach"  # expert feat
    assert refused(svc, ANA, HeroicFeat("kes", "Kraken Grip")).code == "conviction/unknown_feat"
    said = run(svc, ANA, HeroicFeat("kes", "Heavy Swing"))
    assert said["cv.spent"]["detail"] == "Heavy Swing" and hero(svc, "kes").feat_count("Heavy Swing") == 1
    run(svc, GM, StartRound())
    assert hero(svc, "kes").feat_count("Heavy Swing") == 0
    assert_replays(svc)


def test_the_three_core_abilities(svc: TableService) -> None:
    # R-CV-7: only the role taken at 1st level
    run(svc, GM, CreateCvCharacter("zu", sheet("Zu", CvRole.ADEPT), owner=ANA))
    assert refused(svc, ANA, Expertise("kes", "Notice")).code == "conviction/not_first_role"
    run(svc, BEN, Expertise("mo", "Notice"))
    assert roll(svc, BEN, RollCheck("mo", 15, skill="Notice"), 5)["cv.check_rolled"]["modifier"] == 8  # 4 + 4
    run(svc, BEN, Announce())
    run(svc, GM, ToughnessSave("kes", damage_bonus=0, attacker="rex"), 12)
    run(svc, ANA, Announce())
    run(svc, ANA, Determination("kes"))
    assert conditions(svc, "kes") == []
    run(svc, ANA, TheTalent("zu", power="Storm Calling"))
    run(svc, ANA, UseTalentPower("zu", "Storm Calling"))
    refused(svc, ANA, UseTalentPower("zu", "Storm Calling"), IllegalAction)
    run(svc, GM, EndScene())
    assert hero(svc, "mo").skill_rank("Notice") == 4  # Expertise lasts the scene
    assert_replays(svc)


# --- Quotable Wit (R-CV-12) ---


def test_quotable_wit_designated_used_limited_per_session_and_reset(svc: TableService) -> None:
    # R-CV-12: +2 by anyone who heard it, enemies too; once each; three uses a game session
    everyone = ("kes", "mo", "rex")
    said = run(svc, ANA, DesignateWit("kes", "Never trust a parrot with a cutlass.", speaker="kes", heard_by=everyone))
    assert said["cv.wit_designated"]["wit"] == 1 and conviction(svc, "kes") == 2
    assert said["cv.wit_designated"]["heard_by"] == ["Captain Rex", "Kestrel", "Moss"]
    run(svc, BEN, DesignateWit("mo", "The tide waits for no pirate.", speaker="mo", heard_by=everyone))
    run(svc, GM, DesignateWit("rex", "Mine, all mine!", speaker="rex", heard_by=everyone))
    run(svc, GM, StartRound())
    run(svc, ANA, DesignateWit("kes", "Duck!", speaker="kes", heard_by=everyone))

    roll(svc, BEN, RollCheck("mo", 15, label="talk past the guard"), 11)
    said = run(svc, BEN, UseWit(1))
    assert said["cv.check_bonus"] == {"check": pending(svc, BEN)[0]["id"], "source": "Quotable Wit #1", "amount": 2}
    assert pending(svc, BEN)[0]["total"] == 13 and state(svc).game.wits.session_uses == 1
    assert "cv.check_bonus" not in seen_types(svc, CID, ANA)  # it boosts a pending roll: private like the roll
    assert "cv.wit_used" in seen_types(svc, CID, ANA)  # that the line was used is said at the table
    run(svc, BEN, Announce())
    run(svc, GM, RollCheck("rex", 12, label="Rex gloats"), 9)
    run(svc, GM, UseWit(2, hijack=True))  # an enemy turns Moss's line around
    run(svc, GM, Announce())
    roll(svc, ANA, RollCheck("kes", 12), 9)
    assert refused(svc, ANA, UseWit(1)).code == "quotable_wit/used"
    run(svc, ANA, UseWit(3))
    run(svc, ANA, Announce())
    roll(svc, BEN, RollCheck("mo", 12), 9)
    assert refused(svc, BEN, UseWit(4)).code == "quotable_wit/session_limit"
    assert refused(svc, ANA, UseWit(4), TableError).code == "table/no_check"  # Ben's pending roll is not Ana's to see
    run(svc, BEN, Announce())
    run(svc, GM, EndScene())
    run(svc, GM, EndSession())
    run(svc, GM, StartSession())
    assert state(svc).game.wits.session_uses == 0
    roll(svc, BEN, RollCheck("mo", 12), 9)
    run(svc, BEN, UseWit(4))
    assert pending(svc, BEN)[0]["total"] == 11 and state(svc).game.wits.session_uses == 1
    assert_replays(svc)


def test_a_wit_needs_a_listener_and_a_related_roll(svc: TableService) -> None:
    # R-CV-12: only those who heard it; the GM rules whether the situation is related
    run(svc, ANA, DesignateWit("kes", "Steady now.", speaker="kes", heard_by=()))
    roll(svc, BEN, RollCheck("mo", 10), 10)
    assert refused(svc, BEN, UseWit(1)).code == "quotable_wit/not_heard"
    run(svc, BEN, Announce())
    roll(svc, ANA, RollCheck("kes", 10), 10)
    assert refused(svc, ANA, UseWit(1, related=False), Forbidden).code == "cv/wit_related"  # the GM's call
    assert refused(svc, GM, UseWit(1, related=False)).code == "quotable_wit/unrelated"
    assert refused(svc, ANA, DesignateWit("kes", " ", speaker="kes")).code == "table/blank"


# --- exit a scene (R-CV-11) ---


def test_an_exit_with_interference_each_side_within_its_limit(svc: TableService) -> None:
    # R-CV-11: interfering points cancel exit points; either side answers within its spending limit
    run(svc, ANA, StartExit("kes"))
    refused(svc, BEN, StartExit("mo"), TableError)  # one exit at a time
    refused(svc, BEN, PassExit(Side.EXIT), Forbidden)  # not Ben's exit
    refused(svc, BEN, PassExit(Side.INTERFERE, "mo"), Forbidden)  # Moss has not interfered
    run(svc, GM, InterfereExit("rex"))
    bid = state(svc).game.exit_bid
    assert bid is not None and bid.interference == (("Captain Rex", 1),) and not bid.closed
    assert refused(svc, ANA, PressExit()).code == "conviction/once_per_round"  # R-CV-3
    refused(svc, GM, EndScene(), TableError)  # the bidding is still open
    run(svc, GM, StartRound())
    refused(svc, BEN, PressExit(), Forbidden)
    run(svc, ANA, PressExit())
    resolved = run(svc, GM, PassExit(Side.INTERFERE))["cv.exit_resolved"]
    assert resolved == {"character": "kes", "exits": True, "exit_points": 2, "interfering_points": 1}
    assert state(svc).game.exit_bid is None
    assert conviction(svc, "kes") == 1 and conviction(svc, "rex") == 2
    assert_replays(svc)


def test_an_unopposed_exit_and_a_held_one(svc: TableService) -> None:
    # R-CV-11: the exit happens only if exit points outnumber interfering points
    run(svc, BEN, StartExit("mo"))
    run(svc, ANA, InterfereExit("kes"))  # a player may interfere too
    run(svc, ANA, PassExit(Side.INTERFERE, "kes"))
    resolved = run(svc, BEN, PassExit(Side.EXIT))["cv.exit_resolved"]
    assert not resolved["exits"]
    assert "Moss is held in the scene" in text_seen(svc, CID, SAM)
    assert_replays(svc)


# --- regaining Conviction (R-CV-2, R-CV-13) ---


def test_the_dramatic_scene_regain_check_is_offered_once(svc: TableService) -> None:
    # R-CV-13: after a scene the GM marks dramatic, each character below maximum makes one Charisma check
    run(svc, ANA, Surge("kes"))
    assert refused(svc, ANA, RegainCheck("kes")).code == "conviction/no_regain_check"
    run(svc, GM, MarkDramatic())
    said = run(svc, GM, EndScene())
    assert said["structure.scene_ended"]["dramatic"]
    # R-CV-13 (amended): offered only to those below the maximum when the scene ends
    assert refused(svc, BEN, RegainCheck("mo")).code == "conviction/no_regain_check"
    run(svc, ANA, RegainCheck("kes"), 9)  # 9 + 1 = 10 vs 10
    assert run(svc, ANA, Announce())["cv.check_announced"]["succeeded"] and conviction(svc, "kes") == 3
    run(svc, GM, StartRound(), 12, 10, 5)  # the scene's rounds ended with it: initiative is rolled again (R-CV-14)
    run(svc, GM, BeginTurns())
    run(svc, ANA, Surge("kes"))
    assert refused(svc, ANA, RegainCheck("kes")).code == "conviction/no_regain_check"  # once per dramatic scene
    run(svc, GM, StartScene(dramatic=False))
    said = run(svc, GM, EndScene())
    assert not said["structure.scene_ended"]["dramatic"]
    assert not any(h.regain_check_due for h in state(svc).game.heroes.values())
    assert_replays(svc)


def test_nature_awards_stop_at_the_maximum_setbacks_do_not(svc: TableService) -> None:
    # R-CV-2, R-CV-13: Nature never above the maximum; a setback at an enemy's hands may go above
    refused(svc, ANA, AwardNature("kes", NatureTrait.VIRTUE), Forbidden)
    assert refused(svc, GM, AwardNature("kes", NatureTrait.VIRTUE)).code == "conviction/at_maximum"
    run(svc, ANA, Surge("kes"))
    said = run(svc, GM, AwardNature("kes", NatureTrait.VICE, note="charged the whole crew alone"))
    assert said["cv.conviction_gained"] == {
        "character": "kes",
        "points": 1,
        "conviction": 3,
        "reason": "vice: charged the whole crew alone",
    }
    refused(svc, ANA, GainFromSetback("kes", Setback.KNOCKED_OUT), Forbidden)
    run(svc, GM, GainFromSetback("kes", Setback.MIND_CONTROLLED_BY_ENEMY))
    assert conviction(svc, "kes") == 4
    assert_replays(svc)


def test_gm_override_of_conviction_and_conditions(svc: TableService) -> None:
    # R-T-2: the GM overrides any computed result, with a reason, logged with who made it
    refused(svc, ANA, CvOverride("kes", "I feel lucky", conviction=9), Forbidden)
    refused(svc, GM, CvOverride("kes", "", conviction=9), TableError)
    refused(svc, GM, CvOverride("kes", "oops", conviction=-1), TableError)
    said = run(svc, GM, CvOverride("kes", "blessing of the sea god", conviction=5, bruised=2))
    assert said["cv.overridden"] == {"character": "kes", "reason": "blessing of the sea god", "by": GM}
    assert conviction(svc, "kes") == 5 and conditions(svc, "kes") == ["bruised x2"]
    assert_replays(svc)


# --- permissions (R-T-2) ---


def test_spectators_and_other_players_cannot_act_for_someone_elses_character(svc: TableService) -> None:
    # R-T-2: the owner or the GM starts an action; nothing is appended on a refusal
    roll(svc, ANA, RollCheck("kes", 15), 8)
    for user in (BEN, SAM):
        for cmd in (
            Surge("kes"),
            UseWit(1),
            RollCheck("kes", 10),
            HeroicFeat("kes", "Heavy Swing"),
            Determination("kes"),
            StartExit("kes"),
            DesignateWit("kes", "Ha!", speaker="kes"),
            EscapeDeath("kes"),
            StrenuousGuard("kes"),
            RecoverNow("kes"),
            TakeAction("kes", ActionKind.MOVE),
        ):
            refused(svc, user, cmd, RulesError)
        for cmd in (Reroll(), Announce()):  # Ana's pending check is not theirs to see
            assert refused(svc, user, cmd, TableError).code == "table/no_check"
    for cmd in (StartRound(), AwardNature("kes", NatureTrait.VIRTUE), Rest("kes")):
        refused(svc, ANA, cmd, Forbidden)
    refused(svc, "stranger", Surge("kes"), Forbidden)
    assert conviction(svc, "kes") == 3


# --- undo (R-T-4) ---


def test_a_player_undoes_a_spend_and_gets_the_point_back(svc: TableService) -> None:
    # R-CV-3, R-T-4: undo refunds what was spent; the state is as before
    before = state(svc)
    run(svc, ANA, Surge("kes"))
    assert conviction(svc, "kes") == 2
    refused(svc, BEN, Undo(), Forbidden)
    svc.execute(CID, ANA, Undo())
    after = state(svc)
    assert after.game == before.game and after.done == before.done
    run(svc, ANA, Surge("kes"))  # the spending limit was refunded too
    assert_replays(svc)


def test_a_roll_is_a_commit_point_only_the_gm_undoes(svc: TableService) -> None:
    # R-CV-4, R-T-4: players cannot undo dice; the GM can (the check the GM called for is open again)
    call = run(svc, GM, CallCheck("kes", 15))["cv.check_called"]["call"]
    before = state(svc)
    run(svc, ANA, RollCheck("kes", call=call), 3)
    assert refused(svc, ANA, Undo(), Forbidden).code == "undo/commit_point"
    svc.execute(CID, GM, Undo())
    assert state(svc).game == before.game and state(svc).game.checks == ()
    assert_replays(svc)


def test_an_announcement_is_a_commit_point_and_a_gm_undo_marks_the_check_seen(svc: TableService) -> None:
    # R-T-4: a player cannot undo an announcement and re-roll; the GM can undo it, and the check stays marked
    roll(svc, ANA, RollCheck("kes", 15), 3)
    check_id = pending(svc, ANA)[0]["id"]
    run(svc, ANA, Announce())
    assert refused(svc, ANA, Undo(), Forbidden).code == "undo/commit_point"
    run(svc, GM, Undo())
    [again] = pending(svc, ANA)
    assert again["id"] == check_id and again["revealed"]
    assert refused(svc, ANA, Reroll(check_id)).code == "roll/revealed"
    assert conviction(svc, "kes") == 3  # the refused re-roll spent nothing
    assert [p["revealed"] for t, p in seen(svc, CID, BEN) if t == "action.undone"] == [[check_id]]
    run(svc, ANA, Announce(check_id))
    assert_replays(svc)


# --- structure (R-T-1) ---


def test_boundaries_wait_for_pending_checks_and_the_adventure_closes_the_scene(svc: TableService) -> None:
    # R-T-1: end-of-scene and session effects hang on the boundaries; R-CV-7: Expertise lasts the scene
    run(svc, BEN, Expertise("mo", "Notice"))
    roll(svc, ANA, RollCheck("kes", 10), 10)
    refused(svc, GM, EndScene(), TableError)
    refused(svc, GM, EndAdventure(), TableError)
    run(svc, ANA, Announce())
    run(svc, GM, MarkDramatic())
    run(svc, GM, EndAdventure())
    assert hero(svc, "mo").regain_check_due
    assert hero(svc, "mo").skill_rank("Notice") == 4
    assert not state(svc).structure.in_scene and not state(svc).structure.in_session
    assert refused(svc, GM, EndAdventure({"kes": 3})).code == "structure/no_adventure"
    run(svc, GM, StartAdventure())
    assert refused(svc, GM, EndAdventure({"kes": 3})).code == "structure/awards"  # no Hero Points in Conviction
    assert_replays(svc)


def test_a_leaving_player_hands_characters_and_pending_checks_to_the_gm(svc: TableService) -> None:
    # R-T-1: characters stay with the GM when their player leaves
    roll(svc, ANA, RollCheck("kes", 10), 10)
    run(svc, ANA, RemoveMember(ANA))
    assert state(svc).character("kes").owner == GM
    run(svc, GM, Announce())
    assert_replays(svc)


def test_snapshots_hold_the_conviction_state(svc: TableService) -> None:
    # R-T-1: state survives a snapshot (Wit listeners are a set, an exit bid, pending checks)
    run(svc, ANA, DesignateWit("kes", "Ahoy!", speaker="kes", heard_by=("mo",)))
    run(svc, BEN, StartExit("mo"))
    run(svc, GM, RollCheck("rex", 10, secret=True), 4)
    store = svc.store
    snapshotting = TableService(store, rng=ScriptedRng([]), snapshot_every=1)
    snapshotting.execute(CID, GM, StartRound())
    fresh = TableService(store, rng=ScriptedRng([]))
    assert fresh.state(CID) == snapshotting.state(CID) == replay_events(store.load(CID))


def test_a_turns_flags_fold_as_booleans_so_a_snapshot_of_them_reads_back_checked(svc: TableService) -> None:
    # R-CV-3: a Disabled hero's strenuous guard is this round's bookkeeping; the fact records the flag as 1, the
    # state keeps it a bool, and its snapshot is read back as a restore checks it, every value's type included
    run(svc, GM, ToughnessSave("kes", damage_bonus=5, attacker="rex"), 5)
    run(svc, ANA, Announce())
    assert run(svc, ANA, StrenuousGuard("kes"))["cv.turn_changed"]["changes"]["strenuous_guard"] == 1
    now = state(svc)
    assert now.game.hero("kes").turn.strenuous_guard is True
    assert state_from_snapshot(snapshot_of(now)) == now


def test_nothing_to_spend_is_refused(svc: TableService) -> None:
    # R-CV-2: no points left, no spend
    run(svc, GM, CvOverride("kes", "spent on the voyage", conviction=0))
    refused(svc, ANA, Surge("kes"), NotEnough)


def test_a_gm_undo_of_a_reroll_its_roller_saw_leaves_the_check_re_rolled(svc: TableService) -> None:
    # R-T-4 (amended 2026-12-02): a re-roll's result, once its roller has seen it, is knowledge: the GM's undo refunds
    # the point and returns the check marked, so it cannot be re-rolled again
    roll(svc, ANA, RollCheck("kes", 15), 7)
    check_id = pending(svc, ANA)[0]["id"]
    spent = conviction(svc, "kes")
    run(svc, ANA, Reroll(check_id), 4)
    assert conviction(svc, "kes") == spent - 1
    run(svc, GM, Undo())
    assert conviction(svc, "kes") == spent  # refunded
    [again] = pending(svc, ANA)
    assert again["id"] == check_id and again["revealed"] and again["reroll"] is None
    assert refused(svc, ANA, Reroll(check_id)).code == "roll/revealed"
    assert conviction(svc, "kes") == spent  # the refused re-roll spent nothing
    assert not [a for a in legal_actions(state(svc), ANA) if a.type == Reroll.type]
    run(svc, ANA, Announce(check_id))
    assert_replays(svc)


def test_a_revealed_mark_outlives_an_older_undo(svc: TableService) -> None:
    # R-T-4: the GM undoes an announcement (the check is pending again, marked revealed); a player then undoes their
    # own earlier action, which restores an older state: the mark stays, and the check cannot be re-rolled
    from herotable.table.requests import AskGm, RequestKind

    roll(svc, BEN, RollCheck("mo", 15, label="Climb"), 7)
    run(svc, ANA, AskGm(RequestKind.OTHER, "may I?"))
    run(svc, BEN, Announce())
    run(svc, GM, Undo())
    run(svc, ANA, Undo())
    assert [c.id in state(svc).revealed for c in state(svc).game.checks] == [True]
    assert refused(svc, BEN, Reroll(), TableError).code == "roll/revealed"
    assert_replays(svc)


def test_a_secret_check_spends_nothing_a_player_sees_and_its_effects_reach_them(svc: TableService) -> None:
    # R-T-3, R-CV-4, R-CV-12: the GM's secret check on Kestrel takes no Conviction re-roll and no Wit (the ledger is
    # public); what the announced save does to her reaches the players as ever, the roll itself never
    run(svc, BEN, DesignateWit("mo", "Not today", speaker="mo", heard_by=("kes",)))
    run(svc, GM, ToughnessSave("kes", damage_bonus=3, secret=True), 2)
    assert refused(svc, GM, Reroll(), TableError).code == "roll/secret_spend"
    assert refused(svc, GM, UseWit(1), TableError).code == "cv/wit_secret"
    announced = svc.execute(CID, GM, Announce())
    kinds = {(e.type, e.visibility) for e in announced.events}
    assert ("cv.check_announced", "gm") in kinds and ("cv.conditions_changed", "public") in kinds
    assert "hurt" in " ".join(conditions(svc, "kes")) or "bruised" in " ".join(conditions(svc, "kes"))
    assert "cv.check_announced" not in seen_types(svc, CID, ANA)
    assert_replays(svc)


# --- undo never reopens a revealed result (R-T-4) ---


def test_a_player_cannot_undo_their_announcement_to_roll_again(svc: TableService) -> None:
    # R-T-4: a failed check announced by its player stays announced; no undo, no second roll
    roll(svc, ANA, RollCheck("kes", 15), 3)
    assert not run(svc, ANA, Announce())["cv.check_announced"]["succeeded"]
    assert refused(svc, ANA, Undo(), Forbidden).code == "undo/commit_point"
    assert state(svc).game.checks == () and conviction(svc, "kes") == 3
    assert_replays(svc)


def test_a_player_cannot_undo_an_announced_toughness_save(svc: TableService) -> None:
    # R-T-4: the save's result and the conditions it gave stand
    run(svc, GM, ToughnessSave("kes", damage_bonus=5, attacker="rex"), 5)
    run(svc, ANA, Announce())
    held = conditions(svc, "kes")
    assert held and held[0] == "disabled"
    assert refused(svc, ANA, Undo(), Forbidden).code == "undo/commit_point"
    assert conditions(svc, "kes") == held and state(svc).game.checks == ()
    assert_replays(svc)


def test_a_player_cannot_undo_an_announced_dying_check(svc: TableService) -> None:
    # R-T-4: a dying check that was announced stands (here: death)
    run(svc, GM, CvOverride("kes", "the fall", lethal=Lethal.DYING))
    run(svc, ANA, DyingCheck("kes"), 2)  # 2 + 1 = 3 vs 10: dead
    run(svc, ANA, Announce())
    assert conditions(svc, "kes")[0] == "dead"
    assert refused(svc, ANA, Undo(), Forbidden).code == "undo/commit_point"
    refused(svc, ANA, DyingCheck("kes"), IllegalAction)
    assert conditions(svc, "kes")[0] == "dead"
    assert_replays(svc)


# --- a dying check that no longer applies (R-CV-10) ---


def test_escaping_death_voids_the_pending_dying_check(svc: TableService) -> None:
    # R-CV-10 (amended): a dying check still pending when the character is stabilised is void, logged as such
    run(svc, GM, CvOverride("kes", "the fall", lethal=Lethal.DYING))
    check_id = run(svc, ANA, DyingCheck("kes"), 2)["cv.check_rolled"]["check"]
    said = run(svc, BEN, EscapeDeath("mo", "kes", assisting=True))
    assert said["cv.check_voided"] == {"check": check_id, "character": "kes", "reason": "stabilised"}
    assert state(svc).game.checks == () and hero(svc, "kes").conditions.stable
    assert "cv.check_voided" in seen_types(svc, CID, ANA) and "cv.check_voided" not in seen_types(svc, CID, SAM)
    assert refused(svc, ANA, Announce(check_id), TableError).code == "table/no_check"
    run(svc, GM, EndScene())  # nothing left pending
    run(svc, GM, EndAdventure())
    assert_replays(svc)


def test_escaping_death_oneself_or_dying_meanwhile_voids_the_check(svc: TableService) -> None:
    # R-CV-10 (amended): the hero's own point, or death from other damage, leaves no dying check to announce
    run(svc, GM, CvOverride("kes", "the fall", lethal=Lethal.DYING))
    run(svc, ANA, DyingCheck("kes"), 2)
    assert run(svc, ANA, EscapeDeath("kes"))["cv.check_voided"]["reason"] == "stabilised"
    run(svc, GM, CvOverride("mo", "the fall", lethal=Lethal.DYING))
    run(svc, BEN, DyingCheck("mo"), 15)
    run(svc, GM, ToughnessSave("mo", damage_bonus=5, attacker="rex"), 1)
    announced = svc.execute(CID, BEN, Announce(pending(svc, BEN)[-1]["id"]))
    voided = [e for e in announced.events if e.type == "cv.check_voided"]
    assert [dict(e.data)["reason"] for e in voided] == ["dead"]
    assert conditions(svc, "mo")[0] == "dead" and state(svc).game.checks == ()
    run(svc, GM, EndScene())
    assert_replays(svc)


# --- "for one round" ends with the scene at the latest (R-CV-3) ---


def test_a_heroic_feat_and_a_surge_end_with_the_scene(svc: TableService) -> None:
    # R-CV-3 (amended): a heroic feat and a surge's action end at the latest when the scene ends
    run(svc, ANA, HeroicFeat("kes", "Heavy Swing"))
    run(svc, GM, StartRound())
    run(svc, BEN, Surge("mo", ActionKind.STANDARD))
    run(svc, GM, EndScene())
    assert hero(svc, "mo").turn.extra_standard == 0
    run(svc, GM, StartScene())
    run(svc, ANA, HeroicFeat("kes", "Heavy Swing"))
    said = run(svc, GM, EndScene())
    assert said["cv.effects_ended"]["names"] == ["Heavy Swing"] and hero(svc, "kes").feat_count("Heavy Swing") == 0
    run(svc, GM, EndSession())
    run(svc, GM, EndAdventure())
    assert hero(svc, "kes").feat_count("Heavy Swing") == 0
    assert_replays(svc)


def test_a_point_spent_before_the_adventure_ended_does_not_block_the_next(svc: TableService) -> None:
    # R-CV-3 (amended): a scene's end, and the game session's and adventure's, clear the round's spending
    run(svc, ANA, Surge("kes"))
    run(svc, GM, EndScene())
    run(svc, BEN, Surge("mo"))  # between scenes
    run(svc, GM, EndAdventure())
    for cmd in (StartAdventure(), StartSession(), StartScene()):
        run(svc, GM, cmd)
    run(svc, ANA, Surge("kes"))
    run(svc, BEN, Surge("mo"))
    assert (conviction(svc, "kes"), conviction(svc, "mo")) == (1, 1)
    assert_replays(svc)


# --- Toughness saves count the injuries held when they are settled (R-CV-8) ---


def test_saves_rolled_together_count_the_hurt_of_the_one_announced_first(svc: TableService) -> None:
    # R-CV-8: −1 per hurt on later saves against lethal damage, counted when the save is settled
    first = run(svc, GM, ToughnessSave("kes", damage_bonus=0, attacker="rex"), 12)["cv.check_rolled"]["check"]
    second = run(svc, GM, ToughnessSave("kes", damage_bonus=0, attacker="rex"), 13)["cv.check_rolled"]["check"]
    assert not run(svc, ANA, Announce(first))["cv.check_announced"]["succeeded"]  # 12 + 2 = 14 vs 15: hurt
    [shown] = pending(svc, ANA)
    assert (shown["modifier"], shown["total"], shown["succeeded"]) == (1, 14, False)  # what settling would give
    said = run(svc, ANA, Announce(second))["cv.check_announced"]
    assert (said["modifier"], said["total"], said["succeeded"]) == (1, 14, False)  # 13 + 2 − 1 = 14 vs 15
    assert hero(svc, "kes").conditions.hurt == 2
    assert_replays(svc)


# --- exit a scene: only inside a running scene, by a character in it (R-CV-11) ---


def test_an_exit_needs_a_running_scene_and_a_character_still_in_it(svc: TableService) -> None:
    # R-CV-11 (amended): only inside a running scene, by a character in it
    run(svc, GM, EndScene())
    err = refused(svc, ANA, StartExit("kes"), TableError)
    assert err.code == "cv/no_scene" and err.ruling == "R-CV-11"
    run(svc, GM, StartScene())
    run(svc, ANA, StartExit("kes"))
    assert run(svc, GM, PassExit(Side.INTERFERE))["cv.exit_resolved"]["exits"]
    run(svc, GM, StartRound(), 10, 5)  # a new scene's rounds roll initiative for those in it: Moss, Captain Rex
    assert refused(svc, ANA, StartExit("kes"), TableError).code == "cv/not_in_scene"
    run(svc, BEN, StartExit("mo"))
    assert refused(svc, ANA, InterfereExit("kes"), TableError).code == "cv/not_in_scene"
    run(svc, GM, PassExit(Side.INTERFERE))
    run(svc, GM, EndScene())
    run(svc, GM, StartScene())
    run(svc, GM, StartRound(), 12, 10, 5)
    run(svc, GM, BeginTurns())
    run(svc, ANA, StartExit("kes"))  # a new scene: both are in it again
    assert conviction(svc, "kes") == 1
    assert_replays(svc)


# --- a GM secret roll on a player's character is the GM's alone (R-CV-4) ---


def test_a_player_can_neither_reroll_nor_announce_a_secret_roll_on_their_hero(svc: TableService) -> None:
    # R-CV-4 (amended): not seen, not re-rolled, not announced, its id never learnt, not even from an error's tip
    secret = run(svc, GM, ToughnessSave("kes", damage_bonus=3, secret=True), 2)["cv.check_rolled"]["check"]
    run(svc, ANA, DesignateWit("kes", "Not today", speaker="kes", heard_by=("kes",)))
    for cmd in (Reroll(secret), Announce(secret), UseWit(1, secret), Reroll(), Announce(), UseWit(1)):
        err = refused(svc, ANA, cmd, TableError)
        assert err.code == "table/no_check" and secret not in err.reason + err.fix
    roll(svc, ANA, RollCheck("kes", 10), 5)  # one check of her own pending as well
    err = refused(svc, ANA, Reroll("not-a-check"), TableError)
    assert secret not in err.reason + err.fix
    assert conviction(svc, "kes") == 2 and secret not in text_seen(svc, CID, ANA)
    run(svc, GM, Announce(secret))
    assert_replays(svc)


# --- the GM sets Difficulties and damage; a player rolls what the GM calls for (R-T-3) ---


def test_a_player_rolls_only_against_a_difficulty_the_gm_called_for(svc: TableService) -> None:
    # R-T-3, R-CV-1: the GM sets Difficulties; a player's check comes from the GM calling for it
    err = refused(svc, ANA, RollCheck("kes", -10), Forbidden)
    assert err.code == "cv/gm_sets_difficulty" and err.ruling == "R-T-3"
    refused(svc, ANA, CallCheck("kes", 5), Forbidden)
    said = run(svc, GM, CallCheck("kes", 15, label="climb the rigging", ability=Ability.STRENGTH))
    call = said["cv.check_called"]["call"]
    assert "cv.check_called" in seen_types(svc, CID, ANA) and "cv.check_called" not in seen_types(svc, CID, BEN)
    assert refused(svc, ANA, RollCheck("kes", 5, call=call), Forbidden).code == "cv/called"
    assert refused(svc, ANA, RollCheck("kes", modifier=9, call=call), Forbidden).code == "cv/called"
    assert refused(svc, BEN, RollCheck("mo", call=call), TableError).code == "cv/no_call"  # not Ben's to see
    rolled = run(svc, ANA, RollCheck("kes", call=call, skill="Notice"), 7)
    assert rolled["cv.call_closed"] == {"call": call, "character": "kes", "lapsed": False}
    assert (rolled["cv.check_rolled"]["difficulty"], rolled["cv.check_rolled"]["modifier"]) == (15, 6)
    assert rolled["cv.check_rolled"]["label"] == "climb the rigging"
    assert refused(svc, ANA, RollCheck("kes", call=call), TableError).code == "cv/no_call"  # rolled once
    run(svc, ANA, Announce())
    run(svc, GM, CallCheck("mo", 12))
    lapsed = run(svc, GM, EndScene())["cv.call_closed"]
    assert lapsed["character"] == "mo" and lapsed["lapsed"] and state(svc).game.calls == ()
    assert_replays(svc)


def test_players_set_no_damage_and_an_allys_attack_is_not_an_enemys(svc: TableService) -> None:
    # R-T-3: the GM sets damage bonuses; R-CV-2: "disabled by their enemies" needs the attacker on the other side
    err = refused(svc, BEN, ToughnessSave("kes", damage_bonus=30, attacker="mo"), Forbidden)
    assert err.code == "cv/gm_sets_damage" and err.ruling == "R-T-3"
    refused(svc, BEN, AddFatigue("kes", steps=3, attacker="mo"), Forbidden)
    refused(svc, BEN, Stun("kes", attacker="mo"), Forbidden)
    said = run(svc, GM, ToughnessSave("kes", damage_bonus=5, attacker="mo"), 5)  # Moss's wild swing: fails by 13
    assert not said["cv.check_rolled"]["by_enemy"]
    run(svc, ANA, Announce())
    assert conditions(svc, "kes")[0] == "disabled" and conviction(svc, "kes") == 3  # an ally: no point
    assert run(svc, GM, ToughnessSave("mo", damage_bonus=5, attacker="rex"), 5)["cv.check_rolled"]["by_enemy"]
    run(svc, BEN, Announce())
    assert conviction(svc, "mo") == 4
    assert_replays(svc)


# --- the dramatic-scene regain check lapses when the next scene starts (R-CV-13) ---


def test_the_regain_check_lapses_when_the_next_scene_starts(svc: TableService) -> None:
    # R-CV-13 (amended): the check belongs to the dramatic scene just ended
    run(svc, ANA, Surge("kes"))
    run(svc, GM, MarkDramatic())
    run(svc, GM, EndScene())
    assert hero(svc, "kes").regain_check_due
    said = run(svc, GM, StartScene())
    assert said["cv.regain_offered"] == {"character": "kes", "due": False}
    assert refused(svc, ANA, RegainCheck("kes")).code == "conviction/no_regain_check"
    assert_replays(svc)


# --- a pending Conviction-bought recovery check (R-CV-3) ---


def test_no_other_point_while_a_bought_recovery_check_is_pending(svc: TableService) -> None:
    # R-CV-3 (amended): while it is pending, the only point that character may spend is a re-roll of it
    run(svc, GM, CvOverride("kes", "the cliff fall", lethal=Lethal.DISABLED))
    run(svc, ANA, RecoverNow("kes"), 3)  # 3 + 1 = 4 vs 10: pending, and failing
    for cmd in (Surge("kes"), StrenuousGuard("kes"), DesignateWit("kes", "Ha!", speaker="kes")):
        assert refused(svc, ANA, cmd).code == "conviction/recovery_pending"
    run(svc, GM, StartRound())  # a new round does not end the wait
    assert refused(svc, ANA, Surge("kes")).code == "conviction/recovery_pending"
    run(svc, ANA, Reroll(), 15)  # the re-roll of that same check is allowed
    run(svc, ANA, Announce())  # the re-roll's 15 + 1 = 16 vs 10: Disabled is gone, and with it this round's spending
    assert refused(svc, ANA, Surge("kes")).code == "conviction/recovered_from_disabled"
    run(svc, GM, StartRound())
    run(svc, ANA, Surge("kes"))
    assert_replays(svc)


# --- level advancement and the point for being knocked out (R-CV-2) ---


def test_the_gm_raises_a_level_and_odd_levels_give_a_point(svc: TableService) -> None:
    # R-CV-2 (amended): at each odd level the maximum rises by one and the point is given at once
    refused(svc, ANA, RaiseLevel("kes"), Forbidden)
    said = run(svc, GM, RaiseLevel("kes"))
    assert said["cv.level_raised"] == {"character": "kes", "level": 2} and "cv.conviction_gained" not in said
    said = run(svc, GM, RaiseLevel("kes"))
    assert said["cv.conviction_gained"]["conviction"] == 4 and hero(svc, "kes").conviction_max == 4
    run(svc, GM, CvOverride("kes", "veteran", conviction=4))
    for _ in range(17):
        run(svc, GM, RaiseLevel("kes"))
    assert hero(svc, "kes").sheet.level == 20 and hero(svc, "kes").conviction_max == 12 == conviction(svc, "kes")
    assert refused(svc, GM, RaiseLevel("kes")).code == "conviction/top_level"
    assert_replays(svc)


def test_knocked_out_by_fatigue_or_strain_gives_a_point(svc: TableService) -> None:
    # R-CV-2 (amended): knocked unconscious by any cause gives a point, even above the maximum
    run(svc, GM, AddFatigue("kes", steps=3))
    assert conviction(svc, "kes") == 3
    run(svc, GM, AddFatigue("kes"))  # beyond exhausted: unconscious
    assert "unconscious" in conditions(svc, "kes") and conviction(svc, "kes") == 4
    run(svc, GM, CvOverride("mo", "the cliff fall", lethal=Lethal.DISABLED))
    run(svc, BEN, Surge("mo", ActionKind.STANDARD))
    run(svc, BEN, TakeAction("mo", ActionKind.STANDARD))  # strenuous: dying, so unconscious
    assert conditions(svc, "mo")[0] == "dying" and conviction(svc, "mo") == 3
    assert_replays(svc)


# --- smaller things (R-CV-3, R-CV-4, R-CV-7, R-CV-12) ---


def test_a_heroic_feat_bought_after_acting_lasts_through_the_next_turn(svc: TableService) -> None:
    # R-CV-3 (amended): until the same point of the next round
    run(svc, ANA, TakeAction("kes", ActionKind.STANDARD))
    run(svc, ANA, HeroicFeat("kes", "Heavy Swing"))
    run(svc, GM, StartRound())
    assert hero(svc, "kes").feat_count("Heavy Swing") == 1
    run(svc, GM, StartRound())
    assert hero(svc, "kes").feat_count("Heavy Swing") == 0
    assert_replays(svc)


def test_blank_talents_wits_outside_a_session_and_rerolls_after_an_override_are_refused(svc: TableService) -> None:
    # R-CV-7: The Talent with a blank power is not "clear fatigue"
    run(svc, GM, CreateCvCharacter("zu", sheet("Zu", CvRole.ADEPT), owner=ANA))
    run(svc, GM, AddFatigue("zu"))
    assert refused(svc, ANA, TheTalent("zu", power="  ")).code == "conviction/blank_power"
    assert conviction(svc, "zu") == 3
    # R-CV-4 (amended): a re-roll after the GM's override could change nothing, so it is refused and costs nothing
    roll(svc, ANA, RollCheck("kes", 15), 3)
    run(svc, GM, OverrideCheck(True, "the rope holds"))
    assert refused(svc, ANA, Reroll()).code == "conviction/overridden" and conviction(svc, "kes") == 3
    run(svc, ANA, Announce())
    # R-CV-12: Quotable Wit counts uses per game session, so it needs one running
    run(svc, GM, EndScene())
    run(svc, GM, EndSession())
    assert refused(svc, ANA, DesignateWit("kes", "Ha!", speaker="kes")).code == "cv/no_session"
    assert_replays(svc)


# --- presence, sides and the initiative order (R-CV-14) ---


def order(svc: TableService, user: str) -> list[tuple[str, int | None]]:
    """The initiative order as `user`'s view shows it: each character with the total they may see."""
    return [(o["character"], o["total"]) for o in svc.view(CID, user)["game"]["order"]]


def test_the_first_round_rolls_initiative_and_a_hidden_npcs_dice_stay_the_gms(svc: TableService) -> None:
    # R-CV-14: d20 + Dexterity modifier, rolled when the GM starts rounds; the order is public, a hidden sheet's
    # face and total are the GM's (its Dexterity is on the sheet)
    assert order(svc, GM) == [("kes", 13), ("mo", 11), ("rex", 6)]
    # each roll stayed with its roller until the GM began the first turn (R-CV-4 amended 2026-12-02)
    for user, own in ((ANA, ["kes"]), (SAM, [])):
        assert order(svc, user) == [("kes", 13), ("mo", 11), ("rex", None)]
        rolled = [p for kind, p in seen(svc, CID, user) if kind == "cv.initiative_rolled"]
        assert [p["character"] for p in rolled] == own
        assert [p["order"] for kind, p in seen(svc, CID, user) if kind == "cv.initiative_order"] == [
            ["kes", "mo", "rex"]
        ]
    gm_rolled = [p for kind, p in seen(svc, CID, GM) if kind == "cv.initiative_rolled"]
    assert gm_rolled[-1] == {"character": "rex", "face": 5, "modifier": 1, "total": 6}
    assert "Initiative order: Kestrel, Moss, Captain Rex" in text_seen(svc, CID, SAM)
    # later rounds keep the order: nothing is rolled
    said = run(svc, GM, StartRound())
    assert "cv.initiative_order" not in said and said["cv.round_started"]["characters"] == ["kes", "mo", "rex"]
    assert_replays(svc)


def test_ties_go_to_the_gms_listing_and_the_gm_may_roll_again_or_enter_the_order(svc: TableService) -> None:
    # R-CV-14: equal totals and equal Dexterity: the order the GM names the characters in decides
    run(svc, GM, StartRound(characters=("rex", "kes", "mo"), roll=True), 9, 9, 9)
    said = run(svc, GM, BeginTurns())  # ties are broken as the first turn begins (R-CV-4 amended)
    assert said["cv.initiative_order"] == {"order": ["rex", "kes", "mo"], "how": "rolled"}
    said = run(svc, GM, StartRound(order=("mo", "rex", "kes")))  # entered: no dice, no totals
    assert said["cv.initiative_order"] == {"order": ["mo", "rex", "kes"], "how": "entered"}
    assert order(svc, GM) == [("mo", None), ("rex", None), ("kes", None)]
    err = refused(svc, GM, StartRound(characters=("kes",), order=("kes",)), TableError)
    assert err.code == "cv/order_given" and err.ruling == "R-CV-14"
    refused(svc, GM, StartRound(roll=True, order=("kes",)), TableError)
    assert refused(svc, ANA, StartRound(order=("kes",)), Forbidden).code == "table/gm_only"
    assert_replays(svc)


def test_a_surge_keeps_the_place_in_the_initiative_order(svc: TableService) -> None:
    # R-CV-5: one extra action; the character's place in the initiative order does not change
    run(svc, BEN, TakeAction("mo", ActionKind.STANDARD))
    run(svc, BEN, Surge("mo"))
    run(svc, BEN, TakeAction("mo", ActionKind.STANDARD))
    assert [cid for cid, _ in order(svc, GM)] == ["kes", "mo", "rex"]
    said = run(svc, GM, StartRound())
    assert said["cv.round_started"]["characters"] == ["kes", "mo", "rex"]


def test_only_characters_in_the_scene_act_exit_or_interfere(svc: TableService) -> None:
    # R-CV-14: the GM sets who is present; R-CV-11 (amended): only a character in the scene exits or interferes
    assert refused(svc, ANA, SetPresence(("kes",)), Forbidden).code == "table/gm_only"
    said = run(svc, GM, SetPresence(("kes", "rex")))
    assert said["cv.presence_set"] == {"absent": ["mo"], "cause": "gm"}
    assert "Not in the scene: Moss" in text_seen(svc, CID, ANA)
    err = refused(svc, BEN, TakeAction("mo", ActionKind.MOVE), TableError)
    assert err.code == "cv/not_present" and err.ruling == "R-CV-14" and "Moss is not in this scene" in str(err)
    refused(svc, BEN, Surge("mo"), TableError)
    assert refused(svc, BEN, StartExit("mo"), TableError).code == "cv/not_present"
    run(svc, ANA, StartExit("kes"))
    assert refused(svc, BEN, InterfereExit("mo"), TableError).code == "cv/not_present"
    run(svc, GM, PassExit(Side.INTERFERE))
    # the next round: those in the scene keep their order; naming someone out of it is refused
    said = run(svc, GM, StartRound())
    assert said["cv.initiative_order"] == {"order": ["rex"], "how": "kept"}
    assert refused(svc, GM, StartRound(characters=("mo",)), TableError).code == "cv/not_present"
    assert refused(svc, GM, StartRound(order=("kes",)), TableError).code == "cv/not_in_scene"
    assert refused(svc, GM, SetPresence(("kes", "mo")), TableError).code == "cv/not_in_scene"  # Kestrel exited
    refused(svc, GM, SetPresence(("nobody",)), TableError)
    run(svc, GM, EndScene())
    assert refused(svc, GM, SetPresence(("kes",)), TableError).code == "cv/no_scene"
    run(svc, GM, StartScene())
    assert svc.view(CID, BEN)["game"]["absent"] == [] and svc.view(CID, BEN)["game"]["order"] == []
    run(svc, GM, StartRound(), 12, 10, 5)  # a new scene: everyone is in it, and rolls initiative again
    run(svc, GM, BeginTurns())
    run(svc, BEN, TakeAction("mo", ActionKind.MOVE))
    assert_replays(svc)


def test_disabled_by_an_enemy_follows_the_sides_the_gm_set(svc: TableService) -> None:
    # R-CV-2 (amended), R-CV-14: "disabled by their enemies" needs the attacker on another side, as the GM set it
    assert svc.view(CID, SAM)["game"]["sides"] == {"kes": "heroes", "mo": "heroes", "rex": "NPCs"}
    assert refused(svc, ANA, SetSides((("mo", "traitors"),)), Forbidden).code == "table/gm_only"
    err = refused(svc, GM, SetSides((("mo", "  "),)), TableError)
    assert err.code == "cv/side" and err.ruling == "R-CV-14"
    said = run(svc, GM, SetSides((("mo", "Traitors"), ("rex", "traitors"))))
    assert said["cv.sides_set"] == {"sides": [["mo", "Traitors"], ["rex", "traitors"]]}
    assert svc.view(CID, SAM)["game"]["sides"] == {"kes": "heroes", "mo": "Traitors", "rex": "traitors"}
    assert run(svc, GM, ToughnessSave("kes", damage_bonus=5, attacker="mo"), 5)["cv.check_rolled"]["by_enemy"]
    run(svc, ANA, Announce())
    assert conditions(svc, "kes")[0] == "disabled" and conviction(svc, "kes") == 4  # Moss turned on her: a point
    # the villain's side and Moss's are one (sides compare without regard to case): no point for Moss
    assert not run(svc, GM, ToughnessSave("mo", damage_bonus=5, attacker="rex"), 5)["cv.check_rolled"]["by_enemy"]
    run(svc, BEN, Announce())
    assert conditions(svc, "mo")[0] == "disabled" and conviction(svc, "mo") == 3
    run(svc, GM, SetSides())  # back to heroes against NPCs
    assert svc.view(CID, SAM)["game"]["sides"]["mo"] == "heroes"
    assert_replays(svc)


# --- skills named from the sheet ---


def test_a_skill_a_typo_away_from_the_sheet_s_is_refused_with_the_sheet_s_name(svc: TableService) -> None:
    # R-CV-1 (rules version 6): "Notise" on a sheet with Notice used to roll untrained, ranks lost without a word
    for cmd in (
        CallCheck("kes", 15, skill="Notise"),
        CallCheck("kes", 15, skill="notic"),
        RollCheck("kes", 15, skill="Diplomcy"),
    ):
        err = refused(svc, GM, cmd)
        assert err.code == "cv/skill_not_on_sheet" and "did you mean" in err.reason
        assert "Notice" in err.reason or "Diplomacy" in err.reason
        assert "untrained" in err.fix
    call = run(svc, GM, CallCheck("kes", 15))["cv.check_called"]["call"]  # the roller names the skill
    err = refused(svc, ANA, RollCheck("kes", call=call, skill="Notise"))
    assert "did you mean Notice?" in err.reason
    # the sheet's name in any case rolls with its ranks; a skill far from any on the sheet rolls untrained, and one
    # a typo away rolls untrained when the roller says so
    assert run(svc, ANA, RollCheck("kes", call=call, skill="NOTICE"), 7)["cv.check_rolled"]["modifier"] == 4
    for skill, untrained in (("Stealth", False), ("Notise", True)):
        call = run(svc, GM, CallCheck("kes", 15, skill=skill, untrained=untrained))["cv.check_called"]["call"]
        assert run(svc, ANA, RollCheck("kes", call=call), 7)["cv.check_rolled"]["modifier"] == 0
    assert_replays(svc)


def test_a_check_offers_the_sheet_s_skills_to_pick_from(svc: TableService) -> None:
    acts = svc.legal_actions(CID, GM)
    call = next(a for a in acts if a.type == CallCheck.type and a.fixed["character"] == "kes")
    assert call.fields["skill"].suggestions == ("Diplomacy", "Notice")  # type: ignore[attr-defined]
    assert "untrained" in call.fields
