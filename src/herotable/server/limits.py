"""What every request must be before any route reads it: a body of at most `max_body` bytes (a portrait upload, on
its own route alone, up to `PORTRAIT_BODY_BYTES`), and no NUL character anywhere a route or the database would read it
(path, query, form body), since no stored text may hold one. A portrait's body is an image, NULs and all: its route
keeps no text from it, only the image it re-encodes.

A plain ASGI middleware, so it sees the raw request: the body is read once, checked, and handed on unchanged. A
refusal is a problem (RFC 9457) with a stable code and a fix, like every other error, and nothing runs after it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from herotable.server import portrait_image
from herotable.server.problems import MEDIA_TYPE, problem

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_BODY_BYTES = 64 * 1024  # a command, a sheet or a form: the largest legal one is well under this
# a portrait of at most 1 MB, with its form's CSRF token and the multipart framing around it
PORTRAIT_BODY_BYTES = portrait_image.MAX_BYTES + 16 * 1024
# a portrait, or an image for the journal: the same checks, the same size
PORTRAIT_PATH = re.compile(r"/campaigns/[^/]+/(portraits/[^/]+|journal/images)")
# a journal entry: 20,000 characters, which a form may send as up to 9 bytes each (a 3-byte letter, percent-encoded)
JOURNAL_BODY_BYTES = 9 * 20_000 + 16 * 1024
JOURNAL_PATH = re.compile(r"/campaigns/[^/]+/journal(/notes/[^/]+)?")  # the API: the body limit (UTF-8 fits)
# a character file brought to a campaign (`herotable.server.travel`): its portrait inside it as base64, with its sheet
FILE_BODY_BYTES = portrait_image.MAX_BYTES * 4 // 3 + 96 * 1024
FILE_PATH = re.compile(r"(/api/v1)?/campaigns/[^/]+/(characters/)?import")

SECURITY_HEADERS = (
    # no inline script, nothing from elsewhere; the live table's WebSocket is same-origin. Inline style attributes
    # are allowed: htmx sets them while it swaps and settles content, and a style cannot run code
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        b"connect-src 'self'; "
        b"object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
)


def _refusal(status: int, code: str, message: str, fix: str, field: str | None = None) -> tuple[int, bytes]:
    return status, json.dumps(problem(status, code, message, fix=fix, field=field)).encode()


def _nul_in(raw: bytes) -> bool:
    """A NUL character in raw or percent-encoded form (%00, in either case)."""
    return b"\x00" in raw or b"%00" in raw


def _nul_in_form(kind: bytes, body: bytes) -> str | None:
    """The words "a field" when a form body holds a NUL character, else None."""
    if kind in (b"application/x-www-form-urlencoded", b"multipart/form-data") and _nul_in(body):
        return "a field"
    return None


def _nul_in_json(kind: bytes, body: bytes) -> str | None:
    """The field of a JSON body whose text holds a NUL character (written \\u0000), else None. The body is parsed
    only when the escape appears at all."""
    if not kind.endswith(b"json") or b"\\u0000" not in body:
        return None
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None  # the route answers that the body is not JSON, or too deep to be one it takes

    def where(value: Any, path: str) -> str | None:
        if isinstance(value, str):
            return path if "\x00" in value else None
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, item in items:
            inner = f"{path}.{key}" if path else str(key)
            if isinstance(key, str) and "\x00" in key:
                return inner
            found = where(item, inner)
            if found:
                return found
        return None

    try:
        return where(data, "")
    except RecursionError:  # deeper than any body a route takes: its NUL is in no field a route reads
        return "a field"


def _repeating(message: Message) -> Receive:
    async def receive() -> Message:
        return message

    return receive


class RequestGuard:
    """Refuses an oversized body (413) or a NUL character in the path, the query or a form body (400), and adds the
    security headers to every HTTP answer."""

    def __init__(self, app: ASGIApp, *, max_body: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if "\x00" in scope.get("path", "") or _nul_in(scope.get("query_string", b"")):
            refusal = _refusal(
                400,
                "request/nul",
                "the address holds a NUL character (%00), which no name, id or text here can contain",
                "remove the %00 from the address",
            )
            await self._refuse(scope, receive, send, refusal)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or ())
        portrait = PORTRAIT_PATH.fullmatch(scope.get("path", "")) is not None
        path = scope.get("path", "")
        file = FILE_PATH.fullmatch(path) is not None
        limit = (
            PORTRAIT_BODY_BYTES
            if portrait
            else FILE_BODY_BYTES
            if file
            else max(JOURNAL_BODY_BYTES, self.max_body)
            if JOURNAL_PATH.fullmatch(path)
            else self.max_body
        )
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self._refuse(scope, receive, send, self._too_large(portrait, limit, file))
            return
        body, more = await self._read(receive, limit)
        if body is None:
            await self._refuse(scope, receive, send, self._too_large(portrait, limit, file))
            return
        kind = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
        # a portrait is binary, NULs and all; its route stores no text from the body (only the re-encoded image)
        field = None if portrait else _nul_in_form(kind, body) or _nul_in_json(kind, body)
        if field:
            refusal = _refusal(
                422,
                "request/nul",
                f"{field} holds a NUL character, which no name or text here can contain",
                "remove the character and send it again",
                field if field != "a field" else None,
            )
            await self._refuse(scope, receive, send, refusal)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await more()

        static = scope.get("path", "").startswith("/static/")
        await self.app(scope, replay, self._with_headers(send, static=static))

    def _too_large(self, portrait: bool, limit: int, file: bool = False) -> tuple[int, bytes]:
        if file:
            return _refusal(
                413,
                "character/file_too_large",
                f"the character file is larger than {FILE_BODY_BYTES // 1024} KB, the most one holds; nothing was "
                "imported",
                "export the character again (its portrait is at most 1 MB) and import that file",
            )
        if portrait:
            return _refusal(
                413,
                "portrait/too_large",
                "the picture is larger than 1 MB, the most a portrait or a journal image may be; nothing was changed",
                "save the picture smaller (fewer pixels, or as a JPEG or WebP) and upload it again",
            )
        return _refusal(
            413,
            "request/too_large",
            f"the request body is larger than {limit // 1024} KB, the most a request here needs",
            "send a shorter text: every field has a limit, shown on its form",
        )

    async def _read(self, receive: Receive, limit: int) -> tuple[bytes | None, Receive]:
        """The whole body (None once it passes `limit`), and what to read after it (a disconnect)."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left before the body ended
                return b"".join(chunks), _repeating(message)
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return None, receive
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks), receive

    def _with_headers(self, send: Send, *, static: bool = False) -> Send:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", ())}
                extra = [(name, value) for name, value in SECURITY_HEADERS if name not in present]
                if not static and b"cache-control" not in present:  # a page or answer made for one member
                    extra.append((b"cache-control", b"no-store"))
                message["headers"] = [*message.get("headers", ()), *extra]
            await send(message)

        return sending

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, refusal: tuple[int, bytes]) -> None:
        status, body = refusal
        if scope["type"] == "websocket":
            await receive()  # the connect message
            await send({"type": "websocket.close", "code": 1008, "reason": "bad address"})
            return
        headers = [(b"content-type", MEDIA_TYPE.encode()), (b"content-length", str(len(body)).encode())]
        await self._with_headers(send)({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class HeadAsGet:
    """HEAD is answered wherever GET is (an uptime monitor's or load balancer's check): the same status and headers,
    without the body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, sending)
