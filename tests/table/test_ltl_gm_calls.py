"""Larger Than Life at the table: what the GM decides (R-T-3). The GM sets every difficulty, whether a Last Chance is
harder and how often Recovery may be tried; players roll what the GM calls for; a defender rolls its standing defence
Style, never one the attacker names."""

from __future__ import annotations

import pytest

from herotable.errors import RulesError
from herotable.service import TableService
from herotable.table.commands import command_from_json
from herotable.table.legal import legal_actions
from herotable.table.ltl.commands import (
    AllowRecovery,
    Attack,
    Attempt,
    CallKind,
    CallRoll,
    Challenge,
    DifficultyName,
    EndConflict,
    EndRound,
    KarmaRoll,
    LastChance,
    Override,
    Recover,
    RecoveryScope,
    SetDefence,
    Settle,
    StartConflict,
)
from herotable.table.state import Forbidden, TableError
from herotable.table.structure import EndScene
from herotable.table.views import view_for

from .helpers import accept_others, facts, hero, seen, seen_types, text_seen
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


def test_a_player_never_rolls_against_a_difficulty_they_chose(service: TableService, dice):
    # R-T-3: the GM sets every difficulty; a player rolls only what the GM calls for
    setup(service)
    dice.faces = [5, 5] * 3
    refused(service, "pat", Challenge("comet", HARD, style="Flight"), Forbidden)
    refused(service, "pat", KarmaRoll("comet", HARD), Forbidden)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    refused(service, "pat", Attempt("comet", HARD), Forbidden)


def test_a_last_chance_roll_waits_for_the_gms_call(service: TableService, dice):
    # R-T-3, R-LTL-10: whether Last Chance is one level harder is the GM's; the player may still burn for it
    setup(service)
    dice.faces = [1, 10]
    service.execute(CID, "gm", Challenge("comet", HARD, must_succeed=True))
    service.execute(CID, "gm", Settle())
    dice.faces = [5, 5]
    refused(service, "pat", LastChance("comet"), Forbidden)


def test_recovery_rolled_or_burned_needs_the_gms_leave(service: TableService, dice):
    # R-LTL-11 amended: a rolled Recovery needs the GM's leave, and the leave counts burned Recoveries too
    setup(service)
    service.execute(CID, "gm", Override("comet", "a falling girder", lose=1))
    dice.faces = [8, 1]
    assert refused(service, "pat", Recover("comet")).code == "ltl/recovery_leave"
    assert refused(service, "pat", Recover("comet", burn=True)).code == "ltl/recovery_leave"
    assert hero(service, CID, "comet").losses


def test_a_defender_rolls_base_power_until_its_defence_style_is_set(service: TableService, dice):
    # R-T-3: each fighter has a standing defence Style, base Power by default; the attacker never names it
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    dice.faces = [6, 4]
    attack = service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    [defence] = [p for t, _, p in facts(attack) if t == "dice.rolled" and p["side"] == "opposition"]
    assert defence["style"] is None and defence["die"] == 10  # Doctor Entropy's base Power, not his d12 Decay


def call(service: TableService, cmd: CallRoll) -> str:
    return service.execute(CID, "gm", cmd).events[0].command_id


def test_the_gm_calls_for_a_challenge_and_its_player_rolls_it_with_their_own_declarations(service, dice):
    # R-T-3: the GM sets the difficulty and whether it must succeed; the player declares the Style
    setup(service)
    refused(service, "pat", CallRoll("comet", difficulty=HARD), Forbidden)
    called = service.execute(CID, "gm", CallRoll("comet", difficulty=HARD, label="catch the tram", must_succeed=True))
    assert [(t, v) for t, v, _ in facts(called)] == [("ltl.roll_called", "owner")]
    assert "ltl.roll_called" not in seen_types(service, CID, "sam")
    assert service.view(CID, "sam")["game"]["calls"] == [] and len(service.view(CID, "pat")["game"]["calls"]) == 1
    cid = called.events[0].command_id
    assert refused(service, "sam", Challenge("nova", call=cid)).code == "ltl/no_call"
    assert refused(service, "pat", Challenge("comet", HARD, call=cid), Forbidden).code == "ltl/called"
    [offered] = [a for a in legal_actions(service.state(CID), "pat") if a.type == "ltl.challenge"]
    assert offered.fixed == {"character": "comet", "call": cid} and "difficulty" not in offered.fields
    dice.faces = [3, 9]
    rolled = service.execute(CID, "pat", Challenge("comet", style="Flight", call=cid))
    opened = next(p for t, _, p in facts(rolled) if t == "ltl.task_opened")
    assert (opened["difficulty"], opened["must_succeed"], opened["detail"]) == (4, True, "catch the tram")
    assert service.state(CID).game.calls == ()
    assert refused(service, "pat", Challenge("comet", call=cid)).code == "ltl/no_call"  # a call is rolled once


def test_calls_lapse_at_the_end_of_the_scene_and_a_karma_roll_takes_its_purpose_from_the_call(service, dice):
    # R-T-3, R-LTL-10: a Power Stunt's call names the Superpower and the stunt; unrolled calls lapse with the scene
    setup(service)
    stunt = call(service, CallRoll("comet", CallKind.STUNT, HARD, power="star fists", stunt="Meteor  Punch"))
    karma = call(service, CallRoll("comet", CallKind.KARMA, DifficultyName.AVERAGE))
    assert refused(service, "pat", Challenge("comet", call=stunt)).code == "ltl/call_kind"
    assert refused(service, "pat", KarmaRoll("comet", power="Star Fists", call=stunt), Forbidden).code == "ltl/called"
    dice.faces = [2, 9]
    rolled = service.execute(CID, "pat", KarmaRoll("comet", call=stunt))
    opened = next(p for t, _, p in facts(rolled) if t == "ltl.task_opened")
    assert (opened["purpose"], opened["detail"]) == ("stunt", "Star Fists: Meteor Punch")
    service.execute(CID, "pat", Settle())
    ended = service.execute(CID, "gm", EndScene())
    assert [(p["call"], p["lapsed"]) for t, _, p in facts(ended) if t == "ltl.call_closed"] == [(karma, True)]
    assert service.state(CID).game.calls == ()
    assert refused(service, "gm", CallRoll("comet", difficulty=DifficultyName.IMPOSSIBLE)).code == "ltl/impossible"


def test_the_gm_calls_for_a_last_chance_and_says_whether_it_is_harder(service, dice):
    # R-T-3, R-LTL-10: the player may burn for it; a new roll is the GM's call, one level harder if the GM says so
    setup(service)
    dice.faces = [1, 10]
    service.execute(
        CID, "pat", Challenge("comet", call=call(service, CallRoll("comet", difficulty=HARD, must_succeed=True)))
    )
    service.execute(CID, "pat", Settle())
    [burn] = [a for a in legal_actions(service.state(CID), "pat") if a.type == "ltl.karma.last_chance"]
    assert burn.fixed == {"character": "comet", "burn": True}
    refused(service, "pat", LastChance("comet", harder=True), Forbidden)
    refused(service, "gm", CallRoll("comet", CallKind.LAST_CHANCE, HARD))  # its task sets the difficulty
    cid = call(service, CallRoll("comet", CallKind.LAST_CHANCE, harder=True))
    refused(service, "pat", LastChance("comet", burn=True, call=cid), Forbidden)
    dice.faces = [5, 5]
    taken = service.execute(CID, "pat", LastChance("comet", call=cid))
    assert next(p for t, _, p in facts(taken) if t == "ltl.last_chance_taken")["harder"] is True
    assert next(p for t, _, p in facts(taken) if t == "ltl.task_opened")["difficulty"] == 5  # Hard d10, one harder


def test_recovery_leave_counts_rolled_and_burned_tries_and_ends_with_its_scope(service, dice):
    # R-LTL-11 amended: the GM says how often; burned Recoveries count; the leave ends with its scene or conflict
    setup(service)
    service.execute(CID, "gm", Override("comet", "a falling girder", lose=1))
    refused(service, "pat", AllowRecovery("comet"), Forbidden)
    allowed = service.execute(CID, "gm", AllowRecovery("comet", tries=2))
    assert [(t, v) for t, v, _ in facts(allowed)] == [("ltl.recovery_allowed", "public")]
    dice.faces = [1, 2]  # a failed roll against d4 still takes a try
    tried = service.execute(CID, "pat", Recover("comet"))
    assert next(p for t, _, p in facts(tried) if t == "ltl.recovery_tried")["left"] == 1
    service.execute(CID, "pat", Recover("comet", burn=True))
    assert hero(service, CID, "comet").losses == ()
    service.execute(CID, "gm", Override("comet", "another girder", lose=1))
    assert refused(service, "pat", Recover("comet", burn=True)).code == "ltl/recovery_leave"
    assert not [a for a in legal_actions(service.state(CID), "pat") if a.type == "ltl.heroism.recover"]
    refused(service, "gm", AllowRecovery("comet", RecoveryScope.ROUND, None))  # a round needs a conflict
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    service.execute(CID, "gm", AllowRecovery("comet", RecoveryScope.ROUND, 1))
    service.execute(CID, "pat", Recover("comet", burn=True))
    service.execute(CID, "gm", Override("comet", "a third girder", lose=1))
    refused(service, "pat", Recover("comet", burn=True))
    service.execute(CID, "gm", EndRound())  # every round: one more try
    service.execute(CID, "pat", Recover("comet", burn=True))
    ended = service.execute(CID, "gm", EndConflict())
    assert [p["character"] for t, _, p in facts(ended) if t == "ltl.recovery_lapsed"] == ["comet"]
    service.execute(CID, "gm", AllowRecovery("comet", tries=None))
    lapsed = service.execute(CID, "gm", EndScene())
    assert "ltl.recovery_lapsed" in [t for t, _, _ in facts(lapsed)] and service.state(CID).game.recovery == ()


def test_a_defence_style_is_set_between_rounds_vetoed_with_a_reason_and_used_at_once(service, dice):
    # R-T-3: the controller sets it at the start or between rounds; the GM may veto it, saying why
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("nova", "heroes"), ("entropy", "villains"))))
    refused(service, "sam", SetDefence("comet", "Flight"), Forbidden)
    assert refused(service, "pat", SetDefence("comet", "Telepathy")).code == "ltl/no_style"
    set_ = service.execute(CID, "pat", SetDefence("comet", "flight"))
    assert [(t, v, p["style"]) for t, v, p in facts(set_)] == [("ltl.defence_set", "public", "Flight")]
    assert refused(service, "gm", SetDefence("comet", None)).code == "ltl/veto_reason"
    vetoed = service.execute(CID, "gm", SetDefence("comet", "Fisticuffs", reason="he is pinned to the ground"))
    assert next(p for t, _, p in facts(vetoed))["vetoed"] is True
    dice.faces = [4, 6]
    attack = service.execute(CID, "gm", Attack("entropy", "comet", style="Decay"))
    [defence] = [p for t, _, p in facts(attack) if t == "dice.rolled" and p["side"] == "opposition"]
    assert (defence["style"], defence["die"]) == ("Fisticuffs", 12)  # at once: nobody waits for Comet's player
    assert refused(service, "pat", SetDefence("comet", "Flight")).code == "ltl/defence_mid_round"
    accept_others(service, CID, "gm")
    service.execute(CID, "gm", Settle())
    service.execute(CID, "gm", EndRound())
    service.execute(CID, "pat", SetDefence("comet", "Flight"))  # between rounds


def test_a_hidden_villains_defence_style_stays_the_gms(service, dice):
    # R-T-3, R-T-2: a hidden NPC's Style tells of its sheet: its defence is a GM-only fact
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    set_ = service.execute(CID, "gm", SetDefence("entropy", "Gadgets"))
    assert [(t, v) for t, v, _ in facts(set_)] == [("ltl.defence_set", "gm")]
    assert service.view(CID, "pat")["game"]["conflict"]["defences"] == []
    dice.faces = [6, 4]
    service.execute(CID, "pat", Attack("comet", "entropy"))
    accept_others(service, CID, "pat")
    service.execute(CID, "pat", Settle())
    assert "Gadgets" not in text_seen(service, CID, "pat") and "Gadgets" in text_seen(service, CID, "gm")
    assert not [p for t, p in seen(service, CID, "pat") if t == "dice.revealed" and p["roller"] == "entropy"]


def test_a_stored_attack_that_named_the_defenders_style_still_reads(service):
    # R-T-3: `target_style` is retired: a new command is refused with it, a recorded one reads without it
    old = {"type": "ltl.attack", "actor": "comet", "target": "entropy", "style": None, "target_style": None}
    assert command_from_json(old, stored=True) == Attack("comet", "entropy")
    with pytest.raises(TableError) as err:
        command_from_json(old)
    assert err.value.code == "table/retired_field"


def test_a_secret_roll_leaves_the_failure_a_player_may_follow_with_last_chance(service, dice):
    # R-T-2, R-LTL-10: the GM's secret roll for a hero neither clears nor replaces the failed must-succeed task its
    # player saw, so nothing in the player's view moves with a roll they cannot see, and Last Chance still follows it
    setup(service)
    dice.faces = [1, 10]
    service.execute(CID, "gm", Challenge("comet", HARD, must_succeed=True))
    service.execute(CID, "gm", Settle())
    seen_failed = view_for(service.state(CID), "pat")["game"]["failed"]
    assert seen_failed == [{"character": "comet", "outcome": "lose"}]
    for faces in ([10, 1], [1, 10]):  # a secret success, then a secret must-succeed failure
        dice.faces = faces
        service.execute(CID, "gm", Challenge("comet", HARD, must_succeed=True, secret=True))
        service.execute(CID, "gm", Settle())
        assert view_for(service.state(CID), "pat")["game"]["failed"] == seen_failed
    assert any(a.type == "ltl.karma.last_chance" for a in legal_actions(service.state(CID), "pat"))


def test_a_stunt_named_a_typo_away_from_a_known_one_is_refused_with_the_name_meant(service: TableService, dice):
    # R-LTL-10 (rules version 8): Comet's Cosmic Flight knows Tail Sweep; "Tail Swep" would be remembered as a second
    # stunt once pulled off. The form suggests the known names; a name of its own is a new stunt
    setup(service)
    [karma] = [
        a
        for a in legal_actions(service.state(CID), "gm")
        if a.type == KarmaRoll.type and a.fixed.get("purpose") == "stunt" and a.fixed.get("character") == "comet"
    ]
    assert "Tail Sweep" in karma.fields["stunt"].suggestions
    err = refused(service, "gm", CallRoll("comet", CallKind.STUNT, HARD, power="Cosmic Flight", stunt="Tail Swep"))
    assert err.code == "ltl/stunt_typo" and "did you mean Tail Sweep?" in str(err)
    err = refused(service, "gm", KarmaRoll("comet", HARD, purpose="stunt", power="Cosmic Flight", stunt="tail sweeps"))
    assert err.code == "ltl/stunt_typo"
    service.execute(CID, "gm", CallRoll("comet", CallKind.STUNT, HARD, power="Cosmic Flight", stunt="Tail Whip"))
    assert "Tail Whip" in [c.stunt for c in service.state(CID).game.calls]
    # the known stunt in other letters is that stunt, spelt as the power knows it
    service.execute(CID, "gm", CallRoll("comet", CallKind.STUNT, HARD, power="Cosmic Flight", stunt="tail  SWEEP"))
    assert "Tail Sweep" in [c.stunt for c in service.state(CID).game.calls]
