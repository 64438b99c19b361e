"""The journal (R-T-4): an entry is the GM's alone until shown; showing it reaches exactly its readers, with the
entry, in their own streams; hiding it again tells those who lose it; the GM's undo of a show reaches everyone who
saw it and returns the entry to its earlier readers; writing is never an action; private notes reach a character's
player and the GM alone; search finds only what its reader may read."""

from __future__ import annotations

import pytest

from herotable.conviction import Abilities, Nature
from herotable.conviction import Role as CvRole
from herotable.dice import SeededRng
from herotable.service import TableService, replay_events
from herotable.store.memory import MemoryEventStore
from herotable.table import journal
from herotable.table.conviction.commands import CreateCvCharacter, CvSheet
from herotable.table.dice_roll import FreeRoll
from herotable.table.journal import RemoveEntry, ShowEntry, WriteEntry, WritePrivateNote
from herotable.table.legal import legal_actions
from herotable.table.render import log_entries
from herotable.table.state import Forbidden, Role, Ruleset, TableError
from herotable.table.structure import Join
from herotable.table.undo import Undo, undoable

from .helpers import seen, seen_types, text_seen

SECRET = "The lighthouse keeper is the smuggler"
MEMBERS = ("gm", "ana", "bo", "sam")


@pytest.fixture
def svc() -> TableService:
    service = TableService(MemoryEventStore(), rng=SeededRng(3))
    service.create_campaign("gm", "Gwen", "Ninja Island", Ruleset.CONVICTION, campaign_id="c")
    service.execute("c", "ana", Join("Ana"))
    service.execute("c", "bo", Join("Bo"))
    service.execute("c", "sam", Join("Sam", Role.SPECTATOR))
    return service


def sheet(name: str) -> CvSheet:
    return CvSheet(
        name=name,
        level=1,
        roles=(CvRole.WARRIOR,),
        toughness=1,
        nature=Nature("Loyal", "Reckless"),
        abilities=Abilities(strength=1, dexterity=1, constitution=1, intelligence=0, wisdom=1, charisma=0),
        combat_bonus=1,
        skills=(("Notice", 2),),
    )


def write(svc: TableService, title: str = "The letter", body: str = SECRET, entry: str | None = None) -> str:
    svc.execute("c", "gm", WriteEntry(title, body, entry))
    return svc.state("c").journal[-1].id if entry is None else entry


def readers_of(svc: TableService, title: str) -> set[str]:
    """Who among the members can read `title` anywhere: their stream, the log in words, or their view."""
    return {u for u in MEMBERS if title in text_seen(svc, "c", u)}


def test_a_new_entry_is_the_gms_alone(svc):
    write(svc)
    assert readers_of(svc, SECRET) == {"gm"}
    assert readers_of(svc, "The letter") == {"gm"}
    assert [e["title"] for e in svc.view("c", "gm")["journal"]["entries"]] == ["The letter"]
    assert svc.view("c", "ana")["journal"]["entries"] == []


def test_shown_to_one_player_it_reaches_that_player_alone_with_its_text(svc):
    e = write(svc)
    svc.execute("c", "gm", ShowEntry(e, readers=("ana",)))
    assert readers_of(svc, SECRET) == {"gm", "ana"}
    shown = [data for kind, data in seen(svc, "c", "ana") if kind == "journal.shown"]
    assert shown == [{"entry": e, "title": "The letter", "body": SECRET, "image": None}]
    assert "journal.readers_set" not in seen_types(svc, "c", "ana")  # who reads it is the GM's to know
    assert [x["id"] for x in svc.view("c", "ana")["journal"]["entries"]] == [e]
    assert "readers" not in svc.view("c", "ana")["journal"]["entries"][0]
    assert svc.view("c", "gm")["journal"]["entries"][0]["readers"] == ["ana"]


def test_shown_to_everyone_spectators_read_it_and_so_does_a_member_who_joins_later(svc):
    e = write(svc)
    svc.execute("c", "gm", ShowEntry(e, readers=("ana",)))
    svc.execute("c", "gm", ShowEntry(e, everyone=True))
    assert readers_of(svc, SECRET) == set(MEMBERS)
    svc.execute("c", "cy", Join("Cy"))
    assert [x["id"] for x in svc.view("c", "cy")["journal"]["entries"]] == [e]


def test_narrowed_from_everyone_the_others_are_told_it_is_gone_and_no_longer_read_it(svc):
    e = write(svc)
    svc.execute("c", "gm", ShowEntry(e, everyone=True))
    svc.execute("c", "gm", ShowEntry(e, readers=("bo",)))
    for user in ("ana", "sam"):
        assert seen_types(svc, "c", user)[-1] == "journal.hidden"
        assert svc.view("c", user)["journal"]["entries"] == []
    assert [x["id"] for x in svc.view("c", "bo")["journal"]["entries"]] == [e]
    svc.execute("c", "gm", ShowEntry(e))  # to nobody but the GM
    assert seen_types(svc, "c", "bo")[-1] == "journal.hidden"
    assert all(svc.view("c", u)["journal"]["entries"] == [] for u in ("ana", "bo", "sam"))


def test_an_edit_of_a_shown_entry_reaches_its_readers_and_nobody_else(svc):
    e = write(svc)
    svc.execute("c", "gm", ShowEntry(e, readers=("ana", "bo")))
    write(svc, "The letter, second page", "Meet at midnight", entry=e)
    assert readers_of(svc, "Meet at midnight") == {"gm", "ana", "bo"}
    gm_log = log_entries(svc.state("c"), svc.stream("c", "gm", limit=100).seen)
    assert gm_log[-1].lines == ("Journal entry “The letter, second page” written",)  # two copies, one line


def test_the_gms_undo_of_a_show_reaches_every_reader_and_returns_the_entry_to_its_earlier_readers(svc):
    e = write(svc)
    svc.execute("c", "gm", ShowEntry(e, readers=("ana",)))
    svc.execute("c", "gm", ShowEntry(e, readers=("ana", "bo", "sam")))
    svc.execute("c", "gm", Undo())
    state = svc.state("c")
    assert state.journal[0].readers == ("ana",)
    for user in ("bo", "sam"):  # those the show reached; Ana read the entry already and saw nothing of it
        assert seen_types(svc, "c", user)[-2:] == [
            "journal.shown",
            "action.undone" if user == "bo" else "action.undone_told",
        ]
    assert seen_types(svc, "c", "ana")[-1] == "journal.shown"
    assert [x["id"] for x in svc.view("c", "ana")["journal"]["entries"]] == [e]
    assert svc.view("c", "bo")["journal"]["entries"] == []
    replayed = replay_events(svc.store.load("c"))  # the copies change the state once
    assert replayed.journal == state.journal and replayed.done == state.done
    svc.execute("c", "gm", Undo())
    assert svc.state("c").journal[0].readers == ()


def test_writing_the_journal_is_no_action_and_does_not_take_a_players_undo_away(svc):
    svc.execute("c", "ana", CreateCvCharacter("kes", sheet("Kestrel")))
    svc.execute("c", "gm", WriteEntry("Rumours", "None yet"))
    svc.execute("c", "ana", WritePrivateNote("kes", "owes Bo a favour"))
    last = undoable(svc.state("c"), "ana")
    assert last is not None and last.type == "character.create_cv"


def test_only_the_gm_writes_shows_and_removes_entries(svc):
    e = write(svc)
    for user in ("ana", "sam"):
        for cmd in (WriteEntry("Mine", "x"), ShowEntry(e, everyone=True), RemoveEntry(e)):
            with pytest.raises(Forbidden):
                svc.execute("c", user, cmd)
    assert [a for a in legal_actions(svc.state("c"), "ana") if a.type.startswith("journal.")] == []


@pytest.mark.parametrize(
    ("cmd", "code"),
    [
        (ShowEntry("e9", everyone=True), "journal/unknown_entry"),
        (ShowEntry("e1", everyone=True, readers=("ana",)), "journal/everyone_and_readers"),
        (ShowEntry("e1", readers=("nobody",)), "journal/unknown_reader"),
        (ShowEntry("e1", readers=("gm",)), "journal/unknown_reader"),
        (WriteEntry("x", image="not-a-digest"), "journal/image"),
        (WriteEntry("x", entry="e7"), "journal/unknown_entry"),
    ],
)
def test_a_wrong_show_or_write_is_refused_with_a_tip_and_changes_nothing(svc, cmd, code):
    write(svc)
    head = svc.store.head("c")
    with pytest.raises(TableError) as refused:
        svc.execute("c", "gm", cmd)
    assert refused.value.code == code and refused.value.fix
    assert svc.store.head("c") == head


def test_a_removed_entrys_number_is_never_used_again(svc):
    first = write(svc)
    svc.execute("c", "gm", ShowEntry(first, readers=("ana",)))
    svc.execute("c", "gm", RemoveEntry(first))
    assert svc.view("c", "ana")["journal"]["entries"] == []
    assert seen_types(svc, "c", "ana")[-1] == "journal.removed"
    assert write(svc, "Another") == "e2"


def test_private_notes_reach_the_characters_player_and_the_gm_alone(svc):
    svc.execute("c", "ana", CreateCvCharacter("kes", sheet("Kestrel")))
    svc.execute("c", "ana", WritePrivateNote("kes", "I stole the map"))
    assert readers_of(svc, "I stole the map") == {"gm", "ana"}
    assert svc.view("c", "ana")["journal"]["private_notes"] == {"kes": "I stole the map"}
    with pytest.raises(Forbidden):
        svc.execute("c", "bo", WritePrivateNote("kes", "overwritten"))
    svc.execute("c", "gm", WritePrivateNote("kes", "The GM knows"))
    assert readers_of(svc, "The GM knows") == {"gm", "ana"}


def test_an_npcs_private_notes_are_the_gms_alone(svc):
    svc.execute("c", "gm", CreateCvCharacter("boss", sheet("The Admiral"), npc=True))
    svc.execute("c", "gm", WritePrivateNote("boss", "Fears the sea"))
    assert readers_of(svc, "Fears the sea") == {"gm"}


def test_search_finds_only_what_its_reader_may_read(svc):
    hidden = write(svc, "The smuggler", "Keeper of the lighthouse")
    shown = write(svc, "Harbour rumours", "A ship lost near the lighthouse")
    svc.execute("c", "gm", ShowEntry(shown, everyone=True))
    state = svc.state("c")
    assert [e.id for e in journal.search(state, "gm", "LIGHTHOUSE")] == [hidden, shown]
    assert [e.id for e in journal.search(state, "ana", "lighthouse")] == [shown]
    assert [e.id for e in journal.search(state, "ana", "smuggler")] == []
    assert [e.id for e in journal.search(state, "gm", "smuggler keeper")] == [hidden]
    assert [e.id for e in journal.search(state, "gm", "harbour")] == [shown]  # a title's words
    assert journal.search(state, "outsider", "lighthouse") == [] and journal.search(state, "gm", "  ") == []


def test_a_show_is_an_action_a_player_cannot_undo_over(svc):
    svc.execute("c", "ana", FreeRoll("1d6"))
    e = write(svc)
    svc.execute("c", "gm", ShowEntry(e, everyone=True))
    assert undoable(svc.state("c"), "ana") is None
    last = undoable(svc.state("c"), "gm")
    assert last is not None and last.type == "journal.show"


def test_showing_an_entry_again_to_its_readers_reminds_them(svc):
    e = write(svc)
    svc.execute("c", "gm", ShowEntry(e, readers=("ana", "bo")))
    svc.execute("c", "gm", ShowEntry(e, readers=("bo", "ana")))
    for user in ("ana", "bo"):
        assert seen_types(svc, "c", user)[-2:] == ["journal.shown", "journal.shown"], user
    assert "journal.shown" not in seen_types(svc, "c", "sam")
    svc.execute("c", "gm", ShowEntry(e))
    svc.execute("c", "gm", ShowEntry(e))  # to nobody again: the GM's line alone
    assert seen_types(svc, "c", "gm")[-1] == "journal.readers_set"


def test_a_member_who_leaves_reads_nothing_more_and_nothing_written_since_if_they_return(svc):
    from herotable.table.structure import RemoveMember

    e = write(svc)
    svc.execute("c", "gm", ShowEntry(e, readers=("ana", "bo")))
    svc.execute("c", "gm", RemoveMember("ana"))
    assert svc.state("c").journal[0].readers == ("bo",)
    write(svc, "The letter", "Written while Ana was away", entry=e)
    assert "Written while Ana was away" not in repr(seen(svc, "c", "ana"))
    svc.execute("c", "ana", Join("Ana"))
    assert svc.view("c", "ana")["journal"]["entries"] == []
    assert readers_of(svc, "Written while Ana was away") == {"gm", "bo"}


def test_the_gms_undo_of_a_hide_sends_the_entry_as_it_reads_now_to_those_who_read_it_again(svc):
    e = write(svc, "Plan", "old text")
    svc.execute("c", "gm", ShowEntry(e, readers=("ana",)))
    svc.execute("c", "gm", ShowEntry(e))  # hidden again
    write(svc, "Plan", "new text, written while hidden", entry=e)
    svc.execute("c", "gm", Undo())
    assert svc.state("c").journal[0].readers == ("ana",)
    last = [data for kind, data in seen(svc, "c", "ana") if kind == "journal.shown"][-1]
    assert last["body"] == "new text, written while hidden"  # the stream holds what the view shows
    assert seen_types(svc, "c", "ana")[-2:] == ["action.undone", "journal.shown"]
    assert "new text" not in text_seen(svc, "c", "bo")


@pytest.mark.parametrize(
    ("readers", "everyone", "mark", "line"),
    [
        (("ana",), False, "owner", "The GM shows “The letter”"),
        ((), True, "", "The GM shows “The letter”"),
    ],
)
def test_the_gms_log_marks_a_show_as_its_readers_saw_it(svc, readers, everyone, mark, line):
    e = write(svc)
    svc.execute("c", "gm", ShowEntry(e, everyone=everyone, readers=readers))
    last = log_entries(svc.state("c"), svc.stream("c", "gm", limit=100).seen)[-1]
    assert (last.private, last.lines) == (mark, (line,))
    svc.execute("c", "gm", ShowEntry(e))
    hidden = log_entries(svc.state("c"), svc.stream("c", "gm", limit=100).seen)[-1]
    assert hidden.lines[-1] == "“The letter” is now read by nobody but the GM"
