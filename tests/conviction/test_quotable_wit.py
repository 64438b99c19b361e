"""Quotable Wit and its ledger (R-CV-12)."""

from __future__ import annotations

import pytest

from herotable.conviction import (
    Check,
    WitLedger,
    announce,
    designate,
    new_session,
    roll_check,
    start_round,
    use_wit,
)
from herotable.dice import ScriptedRng
from herotable.errors import IllegalAction, NotEnough

from .helpers import make_hero

TABLE = frozenset({"Kestrel", "Ossa", "Tamsin"})


def pending(roller: str, face: int = 10) -> Check:
    with ScriptedRng([face]) as rng:
        return roll_check(rng, roller, "Bluff", 3, 15)


def ledger_with(count: int) -> WitLedger:
    ledger = WitLedger()
    hero = make_hero(conviction=count)
    for n in range(count):
        hero, ledger, _ = designate(ledger, hero, text=f"line {n}", speaker="Ossa", heard_by=TABLE)
        hero = start_round(hero)
    return ledger


def test_designating_costs_a_point_and_records_speaker_and_hearers() -> None:
    # R-CV-12
    hero, ledger, wit = designate(
        WitLedger(),
        make_hero(),
        text="Never trust a raptor in a tricorn.",
        speaker="Ossa",
        heard_by=frozenset({"Tamsin", "Captain Rex"}),
    )
    assert hero.conviction == 2
    assert ledger.wits == (wit,)
    assert wit.speaker == "Ossa" and wit.designated_by == "Kestrel"
    assert wit.heard_by == {"Tamsin", "Captain Rex", "Ossa", "Kestrel"}


def test_a_wit_gives_plus_two_to_one_roll_of_someone_who_heard_it() -> None:
    # R-CV-12
    ledger = ledger_with(1)
    check = pending("Tamsin")
    ledger, boosted = use_wit(ledger, 1, check)
    assert boosted.total == check.total + 2
    assert ledger.get(1).used_by == "Tamsin"
    assert ledger.session_uses == 1


def test_each_wit_is_used_once() -> None:
    # R-CV-12
    ledger, _ = use_wit(ledger_with(1), 1, pending("Tamsin"))
    with pytest.raises(IllegalAction) as caught:
        use_wit(ledger, 1, pending("Ossa"))
    assert caught.value.code == "quotable_wit/used"


def test_only_those_who_heard_it_benefit() -> None:
    # R-CV-12
    with pytest.raises(IllegalAction) as caught:
        use_wit(ledger_with(1), 1, pending("Latecomer"))
    assert caught.value.code == "quotable_wit/not_heard"


def test_an_enemy_who_heard_it_may_hijack_it() -> None:
    # R-CV-12
    _, ledger, _ = designate(
        WitLedger(), make_hero(), text="I'm the captain now.", speaker="Kestrel", heard_by=frozenset({"Captain Rex"})
    )
    ledger, boosted = use_wit(ledger, 1, pending("Captain Rex"), hijack=True)
    assert boosted.bonuses[0].amount == 2
    assert ledger.get(1).hijacked and ledger.get(1).used_by == "Captain Rex"


def test_a_fourth_use_in_one_session_is_refused() -> None:
    # R-CV-12 (the seed's own case)
    ledger = ledger_with(4)
    for number in (1, 2, 3):
        ledger, _ = use_wit(ledger, number, pending("Tamsin"))
    with pytest.raises(IllegalAction) as caught:
        use_wit(ledger, 4, pending("Tamsin"))
    assert caught.value.code == "quotable_wit/session_limit"
    assert caught.value.ruling == "R-CV-12"
    ledger, _ = use_wit(new_session(ledger), 4, pending("Tamsin"))
    assert ledger.session_uses == 1


def test_the_wit_applies_before_the_result_is_announced_and_where_the_gm_finds_it_related() -> None:
    # R-CV-12, R-CV-4, R-T-2
    with pytest.raises(IllegalAction, match="before the result"):
        use_wit(ledger_with(1), 1, announce(pending("Tamsin")))
    with pytest.raises(IllegalAction) as caught:
        use_wit(ledger_with(1), 1, pending("Tamsin"), related=False)
    assert caught.value.code == "quotable_wit/unrelated"


def test_designating_needs_the_words_and_a_point() -> None:
    # R-CV-12, R-CV-3
    with pytest.raises(IllegalAction, match="words"):
        designate(WitLedger(), make_hero(), text="  ", speaker="Ossa", heard_by=TABLE)
    with pytest.raises(NotEnough):
        designate(WitLedger(), make_hero(conviction=0), text="Arr.", speaker="Ossa", heard_by=TABLE)


def test_an_unknown_wit_number_is_refused() -> None:
    with pytest.raises(IllegalAction, match="no Quotable Wit #9"):
        use_wit(WitLedger(), 9, pending("Tamsin"))
