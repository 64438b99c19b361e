"""Counting a campaign's facts stretch by stretch, for a game's charts: per session or per adventure, and only for
the characters a reader may see the numbers of (a hidden NPC's are the GM's, even where a fact about it is public).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from enum import StrEnum

from herotable.table.core import AdventureStarted
from herotable.table.facts import Fact
from herotable.table.history import Session
from herotable.table.series import Series
from herotable.table.state import TableState


class Stretch(StrEnum):
    SESSION = "session"
    ADVENTURE = "adventure"


Counted = Callable[[Fact], Iterable[tuple[str, str, int]]]  # a fact → (character, series, amount) for each count


def charted(state: TableState, viewer: str | None) -> set[str]:
    """The characters whose numbers `viewer` may see: every one for the GM; for anyone else those at the table or
    retired whose sheet is not hidden (or is their own). A deleted character is charted for the GM only: whether its
    sheet was hidden went with it."""
    refs = [*state.characters, *(s.ref for s in state.retired)]
    if state.is_gm(viewer):
        return {c.id for c in refs} | {g for g, _ in state.gone}
    return {c.id for c in refs if not c.hidden or c.owner == viewer}


def placed(sessions: Sequence[Session]) -> Iterator[tuple[int, int, Fact]]:
    """Each fact with the session it falls in and the adventure last begun when it happened (0: none yet); what
    follows an adventure's end (its awards, the Hero Points spent on them) counts with it."""
    adventure = 0
    for s in sessions:
        for seen in s.facts:
            if isinstance(seen.fact, AdventureStarted):
                adventure = seen.fact.number
            yield s.number, adventure, seen.fact


def tally(
    state: TableState, viewer: str | None, sessions: Sequence[Session], by: Stretch, counted: Counted
) -> tuple[tuple[str, ...], tuple[Series, ...]]:
    """Sums per stretch (each session or adventure from the first, none left out) of what `counted` finds, one series
    per name it gives, in the order first found; the characters `viewer` may not see are left out. The stretches run
    from 1 to the last that began; stretch 0 (before the first) only when something counts in it."""
    visible = charted(state, viewer)
    sums: dict[str, dict[int, int]] = {}
    last = 0
    for session, adventure, f in placed(sessions):
        at = session if by is Stretch.SESSION else adventure
        last = max(last, at)
        for character, name, amount in counted(f):
            if character in visible:
                per = sums.setdefault(name, {})
                per[at] = per.get(at, 0) + amount
    first = 0 if any(0 in per for per in sums.values()) else 1
    stretches = range(first, last + 1)
    labels = tuple(label(n) for n in stretches)
    return labels, tuple(Series(name, tuple(per.get(n, 0) for n in stretches)) for name, per in sums.items())


def label(n: int) -> str:
    """A stretch's label on a chart: its number, or "before" for what came before the first."""
    return str(n) if n else "before"


Read = Callable[[Fact], Iterable[tuple[str, int]]]  # a fact → (character, the rating it now stands at)


def standing(
    state: TableState, viewer: str | None, sessions: Sequence[Session], read: Read
) -> tuple[tuple[str, ...], tuple[Series, ...]]:
    """Where each character's rating stood at the end of each session from the first (None before it is known), as
    `read` finds it set; a series per character `viewer` may see, by name, in the order first found."""
    visible = charted(state, viewer)
    names = state.names()
    now: dict[str, int] = {}
    rows: dict[int, dict[str, int]] = {}
    for s in sessions:
        for seen in s.facts:
            for character, value in read(seen.fact):
                if character in visible:
                    now[character] = value
        rows[s.number] = dict(now)
    numbers = [n for n in rows if n] or list(rows)
    labels = tuple(label(n) for n in numbers)
    series = tuple(Series(names.get(c, c), tuple(rows[n].get(c) for n in numbers)) for c in now)
    return labels, series
