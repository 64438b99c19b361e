"""Quick contests and races: a conflict settled with one roll per participant (R-LTL-13).

The highest roll wins and everyone else suffers defeat's consequences; in a race the rolls give the
finishing order. A tie is re-rolled among the tied only, as often as needed, or (campaign option
`QuickTies.SHARED`) the tied share the place. Every round of rolls is kept with its raw faces, so the table
can show them and a replay never rolls again. Ratings of heroes come from `teamwork.ratings_of`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from herotable.dice import DIE_SIDES, Rating, Rng
from herotable.errors import IllegalAction
from herotable.ltl.options import DEFAULT_OPTIONS, LtlOptions, QuickTies
from herotable.ltl.roll import DieRoll, roll_die

RULING = "R-LTL-13"
# a roll budget: after this many rounds of rolls (the first included), ties still standing are shared
MAX_ROUNDS = 1000


@dataclass(frozen=True)
class ContestRound:
    """One set of rolls: everyone in the first round, then only the participants tied for a place."""

    rolls: tuple[tuple[str, DieRoll], ...]


@dataclass(frozen=True)
class ContestResult:
    """A quick contest: the winner (several only when they share the win) and the losers, who suffer
    defeat's consequences (R-LTL-5)."""

    entries: tuple[tuple[str, Rating], ...]
    rounds: tuple[ContestRound, ...]
    winners: tuple[str, ...]
    losers: tuple[str, ...]  # in finishing order


@dataclass(frozen=True)
class RaceResult:
    """A race: every participant placed by the rolls, first place first. A place holds several
    participants only when they share it."""

    entries: tuple[tuple[str, Rating], ...]
    rounds: tuple[ContestRound, ...]
    places: tuple[tuple[str, ...], ...]


def quick_contest(
    entries: Sequence[tuple[str, Rating]], rng: Rng, options: LtlOptions = DEFAULT_OPTIONS
) -> ContestResult:
    """One roll each, highest wins, a tie for first re-rolled among the tied or shared (R-LTL-13).
    Raises IllegalAction with fewer than two participants, one listed twice, or one below d4."""
    field = _checked(entries)
    places, rounds = _place(field, rng, options, whole_order=False)
    losers = tuple(member for place in places[1:] for member in place)
    return ContestResult(entries=field, rounds=rounds, winners=places[0], losers=losers)


def race(entries: Sequence[tuple[str, Rating]], rng: Rng, options: LtlOptions = DEFAULT_OPTIONS) -> RaceResult:
    """A race: the finishing order by the rolls, each tie re-rolled among the tied or shared (R-LTL-13).
    Raises IllegalAction with fewer than two participants, one listed twice, or one below d4."""
    field = _checked(entries)
    places, rounds = _place(field, rng, options, whole_order=True)
    return RaceResult(entries=field, rounds=rounds, places=places)


def replay_faces(rounds: Sequence[ContestRound]) -> tuple[tuple[int, int], ...]:
    """Every die rolled, as (sides, face) in the order rolled: a `ScriptedRng` script that replays it."""
    return tuple((roll.sides, face) for r in rounds for _, roll in r.rolls for face in roll.faces)


def _checked(entries: Sequence[tuple[str, Rating]]) -> tuple[tuple[str, Rating], ...]:
    field = tuple(entries)
    if len(field) < 2:
        raise IllegalAction(
            "contest/too_few",
            f"a quick contest needs at least two participants, not {len(field)}",
            ruling=RULING,
            fix="add an opponent, or make it an unopposed task against a difficulty",
        )
    ids = [member for member, _ in field]
    twice = sorted({member for member in ids if ids.count(member) > 1})
    if twice:
        raise IllegalAction(
            "contest/duplicate_id",
            f"{', '.join(twice)} cannot take part twice",
            ruling=RULING,
            fix="list each participant once",
        )
    beaten = [f"{member} ({rating})" for member, rating in field if not rating.usable]
    if beaten:
        raise IllegalAction(
            "contest/below_d4",
            f"{', '.join(beaten)} cannot roll: below d4 there is no die",
            ruling=RULING,
            fix="leave defeated participants out of the contest",
        )
    return field


def _place(
    field: tuple[tuple[str, Rating], ...], rng: Rng, options: LtlOptions, *, whole_order: bool
) -> tuple[tuple[tuple[str, ...], ...], tuple[ContestRound, ...]]:
    """Roll until the places that matter are settled; places still tied when the budget runs out are shared."""
    sides = {member: DIE_SIDES[rating.position] for member, rating in field}
    places: list[tuple[str, ...]] = [tuple(sides)]
    rounds: list[ContestRound] = []

    def unsettled(index: int, place: tuple[str, ...]) -> bool:
        if len(place) < 2:
            return False
        if not rounds:
            return True
        return options.quick_ties is QuickTies.REROLL and (whole_order or index == 0)

    while len(rounds) < MAX_ROUNDS:
        index = next((i for i, place in enumerate(places) if unsettled(i, place)), None)
        if index is None:
            break
        this_round = ContestRound(tuple((member, roll_die(sides[member], rng, options)) for member in places[index]))
        rounds.append(this_round)
        places[index : index + 1] = _by_total(this_round)
    return tuple(places), tuple(rounds)


def _by_total(this_round: ContestRound) -> list[tuple[str, ...]]:
    """The round's participants grouped by total, highest first; a group of several is a tie."""
    totals = sorted({roll.total for _, roll in this_round.rolls}, reverse=True)
    return [tuple(member for member, roll in this_round.rolls if roll.total == total) for total in totals]
