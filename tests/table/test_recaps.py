"""A game session's recap for each reader (R-T-1, R-T-2, R-T-4): each game's part from a scripted session, undone
actions left out, a GM secret roll and a hidden NPC's numbers kept from players, the GM's own paragraph, and reading
only the session's stretch of the log."""

from __future__ import annotations

import pytest

from herotable.dice import ScriptedRng
from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.service import TableService
from herotable.service.recaps import read_recap, sessions_of
from herotable.store.memory import MemoryEventStore
from herotable.table.commands import InvalidCommand, command_from_json
from herotable.table.conviction.commands import (
    Announce,
    BeginTurns,
    CreateCvCharacter,
    RaiseLevel,
    StartRound,
    Surge,
    ToughnessSave,
)
from herotable.table.ltl.commands import (
    Attack,
    Challenge,
    CreateLtlCharacter,
    DifficultyName,
    EndConflict,
    EndRound,
    Override,
    Push,
    RecordDefeat,
    Settle,
    StartConflict,
    TryAgain,
)
from herotable.table.recap import Recap, markdown, md, recap_json
from herotable.table.recap_notes import WriteRecap
from herotable.table.state import Forbidden, Role, Ruleset, TableError
from herotable.table.structure import (
    BeginPlay,
    EndAdventure,
    EndScene,
    EndSession,
    Join,
    MarkDramatic,
    StartScene,
    StartSession,
)
from herotable.table.undo import Undo

from .helpers import accept_others
from .test_cv_table import sheet

CID = "harbour"


def recap(service: TableService, number: int, viewer: str) -> Recap:
    found = read_recap(service.store, service.state(CID), number, viewer)
    assert found is not None
    return found


def lines(r: Recap) -> dict[str, list[str]]:
    return {s.title: list(s.lines) for s in r.sections}


def everything(r: Recap) -> str:
    """The recap on every surface the table layer makes: the model, its Markdown, its JSON."""
    return f"{r!r}\n{markdown(r)}\n{recap_json(r)}"


def ltl_table(service: TableService) -> None:
    service.create_campaign("gm", "Gwen", "Harbour Nights", Ruleset.LTL, campaign_id=CID)
    service.execute(CID, "pat", Join("Pat"))
    service.execute(CID, "sam", Join("Sam"))
    service.execute(CID, "sly", Join("Sly", Role.SPECTATOR))
    service.execute(CID, "pat", CreateLtlCharacter("comet", CAPTAIN_COMET))
    service.execute(CID, "sam", CreateLtlCharacter("nova", {**CAPTAIN_COMET, "name": "Nova"}))
    service.execute(CID, "gm", CreateLtlCharacter("entropy", DOCTOR_ENTROPY, npc=True, hidden=True))
    service.execute(CID, "gm", BeginPlay())


def ltl_session(service: TableService, dice) -> str:
    """A first session: a conflict the heroes win, a defeat, Karma and Heroism burned, the GM's secret roll and the
    hidden villain's Karma, then the adventure's Hero Points; the secret roll's command id."""
    ltl_table(service)
    service.execute(CID, "gm", TryAgain("entropy"))  # the hidden villain's Karma: the GM's to know
    dice.faces = [3, 5]
    secret = service.execute(CID, "gm", Challenge("entropy", DifficultyName.AVERAGE, secret=True))
    service.execute(CID, "gm", Settle(secret.events[0].command_id))
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("nova", "heroes"), ("entropy", "villains"))))
    dice.faces = [10, 2]
    service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    accept_others(service, CID, "pat")
    service.execute(CID, "pat", Settle())
    service.execute(CID, "gm", Override("entropy", "the roof falls on him", lose=5))
    service.execute(CID, "gm", EndRound())
    service.execute(CID, "gm", EndConflict())
    service.execute(CID, "gm", RecordDefeat("entropy", "captured"))
    service.execute(CID, "pat", TryAgain("comet"))
    service.execute(CID, "sam", Push("nova", burn=True))
    service.execute(CID, "gm", EndScene())
    service.execute(CID, "gm", EndAdventure({"comet": 12, "nova": 10}))
    return secret.events[0].command_id


def test_an_ltl_session_tells_conflicts_defeats_spends_levels_and_hero_points(service, dice):
    # R-LTL-5, R-LTL-10, R-LTL-11, R-LTL-12, R-LTL-16
    ltl_session(service, dice)
    r = recap(service, 1, "sam")
    said = lines(r)
    assert said["Conflicts"] == [
        "In scene 1, a conflict with physical stakes: Captain Comet and Nova (heroes) against Doctor Entropy "
        "(villains); the heroes side won. Captain Comet won 1 exchange"
    ]
    assert said["Defeats"] == ["Doctor Entropy is defeated: captured"]
    assert said["Karma and Heroism"] == [
        "Captain Comet burned 1 level of Karma (try again)",
        "Nova burned 2 levels of Heroism (push)",
    ]
    assert said["Levels lost and healed"] == ["Doctor Entropy lost 6 levels (6 physical)"]
    assert said["Hero Points"] == [
        "Captain Comet earned 12 Hero Points (12 in all)",
        "Nova earned 10 Hero Points (10 in all)",
    ]
    assert (r.session, r.adventure, r.game, r.running) == (1, 1, "Larger Than Life", False)
    assert [(s.number, s.dramatic, s.ended) for s in r.scenes] == [(1, False, True)]
    assert (r.gm, r.players) == ("Gwen", ("Pat", "Sam"))
    assert set(r.characters) == {"Captain Comet", "Nova", "Doctor Entropy"}
    assert r.ended_at is not None and r.note is None


def test_a_gm_secret_roll_and_a_hidden_npcs_numbers_never_reach_a_players_recap(service, dice):
    # R-T-2: the GM's recap has them; a player's and a spectator's, on the model, in Markdown and JSON, do not
    secret = ltl_session(service, dice)
    gm = recap(service, 1, "gm")
    # the GM's own recap says what only the GM knows, so that a shared copy can leave it out
    assert "Doctor Entropy burned 1 level of Karma (try again) (GM only)" in lines(gm)["Karma and Heroism"]
    assert "Captain Comet burned 1 level of Karma (try again)" in lines(gm)["Karma and Heroism"]
    assert lines(gm)["Rolls"] == ["Doctor Entropy fails (GM only)"]
    for viewer in ("pat", "sly"):
        shown = everything(recap(service, 1, viewer))
        assert "Doctor Entropy burned" not in shown and "Rolls" not in shown and secret not in shown
        assert "Doctor Entropy is defeated" in shown  # what the table saw of the villain stays
    assert read_recap(service.store, service.state(CID), 1, "stranger") is None  # a non-member: not even that


def test_an_undone_action_is_not_in_the_recap(service, dice):
    # R-T-4: a recap tells what happened as it stands
    ltl_table(service)
    service.execute(CID, "pat", TryAgain("comet"))
    service.execute(CID, "pat", Undo())
    service.execute(CID, "sam", TryAgain("nova"))
    said = lines(recap(service, 1, "gm"))
    assert said["Karma and Heroism"] == ["Nova burned 1 level of Karma (try again)"]
    assert "Captain Comet" not in str(said) and "Undone" not in markdown(recap(service, 1, "gm"))


def test_a_conviction_session_tells_fights_checks_points_levels_and_who_was_taken_out():
    # R-CV-2, R-CV-3, R-CV-8, R-CV-14
    service = TableService(MemoryEventStore(), rng=ScriptedRng([]))

    def run(user: str, cmd, *faces: int) -> None:
        service.rng = ScriptedRng([(20, f) for f in faces])
        service.execute(CID, user, cmd)

    service.create_campaign("gm", "Gwen", "Ninja Island", Ruleset.CONVICTION, campaign_id=CID)
    run("ana", Join("Ana"))
    run("ana", CreateCvCharacter("kes", sheet("Kestrel")))
    run("gm", CreateCvCharacter("rex", sheet("Captain Rex"), npc=True, hidden=True))
    run("gm", BeginPlay())
    run("gm", MarkDramatic())
    run("gm", StartRound(), 12, 5)
    run("gm", BeginTurns())
    run("ana", Surge("kes"))
    run("gm", StartRound())
    run("gm", ToughnessSave("kes", damage_bonus=5, attacker="rex"), 1)  # 1 + 2 = 3 against 20: dying
    run("ana", Announce())
    run("gm", EndScene())
    run("gm", RaiseLevel("kes"))
    r = recap(service, 1, "ana")
    said = lines(r)
    assert said["Fights"] == ["In scene 1, a fight of 2 rounds: Kestrel and Captain Rex"]
    assert said["Checks"] == ["Kestrel's Toughness save against lethal damage: failure (3 against 20)"]
    assert said["Defeats and injuries"] == ["Kestrel was taken out: at worst dying"]
    assert said["Conviction"] == [  # knocked out by an enemy: a point (R-CV-2)
        "Kestrel spent 1 Conviction (surge)",
        "Kestrel gained 1 Conviction (toughness save)",
    ]
    assert said["Levels"] == ["Kestrel reached level 2"]
    assert [(s.number, s.dramatic, s.ended) for s in r.scenes] == [(1, True, True)]
    assert r.game == "Conviction"


def test_the_gms_paragraph_is_written_again_taken_out_and_kept_safe(service, dice):
    # the newest counts; an empty one takes it out; what the GM typed stays text in every surface
    ltl_table(service)
    service.execute(CID, "gm", WriteRecap(1, "First try"))
    service.execute(CID, "gm", WriteRecap(1, "The heroes *met* <b>Entropy</b> & [ran](javascript:x)"))
    service.execute(CID, "gm", WriteRecap(0, "We built our heroes"))
    r = recap(service, 1, "pat")
    assert r.note is not None and r.note.text == "The heroes *met* <b>Entropy</b> & [ran](javascript:x)"
    assert "The heroes \\*met\\* \\<b\\>Entropy\\</b\\> \\& \\[ran\\](javascript:x)" in markdown(r)
    assert recap(service, 0, "sly").note.text == "We built our heroes"
    assert [s.noted for s in sessions_of(service.store, service.state(CID), "sly")] == [True, True]
    service.execute(CID, "gm", WriteRecap(1, " A night at sea.\r\n\r\nThe end.  \r\n"))  # as a form sends it
    assert recap(service, 1, "pat").note.text == "A night at sea.\n\nThe end."
    service.execute(CID, "gm", WriteRecap(1, "   "))
    assert recap(service, 1, "pat").note is None


def test_the_gms_paragraph_is_no_action_that_undo_reaches(service):
    # R-T-4, as chat: undo passes it by and reaches the action before it
    ltl_table(service)
    service.execute(CID, "pat", TryAgain("comet"))
    service.execute(CID, "gm", WriteRecap(1, "Comet steadies himself"))
    service.execute(CID, "gm", Undo())
    assert service.state(CID).game.hero("comet").try_again_tokens == 0
    assert recap(service, 1, "gm").note.text == "Comet steadies himself"


def test_a_paragraph_for_a_session_whose_start_was_undone_does_not_pass_to_the_next(service):
    ltl_table(service)
    service.execute(CID, "gm", EndSession())
    service.execute(CID, "gm", StartSession())
    service.execute(CID, "gm", WriteRecap(2, "A false start"))
    service.execute(CID, "gm", Undo())  # the session's start
    service.execute(CID, "gm", StartSession())
    assert recap(service, 2, "gm").note is None


@pytest.mark.parametrize(
    ("user", "body", "code"),
    [
        ("pat", {"type": "campaign.recap", "session": 1, "text": "mine"}, "table/gm_only"),
        ("sly", {"type": "campaign.recap", "session": 1, "text": "mine"}, "table/gm_only"),
        ("gm", {"type": "campaign.recap", "session": 2, "text": "later"}, "recap/no_session"),
        ("gm", {"type": "campaign.recap", "session": -1, "text": "x"}, "table/out_of_range"),
        ("gm", {"type": "campaign.recap", "session": 1, "text": "x" * 2001}, "table/too_long"),
        ("gm", {"type": "campaign.recap", "session": 1, "text": "a\x00b"}, "table/bad_text"),
        ("gm", {"type": "campaign.recap", "session": "one", "text": "x"}, "table/bad_command"),
    ],
)
def test_a_bad_paragraph_is_refused_with_what_to_do_and_changes_nothing(service, user, body, code):
    ltl_table(service)
    head = service.store.head(CID)
    with pytest.raises(TableError) as refused:
        service.execute(CID, user, command_from_json(body))
    assert refused.value.code == code and refused.value.fix
    assert service.store.head(CID) == head
    if code == "recap/no_session":
        assert "session 2" in refused.value.reason and "0" in refused.value.fix and "1" in refused.value.fix
    if user != "gm":
        assert isinstance(refused.value, Forbidden)
    if code == "table/too_long":
        assert isinstance(refused.value, InvalidCommand) and refused.value.field == "text"


def test_a_session_0_recap_is_what_came_before_the_first_session(service):
    ltl_table(service)
    zero = recap(service, 0, "pat")
    assert zero.title == "Before the first game session" and zero.started_at is not None
    assert read_recap(service.store, service.state(CID), 2, "pat") is None  # no such session


class CountingStore(MemoryEventStore):
    """The memory store, noting from where each log was loaded."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded_after: list[int] = []

    def load(self, campaign_id: str, after_seq: int = 0):  # type: ignore[no-untyped-def]
        self.loaded_after.append(after_seq)
        return super().load(campaign_id, after_seq)


def test_a_recap_loads_the_log_from_its_sessions_start(dice):
    store = CountingStore()
    service = TableService(store, rng=dice)
    ltl_table(service)
    service.execute(CID, "pat", TryAgain("comet"))
    service.execute(CID, "gm", EndScene())
    service.execute(CID, "gm", EndSession())
    service.execute(CID, "gm", StartSession())
    service.execute(CID, "sam", TryAgain("nova"))
    service.execute(CID, "gm", StartScene())
    state = service.state(CID)
    start = next(e.seq for e in store.load(CID) if e.type == "structure.session_started" and e.data["number"] == 2)
    store.loaded_after.clear()
    second = read_recap(store, state, 2, "pat")
    assert store.loaded_after == [start - 1]
    assert second is not None and lines(second)["Karma and Heroism"] == ["Nova burned 1 level of Karma (try again)"]
    assert [s.number for s in second.scenes] == [2] and second.running
    assert sessions_of(store, state, "pat")[-1].number == 2 and store.loaded_after == [start - 1]  # no load: marks


def test_markdown_escapes_markup_but_keeps_the_words():
    assert md("# a *b* _c_ `d` <e> & [f](g) | h ~ i") == r"\# a \*b\* \_c\_ \`d\` \<e\> \& \[f\](g) \| h \~ i"
    assert md("1. first\n- second\nplain (words) 3.5") == "1\\. first\n\\- second\nplain (words) 3.5"


def test_a_quick_contest_and_who_won_it_are_in_the_recap(service, dice):
    from herotable.table.ltl.contests import CallContest, EnterContest

    ltl_table(service)
    service.execute(CID, "gm", CallContest(("comet", "nova")))
    service.execute(CID, "pat", EnterContest("comet"))
    dice.faces = [9, 2]
    service.execute(CID, "sam", EnterContest("nova"))
    for viewer in ("gm", "pat", "sly"):
        assert lines(recap(service, 1, viewer))["Contests and races"] == ["Captain Comet won a quick contest over Nova"]


def test_a_past_recap_names_the_gm_and_players_of_its_session_after_a_hand_over(service, dice):
    from herotable.table.campaign_settings import HandOver
    from herotable.table.structure import EndSession, StartSession

    ltl_table(service)
    service.execute(CID, "pat", TryAgain("comet"))
    service.execute(CID, "gm", EndSession())
    service.execute(CID, "gm", HandOver("sam"))
    service.execute(CID, "sam", StartSession())
    first = recap(service, 1, "sam")
    assert (first.gm, first.players) == ("Gwen", ("Pat",))
    assert recap(service, 2, "sam").gm == "Sam"
