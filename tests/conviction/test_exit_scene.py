"""Exit a scene, with interference bidding (R-CV-11)."""

from __future__ import annotations

import pytest

from herotable.conviction import (
    Conditions,
    Lethal,
    Side,
    attempt_exit,
    interfere,
    pass_bid,
    press_exit,
    start_round,
)
from herotable.errors import IllegalAction

from .helpers import make_hero


def test_an_unopposed_exit_happens_when_the_others_pass() -> None:
    # R-CV-11
    leaver, bid = attempt_exit(make_hero())
    assert leaver.conviction == 2
    assert not bid.closed
    bid = pass_bid(bid, Side.INTERFERE)
    assert bid.closed and bid.exits


def test_one_interfering_point_cancels_the_exit() -> None:
    # R-CV-11: 1 exit point against 1 interfering point: no exit
    _, bid = attempt_exit(make_hero())
    villain, bid = interfere(bid, make_hero(name="Captain Rex"))
    assert villain.conviction == 2
    bid = pass_bid(bid, Side.EXIT)
    assert bid.closed and not bid.exits


def test_a_disabled_leaver_answers_and_outbids() -> None:
    # R-CV-11: the leaver answers within their own limits (Disabled: more than one a round)
    leaver = make_hero(Conditions(lethal=Lethal.DISABLED))
    leaver, bid = attempt_exit(leaver)
    _, bid = interfere(bid, make_hero(name="Captain Rex"))
    leaver, bid = press_exit(bid, leaver)
    bid = pass_bid(bid, Side.INTERFERE)
    assert (bid.exit_points, bid.interfering_points) == (2, 1)
    assert bid.exits
    assert leaver.conviction == 1


def test_each_side_is_held_to_its_spending_limit() -> None:
    # R-CV-11 with R-CV-3: a leaver who is not Disabled cannot answer in the same round
    leaver, bid = attempt_exit(make_hero())
    _, bid = interfere(bid, make_hero(name="Captain Rex"))
    with pytest.raises(IllegalAction) as caught:
        press_exit(bid, leaver)
    assert caught.value.code == "conviction/once_per_round"
    leaver, bid = press_exit(bid, start_round(leaver))
    assert bid.exit_points == 2


def test_several_participants_may_interfere() -> None:
    # R-CV-11
    _, bid = attempt_exit(make_hero())
    _, bid = interfere(bid, make_hero(name="Captain Rex"))
    _, bid = interfere(bid, make_hero(name="Ninja Pterodactyl"))
    assert bid.interfering_points == 2
    assert not pass_bid(bid, Side.EXIT).exits


def test_the_leaver_cannot_interfere_nor_others_press() -> None:
    # R-CV-11
    leaver, bid = attempt_exit(make_hero(Conditions(lethal=Lethal.DISABLED)))
    with pytest.raises(IllegalAction, match="own exit"):
        interfere(bid, leaver)
    with pytest.raises(IllegalAction) as caught:
        press_exit(bid, make_hero(name="Ossa"))
    assert caught.value.code == "exit/not_leaver"


def test_no_spending_after_the_bidding_closes() -> None:
    # R-CV-11
    _, bid = attempt_exit(make_hero())
    bid = pass_bid(bid, Side.INTERFERE)
    with pytest.raises(IllegalAction) as caught:
        interfere(bid, make_hero(name="Captain Rex"))
    assert caught.value.code == "exit/closed"
