"""Larger Than Life at the table: commands, events, views, undo and replay (R-T-1, R-T-2)."""

from __future__ import annotations

import pytest

from herotable.errors import RulesError
from herotable.ltl.hero import LossType
from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.service import TableService, replay_events
from herotable.table.campaign import (
    CreateLtlCharacter,
    EndAdventure,
    EndScene,
    Join,
    StartAdventure,
    StartScene,
    StartSession,
)
from herotable.table.fold import ReplayMismatch
from herotable.table.ltl_play import (
    Attack,
    Challenge,
    EndConflict,
    EndRound,
    Override,
    Push,
    Reroll,
    Settle,
    StartConflict,
    TryAgain,
)
from herotable.table.model import Forbidden, Role, Ruleset, TableError
from herotable.table.undo import Undo

CID = "harbour"


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


def types_seen(service: TableService, user: str) -> list[str]:
    return [e.type for e in service.events_for(CID, user)]


def test_hidden_npc_sheet_reaches_only_the_gm(service):
    # R-T-2 views: a hidden villain's sheet is the GM's
    setup(service)
    assert types_seen(service, "pat").count("character.create_ltl") == 2
    assert types_seen(service, "gm").count("character.create_ltl") == 3
    seen = next(c for c in service.view(CID, "pat")["characters"] if c["id"] == "entropy")
    assert seen == {"id": "entropy", "owner": "gm", "npc": True, "hidden": True, "name": "Doctor Entropy"}
    assert "Decay" in str(service.view(CID, "gm"))
    assert "Decay" not in str(service.view(CID, "pat")) + str([e.data for e in service.events_for(CID, "pat")])


def test_a_pending_roll_reaches_the_roller_and_the_gm_until_settled(service, dice):
    # R-LTL-9: pending until settled; other players see it when it is announced
    setup(service)
    dice.faces = [9, 4]
    opened = service.execute(CID, "pat", Challenge("comet", "Hard", style="Flight"))
    task_id = opened.events[0].command_id
    assert "ltl.challenge" in types_seen(service, "pat") and "ltl.challenge" in types_seen(service, "gm")
    assert "ltl.challenge" not in types_seen(service, "sam") + types_seen(service, "sly")
    assert service.view(CID, "sam")["tasks"] == [] and len(service.view(CID, "pat")["tasks"]) == 1
    settled = service.execute(CID, "pat", Settle(task_id))
    assert settled.events[0].visibility == "public" and settled.events[0].data["summary"]["outcome"] == "win"
    assert "ltl.settle" in types_seen(service, "sam")


def test_a_gm_secret_roll_stays_with_the_gm(service, dice):
    # R-T-2: GM-only rolls never reach players, settled or not
    setup(service)
    dice.faces = [3, 5]
    opened = service.execute(CID, "gm", Challenge("entropy", "Average", secret=True))
    service.execute(CID, "gm", Settle(opened.events[0].command_id))
    for user in ("pat", "sam", "sly"):
        assert not {"ltl.challenge", "ltl.settle"} & set(types_seen(service, user))
    assert {"ltl.challenge", "ltl.settle"} <= set(types_seen(service, "gm"))


def test_permissions_decide_who_starts_and_refusals_write_nothing(service, dice):
    # R-T-2: players act for their own characters; spectators watch; GM-only actions
    setup(service)
    head = service.store.head(CID)
    attempts = [
        ("sam", TryAgain("comet"), Forbidden),
        ("sly", TryAgain("comet"), Forbidden),
        ("stranger", TryAgain("comet"), Forbidden),
        ("pat", StartConflict((("comet", "h"), ("entropy", "v"))), Forbidden),
        ("pat", Challenge("comet", "Hard", secret=True), Forbidden),
        ("pat", Challenge("comet", "Impossible"), RulesError),
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
    service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    assert "ltl.attack" not in types_seen(service, "sam")
    service.execute(CID, "pat", Settle())
    after = service.execute(CID, "gm", EndRound()).state
    assert after.hero("entropy").base_now().name == "d8"
    ended = service.execute(CID, "gm", EndConflict()).state
    assert ended.conflict is None and ended.character("entropy").hero.base_now().name == "d8"


def test_undo_refunds_what_was_spent_and_stops_at_rolls_for_players(service, dice):
    # R-T-2: undo appends a compensating event; a roll is a commit point only the GM passes
    setup(service)
    before = service.state(CID)
    spent = service.execute(CID, "pat", TryAgain("comet")).state
    assert spent.hero("comet").karma < before.hero("comet").karma
    undone = service.execute(CID, "pat", Undo()).state
    assert undone.hero("comet") == before.hero("comet")
    dice.faces = [2, 5]
    service.execute(CID, "pat", Challenge("comet", "Hard"))
    with pytest.raises(Forbidden) as err:
        service.execute(CID, "pat", Undo())
    assert err.value.code == "undo/commit_point"
    with pytest.raises(Forbidden):
        service.execute(CID, "sam", Undo())
    assert service.execute(CID, "gm", Undo()).state.tasks == ()
    log = service.store.load(CID)
    assert [e.seq for e in log] == list(range(1, len(log) + 1))  # nothing deleted


def test_only_the_latest_action_can_be_undone(service):
    setup(service)
    first = service.execute(CID, "pat", TryAgain("comet")).events[0].command_id
    service.execute(CID, "sam", TryAgain("nova"))
    with pytest.raises(TableError) as err:
        service.execute(CID, "gm", Undo(first))
    assert err.value.code == "undo/not_last"


def test_scene_and_adventure_boundaries(service, dice):
    # R-T-1, R-LTL-6, R-LTL-10, R-LTL-11, R-LTL-16
    setup(service)
    service.execute(
        CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains")), stakes=LossType.NON_DAMAGING)
    )
    dice.faces = [1, 9]
    service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    service.execute(CID, "pat", Settle())
    service.execute(CID, "gm", EndRound())
    service.execute(CID, "gm", EndConflict())
    service.execute(CID, "pat", TryAgain("comet"))
    dice.faces = [2, 7]
    service.execute(CID, "pat", Push("comet"))
    state = service.state(CID)
    assert state.hero("comet").levels_lost(LossType.NON_DAMAGING) == 1
    state = service.execute(CID, "gm", EndScene()).state
    assert state.hero("comet").losses == ()  # non-damaging losses recover at the end of the scene
    state = service.execute(CID, "gm", EndAdventure({"comet": 12})).state
    comet = state.hero("comet")
    assert comet.karma == comet.sheet.karma and comet.try_again_tokens == 0 and comet.sheet.hero_points == 12


def test_gm_override_is_logged_with_who_made_it(service):
    # R-T-2
    setup(service)
    applied = service.execute(CID, "gm", Override("comet", "the bridge collapses on him", lose=2))
    assert applied.events[0].actor == "gm" and "bridge" in applied.events[0].data["summary"]["text"]
    assert applied.state.hero("comet").levels_lost() == 2
    with pytest.raises(Forbidden):
        service.execute(CID, "pat", Override("comet", "I feel better", clear_losses=True))


def test_replay_reproduces_state_without_rolling_and_detects_tampering(service, dice):
    # R-T-1: state is a fold of events; every raw face is in the events
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    service.execute(CID, "pat", TryAgain("comet"))
    dice.faces = [3, 8, 11]
    service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    service.execute(CID, "pat", Reroll("comet", "try_again"))
    service.execute(CID, "pat", Settle())
    service.execute(CID, "gm", EndRound())
    log = service.store.load(CID)
    assert replay_events(log) == service.state(CID)
    attack = next(e for e in log if e.type == "ltl.attack")
    assert attack.data["faces"] == [[12, 3], [12, 8]]
    forged = [
        e if e is not attack else type(e)(**{**vars(e), "data": {**e.data, "faces": [[12, 12], [12, 8]]}}) for e in log
    ]
    with pytest.raises(ReplayMismatch, match="different result"):
        replay_events(forged)


def test_snapshots_load_the_same_state(dice):
    from herotable.store.memory import MemoryEventStore

    store = MemoryEventStore()
    first = TableService(store, rng=dice, snapshot_every=4)
    setup(first)
    for _ in range(3):
        first.execute(CID, "pat", TryAgain("comet"))
    assert store.latest_snapshot(CID, 1) is not None
    fresh = TableService(store, rng=dice)
    assert fresh.state(CID) == first.state(CID) == replay_events(store.load(CID))
