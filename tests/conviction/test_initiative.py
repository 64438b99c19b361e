"""The initiative order of rounds: d20 + Dexterity modifier, ties by Dexterity, then by the GM (R-CV-14)."""

from __future__ import annotations

from herotable.conviction import Abilities, Initiative, initiative_order, roll_initiative
from herotable.dice import ScriptedRng

from .helpers import make_hero


def _hero(name: str, dexterity: int):
    return make_hero(name=name, abilities=Abilities(dexterity=dexterity))


def test_each_character_rolls_d20_plus_dexterity_in_the_order_given() -> None:
    # R-CV-14
    rolls = roll_initiative(ScriptedRng([(20, 7), (20, 15)]), [_hero("Kestrel", 3), _hero("Rex", -1)])
    assert rolls == (Initiative("Kestrel", 7, 3), Initiative("Rex", 15, -1))
    assert [r.total for r in rolls] == [10, 14]


def test_the_highest_total_goes_first() -> None:
    # R-CV-14
    rolls = (Initiative("Kestrel", 7, 3), Initiative("Rex", 15, -1), Initiative("Moss", 20, 0))
    assert initiative_order(rolls) == ("Moss", "Rex", "Kestrel")


def test_a_tie_goes_to_the_higher_dexterity_then_to_the_gms_order() -> None:
    # R-CV-14: 12 each; Dexterity +4 beats +2; Moss and Rex tie on Dexterity too, so the GM's order (as listed) holds
    rolls = (Initiative("Moss", 10, 2), Initiative("Rex", 10, 2), Initiative("Kestrel", 8, 4))
    assert initiative_order(rolls) == ("Kestrel", "Moss", "Rex")
    assert initiative_order(tuple(reversed(rolls))) == ("Kestrel", "Rex", "Moss")
