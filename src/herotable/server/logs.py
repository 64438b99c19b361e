"""The server's log: one line per request and one per command, as text for people or JSON for a log collector
(`HEROTABLE_LOG_FORMAT`), each with the request's id (the `X-Request-ID` the client or proxy sent, else one made
here, and sent back), and never a password, token, cookie or what anyone wrote: a request is logged by its route's
pattern (`/reset/{token}`, not the token), a command by its type.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_ID: ContextVar[str] = ContextVar("herotable_request_id", default="-")
GOOD_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
QUIET = ("/healthz", "/readyz", "/metrics", "/static/", "/favicon.ico")  # logged at debug: probes and files

requests_log = logging.getLogger("herotable.request")
commands_log = logging.getLogger("herotable.command")


def fields(record: logging.LogRecord) -> dict[str, Any]:
    found: dict[str, Any] = getattr(record, "fields", {})
    return found


class JsonLines(logging.Formatter):
    """One JSON object per line: time, level, logger, message and the record's own fields."""

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            **fields(record),
        }
        if record.exc_info:
            doc["error"] = self.formatException(record.exc_info)
        return json.dumps(doc, ensure_ascii=False, default=str)


class TextLines(logging.Formatter):
    """`time level logger: message key=value …`"""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        extra = " ".join(f"{k}={v}" for k, v in fields(record).items())
        return f"{line} {extra}" if extra else line


class NoSocketPaths(logging.Filter):
    """Drops uvicorn's own line for each live socket (`"WebSocket /ws/campaigns/…?after=…" [accepted]`): it holds the
    path and query, and herotable logs each socket itself, by its route's pattern."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (isinstance(record.msg, str) and '"WebSocket ' in record.msg)


def log_config(log_format: str, level: str) -> dict[str, Any]:
    """The logging set-up `herotable serve` hands uvicorn (every worker takes it): herotable's and uvicorn's own
    lines in one format; uvicorn's access log is off, since herotable logs each request itself."""
    formatter = {"()": JsonLines} if log_format == "json" else {"()": TextLines}
    handler = {"class": "logging.StreamHandler", "formatter": "main", "stream": "ext://sys.stderr"}
    upper = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"main": formatter},
        "filters": {"no_socket_paths": {"()": NoSocketPaths}},
        "handlers": {"main": {**handler, "filters": ["no_socket_paths"]}},
        "loggers": {
            "herotable": {"handlers": ["main"], "level": upper, "propagate": False},
            "uvicorn": {"handlers": ["main"], "level": upper, "propagate": False},
            "uvicorn.error": {"level": upper},
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
        },
    }


def command_logged(campaign_id: str, kind: str, outcome: str, seconds: float) -> None:
    commands_log.info(
        "command %s %s",
        kind,
        outcome,
        extra={
            "fields": {
                "request_id": REQUEST_ID.get(),
                "campaign": campaign_id,
                "command": kind,
                "outcome": outcome,
                "ms": round(seconds * 1000, 1),
            }
        },
    )


def route_pattern(scope: Scope) -> str | None:
    """The pattern of the route that answered (`/api/v1/campaigns/{campaign_id}/commands`), never the path itself,
    which may hold a token. A route of an included router knows only its own part of the pattern: the segments
    before it are the router's prefix, which holds no parameter."""
    template = getattr(scope.get("route"), "path", None)
    if not isinstance(template, str):
        return None
    own = template.strip("/").split("/") if template.strip("/") else []
    concrete = str(scope.get("path", "")).strip("/").split("/")
    prefix = concrete[: max(0, len(concrete) - len(own))]
    return "/" + "/".join([*prefix, *own])


class RequestLog:
    """Give each request an id, time it, count it, and log it in one line once it is answered."""

    def __init__(self, app: ASGIApp, counted: Any = None) -> None:
        self.app = app
        self.counted = counted  # Counter of requests by status class

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        sent = dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1")
        request_id = sent if GOOD_ID.match(sent) else uuid.uuid4().hex[:16]
        token = REQUEST_ID.set(request_id)
        began = time.perf_counter()
        status = [101 if scope["type"] == "websocket" else 500]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", request_id.encode())]
            elif message["type"] == "websocket.close":
                status[0] = 1000
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            REQUEST_ID.reset(token)
            self._log(scope, request_id, status[0], time.perf_counter() - began)

    def _log(self, scope: Scope, request_id: str, status: int, seconds: float) -> None:
        if self.counted is not None and scope["type"] == "http":
            self.counted.labels(status=f"{status // 100}xx").inc()
        path = route_pattern(scope) or ("(no route)" if scope["type"] == "http" else "(socket)")
        quiet = str(scope.get("path", "")).startswith(QUIET)
        level = logging.DEBUG if quiet else logging.INFO
        client = scope.get("client")
        campaign = scope.get("path_params", {}).get("campaign_id")
        requests_log.log(
            level,
            "%s %s %s",
            scope.get("method", "WS"),
            path,
            status,
            extra={
                "fields": {
                    "request_id": request_id,
                    "method": scope.get("method", "WS"),
                    "route": path,
                    "status": status,
                    "ms": round(seconds * 1000, 1),
                    "client": client[0] if client else "-",
                    **({"campaign": campaign} if campaign else {}),
                }
            },
        )
