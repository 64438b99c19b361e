"""Chat at the table: messages and rolls are facts, a whisper reaches only its audience (its sender, its recipient
and the GM), chat rolls record every face, and chat is no action for undo (R-T-4)."""

from __future__ import annotations

import pytest

from herotable.dice import ScriptedRng, SeededRng
from herotable.service import TableService, replay_events
from herotable.store.memory import MemoryEventStore
from herotable.table.chat import CHAT_COMMANDS, ChatRoll, Say, parse_line, split_roll
from herotable.table.fold import NOT_ACTIONS
from herotable.table.legal import legal_actions
from herotable.table.render import render
from herotable.table.requests import AskGm, RequestKind
from herotable.table.state import Forbidden, Role, Ruleset, TableError
from herotable.table.structure import Join
from herotable.table.undo import Undo

from .helpers import facts, seen

MEMBERS = ("gm", "ana", "bo", "sam")


@pytest.fixture
def service() -> TableService:
    svc = TableService(MemoryEventStore(), rng=ScriptedRng([]))
    svc.create_campaign("gm", "Gwen", "Ninja Island", Ruleset.LTL, campaign_id="c")
    svc.execute("c", "ana", Join("Ana"))
    svc.execute("c", "bo", Join("Bo Lee"))
    svc.execute("c", "sam", Join("Sam", Role.SPECTATOR))
    return svc


def said_by(svc: TableService, user: str) -> list[str]:
    """The chat texts `user`'s stream holds, oldest first (a copy per fact)."""
    return [data["text"] for kind, data in seen(svc, "c", user) if kind in ("chat.said", "chat.rolled")]


def test_a_public_message_reaches_every_member(service):
    [(kind, visibility, data)] = facts(service.execute("c", "sam", Say("  hello all ")))
    assert (kind, visibility, data) == ("chat.said", "public", {"text": "hello all", "to": None})
    for user in MEMBERS:
        assert said_by(service, user) == ["hello all"], user


@pytest.mark.parametrize(
    ("sender", "to", "audience"),
    [
        ("ana", "bo", {"ana", "bo", "gm"}),  # between players: one copy for each, the GM sees both
        ("ana", "gm", {"ana", "gm"}),
        ("gm", "bo", {"bo", "gm"}),
        ("sam", "ana", {"sam", "ana", "gm"}),
    ],
)
def test_a_whisper_reaches_its_sender_its_recipient_and_the_gm_only(service, sender, to, audience):
    applied = service.execute("c", sender, Say("the key is under the mat", to))
    players = {sender, to} - {"gm"}
    assert sorted(e.owner for e in applied.events) == sorted(players)
    assert {e.visibility for e in applied.events} == {"owner"}
    for user in MEMBERS:
        got = said_by(service, user)
        if user not in audience:
            assert got == [], user
        else:
            assert set(got) == {"the key is under the mat"}, user
    # the GM's stream holds each player's copy, all of one command
    gm_copies = [s for s in service.stream("c", "gm").seen if s.fact.type == "chat.said"]
    assert len(gm_copies) == len(players) and len({s.command_id for s in gm_copies}) == 1


def test_whispers_are_rendered_with_their_recipient(service):
    service.execute("c", "ana", Say("psst", "bo"))
    state = service.state("c")
    [said] = [s.fact for s in service.stream("c", "bo").seen if s.fact.type == "chat.said"]
    assert render(state, said) == "to Bo Lee: psst"


def test_a_whisper_to_nobody_or_to_yourself_is_refused_and_changes_nothing(service):
    head = service.store.head("c")
    for to, code in (("zed", "chat/unknown_recipient"), ("ana", "chat/to_yourself")):
        with pytest.raises(TableError) as refused:
            service.execute("c", "ana", Say("hi", to))
        assert refused.value.code == code and refused.value.fix
    assert service.store.head("c") == head


@pytest.mark.parametrize(
    ("text", "code"),
    [("", "table/blank"), ("   ", "table/blank"), ("a\x00b", "table/bad_text"), ("x" * 2001, "table/too_long")],
)
def test_bad_messages_are_refused_naming_the_problem_and_change_nothing(service, text, code):
    head = service.store.head("c")
    with pytest.raises(TableError) as refused:
        service.execute("c", "ana", Say(text))
    assert refused.value.code == code and refused.value.fix
    assert service.store.head("c") == head


def test_a_message_of_2000_characters_is_kept_whole(service):
    [(_, _, data)] = facts(service.execute("c", "ana", Say("y" * 2000)))
    assert data["text"] == "y" * 2000


def test_a_chat_roll_records_every_face_and_the_total(service):
    service.rng = ScriptedRng([(6, 2), (6, 5)])
    [(kind, visibility, data)] = facts(service.execute("c", "ana", ChatRoll("2d6+1", "to hit")))
    assert (kind, visibility) == ("chat.rolled", "public")
    assert data["dice"] == [[6, 2], [6, 5]] and data["total"] == 2 + 5 + 1 and data["label"] == "to hit"
    assert data["text"].endswith("= 8")
    assert replay_events(service.store.load("c")) == service.state("c")  # the fold never rolls


def test_a_gmroll_reaches_the_roller_and_the_gm_and_the_gms_own_is_secret(service):
    service.rng = ScriptedRng([(20, 11), (20, 3)])
    service.execute("c", "ana", parse_line(service.state("c"), "ana", "/gmroll 1d20 stealth"))
    service.execute("c", "gm", parse_line(service.state("c"), "gm", "/gmroll 1d20"))
    totals = {u: [d["total"] for k, d in seen(service, "c", u) if k == "chat.rolled"] for u in MEMBERS}
    assert totals == {"gm": [11, 3], "ana": [11], "bo": [], "sam": []}
    gm_roll = service.store.load("c")[-1]
    assert gm_roll.visibility == "gm"


def test_bad_notation_in_the_chat_says_what_is_wrong_and_changes_nothing(service):
    service.rng = SeededRng(5)
    head = service.store.head("c")
    for expression, code in (("2d+", "dice/syntax"), ("1000d6", "dice/too_many_dice"), ("1d0", "dice/bad_value")):
        with pytest.raises(TableError) as refused:
            service.execute("c", "ana", ChatRoll(expression))
        assert refused.value.code == code, expression
        assert expression in refused.value.reason and refused.value.fix
    assert service.store.head("c") == head


def test_spectators_talk_but_do_not_roll(service):
    with pytest.raises(Forbidden):
        service.execute("c", "sam", ChatRoll("1d6"))
    kinds = {a.type for a in legal_actions(service.state("c"), "sam")}
    assert "chat.say" in kinds and "chat.roll" not in kinds
    assert {"chat.say", "chat.roll"} <= {a.type for a in legal_actions(service.state("c"), "ana")}


def test_chat_is_not_an_action_for_undo(service):
    # R-T-4: chat never blocks an undo, is never undone, and a chat roll is no commit point
    assert CHAT_COMMANDS <= NOT_ACTIONS
    asked = service.execute("c", "ana", AskGm(RequestKind.DIFFICULTY, "how hard is the wall?"))
    service.rng = ScriptedRng([(6, 4)])
    service.execute("c", "ana", Say("brb"))
    service.execute("c", "ana", ChatRoll("1d6", "luck"))
    service.execute("c", "bo", Say("ok", "ana"))
    state = service.state("c")
    assert state.done[-1].command_id == asked.events[0].command_id
    undone = service.execute("c", "ana", Undo())
    assert undone.events[0].data["command_id"] == asked.events[0].command_id
    state = service.state("c")
    assert state.requests == () and state.done == ()
    # the chat stays, and is not marked undone
    chat = [s for s in service.stream("c", "ana").seen if s.fact.type.startswith("chat.")]
    assert len(chat) == 3 and not any(s.command_id in state.undone for s in chat)
    with pytest.raises(TableError) as nothing:
        service.execute("c", "gm", Undo())
    assert nothing.value.code == "undo/nothing"


def test_the_chat_box_reads_slash_commands():
    svc = TableService(MemoryEventStore(), rng=ScriptedRng([]))
    svc.create_campaign("gm", "Gwen", "Ninja Island", Ruleset.LTL, campaign_id="c")
    svc.execute("c", "ana", Join("Ana"))
    svc.execute("c", "bo", Join("Bo Lee"))
    state = svc.state("c")
    assert parse_line(state, "ana", "hello") == Say("hello")
    assert parse_line(state, "ana", "hello", to="bo") == Say("hello", "bo")
    assert parse_line(state, "ana", "//shrug") == Say("/shrug")
    assert parse_line(state, "ana", "/r 2d6+1 to hit") == ChatRoll("2d6+1", "to hit")
    assert parse_line(state, "ana", "/roll 4d6kh3", to="gm") == ChatRoll("4d6kh3", "", "gm")
    assert parse_line(state, "ana", "/gmroll 1d20") == ChatRoll("1d20", "", "gm")
    assert parse_line(state, "ana", "/w bo lee meet me at dawn") == Say("meet me at dawn", "bo")
    assert parse_line(state, "bo", "/W GM can I?") == Say("can I?", "gm")
    for line, code in (
        ("/w nobody hi", "chat/unknown_recipient"),
        ("/w Ana", "table/blank"),
        ("/r", "dice/empty"),
        ("/dance", "chat/unknown_command"),
    ):
        with pytest.raises(TableError) as refused:
            parse_line(state, "bo", line)
        assert refused.value.code == code and refused.value.fix, line


def test_a_roll_splits_from_its_words():
    assert split_roll("2d6 + 1") == ("2d6 + 1", "")
    assert split_roll("1d20+5  to hit the orc ") == ("1d20+5", "to hit the orc")
    assert split_roll("2d+") == ("2d+", "")


def test_rolls_and_outcomes_are_headlines_but_a_chat_roll_stays_in_the_chat():
    # issue 28: the table page toasts a headline fact to the members who see it; a chat roll is already where they talk
    from herotable.table.chat import ChatRolled, ChatSaid
    from herotable.table.ltl.facts import DieRolled, TaskSettled

    assert DieRolled.headline() and TaskSettled.headline()
    assert not ChatRolled.headline() and not ChatSaid.headline()
