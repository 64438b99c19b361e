"""A campaign's facts session by session, as one reader may see them (`history.sessions`): undone actions and undos
left out, a GM secret roll kept from players, session 0 being what came before the first (R-T-1, R-T-2, R-T-4)."""

from __future__ import annotations

from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.service import TableService
from herotable.table.core import SessionStarted
from herotable.table.history import seen_facts, sessions, split
from herotable.table.ltl.commands import Challenge, CreateLtlCharacter, DifficultyName, Settle, TryAgain
from herotable.table.state import Role, Ruleset
from herotable.table.structure import BeginPlay, EndScene, EndSession, Join, StartAdventure, StartSession
from herotable.table.undo import Undo

CID = "harbour"


def setup(service: TableService) -> None:
    service.create_campaign("gm", "Gwen", "Harbour Nights", Ruleset.LTL, campaign_id=CID)
    service.execute(CID, "pat", Join("Pat"))
    service.execute(CID, "sly", Join("Sly", Role.SPECTATOR))
    service.execute(CID, "pat", CreateLtlCharacter("comet", CAPTAIN_COMET))
    service.execute(CID, "gm", CreateLtlCharacter("entropy", DOCTOR_ENTROPY, npc=True, hidden=True))


def read(service: TableService, viewer: str) -> list:
    return sessions(service.state(CID), service.store.load(CID), viewer)


def test_sessions_are_cut_at_each_start_and_session_0_is_what_came_before(service):
    # R-T-1: campaign > adventures > game sessions; session 0 holds the campaign's making
    setup(service)
    service.execute(CID, "gm", BeginPlay())
    service.execute(CID, "pat", TryAgain("comet"))
    service.execute(CID, "gm", EndScene())
    service.execute(CID, "gm", EndSession())
    service.execute(CID, "gm", StartSession())
    found = read(service, "pat")
    assert [(s.number, s.adventure) for s in found] == [(0, 1), (1, 1), (2, 1)]
    zero, first, second = found
    assert zero.started_at is None and {"campaign.created", "character.joined"} <= {s.fact.type for s in zero.facts}
    assert first.started_at is not None and first.ended_at is not None and second.ended_at is None
    assert [s.fact.type for s in first.facts].count("ltl.karma_burned") == 1
    assert isinstance(second.facts[0].fact, SessionStarted) and second.facts[0].fact.number == 2


def test_an_undone_action_and_the_undo_itself_are_left_out(service):
    # R-T-4: a recap tells what happened as it stands
    setup(service)
    service.execute(CID, "gm", BeginPlay())
    service.execute(CID, "pat", TryAgain("comet"))
    service.execute(CID, "pat", Undo())
    service.execute(CID, "pat", TryAgain("comet"))
    types = [s.fact.type for s in read(service, "gm")[1].facts]
    assert types.count("ltl.karma_burned") == 1 and "action.undone" not in types
    # the whole log still holds both spends and the undo
    assert [e.type for e in service.store.load(CID)].count("ltl.karma_burned") == 2


def test_an_undone_session_start_is_no_session(service):
    setup(service)
    service.execute(CID, "gm", StartAdventure())
    service.execute(CID, "gm", StartSession())
    service.execute(CID, "gm", Undo())
    assert [s.number for s in read(service, "gm")] == [0]
    service.execute(CID, "gm", StartSession())
    assert [s.number for s in read(service, "gm")] == [0, 1]


def test_a_gm_secret_roll_is_in_the_gms_session_only(service, dice):
    # R-T-2: the GM's secret roll never reaches a player or a spectator, settled or not
    setup(service)
    service.execute(CID, "gm", BeginPlay())
    dice.faces = [3, 5]
    opened = service.execute(CID, "gm", Challenge("entropy", DifficultyName.AVERAGE, secret=True))
    service.execute(CID, "gm", Settle(opened.events[0].command_id))
    secret = opened.events[0].command_id
    assert any(s.command_id == secret for s in read(service, "gm")[1].facts)
    for viewer in ("pat", "sly"):
        assert not any(s.command_id == secret for session in read(service, viewer) for s in session.facts)
    assert read(service, "stranger") == []  # a non-member sees nothing at all


def test_facts_read_from_the_middle_of_the_log_keep_their_adventure(service):
    # a session's facts loaded from its start alone still say which adventure it is in
    setup(service)
    service.execute(CID, "gm", StartAdventure())
    service.execute(CID, "gm", StartSession())
    state = service.state(CID)
    events = service.store.load(CID)
    start = next(e.seq for e in events if e.type == SessionStarted.type)
    [only] = split(seen_facts(state, events[start - 1 :], "pat"), begun=1)
    assert (only.number, only.adventure) == (1, 1)
    assert [(s.number, s.adventure) for s in split(seen_facts(state, events[start - 1 :], "pat"))] == [(1, 0)]
