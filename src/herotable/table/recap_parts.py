"""What a game's part of a session's recap (`Game.recap`) reads and says: a session's facts as one reader may see
them (`Session`, made by `herotable.table.history`), headed sections of sentences, and the small helpers each game's
recap writes them with. Nothing here knows a game; a recap's shared part (session, scenes, who took part) is
`herotable.table.recap`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Seen:
    """A fact a reader may see, with when it was recorded."""

    seq: int
    at: str
    command_id: str
    actor: str
    command_type: str
    fact: Any
    visibility: str
    owner: str | None


@dataclass(frozen=True)
class Session:
    """One game session as a reader may see it: its number (0: before the first), the adventure it began in, when it
    started and ended (None: still going), and its facts in order."""

    number: int
    adventure: int
    started_at: str | None
    ended_at: str | None
    facts: tuple[Seen, ...]


@dataclass(frozen=True)
class RecapSection:
    """One heading of a recap ("Conflicts", "Karma and Heroism") and its sentences, in the order they happened."""

    title: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class GameRecap:
    """What a game says of one game session: its sections, empty ones left out."""

    sections: tuple[RecapSection, ...] = ()


def sections(*parts: tuple[str, Iterable[str]]) -> GameRecap:
    """A game's recap from (title, lines) pairs; a title with no lines is left out."""
    return GameRecap(tuple(RecapSection(title, tuple(lines)) for title, lines in parts if lines))


GM_ONLY = " (GM only)"


def only_gm(visibilities: Iterable[str]) -> str:
    """What follows a line told only by facts the GM alone sees (a secret roll, a hidden sheet's numbers): " (GM
    only)", so that the GM's own recap shows what to keep back when it is shared; "" for any other line."""
    return GM_ONLY if set(visibilities) == {"gm"} else ""


def counted(n: int, one: str, many: str | None = None) -> str:
    """`n` and the noun, singular or plural: "1 level", "3 levels"."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def listed(words: Iterable[str]) -> str:
    """Words in a sentence: "a", "a and b", "a, b and c" (each once, in order)."""
    said = list(dict.fromkeys(words))
    if len(said) <= 1:
        return "".join(said)
    return ", ".join(said[:-1]) + " and " + said[-1]


def uses(tally: Mapping[str, int]) -> str:
    """What points went on, with how many each when more than one: "try again, automatic success ×2"."""
    return ", ".join(use.replace("_", " ") + (f" ×{n}" if n > 1 else "") for use, n in tally.items())
