"""Every command and fact kind, registered: import this module before deciding or folding anything.

The table's own modules and each game's package register their commands (`commands.handles`), facts
(`facts.fact`) and game (`game.register`) when imported; this module imports them all, once.
"""

from __future__ import annotations

from herotable.table import (  # noqa: F401
    campaign_settings,
    chat,
    conviction,
    dice_roll,
    journal,
    ltl,
    recap_notes,
    requests,
    sheet_edits,
    structure,
    travel,
    undo,
)
from herotable.table.conviction import sheet_edits as cv_sheet_edits  # noqa: F401
from herotable.table.conviction import travel as cv_travel  # noqa: F401
from herotable.table.ltl import sheet_edits as ltl_sheet_edits  # noqa: F401
from herotable.table.ltl import travel as ltl_travel  # noqa: F401
