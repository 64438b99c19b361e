"""Signed session cookies, CSRF tokens and the digest kept of secrets. Passwords (argon2), limits and session records:
see `auth`."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from itsdangerous import BadSignature, URLSafeTimedSerializer

SESSION_COOKIE = "herotable_session"
SESSION_MAX_AGE_S = 30 * 24 * 3600
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"


def digest(secret: str) -> str:
    """What the database keeps of a session id or a reset token: its SHA-256, never the secret itself."""
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True)
class Session:
    """What the session cookie carries: a random session id, and the user once logged in."""

    sid: str
    user_id: str | None = None


class Sessions:
    """Signs and reads session cookies; derives each session's CSRF token from its id."""

    def __init__(self, secret_key: str) -> None:
        if len(secret_key) < 16:
            raise ValueError("the secret key must be at least 16 characters")
        self._signer = URLSafeTimedSerializer(secret_key, salt="herotable.session")
        self._csrf_key = hashlib.sha256(("csrf:" + secret_key).encode()).digest()

    def new(self, user_id: str | None = None) -> Session:
        return Session(secrets.token_urlsafe(18), user_id)

    def dump(self, session: Session) -> str:
        return self._signer.dumps({"sid": session.sid, "uid": session.user_id})

    def load(self, cookie: str | None) -> Session | None:
        if not cookie:
            return None
        try:
            data = self._signer.loads(cookie, max_age=SESSION_MAX_AGE_S)
        except BadSignature:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("sid"), str):
            return None
        uid = data.get("uid")
        return Session(data["sid"], uid if isinstance(uid, str) else None)

    def csrf_token(self, session: Session) -> str:
        return hmac.new(self._csrf_key, session.sid.encode(), hashlib.sha256).hexdigest()

    def csrf_ok(self, session: Session, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(self.csrf_token(session), token or "")
