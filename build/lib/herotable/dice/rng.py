"""Random-number sources. Rules functions take one of these; none of them touches a global generator.

- `SystemRng` draws from the operating system (`secrets`): the one used at the table.
- `SeededRng` is reproducible from a seed, for demos and simulations.
- `ScriptedRng` returns faces listed in advance and fails loudly when the rules roll more dice, fewer
  dice, or a face the die cannot show: tests and replays use it.
- `RecordingRng` wraps another source and remembers every (sides, face) it produced, so events can
  carry raw faces and replay never rolls again.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Protocol, runtime_checkable


@runtime_checkable
class Rng(Protocol):
    """Rolls one die with `sides` faces and returns a face in 1..sides."""

    def roll(self, sides: int) -> int: ...


def _check_sides(sides: int) -> None:
    if sides < 1:
        raise ValueError(f"a die needs at least one face, got {sides}")


class SystemRng:
    """Faces from the operating system's secure generator."""

    def roll(self, sides: int) -> int:
        _check_sides(sides)
        return secrets.randbelow(sides) + 1


class SeededRng:
    """Reproducible faces: the same seed gives the same faces on every machine and Python version."""

    def __init__(self, seed: int | str) -> None:
        self._seed = str(seed).encode()
        self._counter = 0

    def _next64(self) -> int:
        self._counter += 1
        digest = hashlib.blake2b(self._seed + self._counter.to_bytes(8, "big"), digest_size=8).digest()
        return int.from_bytes(digest, "big")

    def roll(self, sides: int) -> int:
        _check_sides(sides)
        limit = (1 << 64) - ((1 << 64) % sides)  # reject the biased tail so every face is equally likely
        while True:
            value = self._next64()
            if value < limit:
                return value % sides + 1


class ScriptError(AssertionError):
    """The rules rolled differently from the script: more dice, fewer dice, or an impossible face."""


class ScriptedRng:
    """Returns the listed faces in order.

    Use it as a context manager (or call `finish()`) to also fail when the rules rolled fewer dice than
    scripted. A face may be given as `(sides, face)` to also check which die was rolled.
    """

    def __init__(self, faces: Iterable[int | tuple[int, int]]) -> None:
        self._script: list[int | tuple[int, int]] = list(faces)
        self._used = 0

    @property
    def remaining(self) -> int:
        return len(self._script) - self._used

    def roll(self, sides: int) -> int:
        _check_sides(sides)
        if self._used >= len(self._script):
            raise ScriptError(
                f"the rules rolled a d{sides} as die #{self._used + 1}, but only "
                f"{len(self._script)} faces were scripted"
            )
        entry = self._script[self._used]
        self._used += 1
        if isinstance(entry, tuple):
            want_sides, face = entry
            if want_sides != sides:
                raise ScriptError(f"die #{self._used} was scripted as a d{want_sides} but rolled as a d{sides}")
        else:
            face = entry
        if not 1 <= face <= sides:
            raise ScriptError(f"die #{self._used} is a d{sides}, which cannot show {face}")
        return face

    def finish(self) -> None:
        """Fail if scripted faces were left unrolled."""
        if self.remaining:
            raise ScriptError(f"the rules rolled {self._used} dice but {len(self._script)} faces were scripted")

    def __enter__(self) -> ScriptedRng:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            self.finish()


@dataclass
class RecordingRng:
    """Wraps a source and records every die it rolled as (sides, face)."""

    inner: Rng
    rolled: list[tuple[int, int]] = field(default_factory=list)

    def roll(self, sides: int) -> int:
        face = self.inner.roll(sides)
        self.rolled.append((sides, face))
        return face
