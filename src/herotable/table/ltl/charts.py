"""What Larger Than Life charts of a campaign, and which dice its readers saw.

Charts: each hero's Hero Points spent, levels lost and levels healed or recovered, adventure by adventure (R-LTL-16,
R-LTL-6, R-LTL-15), and the Karma and Heroism burned each session (R-LTL-10, R-LTL-11).

Dice: a task's die is shown to its roller and the GM as it is thrown (`dice.rolled`) and re-rolled (`dice.rerolled`),
then the whole throw, every re-roll with it, to everyone who may see it once the roll is settled (`dice.revealed`):
the three are one roll's side (`Part`), so a reader who saw both counts each die once."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from herotable.table.facts import Fact
from herotable.table.history import Session
from herotable.table.ltl import facts as lf
from herotable.table.series import Chart, Kind
from herotable.table.state import TableState
from herotable.table.tallies import Counted, Stretch, tally
from herotable.table.throws import Part


def part_of(f: Fact) -> Part | None:
    """The side of a task a die fact shows, and whether it shows the whole throw."""
    if isinstance(f, lf.DieRolled | lf.DieRerolled):
        return Part((f.roll, f.side))
    if isinstance(f, lf.DieRevealed):
        return Part((f.roll, f.side), whole=True)
    return None


def _hero_points(f: Fact) -> Iterable[tuple[str, int]]:
    if isinstance(f, lf.HeroPointsSpent):
        yield f.character, f.cost


def _lost(f: Fact) -> Iterable[tuple[str, int]]:
    if isinstance(f, lf.LevelsLost):
        yield f.character, f.levels


def _healed(f: Fact) -> Iterable[tuple[str, int]]:
    if isinstance(f, lf.LossesRecovered):
        yield f.character, f.levels


def _spent(f: Fact) -> Iterable[tuple[str, str, int]]:
    if isinstance(f, lf.KarmaBurned):
        yield f.character, "Karma", f.levels
    elif isinstance(f, lf.HeroismBurned):
        yield f.character, "Heroism", f.levels


def _by_hero(names: Mapping[str, str], read: Callable[[Fact], Iterable[tuple[str, int]]]) -> Counted:
    """A count per hero, its series named after the hero."""

    def counted(f: Fact) -> Iterable[tuple[str, str, int]]:
        return ((c, names.get(c, c), n) for c, n in read(f))

    return counted


PER_ADVENTURE = (
    (
        "hero_points",
        "Hero Points spent",
        "Hero Points each hero spent on improvements, adventure by adventure; a spend after an adventure's end counts "
        "with that adventure.",
        _hero_points,
        "Hero Points",
    ),
    ("levels_lost", "Levels lost", "Levels each hero lost, adventure by adventure.", _lost, "levels"),
    (
        "levels_healed",
        "Levels healed",
        "Levels each hero healed or recovered from, adventure by adventure.",
        _healed,
        "levels",
    ),
)


def charts(state: TableState, sessions: Sequence[Session], viewer: str | None) -> list[Chart]:
    """Each hero's Hero Points spent and levels lost and healed per adventure, and Karma and Heroism burned per
    session, as `viewer` may see them."""
    names = state.names()
    out = []
    for key, title, about, read, unit in PER_ADVENTURE:
        x, series = tally(state, viewer, sessions, Stretch.ADVENTURE, _by_hero(names, read))
        out.append(Chart(key, title, about, Kind.BARS, "Adventure", unit, x, series))
    x, series = tally(state, viewer, sessions, Stretch.SESSION, _spent)
    about = "Levels of Karma and of Heroism burned, session by session, by every hero together."
    out.append(Chart("spent", "Karma and Heroism spent", about, Kind.BARS, "Session", "levels", x, series))
    return out
