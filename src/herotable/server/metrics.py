"""What the server counts for its operator, in Prometheus's text format at /metrics (prometheus-client): commands
by type and outcome and how long they took, open live sockets, frames sent, requests by status, and failures of
Redis and of the database.

Each app has its own registry, so apps in one process (tests) count apart. With several workers `herotable serve`
sets PROMETHEUS_MULTIPROC_DIR, and every worker's counts are summed on whichever worker answers the scrape.

/metrics answers only the addresses of `metrics_allow` (loopback by default): the client as a trusted proxy names
it, and never a request that came through a proxy herotable does not trust (it would look local).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import APIRouter, Request, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

from herotable.errors import RulesError
from herotable.server.logs import command_logged
from herotable.server.proxy import ORIGINAL_PEER, parse_proxies, trusted, within
from herotable.service.writer import CommandIdReused, TableBusy

MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"
T = TypeVar("T")

router = APIRouter(include_in_schema=False)


class Metrics:
    """One app's metrics."""

    def __init__(self) -> None:
        shared = bool(os.environ.get(MULTIPROCESS_ENV))
        self.registry = CollectorRegistry()
        if shared:
            MultiProcessCollector(self.registry)  # type: ignore[no-untyped-call]
        into = None if shared else self.registry  # shared: each process writes its own files, summed when read
        self.commands = Counter(
            "herotable_commands",
            "Table commands run, by type and outcome (ok, repeated, refused, conflict, busy, error).",
            ["type", "outcome"],
            registry=into,
        )
        self.command_seconds = Histogram(
            "herotable_command_seconds",
            "Time to decide and record one table command.",
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
            registry=into,
        )
        self.requests = Counter(
            "herotable_requests",
            "HTTP requests answered, by status class (2xx, 3xx, 4xx, 5xx).",
            ["status"],
            registry=into,
        )
        self.sockets = Gauge(
            "herotable_live_sockets", "Live table sockets open now.", registry=into, multiprocess_mode="livesum"
        )
        self.frames = Counter("herotable_frames_sent", "Live frames sent to viewers.", registry=into)
        self.redis_failures = Counter(
            "herotable_redis_failures", "Times Redis failed to answer (each outage's first failure).", registry=into
        )
        self.database_failures = Counter(
            "herotable_database_failures", "Requests that failed because the database did not answer.", registry=into
        )
        self.webhook_deliveries = Counter(
            "herotable_webhook_deliveries",
            "Webhook delivery tries, by outcome (sent, skipped, retried, failed).",
            ["outcome"],
            registry=into,
        )

    def observing(self, execute: Callable[..., T]) -> Callable[..., T]:
        """`execute` (TableService.execute), counted and timed."""

        def observed(campaign_id: str, user: str, cmd: Any, **kwargs: Any) -> T:
            began = time.perf_counter()
            outcome = "error"
            try:
                applied = execute(campaign_id, user, cmd, **kwargs)
                outcome = "repeated" if getattr(applied, "repeated", False) else "ok"
                return applied
            except RulesError:
                outcome = "refused"
                raise
            except CommandIdReused:
                outcome = "conflict"
                raise
            except TableBusy:
                outcome = "busy"
                raise
            finally:
                took = time.perf_counter() - began
                self.commands.labels(type=cmd.type, outcome=outcome).inc()
                self.command_seconds.observe(took)
                command_logged(campaign_id, cmd.type, outcome, took)  # the log line beside the count

        return observed

    def text(self) -> bytes:
        return generate_latest(self.registry)


def metrics_allowed(request: Request, allow: tuple[str, ...], proxies: tuple[str, ...]) -> bool:
    """Whether `request` may read /metrics: its client is in `allow`, and it was not forwarded by an untrusted
    proxy (whose requests would all come from the proxy's own, often local, address)."""
    peer = request.scope.get(ORIGINAL_PEER) or (request.client.host if request.client else "")
    if "x-forwarded-for" in request.headers and not trusted(peer, parse_proxies(proxies)):
        return False
    return within(request.client.host if request.client else "", parse_proxies(allow))


@router.get("/metrics")
def metrics(request: Request) -> Response:
    svc = request.app.state.services
    settings = svc.settings
    if not settings.metrics_allow:
        return Response("metrics are off on this server (HEROTABLE_METRICS_ALLOW=none)\n", 404, media_type="text/plain")
    if not metrics_allowed(request, settings.metrics_allow, settings.trusted_proxies):
        return Response(
            "/metrics answers only the addresses of HEROTABLE_METRICS_ALLOW\n", 403, media_type="text/plain"
        )
    return Response(svc.metrics.text(), media_type=CONTENT_TYPE_LATEST)
