"""Event builders and exact-equality checks shared by the store tests."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from herotable.store import NewEvent, StoredEvent

AT = "2024-05-01T19:30:00+00:00"
CREATED = "2024-05-01T19:00:00+00:00"


def event(command_id: str, type: str = "ltl.karma_spent", data: dict[str, Any] | None = None, **more: Any) -> NewEvent:
    """A valid event of command `command_id`."""
    more.setdefault("at", AT)
    return NewEvent(type=type, data={"n": 1} if data is None else data, command_id=command_id, **more)


def command(command_id: str, size: int) -> list[NewEvent]:
    """The `size` events of one command, numbered in their data."""
    return [event(command_id, data={"part": part, "of": size}) for part in range(size)]


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values *and* of the same types everywhere (1 is not 1.0 nor True), key order included."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return bool(a == b)


def assert_whole_log(events: Sequence[StoredEvent], per_command: int) -> None:
    """Seqs run 1..n without gap or repeat, and every command's `per_command` events sit together, in order."""
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert len(events) % per_command == 0
    groups = [events[i : i + per_command] for i in range(0, len(events), per_command)]
    for group in groups:
        assert len({e.command_id for e in group}) == 1, [e.command_id for e in group]
        assert [e.data["part"] for e in group] == list(range(per_command))
    assert len({group[0].command_id for group in groups}) == len(groups), "a command was recorded twice"
