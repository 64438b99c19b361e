"""Attempt limits shared by every server process: login and registration attempts, counted per key (an account,
an address) with a wait that grows with each attempt beyond the free ones.

Counting is atomic: an attempt is counted *before* the password is checked, in the same step that finds whether
the key is still waiting, so a burst of concurrent guesses cannot all pass the check before any is counted. A
successful login takes its attempt back (`forgive`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy import delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from herotable.store.engine import for_writing
from herotable.store.schema import ThrottleRecord

KEEP_S = 24 * 3600.0  # rows untouched this long are deleted; no policy remembers attempts longer
PRUNE_EVERY = 500  # attempts (per process) between two clean-ups of old rows


@dataclass(frozen=True)
class Policy:
    """`free` attempts pass at once; the next waits `base_s`, then twice as long each time, up to `cap_s`.
    A key with no attempt for `forget_s` seconds starts again from nothing."""

    free: int
    base_s: float
    cap_s: float
    forget_s: float

    def __post_init__(self) -> None:
        if self.free < 1:
            raise ValueError(f"a limit must let at least one attempt through (free={self.free})")
        if not 0 < self.base_s <= self.cap_s <= self.forget_s <= KEEP_S:
            raise ValueError(
                "a limit needs 0 < base_s <= cap_s <= forget_s <= one day "
                f"(got {self.base_s}, {self.cap_s}, {self.forget_s})"
            )

    def delay(self, count: int) -> float:
        """The wait after the `count`-th attempt."""
        if count < self.free:
            return 0.0
        return float(min(self.base_s * 2.0 ** min(count - self.free, 64), self.cap_s))


Keyed = Sequence[tuple[str, Policy]]


@dataclass
class _Count:
    count: int
    last_at: float
    blocked_until: float


def _step(rows: dict[str, _Count], keys: Keyed, now: float) -> float:
    """The shared rule: the longest wait among `keys`, or (when none waits) count the attempt under each. The time is
    read before the attempt reaches its keys, so of two racing attempts the later may carry the earlier reading: it
    counts at its keys' last attempt, never before it (else a free attempt would wait for one that took no wait)."""
    now = max([now, *(rows[key].last_at for key, _ in keys)])
    wait = 0.0
    for key, policy in keys:
        row = rows[key]
        if now - row.last_at > policy.forget_s:
            row.count, row.blocked_until = 0, 0.0
        wait = max(wait, row.blocked_until - now)
    if wait > 0:
        return wait
    for key, policy in keys:
        row = rows[key]
        row.count += 1
        row.last_at = now
        row.blocked_until = now + policy.delay(row.count)
    return 0.0


def _uncount(row: _Count, policy: Policy, now: float) -> None:
    row.count = max(row.count - 1, 0)
    row.blocked_until = min(row.blocked_until, now + policy.delay(row.count))


def _check(keys: Keyed) -> list[tuple[str, Policy]]:
    ordered = sorted(dict(keys).items())  # one lock order for every caller; a key named twice counts once
    if not ordered:
        raise ValueError("an attempt is counted under at least one key")
    return ordered


class Throttle(Protocol):
    def attempt(self, keys: Keyed, now: float) -> float:
        """Count one attempt under every key and return 0; or, while any key must still wait, count nothing and
        return the seconds left to wait."""
        ...

    def forgive(self, key: str, policy: Policy, now: float, *, clear: bool) -> None:
        """Take back the last attempt under `key` (it succeeded), or forget the key altogether (`clear`)."""
        ...


class MemoryThrottle:
    """A `Throttle` for one process (beside a memory store)."""

    def __init__(self) -> None:
        self._rows: dict[str, _Count] = {}
        self._lock = threading.Lock()

    def attempt(self, keys: Keyed, now: float) -> float:
        ordered = _check(keys)
        with self._lock:
            rows = {k: self._rows.setdefault(k, _Count(0, now, 0.0)) for k, _ in ordered}
            return _step(rows, ordered, now)

    def forgive(self, key: str, policy: Policy, now: float, *, clear: bool) -> None:
        with self._lock:
            if clear:
                self._rows.pop(key, None)
            elif key in self._rows:
                _uncount(self._rows[key], policy, now)


class SqlThrottle:
    """A `Throttle` in the `throttles` table: every process using the database shares it. Each attempt is one
    transaction that locks its keys' rows (PostgreSQL: SELECT … FOR UPDATE; SQLite: the write lock)."""

    def __init__(self, engine: Engine) -> None:
        self._writer = for_writing(engine)
        self._attempts = 0
        self._lock = threading.Lock()

    def _locked(self, connection: Connection, keys: list[str], now: float) -> dict[str, _Count]:
        dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
        for key in keys:
            connection.execute(
                dialect.insert(ThrottleRecord)
                .values(key=key, count=0, last_at=now, blocked_until=0.0)
                .on_conflict_do_nothing()
            )
        found = connection.execute(
            select(ThrottleRecord.key, ThrottleRecord.count, ThrottleRecord.last_at, ThrottleRecord.blocked_until)
            .where(ThrottleRecord.key.in_(keys))
            .order_by(ThrottleRecord.key)
            .with_for_update()
        ).all()
        return {key: _Count(count, last_at, blocked_until) for key, count, last_at, blocked_until in found}

    def _write(self, connection: Connection, rows: dict[str, _Count]) -> None:
        for key, row in rows.items():
            connection.execute(
                update(ThrottleRecord)
                .where(ThrottleRecord.key == key)
                .values(count=row.count, last_at=row.last_at, blocked_until=row.blocked_until)
            )

    def attempt(self, keys: Keyed, now: float) -> float:
        ordered = _check(keys)
        with self._writer.begin() as connection:
            rows = self._locked(connection, [k for k, _ in ordered], now)
            wait = _step(rows, ordered, now)
            if wait == 0:
                self._write(connection, rows)
        self._prune(now)
        return wait

    def forgive(self, key: str, policy: Policy, now: float, *, clear: bool) -> None:
        with self._writer.begin() as connection:
            if clear:
                connection.execute(delete(ThrottleRecord).where(ThrottleRecord.key == key))
                return
            rows = self._locked(connection, [key], now)
            _uncount(rows[key], policy, now)
            self._write(connection, rows)

    def _prune(self, now: float) -> None:
        with self._lock:
            self._attempts += 1
            if self._attempts % PRUNE_EVERY:
                return
        with self._writer.begin() as connection:
            connection.execute(delete(ThrottleRecord).where(ThrottleRecord.last_at < now - KEEP_S))
