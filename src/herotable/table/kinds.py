"""Every command and fact kind, registered: import this module before deciding or folding anything.

The table's own modules and each game's package register their commands (`commands.handles`), facts
(`facts.fact`) and game (`game.register`) when imported; this module imports them all, once.
"""

from __future__ import annotations

from herotable.table import chat, conviction, dice_roll, ltl, requests, structure, undo  # noqa: F401
