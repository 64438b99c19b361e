"""Larger Than Life at the table: commands, facts, views, undo and replay (R-T-1, R-T-2, R-T-4)."""

from __future__ import annotations

import pytest

from herotable.errors import RulesError
from herotable.ltl.hero import LossType
from herotable.ltl.hero import NextRound as NextRoundEffect
from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.ltl.task import CritBonus
from herotable.service import TableService, replay_events
from herotable.table.commands import command_from_json
from herotable.table.fold import STATE_VERSION, snapshot_of, state_from_snapshot
from herotable.table.ltl.commands import (
    Attack,
    CallRoll,
    Challenge,
    ChooseCritReward,
    CreateLtlCharacter,
    DifficultyName,
    EndConflict,
    EndRound,
    Override,
    Push,
    Reroll,
    SetDefence,
    Settle,
    StartConflict,
    TryAgain,
)
from herotable.table.state import Forbidden, Role, Ruleset, TableError
from herotable.table.structure import EndAdventure, EndScene, Join, StartAdventure, StartScene, StartSession
from herotable.table.undo import Undo

from .helpers import accept_others, facts, hero, seen, seen_types, text_seen

CID = "harbour"
HARD = DifficultyName.HARD


def setup(service: TableService) -> None:
    service.create_campaign("gm", "Gwen", "Harbour Nights", Ruleset.LTL, campaign_id=CID)
    service.execute(CID, "pat", Join("Pat"))
    service.execute(CID, "sam", Join("Sam"))
    service.execute(CID, "sly", Join("Sly", Role.SPECTATOR))
    service.execute(CID, "pat", CreateLtlCharacter("comet", CAPTAIN_COMET))
    service.execute(CID, "sam", CreateLtlCharacter("nova", {**CAPTAIN_COMET, "name": "Nova"}))
    service.execute(CID, "gm", CreateLtlCharacter("entropy", DOCTOR_ENTROPY, npc=True, hidden=True))
    for cmd in (StartAdventure(), StartSession(), StartScene()):
        service.execute(CID, "gm", cmd)


def called(service: TableService, cid: str, difficulty: DifficultyName | None = HARD, **more: object) -> str:
    """The GM calls for a roll (R-T-3); the call's id."""
    return service.execute(CID, "gm", CallRoll(cid, difficulty=difficulty, **more)).events[0].command_id  # type: ignore[arg-type]


def test_hidden_npc_sheet_reaches_only_the_gm(service):
    # R-T-2 views: a hidden villain's sheet is the GM's; its name is public
    setup(service)
    assert seen_types(service, CID, "pat").count("character.joined") == 3
    assert seen_types(service, CID, "pat").count("ltl.sheet_recorded") == 2
    assert seen_types(service, CID, "gm").count("ltl.sheet_recorded") == 3
    assert service.view(CID, "pat")["game"]["heroes"]["entropy"] == {
        "name": "Doctor Entropy",
        "hidden": True,
        "status": [],
    }
    assert "Decay" in str(service.view(CID, "gm"))
    assert "Decay" not in text_seen(service, CID, "pat") and "Doctor Entropy" in text_seen(service, CID, "pat")


def test_a_pending_roll_reaches_the_roller_and_the_gm_until_settled(service, dice):
    # R-LTL-9: pending until settled; other players see it when it is announced
    setup(service)
    dice.faces = [9, 4]
    opened = service.execute(CID, "pat", Challenge("comet", style="Flight", call=called(service, "comet")))
    task_id = opened.events[0].command_id
    assert [t for t, _, _ in facts(opened)] == ["ltl.call_closed", "ltl.task_opened", "dice.rolled", "dice.rolled"]
    assert {v for _, v, _ in facts(opened)} == {"owner"}
    assert "dice.rolled" in seen_types(service, CID, "pat") and "dice.rolled" in seen_types(service, CID, "gm")
    assert "ltl.task_opened" not in seen_types(service, CID, "sam") + seen_types(service, CID, "sly")
    assert service.view(CID, "sam")["game"]["tasks"] == [] and len(service.view(CID, "pat")["game"]["tasks"]) == 1
    settled = service.execute(CID, "pat", Settle(task_id))
    [(kind, visibility, data), *_] = facts(settled)
    assert (kind, visibility, data["outcome"], data["winner"]) == ("ltl.task_settled", "public", "win", "comet")
    revealed = [p for t, p in seen(service, CID, "sam") if t == "dice.revealed"]
    assert [(p["roller"], p["throws"]) for p in revealed] == [("comet", [[9]]), (None, [[4]])]


def test_a_gm_secret_roll_stays_with_the_gm(service, dice):
    # R-T-2: GM-only rolls never reach players, settled or not, nor their ids
    setup(service)
    dice.faces = [3, 5]
    opened = service.execute(CID, "gm", Challenge("entropy", DifficultyName.AVERAGE, secret=True))
    service.execute(CID, "gm", Settle(opened.events[0].command_id))
    for user in ("pat", "sam", "sly"):
        assert not {"ltl.task_opened", "ltl.task_settled", "dice.revealed"} & set(seen_types(service, CID, user))
        assert opened.events[0].command_id not in text_seen(service, CID, user)
    assert {"ltl.task_opened", "ltl.task_settled"} <= set(seen_types(service, CID, "gm"))


def test_permissions_decide_who_starts_and_refusals_write_nothing(service, dice):
    # R-T-2: players act for their own characters; spectators watch; GM-only actions
    setup(service)
    head = service.store.head(CID)
    attempts = [
        ("sam", TryAgain("comet"), Forbidden),
        ("sly", TryAgain("comet"), Forbidden),
        ("stranger", TryAgain("comet"), Forbidden),
        ("pat", StartConflict((("comet", "h"), ("entropy", "v"))), Forbidden),
        ("pat", Challenge("comet", HARD, secret=True), Forbidden),
        ("pat", Challenge("comet", DifficultyName.IMPOSSIBLE), RulesError),
        ("pat", TryAgain("ghost"), TableError),
    ]
    for user, cmd, error in attempts:
        with pytest.raises(error):
            service.execute(CID, user, cmd)
    assert service.store.head(CID) == head


def test_a_player_attack_makes_the_gm_villain_lose_a_level(service, dice):
    # R-LTL-3, R-LTL-12: permissions decide who starts; the rules apply the effects to whoever they touch
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    dice.faces = [10, 2]
    attack = service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    # the exchange is declared at the table; each die is its roller's until settled; the villain's stays the GM's
    assert [(t, v) for t, v, _ in facts(attack)] == [
        ("ltl.task_opened", "public"),
        ("dice.rolled", "owner"),
        ("dice.rolled", "gm"),
    ]
    assert "dice.rolled" not in seen_types(service, CID, "sam")
    with pytest.raises(TableError) as err:  # the defender's standing defence Style, never the attacker's (R-T-3)
        command_from_json({"type": "ltl.attack", "actor": "comet", "target": "entropy", "target_style": "Gadgets"})
    assert err.value.code == "table/retired_field" and "ltl.defence" in str(err.value)
    accept_others(service, CID, "pat")
    service.execute(CID, "pat", Settle())
    assert not any(t == "dice.revealed" and p["roller"] == "entropy" for t, p in seen(service, CID, "pat"))
    service.execute(CID, "gm", EndRound())
    assert hero(service, CID, "entropy").base_now().name == "d8"
    ended = service.execute(CID, "gm", EndConflict()).state
    assert ended.game.conflict is None and ended.game.hero("entropy").base_now().name == "d8"


def test_undo_refunds_what_was_spent_and_stops_at_rolls_for_players(service, dice):
    # R-T-4: undo appends a fact of its own; a roll is a commit point only the GM passes
    setup(service)
    before = hero(service, CID, "comet")
    spent = service.execute(CID, "pat", TryAgain("comet")).state
    assert spent.game.hero("comet").karma < before.karma
    undone = service.execute(CID, "pat", Undo()).state
    assert undone.game.hero("comet") == before
    dice.faces = [2, 5]
    service.execute(CID, "pat", Challenge("comet", call=called(service, "comet")))
    with pytest.raises(Forbidden) as err:
        service.execute(CID, "pat", Undo())
    assert err.value.code == "undo/commit_point"
    with pytest.raises(Forbidden):
        service.execute(CID, "sam", Undo())
    assert service.execute(CID, "gm", Undo()).state.game.tasks == ()
    log = service.store.load(CID)
    assert [e.seq for e in log] == list(range(1, len(log) + 1))  # nothing deleted


def test_a_settlement_is_a_commit_point_and_a_gm_undo_marks_the_roll_seen(service, dice):
    # R-T-4: a player cannot undo a settlement and re-roll; a GM undo returns the roll to pending, marked revealed
    setup(service)
    dice.faces = [3, 8]
    task_id = service.execute(CID, "pat", Challenge("comet", call=called(service, "comet"))).events[0].command_id
    service.execute(CID, "pat", Settle(task_id))
    with pytest.raises(Forbidden):
        service.execute(CID, "pat", Undo())
    service.execute(CID, "gm", Undo())
    [task] = service.state(CID).game.tasks
    assert task.id == task_id and task_id in service.state(CID).revealed
    with pytest.raises(TableError) as err:
        service.execute(CID, "pat", Reroll("comet", "motivation", task_id))
    assert err.value.code == "roll/revealed"
    assert not hero(service, CID, "comet").motivation_used  # the refused re-roll spent nothing
    assert replay_events(service.store.load(CID)) == service.state(CID)


def test_only_the_latest_action_can_be_undone(service):
    setup(service)
    first = service.execute(CID, "pat", TryAgain("comet")).events[0].command_id
    service.execute(CID, "sam", TryAgain("nova"))
    with pytest.raises(TableError) as err:
        service.execute(CID, "gm", Undo(first))
    assert err.value.code == "undo/not_last"


def test_undo_walks_back_action_by_action_and_the_log_reads_it(service):
    setup(service)
    service.execute(CID, "pat", TryAgain("comet"))
    service.execute(CID, "sam", TryAgain("nova"))
    state = service.execute(CID, "gm", Undo()).state
    assert state.game.hero("nova").try_again_tokens == 0 and state.game.hero("comet").try_again_tokens == 2
    state = service.execute(CID, "gm", Undo()).state
    assert state.game.hero("comet").try_again_tokens == 0
    words = text_seen(service, CID, "sly")
    assert "Undone: Sam's karma try again" in words and "Undone: Pat's karma try again" in words


def test_scene_and_adventure_boundaries(service, dice):
    # R-T-1, R-LTL-6, R-LTL-10, R-LTL-11, R-LTL-16
    setup(service)
    service.execute(
        CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains")), stakes=LossType.NON_DAMAGING)
    )
    dice.faces = [1, 9]
    service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    accept_others(service, CID, "pat")
    service.execute(CID, "pat", Settle())
    service.execute(CID, "gm", EndRound())
    service.execute(CID, "gm", EndConflict())
    service.execute(CID, "pat", TryAgain("comet"))
    dice.faces = [2, 7]
    service.execute(CID, "pat", Push("comet"))
    assert hero(service, CID, "comet").levels_lost(LossType.NON_DAMAGING) == 1
    state = service.execute(CID, "gm", EndScene()).state
    assert state.game.hero("comet").losses == ()  # non-damaging losses recover at the end of the scene
    state = service.execute(CID, "gm", EndAdventure({"comet": 12})).state
    comet = state.game.hero("comet")
    assert comet.karma == comet.sheet.karma and comet.try_again_tokens == 0 and comet.sheet.hero_points == 12


def test_gm_override_is_logged_with_who_made_it(service):
    # R-T-2
    setup(service)
    applied = service.execute(CID, "gm", Override("comet", "the bridge collapses on him", lose=2))
    assert applied.events[0].actor == "gm" and applied.events[0].data["reason"] == "the bridge collapses on him"
    assert "GM override on Captain Comet: the bridge collapses on him" in text_seen(service, CID, "sam")
    assert applied.state.game.hero("comet").levels_lost() == 2
    with pytest.raises(Forbidden):
        service.execute(CID, "pat", Override("comet", "I feel better", clear_losses=True))


def test_replay_folds_without_rolling_and_the_audit_decides_again(service, dice):
    # R-T-1: state is a fold of facts; every raw face is in them; the audit re-decides from the recorded dice
    from herotable.table.audit import audit

    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    service.execute(CID, "gm", SetDefence("entropy", "Decay"))
    service.execute(CID, "pat", TryAgain("comet"))
    dice.faces = [3, 8, 11]
    service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    service.execute(CID, "pat", Reroll("comet", "try_again"))
    accept_others(service, CID, "pat")
    service.execute(CID, "pat", Settle())
    service.execute(CID, "gm", EndRound())
    log = service.store.load(CID)
    assert replay_events(log) == service.state(CID)
    rolls = [
        (e.data["roller"], e.data["die"], e.data["faces"]) for e in log if e.type in ("dice.rolled", "dice.rerolled")
    ]
    assert rolls == [("comet", 12, [3]), ("entropy", 12, [8]), ("comet", 12, [11])]
    report = audit(log)
    assert report.clean and report.agreed == report.commands


def test_snapshots_load_the_same_state(dice):
    from herotable.store.memory import MemoryEventStore

    store = MemoryEventStore()
    first = TableService(store, rng=dice, snapshot_every=4)
    setup(first)
    for _ in range(3):
        first.execute(CID, "pat", TryAgain("comet"))
    assert store.latest_snapshot(CID, STATE_VERSION) is not None
    fresh = TableService(store, rng=dice)
    assert fresh.state(CID) == first.state(CID) == replay_events(store.load(CID))
    kept = snapshot_of(first.state(CID))  # read by the compiled decoders (the service) as by the checked (a restore)
    assert state_from_snapshot(kept, check=False) == state_from_snapshot(kept) == first.state(CID)


def test_an_undo_reaching_past_a_snapshot_folds_the_log_from_its_start(dice):
    # the undo stack's earlier states live in memory only; a state loaded from a snapshot folds again
    from herotable.store.memory import MemoryEventStore

    store = MemoryEventStore()
    first = TableService(store, rng=dice, snapshot_every=1)
    setup(first)
    before = first.state(CID).game.hero("comet")
    first.execute(CID, "pat", TryAgain("comet"))
    fresh = TableService(store, rng=dice)
    assert fresh.state(CID).befores == ()
    assert fresh.execute(CID, "pat", Undo()).state.game.hero("comet") == before


def test_a_log_entry_is_headed_by_its_command_where_its_first_fact_would_mislead(service, dice):
    # the end of a round may begin with a hero who stops pushing; its heading is still the end of the round
    from herotable.table.ltl.commands import Push
    from herotable.table.render import log_entries

    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    service.execute(CID, "pat", Push("comet", burn=True))
    service.execute(CID, "gm", EndRound())
    entries = log_entries(service.state(CID), service.stream(CID, "pat", limit=500).seen)
    assert entries[-1].title == "End of round" and entries[-1].lines[0] == "Captain Comet stops pushing"
    assert entries[-2].title == "Heroism"


def test_settling_never_tells_a_player_what_the_hidden_side_rolled(service, dice):
    # R-LTL-8 and R-T-2: Comet goes for broke to the cap and scores a critical; the extra level a player asks for
    # becomes the advantage next round instead of a refusal that would betray the hidden villain's natural 1
    from herotable.table.legal import legal_actions

    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    dice.faces = [8, 1]  # going for broke by two levels rolls Fisticuffs' d12 as a d8
    service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs", broke=2))
    accept_others(service, CID, "pat")
    settle = next(a for a in legal_actions(service.state(CID), "pat") if a.type == "ltl.settle")
    assert set(settle.fields["crit_bonus"].choices) == {b.value for b in CritBonus}  # the extra level too
    applied = service.execute(CID, "pat", Settle(crit_bonus=CritBonus.EXTRA_LEVEL))
    settled = next(data for kind, _, data in facts(applied) if kind == "ltl.task_settled")
    assert (settled["winner"], settled["effect"], settled["crit_bonus"]) == ("comet", 3, "plus_one_next")
    assert settled["actor_critical"] == "success"


def test_a_secret_roll_spends_nothing_of_a_character_the_players_see(service, dice):
    # R-T-3: spends are the player's to declare, and the player cannot see a GM secret roll; a hidden NPC's are the GM's
    from herotable.table.ltl.commands import Challenge, DifficultyName

    setup(service)
    head = service.store.head(CID)
    with pytest.raises(TableError) as refused:
        service.execute(CID, "gm", Challenge("comet", DifficultyName.HARD, auto_success=True, secret=True))
    assert refused.value.code == "roll/secret_spend" and service.store.head(CID) == head
    karma = hero(service, CID, "entropy").karma.position
    dice.faces = [5, 6]
    applied = service.execute(CID, "gm", Challenge("entropy", DifficultyName.HARD, auto_success=True, secret=True))
    assert {e.visibility for e in applied.events} == {"gm"}
    assert hero(service, CID, "entropy").karma.position == karma - 1
    dice.faces = [9, 4]
    service.execute(CID, "gm", Challenge("comet", DifficultyName.HARD, secret=True))  # a roll alone spends nothing
    assert "ltl.karma_burned" not in seen_types(service, CID, "pat")


def test_a_d4_under_a_critical_failure_counts_its_face_one_lower_and_the_log_folds_to_it(service, dice):
    # R-LTL-8 (amended): Comet fails critically and ends the round at d4 with -1: the d4 it rolls next counts one
    # lower, so its 2 only ties Entropy's 1; every fact folds to the table the rules computed
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    service.execute(CID, "gm", Override("comet", "worn down", lose=1))
    service.execute(CID, "gm", SetDefence("entropy", "Decay"))
    dice.faces = [1, 12]  # Comet's d8 base against Entropy's d12 Decay
    service.execute(CID, "pat", Attack("comet", "entropy"))
    accept_others(service, CID, "pat")
    service.execute(CID, "pat", Settle())
    service.execute(CID, "gm", ChooseCritReward("entropy", CritBonus.EXTRA_LEVEL))  # Entropy's, the GM's (R-LTL-8)
    service.execute(CID, "gm", EndRound())
    comet = hero(service, CID, "comet")
    assert comet.base_now().sides == 4 and comet.this_round == (NextRoundEffect.MINUS_ONE,)
    dice.faces = [2, 1]
    opened = service.execute(CID, "pat", Attack("comet", "entropy"))
    rolled = [data for kind, _, data in facts(opened) if kind == "dice.rolled" and data["roller"] == "comet"]
    assert [(r["rating"], r["die"], r["faces"]) for r in rolled] == [(0, 4, [2])]
    accept_others(service, CID, "pat")
    settled = next(data for kind, _, data in facts(service.execute(CID, "pat", Settle())) if kind == "ltl.task_settled")
    assert settled["outcome"] == "tie"


def test_pushing_a_d12_style_to_d20_burns_two_levels_at_the_table(service):
    # R-LTL-11 (amended): Comet's d12 Fisticuffs on a d10 base becomes d20 by the Push, so the burn is two levels
    setup(service)
    service.execute(CID, "pat", Push("comet", burn=True))
    comet = hero(service, CID, "comet")
    assert comet.pushed and comet.heroism.sides == 4  # d8 - 2 levels


def test_opponent_minus_one_on_a_critical_failure_becomes_another_advantage(service, dice):
    # R-LTL-8 (amended): Entropy's natural 1 against Comet's 12 is its critical failure too, so it carries one -1;
    # "opponent -1" would give nothing extra, and the settlement names the advantage Comet gets instead
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    dice.faces = [12, 1]
    service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    accept_others(service, CID, "pat")
    applied = service.execute(CID, "pat", Settle(crit_bonus=CritBonus.OPPONENT_MINUS_ONE))
    settled = next(data for kind, _, data in facts(applied) if kind == "ltl.task_settled")
    assert (settled["actor_critical"], settled["crit_bonus"]) == ("success", "plus_one_next")
    service.execute(CID, "gm", EndRound())
    assert hero(service, CID, "entropy").this_round == (NextRoundEffect.MINUS_ONE,)
    assert hero(service, CID, "comet").this_round == (NextRoundEffect.PLUS_ONE,)


def test_archiving_while_a_roll_is_open_names_the_roll_and_its_roller(service, dice):
    # R-T-5: the GM learns which roll holds the campaign open, not only that one does
    from herotable.table.campaign_settings import ArchiveCampaign

    setup(service)
    dice.faces = [9, 4]
    service.execute(CID, "pat", Challenge("comet", style="Flight", call=called(service, "comet", label="Leap the gap")))
    with pytest.raises(TableError) as refused:
        service.execute(CID, "gm", ArchiveCampaign())
    assert "Captain Comet's challenge 'Leap the gap' is not settled" in refused.value.reason
    assert "settle" in refused.value.fix


def test_a_conflict_with_one_side_left_offers_its_end_first_and_no_more_fighting(service, dice):
    # R-LTL-12, R-LTL-5: once one side is left standing there is nothing to fight over; the GM ends the conflict
    from herotable.table.ltl.commands import GiveUp

    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("nova", "heroes"), ("entropy", "villains"))))
    kinds = {a.type for a in service.legal_actions(CID, "pat")}
    assert {"ltl.attack", "ltl.conflict.give_up", "ltl.conflict.pass"} <= kinds
    service.execute(CID, "gm", GiveUp("entropy"))
    assert not {"ltl.attack", "ltl.conflict.give_up", "ltl.conflict.pass"} & {
        a.type for a in service.legal_actions(CID, "pat")
    }
    ending = [a.type for a in service.legal_actions(CID, "gm") if a.type.startswith("ltl.conflict.end")]
    assert ending == ["ltl.conflict.end", "ltl.conflict.end_round"]
    assert service.view(CID, "pat")["game"]["conflict"]["over"] is True


def test_a_players_roll_answering_a_call_is_headed_by_the_roll_not_the_call(service, dice):
    # issue 28: the roll's first fact closes the GM's call, and the entry read "The GM calls for a roll"
    from herotable.table.render import log_entries

    setup(service)
    dice.faces = [9, 4]
    service.execute(CID, "pat", Challenge("comet", style="Flight", call=called(service, "comet")))
    entries = log_entries(service.state(CID), service.stream(CID, "pat", limit=100).seen)
    assert [e.title for e in entries[-2:]] == ["The GM calls for a roll", "Challenge"]


def test_a_settled_roll_keeps_the_label_the_gm_called_it_by(service, dice):
    # issue 28 (ltl.task_settled version 4): the settled entry said "Captain Comet succeeds" and nothing of what
    setup(service)
    dice.faces = [9, 4]
    service.execute(CID, "pat", Challenge("comet", style="Flight", call=called(service, "comet", label="Leap the gap")))
    settled = service.execute(CID, "pat", Settle())
    [data] = [d for kind, _, d in facts(settled) if kind == "ltl.task_settled"]
    assert data["label"] == "Leap the gap"
    assert "Leap the gap: Captain Comet succeeds" in text_seen(service, CID, "sam")  # the whole table reads it


def test_play_begins_in_one_step_as_the_three_starts_would(service):
    # R-T-1, issue 28: adventure, session and scene begin together, with each boundary's game facts
    from herotable.table.structure import BeginPlay

    service.create_campaign("gm", "Gwen", "Harbour Nights", Ruleset.LTL, campaign_id="one")
    service.create_campaign("gm", "Gwen", "Harbour Nights", Ruleset.LTL, campaign_id="three")
    for cid in ("one", "three"):
        service.execute(cid, "pat", Join("Pat"))
        service.execute(cid, "pat", CreateLtlCharacter("comet", CAPTAIN_COMET))
    assert "structure.begin" in {a.type for a in service.legal_actions("one", "gm")}
    begun = service.execute("one", "gm", BeginPlay())
    for cmd in (StartAdventure(), StartSession(), StartScene()):
        service.execute("three", "gm", cmd)
    kinds = [kind for kind, _, _ in facts(begun)]
    assert kinds[0] == "structure.adventure_started" and "structure.scene_started" in kinds
    one, three = service.state("one"), service.state("three")
    assert one.structure == three.structure and one.game == three.game
    assert "structure.begin" not in {a.type for a in service.legal_actions("one", "gm")}
    with pytest.raises(TableError):
        service.execute("one", "gm", BeginPlay())
    with pytest.raises(Forbidden):
        service.execute("three", "pat", BeginPlay())
