"""Work that takes much memory, a few at a time: at most `slots` run at once in a process, and a request waits a
short time for one, then is answered 503 (busy, nothing changed, try again). Password hashes (`auth.HashGate`, 64 MiB
each) and portrait decodes (`Services.images`, up to `portrait_image.MAX_DECODE_BYTES` each) have slots of their own.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from fastapi import HTTPException

RETRY_AFTER_S = 2


class Busy(HTTPException):
    """Every slot stayed taken while the request waited (503): `reason` says what the server is busy with, `fix` what
    to do; nothing was changed."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.fix = "try again in a few seconds"
        super().__init__(
            503, f"{reason}; nothing was changed. Tip: {self.fix}", headers={"Retry-After": str(RETRY_AFTER_S)}
        )


class Slots:
    """At most `slots` of one kind of `work` at once; a caller waits up to `wait_s` for a slot, then gets `Busy`:
    "the server is busy {doing}". Thread-safe."""

    def __init__(self, slots: int, wait_s: float, *, work: str, doing: str) -> None:
        if slots < 1:
            raise ValueError(f"{work} needs at least one slot (got {slots})")
        self._slots = threading.BoundedSemaphore(slots)
        self.wait_s = wait_s
        self.doing = doing

    @contextmanager
    def slot(self) -> Iterator[None]:
        if not self._slots.acquire(timeout=self.wait_s):
            raise Busy(f"the server is busy {self.doing}")
        try:
            yield
        finally:
            self._slots.release()
