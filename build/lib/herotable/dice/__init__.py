"""Dice: the Larger Than Life ladder and the random-number sources every rules function takes."""

from herotable.dice.ladder import (
    D20,
    DIE_SIDES,
    LADDER_DICE,
    MAX_POSITION,
    Rating,
    die_name,
    penalty_at,
    position_of_die,
    rolled_sides,
    shifted,
    step_down,
    step_up,
)
from herotable.dice.rng import RecordingRng, Rng, ScriptedRng, ScriptError, SeededRng, SystemRng

__all__ = [
    "D20",
    "DIE_SIDES",
    "LADDER_DICE",
    "MAX_POSITION",
    "Rating",
    "RecordingRng",
    "Rng",
    "ScriptError",
    "ScriptedRng",
    "SeededRng",
    "SystemRng",
    "die_name",
    "penalty_at",
    "position_of_die",
    "rolled_sides",
    "shifted",
    "step_down",
    "step_up",
]
