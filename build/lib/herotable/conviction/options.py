"""Campaign options for Conviction games: the GM's per-campaign choices, with the rulings' defaults."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class DisabledActions(StrEnum):
    """What a Disabled character may do each round (R-CV-8)."""

    MOVE_ONLY = "move_only"
    """DPoNI: one move action a round."""
    STANDARD_OR_MOVE = "standard_or_move"
    """Core True20: one standard or one move action a round (a standard action is strenuous)."""


@dataclass(frozen=True)
class CampaignOptions:
    """Per-campaign settings; the defaults are the rulings' defaults."""

    disabled_actions: DisabledActions = DisabledActions.MOVE_ONLY
