"""Free dice notation at the table: every face in the fact, secret for the GM, refused with the reason."""

from __future__ import annotations

import pytest

from herotable.dice import ScriptedRng, SeededRng
from herotable.service import TableService, replay_events
from herotable.store.memory import MemoryEventStore
from herotable.table.dice_roll import FreeRoll
from herotable.table.state import Forbidden, Role, Ruleset, TableError
from herotable.table.structure import Join

from .helpers import facts, seen_types


@pytest.fixture
def service() -> TableService:
    svc = TableService(MemoryEventStore(), rng=ScriptedRng([]))
    svc.create_campaign("gm", "Gwen", "Ninja Island", Ruleset.CONVICTION, campaign_id="c")
    svc.execute("c", "ana", Join("Ana"))
    svc.execute("c", "sam", Join("Sam", Role.SPECTATOR))
    return svc


def test_a_free_roll_records_every_face_and_replays(service):
    service.rng = ScriptedRng([(20, 4), (20, 17)])
    [(kind, visibility, data)] = facts(service.execute("c", "ana", FreeRoll("2d20kh1+3", label="initiative")))
    assert (kind, visibility) == ("table.dice_rolled", "public")
    assert data["dice"] == [[20, 4], [20, 17]] and data["total"] == 20 and data["label"] == "initiative"
    assert replay_events(service.store.load("c")) == service.state("c")


def test_secret_rolls_are_the_gms_and_stay_gm_only(service):
    service.rng = ScriptedRng([(6, 2)])
    [(_, visibility, _)] = facts(service.execute("c", "gm", FreeRoll("1d6", secret=True)))
    assert visibility == "gm" and "table.dice_rolled" not in seen_types(service, "c", "ana")
    with pytest.raises(Forbidden):
        service.execute("c", "ana", FreeRoll("1d6", secret=True))
    with pytest.raises(Forbidden):
        service.execute("c", "sam", FreeRoll("1d6"))


def test_bad_notation_is_refused_with_the_reason_and_writes_nothing(service):
    service.rng = SeededRng(3)
    head = service.store.head("c")
    for expression, code in (("2d+", "dice/syntax"), ("1000d6", "dice/too_many_dice"), (" ", "table/blank")):
        with pytest.raises(TableError) as err:
            service.execute("c", "ana", FreeRoll(expression))
        assert err.value.code == code, (expression, err.value.code)
        assert err.value.fix
    assert service.store.head("c") == head


@pytest.mark.parametrize("mark", ["\x00", "\x07", "\x1b", "\u202e", "\u2066", "\x85"])
def test_a_label_with_a_control_character_is_refused_and_changes_nothing(service, mark):
    # R-T-5: text is stored and shown as typed, so nothing that would not show, or would reorder what follows it
    head = service.store.head("c")
    with pytest.raises(TableError) as refused:
        service.execute("c", "ana", FreeRoll("1d6", label=f"falling{mark}rocks"))
    assert refused.value.code == "table/bad_text" and f"U+{ord(mark):04X}" in refused.value.reason
    assert service.store.head("c") == head
    service.rng = ScriptedRng([(6, 3)])
    [(_, _, data)] = facts(service.execute("c", "ana", FreeRoll("1d6", label="falling\trocks, ß and Ω")))
    assert data["label"] == "falling\trocks, ß and Ω"


def test_the_same_expression_rolled_again_reads_only_its_own_faces() -> None:
    """An expression is parsed once and its tree reused: each roll still keeps, drops and totals its own dice."""
    from herotable.notation import roll_notation

    first = roll_notation("4d6kh3+1", ScriptedRng([(6, 1), (6, 2), (6, 3), (6, 4)]))
    second = roll_notation(" 4d6kh3+1 ", ScriptedRng([(6, 6), (6, 5), (6, 1), (6, 6)]))
    assert (first.total, first.dice) == (10, ((6, 1), (6, 2), (6, 3), (6, 4)))
    assert (second.total, second.dice) == (18, ((6, 6), (6, 5), (6, 1), (6, 6)))
    assert (first.text, second.text) == ("4d6kh3 (1, 2, 3, 4) + 1 = 10", "4d6kh3 (6, 5, 1, 6) + 1 = 18")
