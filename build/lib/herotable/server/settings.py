"""Server settings, read once from the environment."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from herotable.store.sql import DATA_DIR_ENV

DEFAULT_REDIS_PREFIX = "herotable:"


@dataclass(frozen=True)
class Settings:
    database_url: str | None = None  # None: HEROTABLE_DATABASE_URL, else SQLite under the data directory
    secret_key: str = ""
    redis_url: str | None = None
    # what every Redis key and channel name starts with: instances sharing a Redis (pub/sub ignores the database
    # number) each need their own
    redis_prefix: str = DEFAULT_REDIS_PREFIX
    secure_cookies: bool = False  # set when served over HTTPS
    # Login and registration limits (see docs/web.md, "Security"): after the free attempts, each further one
    # must wait 1 s, then 2 s, 4 s … up to the cap; a key with no attempt for its window starts again.
    login_attempts: int = 5  # free login attempts per account name
    login_max_wait_s: float = 60.0
    address_attempts: int = 20  # free login attempts per client address, whatever the account
    address_max_wait_s: float = 600.0
    login_window_s: float = 900.0
    register_attempts: int = 5  # free registrations per client address; then 1 min, 2 min … up to the window
    register_window_s: float = 3600.0
    trusted_proxies: tuple[str, ...] = ()  # addresses/networks whose X-Forwarded-For is believed; none by default
    hash_slots: int = 4  # password hashes computed at once (64 MiB each) …
    hash_wait_s: float = 5.0  # … and how long a request waits for a slot before a 503
    # what one new password hash costs (argon2id): memory in KiB and passes over it. A hash keeps its own cost, so
    # lowering these later (a small server) leaves every password working; the tests set them low, to run fast
    hash_memory_kib: int = 65536
    hash_rounds: int = 3
    image_slots: int = 2  # portrait uploads decoded at once (up to 100 MB each, see portrait_image.py) …
    image_wait_s: float = 2.0  # … and how long an upload waits for a slot before a 503
    public_url: str | None = None  # the address users open herotable at: invitation links use it, not Host

    @classmethod
    def from_env(cls) -> Settings:
        return cls(
            database_url=os.environ.get("HEROTABLE_DATABASE_URL"),
            secret_key=os.environ.get("HEROTABLE_SECRET_KEY") or _stored_secret(),
            redis_url=os.environ.get("HEROTABLE_REDIS_URL") or None,
            redis_prefix=redis_prefix(),
            secure_cookies=os.environ.get("HEROTABLE_SECURE_COOKIES", "") == "1",
            trusted_proxies=tuple(p for p in os.environ.get(TRUSTED_PROXIES_ENV, "").split(",") if p.strip()),
            hash_slots=_whole(HASH_SLOTS_ENV, 4),
            hash_memory_kib=_whole(HASH_MEMORY_ENV, cls.hash_memory_kib),
            hash_rounds=_whole(HASH_ROUNDS_ENV, cls.hash_rounds),
            image_slots=_whole(IMAGE_SLOTS_ENV, 2),
            public_url=os.environ.get("HEROTABLE_PUBLIC_URL") or None,
        )


TRUSTED_PROXIES_ENV = "HEROTABLE_TRUSTED_PROXIES"
REDIS_PREFIX_ENV = "HEROTABLE_REDIS_PREFIX"


def redis_prefix() -> str:
    """HEROTABLE_REDIS_PREFIX, else `herotable:`."""
    raw = os.environ.get(REDIS_PREFIX_ENV, "")
    if raw != raw.strip() or any(not c.isprintable() for c in raw):
        raise ValueError(
            f"{REDIS_PREFIX_ENV}={raw!r} holds spaces or control characters. Tip: e.g. {REDIS_PREFIX_ENV}=herotable-2:"
        )
    return raw or DEFAULT_REDIS_PREFIX


HASH_SLOTS_ENV = "HEROTABLE_HASH_SLOTS"
HASH_MEMORY_ENV = "HEROTABLE_HASH_MEMORY_KIB"
HASH_ROUNDS_ENV = "HEROTABLE_HASH_ROUNDS"
IMAGE_SLOTS_ENV = "HEROTABLE_IMAGE_SLOTS"


def _whole(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{name}={raw!r} is not a whole number of at least 1. Tip: e.g. {name}={default}")
    return int(raw)


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
