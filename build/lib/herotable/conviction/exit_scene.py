"""Exit a scene (R-CV-11): the leaver spends a point; anyone else may spend to interfere; both sides may
answer, each within its own spending limits, until both pass. The exit happens if exit points outnumber
interfering points."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from herotable.conviction.hero import Hero
from herotable.conviction.spending import pay
from herotable.errors import IllegalAction


class Side(StrEnum):
    EXIT = "exit"
    INTERFERE = "interfere"


@dataclass(frozen=True)
class ExitBid:
    """The bidding for one exit. `interference` lists (participant, points)."""

    leaver: str
    exit_points: int = 1
    interference: tuple[tuple[str, int], ...] = ()
    exit_passed: bool = False
    interference_passed: bool = False

    @property
    def interfering_points(self) -> int:
        return sum(points for _, points in self.interference)

    @property
    def closed(self) -> bool:
        """Both sides have passed since the last point was spent."""
        return self.exit_passed and self.interference_passed

    @property
    def exits(self) -> bool:
        """Whether the leaver is out of the scene: bidding closed with more exit points than interfering ones."""
        return self.closed and self.exit_points > self.interfering_points


def _open(bid: ExitBid) -> None:
    if bid.closed:
        raise IllegalAction(
            "exit/closed",
            f"the bidding on {bid.leaver}'s exit is over",
            ruling="R-CV-11",
            fix="points are spent while the bidding is open, before both sides pass",
        )


def attempt_exit(hero: Hero) -> tuple[Hero, ExitBid]:
    """Spend a point to leave the current scene (R-CV-11). Raises the spending errors of `pay`."""
    return pay(hero), ExitBid(hero.name, exit_passed=True)


def interfere(bid: ExitBid, hero: Hero) -> tuple[Hero, ExitBid]:
    """Another participant spends a point against the exit; each cancels one exit point (R-CV-11).

    Raises IllegalAction for the leaver or a closed bidding; the spending errors of `pay`.
    """
    _open(bid)
    if hero.name == bid.leaver:
        raise IllegalAction(
            "exit/own_exit",
            f"{hero.name} cannot interfere with their own exit",
            ruling="R-CV-11",
            fix="pass instead, or let the exit be cancelled",
        )
    paid = pay(hero)
    counted = dict(bid.interference)
    counted[hero.name] = counted.get(hero.name, 0) + 1
    return paid, replace(bid, interference=tuple(counted.items()), exit_passed=False, interference_passed=True)


def press_exit(bid: ExitBid, hero: Hero) -> tuple[Hero, ExitBid]:
    """The leaver answers interference with one more exit point (R-CV-11).

    Raises IllegalAction for anyone but the leaver or a closed bidding; the spending errors of `pay`.
    """
    _open(bid)
    if hero.name != bid.leaver:
        raise IllegalAction(
            "exit/not_leaver",
            f"only {bid.leaver} spends points for their own exit",
            ruling="R-CV-11",
            fix="help by not interfering; exit points come from the one leaving",
        )
    paid = pay(hero)
    return paid, replace(bid, exit_points=bid.exit_points + 1, exit_passed=True, interference_passed=False)


def pass_bid(bid: ExitBid, side: Side) -> ExitBid:
    """A side passes; when both have passed since the last spend, the bidding closes (R-CV-11). The side
    that spent last counts as having passed until the other side answers.

    Raises IllegalAction for a closed bidding.
    """
    _open(bid)
    if side is Side.EXIT:
        return replace(bid, exit_passed=True)
    return replace(bid, interference_passed=True)
