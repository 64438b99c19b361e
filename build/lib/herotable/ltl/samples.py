"""Sample heroes and villains, legal by the rules, for demos and new campaigns."""

from __future__ import annotations

from herotable.ltl.sheet import HeroSheet, sheet_from_dict

CAPTAIN_COMET = {
    "name": "Captain Comet",
    "writer": "Dee Ladder",
    "artist": "Max Roll",
    "origin": "A test pilot who flew through the tail of a comet",
    "superpowers": [{"name": "Cosmic Flight", "stunts": ["Tail Sweep"]}, {"name": "Star Fists", "stunts": []}],
    "motivation": "No one gets left behind",
    "costume": "Silver flight suit with a blazing comet crest",
    "specialties": ["Aerial Combat"],
    "complications": ["Owes the Air Force a favour"],
    "drawbacks": [],
    "base": "d10",
    "styles": {"Fisticuffs": "d12", "Flight": "d20"},
    "karma": "d10",
    "heroism": "d8",
    "hero_points": 0,
}

DOCTOR_ENTROPY = {
    "name": "Doctor Entropy",
    "writer": "Dee Ladder",
    "artist": "Max Roll",
    "origin": "A physicist who stared too long into a decaying universe",
    "superpowers": [{"name": "Decay Field", "stunts": ["Rust Wave"]}],
    "motivation": "Prove that everything falls apart",
    "costume": "Grey lab coat that frays at the edges",
    "specialties": ["Physics"],
    "complications": ["Arrogant"],
    "drawbacks": ["His own field weakens his gadgets"],
    "base": "d10",
    "styles": {"Decay": "d12", "Gadgets": "d12"},
    "karma": "d8",
    "heroism": "d10",
    "hero_points": 0,
}


def sample_sheets() -> tuple[HeroSheet, HeroSheet]:
    """A hero and a villain of equal base Power, for the demo conflict."""
    return sheet_from_dict(CAPTAIN_COMET), sheet_from_dict(DOCTOR_ENTROPY)
