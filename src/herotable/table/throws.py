"""The dice a reader saw thrown, each die once: what a game's `thrown` is made of, for the dice fairness chart.

A roll may be shown more than once: its roller and the GM see each die as it is thrown (and each re-roll), and
everyone sees the whole throw again when it is revealed. A game names the roll each such fact belongs to (`Part`):
the pieces a reader saw add up, and a fact showing the whole throw replaces them, so a die the reader saw twice
counts once, and a re-rolled die's first face, which was thrown too, still counts. A fact the game names no roll for
counts as it is. Copies of one fact within one command (a whisper's copy for each player in it, all of which the GM
sees) count once.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass

from herotable.table.facts import Fact


@dataclass(frozen=True)
class Part:
    """Which roll a fact's dice belong to (`roll`, any key the game chooses), and whether the fact shows the whole
    throw (`whole`: a reveal), replacing the pieces shown before it."""

    roll: Hashable
    whole: bool = False


Die = tuple[int, int]  # (sides, face)
PartOf = Callable[[Fact], Part | None]


def once(facts: Iterable[tuple[str, Fact]], part_of: PartOf) -> list[Die]:
    """The dice of (command id, fact) pairs, in order, each die once (see the module's text)."""
    out: list[Die] = []
    rolls: dict[Hashable, list[Die]] = {}
    copies: set[tuple[str, str]] = set()  # (command, the fact in full): a fact may hold a dict, so not its hash
    for command_id, f in facts:
        dice = f.dice_faces()
        if not dice:
            continue
        part = part_of(f)
        if part is None:
            copy = (command_id, repr(f))
            if copy not in copies:
                copies.add(copy)
                out += dice
        elif part.whole:
            rolls[part.roll] = list(dice)
        else:
            rolls.setdefault(part.roll, []).extend(dice)
    for shown in rolls.values():
        out += shown
    return out
