"""Personal API tokens: a bot or script acts for its user with `Authorization: Bearer htk_…` on /api/v1 and the live
socket, within the token's scope, and never beyond what its user may do.

- `read`: GET only.
- `play`: reads, joins, and sends commands in campaigns where its user is not the GM.
- `gm`: all its user may do through the API, GM's commands included.

No token changes its account (password, sessions, other tokens): that takes a login. A token bound to a campaign
reaches only that campaign (and `/me`, the command list and the odds). A token sends at most
`token_commands_per_minute` commands a minute (in each server process). Bearer requests need no CSRF token: no
browser adds that header by itself. A token ends when revoked, when it expires, when its user is disabled or changes
the password.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from fastapi import HTTPException, Request
from starlette.requests import HTTPConnection

from herotable.server.auth import stamp
from herotable.server.security import digest
from herotable.store.accounts import AccountStore, ApiToken, User

SCOPES = ("read", "play", "gm")
PREFIX = "htk_"
# the scheme's name in any case, as HTTP reads it (RFC 9110, 11.1)
BEARER = re.compile(rf"^Bearer\s+({PREFIX}[A-Za-z0-9]{{8}}_[A-Za-z0-9_-]{{20,100}})$", re.IGNORECASE)
USED_EVERY_S = 60.0  # a token's last use is written at most this often
OPEN_TO_BOUND = ("/api/v1/me", "/api/v1/commands", "/api/v1/odds")  # what a token bound to a campaign may reach too


def make_token(
    accounts: AccountStore, user: User, name: str, scope: str, campaign_id: str | None, days: int | None
) -> tuple[str, ApiToken]:
    """A new token for `user`: its text (shown once, never kept) and its record."""
    if scope not in SCOPES:
        raise ValueError(f"scope {scope!r} is not one of {', '.join(SCOPES)}")
    token_id = secrets.token_hex(4)
    text = f"{PREFIX}{token_id}_{secrets.token_urlsafe(32)}"
    now = datetime.now(UTC)
    record = ApiToken(
        token_id=token_id,
        token_hash=digest(text),
        user_id=user.user_id,
        name=name,
        scope=scope,
        campaign_id=campaign_id,
        created_at=stamp(now),
        expires_at=stamp(now + timedelta(days=days)) if days else None,
    )
    return text, accounts.add_token(record)


def bearer_of(connection: HTTPConnection) -> str | None:
    """The `Authorization: Bearer …` header's value, or None when there is none."""
    header = connection.headers.get("authorization")
    return header if header and header.lower().startswith("bearer ") else None


class TokenGate:
    """Finds the token of a request, notes its use, and counts its commands. Thread-safe."""

    def __init__(self, accounts: AccountStore, per_minute: int, ticks: Callable[[], float] = time.monotonic) -> None:
        self.accounts = accounts
        self.per_minute = per_minute
        self._ticks = ticks
        self._written: dict[str, float] = {}
        self._sent: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def resolve(self, header: str) -> tuple[ApiToken, User]:
        """The live token and its user; 401 for a token unknown, revoked, expired, or of a disabled account."""
        matched = BEARER.match(header.strip())
        found = self.accounts.token_user(digest(matched.group(1)), stamp()) if matched else None
        if found is None:
            raise HTTPException(
                401,
                "this API token is unknown, revoked or expired. Tip: make a new one on your account page",
                headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
            )
        self._note_use(found[0])
        return found

    def _note_use(self, token: ApiToken) -> None:
        now = self._ticks()
        with self._lock:
            if now - self._written.get(token.token_id, -USED_EVERY_S) < USED_EVERY_S:
                return
            self._written[token.token_id] = now
        self.accounts.token_used(token.token_id, stamp())

    def command(self, token: ApiToken) -> None:
        """Count one command of `token`; 429 when it sent `per_minute` in the last minute already."""
        now = self._ticks()
        with self._lock:
            sent = self._sent.setdefault(token.token_id, deque())
            while sent and now - sent[0] >= 60.0:
                sent.popleft()
            if len(sent) >= self.per_minute:
                wait = max(1, int(60.0 - (now - sent[0]) + 0.999))
                raise HTTPException(
                    429,
                    f"this token sent {self.per_minute} commands in the last minute; nothing was done. Tip: try "
                    f"again in {wait} s",
                    headers={"Retry-After": str(wait)},
                )
            sent.append(now)


def check_scope(request: Request, token: ApiToken, user: User, is_gm: Callable[[str], bool]) -> None:
    """Refuse (403) what the token's scope or campaign does not reach. `is_gm(campaign_id)`: whether `user` is that
    campaign's GM."""
    path = request.url.path
    campaign = request.path_params.get("campaign_id")
    if path.startswith(("/api/v1/auth/", "/api/v1/tokens")):
        raise HTTPException(403, "an API token cannot change its account or its tokens. Tip: log in to do that")
    if token.campaign_id is not None and campaign != token.campaign_id and not path.startswith(OPEN_TO_BOUND):
        raise HTTPException(403, "this API token reaches one other campaign only. Tip: make one for this campaign")
    if request.method in ("GET", "HEAD"):
        return
    if token.scope == "read":
        raise HTTPException(403, "this API token may only read. Tip: make one of scope play or gm")
    if token.scope == "play":
        commanding = campaign is not None and path.endswith("/commands")
        if not (commanding or path.startswith("/api/v1/join/")):
            raise HTTPException(403, "this API token plays; it cannot change campaigns. Tip: use one of scope gm")
        if commanding and campaign is not None and is_gm(campaign):
            raise HTTPException(403, "you are this campaign's GM: a GM's commands need a token of scope gm")
