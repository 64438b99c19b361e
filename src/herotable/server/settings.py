"""Server settings, read once from the environment."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from herotable.store.sql import DATA_DIR_ENV


@dataclass(frozen=True)
class Settings:
    database_url: str | None = None  # None: HEROTABLE_DATABASE_URL, else SQLite under the data directory
    secret_key: str = ""
    redis_url: str | None = None
    secure_cookies: bool = False  # set when served over HTTPS
    login_attempts: int = 5  # failed logins per username and address …
    login_window_s: float = 300.0  # … within this many seconds before further tries are refused

    @classmethod
    def from_env(cls) -> Settings:
        return cls(
            database_url=os.environ.get("HEROTABLE_DATABASE_URL"),
            secret_key=os.environ.get("HEROTABLE_SECRET_KEY") or _stored_secret(),
            redis_url=os.environ.get("HEROTABLE_REDIS_URL") or None,
            secure_cookies=os.environ.get("HEROTABLE_SECURE_COOKIES", "") == "1",
        )


def _stored_secret() -> str:
    """A signing key kept in the data directory, made on first run, so sessions survive a restart."""
    path = Path(os.environ.get(DATA_DIR_ENV, "data")) / "secret_key"
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    path.write_text(key)
    path.chmod(0o600)
    return key
