"""What Conviction charts of a campaign, and which dice its readers saw.

Charts: each hero's Conviction at the end of each session (R-CV-3), and the Conviction spent each session.

Dice: a check's d20 is shown to its roller and the GM as it is rolled (`cv.check_rolled`) and re-rolled with
Conviction (`cv.check_rerolled`), then both faces again when it is announced (`cv.check_announced`): the three are
one check (`Part`), so a reader who saw both counts each die once. An initiative die and its re-roll are shown once
each and count as they are."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from herotable.table.conviction import facts as cf
from herotable.table.facts import Fact
from herotable.table.history import Session
from herotable.table.series import Chart, Kind
from herotable.table.state import TableState
from herotable.table.tallies import Stretch, standing, tally
from herotable.table.throws import Part


def part_of(f: Fact) -> Part | None:
    """The check a die fact shows, and whether it shows the whole check."""
    if isinstance(f, cf.CheckRolled | cf.CheckRerolled):
        return Part(f.check)
    if isinstance(f, cf.CheckAnnounced):
        return Part(f.check, whole=True)
    return None


def _conviction(f: Fact) -> Iterable[tuple[str, int]]:
    if isinstance(f, cf.ConvictionSpent | cf.ConvictionGained):
        yield f.character, f.conviction
    elif isinstance(f, cf.SheetRecorded):
        yield f.character, int(f.sheet.get("conviction", 0))


def _spent(f: Fact) -> Iterable[tuple[str, str, int]]:
    if isinstance(f, cf.ConvictionSpent):
        yield f.character, "Conviction", f.points


def charts(state: TableState, sessions: Sequence[Session], viewer: str | None) -> list[Chart]:
    """Each hero's Conviction after each session, and the Conviction spent per session, as `viewer` may see them."""
    x, series = standing(state, viewer, sessions, _conviction)
    about = "Each hero's Conviction points as they stood at the end of each session."
    held = Chart("conviction", "Conviction", about, Kind.LINE, "Session", "points", x, series)
    x, series = tally(state, viewer, sessions, Stretch.SESSION, _spent)
    about = "Conviction points spent, session by session, by every hero together."
    return [held, Chart("spent", "Conviction spent", about, Kind.BARS, "Session", "points", x, series)]
