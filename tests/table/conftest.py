from __future__ import annotations

import pytest

from herotable.service import TableService
from herotable.store.memory import MemoryEventStore


class QueueRng:
    """Faces handed out in order; lets a test set the dice of the next command (tests refill it)."""

    def __init__(self) -> None:
        self.faces: list[int] = []

    def roll(self, sides: int) -> int:
        if not self.faces:
            raise AssertionError(f"a d{sides} was rolled but no face was queued")
        face = self.faces.pop(0)
        assert 1 <= face <= sides, f"queued {face} for a d{sides}"
        return face


@pytest.fixture
def dice() -> QueueRng:
    return QueueRng()


@pytest.fixture
def service(dice: QueueRng) -> TableService:
    return TableService(MemoryEventStore(), rng=dice)
