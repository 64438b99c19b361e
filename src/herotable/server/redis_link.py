"""One process's link to Redis for what a request asks of it (the login limits, the notice that sessions ended).

It fails fast (short timeouts, no retries) and, once Redis has failed, leaves it alone for `BACK_OFF_S`: meanwhile
those requests fall back to the database at once, rather than each wait for Redis to fail again. When the back-off
ends, one request tries Redis again (the others keep falling back while it does). An outage is logged once: a warning
when it begins, a line when Redis answers again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

log = logging.getLogger(__name__)
TIMEOUT_S = 0.5  # to connect, and for an answer: the scripts and publishes asked here take a millisecond
BACK_OFF_S = 2.0  # how long Redis is left alone after it failed

T = TypeVar("T")


class RedisAway(Exception):
    """Redis failed just now, or failed a moment ago and is left alone until its back-off ends."""


class RedisLink:
    """A Redis client shared by one process's requests, and whether Redis is away. `ticks` (monotonic seconds, which
    tests move themselves) times the back-off. Thread-safe."""

    def __init__(
        self, url: str, *, ticks: Callable[[], float] = time.monotonic, failed: Callable[[], None] | None = None
    ) -> None:
        self._failed = failed  # told of each outage's first failure (for the metrics)
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self.url = url
        self.client: Any = redis.Redis.from_url(
            url, socket_connect_timeout=TIMEOUT_S, socket_timeout=TIMEOUT_S, retry=Retry(NoBackoff(), 0)
        )
        self._failure = redis.exceptions.RedisError
        self._ticks = ticks
        self._away_until: float | None = None  # None: Redis answered the last time it was asked
        self._lock = threading.Lock()

    def ask(self, request: Callable[[Any], T]) -> T:
        """What `request` answers, given the client. Raises `RedisAway` when Redis fails now (the first failure of an
        outage is logged) or is still being left alone."""
        with self._lock:
            if self._away_until is not None:
                now = self._ticks()
                if now < self._away_until:
                    raise RedisAway()
                self._away_until = now + BACK_OFF_S  # this request tries it; the others do not wait meanwhile
        try:
            answer = request(self.client)
        except self._failure as error:
            with self._lock:
                began = self._away_until is None
                self._away_until = self._ticks() + BACK_OFF_S
            if began:
                if self._failed is not None:
                    self._failed()
                log.warning(
                    "Redis is away (%s): login limits count in the database until it answers again, and ended sessions "
                    "are not announced (other processes read sessions from the database while they cannot hear Redis)",
                    error,
                )
            raise RedisAway() from error
        with self._lock:
            ended = self._away_until is not None
            self._away_until = None
        if ended:
            log.info("Redis answers again: login limits count there again")
        return answer
