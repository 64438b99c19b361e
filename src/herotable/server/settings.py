"""Every server setting in one object, read once at start.

Each field is an environment variable `HEROTABLE_<NAME>` and a `herotable serve --<name>` option, validated together
at start: a bad value stops the server with one line per setting that names it, says what is wrong and shows a
value that works. `docs/operations.md` lists them all; a test keeps that table equal to this class.

Tests and benches build `Settings(...)` directly, which reads no environment; `Settings.load()` is what `serve` and
each worker use.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

ENV_PREFIX = "HEROTABLE_"
DEFAULT_REDIS_PREFIX = "herotable:"


class Settings(BaseModel):
    """One server's settings. The docstring of each field is what the settings table in docs/operations.md says."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True, validate_default=False)

    # --- where it listens and what it keeps -------------------------------------------------------------------
    host: str = "127.0.0.1"
    """Address to listen on (`0.0.0.0` for every interface; behind a proxy on the same machine keep the default)."""
    port: Annotated[int, Field(ge=0, le=65535)] = 8000
    """Port to listen on (0: one the system picks, said at start)."""
    workers: Annotated[int, Field(ge=1, le=64)] = 1
    """Server processes behind the one address; more than one needs `redis_url`."""
    data_dir: Path = Path("data")
    """Directory of the embedded SQLite database, its signing key and its lock."""
    database_url: str | None = None
    """Database URL: `postgresql+psycopg://user:password@host/db`, or `sqlite:////path/herotable.db`. Unset: SQLite
    `herotable.db` in `data_dir`."""
    migrate: bool = False
    """Upgrade a PostgreSQL database's schema at start (the embedded SQLite is always upgraded). Off: a database
    behind the code stops the start, and `herotable db upgrade` upgrades it."""
    db_wait_s: Annotated[float, Field(ge=0, le=3600)] = 30.0
    """Seconds to wait at start for a database that does not answer yet (PostgreSQL still starting)."""

    # --- keys and addresses -----------------------------------------------------------------------------------
    secret_key: str = Field(default="", repr=False)
    """The key that signs session cookies, 32 characters or more. Unset with SQLite: made once and kept in
    `data_dir/secret_key` (said at start). Unset with PostgreSQL: the server refuses to start. Not a `serve` option:
    a command line is visible to every user of the machine."""
    secret_key_file: Path | None = None
    """A file holding the signing key (a secret mounted by systemd or a container), instead of `secret_key`."""
    public_url: str | None = None
    """The address users open herotable at, e.g. `https://table.example`. It drives Secure cookies, the live
    table's Origin check, and invitation and password-reset links."""
    secure_cookies: bool | None = None
    """Mark cookies Secure (sent over HTTPS only). Unset: on when `public_url` starts with `https://`."""
    trusted_proxies: Annotated[tuple[str, ...], NoDecode] = ()
    """Comma-separated addresses or networks of reverse proxies whose `X-Forwarded-For`, `-Proto` and `-Host` are
    believed, e.g. `127.0.0.1,::1`. Unset: none, so forwarded headers are ignored."""

    # --- accounts and limits ----------------------------------------------------------------------------------
    registration: Literal["open", "invite", "closed"] = "open"
    """Who may make an account: `open` (anyone who reaches the server), `invite` (only through a campaign's
    invitation link), `closed` (only `herotable users create`)."""
    login_attempts: Annotated[int, Field(ge=1)] = 5
    """Free login attempts per account name; each further one waits 1 s, 2 s, 4 s … up to `login_max_wait_s`."""
    login_max_wait_s: Annotated[float, Field(gt=0)] = 60.0
    """The longest wait between failed logins of one account name."""
    address_attempts: Annotated[int, Field(ge=1)] = 20
    """Free login attempts per client address, whatever the account (raise it for a hall behind one address)."""
    address_max_wait_s: Annotated[float, Field(gt=0)] = 600.0
    """The longest wait between failed logins from one address."""
    login_window_s: Annotated[float, Field(gt=0)] = 900.0
    """Seconds without an attempt after which an account name or address starts again with free attempts."""
    register_attempts: Annotated[int, Field(ge=1)] = 5
    """Free registrations per client address; then 1 min, 2 min … up to `register_window_s`."""
    register_window_s: Annotated[float, Field(gt=0)] = 3600.0
    """Seconds without a registration after which an address starts again."""
    token_commands_per_minute: Annotated[int, Field(ge=1)] = 120
    """Commands one API token may send a minute (in each server process); more answer 429."""
    body_limit_kib: Annotated[int, Field(ge=16, le=1024)] = 64
    """The largest request body in KiB, a portrait upload aside (its own limit is 1 MB)."""
    hash_slots: Annotated[int, Field(ge=1)] = 4
    """Password hashes computed at once (64 MiB each at the default cost)."""
    hash_wait_s: Annotated[float, Field(ge=0)] = 5.0
    """How long a login waits for a hash slot before a 503."""
    hash_memory_kib: Annotated[int, Field(ge=8)] = 65536
    """Memory of one new password hash (argon2id), in KiB. Each hash keeps its own cost, so lowering it later leaves
    every password working."""
    hash_rounds: Annotated[int, Field(ge=1)] = 3
    """Passes over that memory for one new password hash."""
    image_slots: Annotated[int, Field(ge=1)] = 2
    """Portrait uploads decoded at once."""
    image_wait_s: Annotated[float, Field(ge=0)] = 2.0
    """How long an upload waits for a slot before a 503."""
    cached_campaigns: Annotated[int, Field(ge=1)] = 256  # the service's CACHED_CAMPAIGNS (test_settings.py)
    """Campaign states each server process keeps in memory, the most recently used (a played campaign's takes 100 to
    200 KiB). One played beyond them is read from the database again for each command and live frame: set it to the
    campaigns played at once."""

    # --- live table, logs, metrics ----------------------------------------------------------------------------
    redis_url: str | None = None
    """Redis, e.g. `redis://127.0.0.1:6379/0`: rolls reach viewers on every worker, and limits count across them."""
    redis_prefix: str = DEFAULT_REDIS_PREFIX
    """What every Redis key and channel name starts with. Instances sharing a Redis each need their own (pub/sub
    ignores the database number)."""
    log_format: Literal["text", "json"] = "text"
    """`text` for people, `json` for a log collector: one line per request and per command."""
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    """The least important log line written."""
    metrics_allow: Annotated[tuple[str, ...], NoDecode] = ("127.0.0.1", "::1")
    """Comma-separated addresses or networks that may read `/metrics`; `none` turns it off (404). A request a
    proxy forwarded counts as its client's address, when the proxy is trusted, and is refused otherwise."""

    # --- webhooks --------------------------------------------------------------------------------------------
    webhook_private_addresses: bool = False
    """Whether webhooks may be sent to loopback and private addresses (a receiver on the same machine or network).
    Off, a GM cannot make the server reach inside its own network. Never to link-local addresses (cloud metadata),
    nor to the ports of the server itself, its Redis or its database, either way."""
    webhook_timeout_s: Annotated[float, Field(gt=0, le=120)] = 10.0
    """How long one webhook delivery may take in all: connecting, sending, and the receiver's whole answer."""
    image_quota_mb: Annotated[float, Field(ge=0, le=100_000)] = 50.0
    """How many megabytes (10⁶ bytes) the images a campaign's journal shows may take together, as kept (re-encoded,
    at most 1 MB each): an upload past it is refused. 0: no journal images."""

    # --- checks ----------------------------------------------------------------------------------------------
    @field_validator("trusted_proxies", "metrics_allow", mode="before")
    @classmethod
    def _networks(cls, raw: object) -> object:
        if isinstance(raw, str):
            raw = () if raw.strip().lower() in ("", "none") else tuple(p.strip() for p in raw.split(",") if p.strip())
        for item in raw if isinstance(raw, tuple | list) else ():
            try:
                ipaddress.ip_network(str(item), strict=False)
            except ValueError:
                raise ValueError(f"holds {str(item)!r}, which is not an IP address or network") from None
        return raw

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, raw: str | None) -> str | None:
        if not raw:
            return None
        parts = urlsplit(raw.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("is not an http:// or https:// address")
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise ValueError("has a path; herotable is served at the root of its address")
        return f"{parts.scheme}://{parts.netloc.lower()}"

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, raw: str | None) -> str | None:
        if not raw:
            return None
        if urlsplit(raw).scheme not in ("redis", "rediss", "unix"):
            raise ValueError("is not a Redis address (redis://, rediss:// or unix://)")
        return raw

    @field_validator("registration", "log_format", "log_level", mode="before")
    @classmethod
    def _lower(cls, raw: object) -> object:
        return raw.strip().lower() if isinstance(raw, str) else raw  # `Invite`, `JSON` mean what they say

    @field_validator("redis_prefix")
    @classmethod
    def _redis_prefix(cls, raw: str) -> str:
        if raw != raw.strip() or any(not c.isprintable() for c in raw):
            raise ValueError("holds spaces or control characters")
        return raw or DEFAULT_REDIS_PREFIX

    # --- what the rest of the server reads -------------------------------------------------------------------
    @property
    def cookies_secure(self) -> bool:
        if self.secure_cookies is not None:
            return self.secure_cookies
        return bool(self.public_url and self.public_url.startswith("https://"))

    @property
    def embedded(self) -> bool:
        """True when the database is SQLite, a file on this machine, rather than a database server."""
        return not self.database_url or self.database_url.startswith("sqlite")

    @property
    def body_limit(self) -> int:
        return self.body_limit_kib * 1024

    @classmethod
    def load(cls, overrides: Mapping[str, object] | None = None) -> Settings:
        """The settings from the environment (`HEROTABLE_*`), with `overrides` (`serve` options' raw text, by field
        name) on top, all checked at once. Raises `SettingsError` naming every bad setting. The signing key is
        resolved by `with_secret`, which only the server needs."""
        # an option given empty counts as unset, as an empty variable does
        given: dict[str, Any] = {k: v for k, v in (overrides or {}).items() if v is not None and v != ""}
        try:
            loaded = _FromEnv(**given)
        except ValidationError as err:
            raise SettingsError([_problem(e, given) for e in err.errors()]) from None
        return cls.model_validate(loaded.model_dump())

    def with_secret(self) -> Settings:
        """These settings with their signing key: given, read from `secret_key_file`, or (embedded SQLite only) the
        one kept in the data directory, made on first start."""
        if self.secret_key:
            if len(self.secret_key) < 32:
                raise SettingsError(
                    [
                        f"{ENV_PREFIX}SECRET_KEY is {len(self.secret_key)} characters long; a signing key needs 32 "
                        f"or more. Tip: {KEY_RECIPE}"
                    ]
                )
            return self
        if self.secret_key_file is not None:
            try:
                key = self.secret_key_file.read_text(encoding="utf-8").strip()
            except OSError as err:
                raise SettingsError(
                    [
                        f"{ENV_PREFIX}SECRET_KEY_FILE={str(self.secret_key_file)!r} cannot be read ({err.strerror}). "
                        "Tip: give the path of a file the server's user may read"
                    ]
                ) from None
            if len(key) < 32:
                raise SettingsError(
                    [
                        f"{ENV_PREFIX}SECRET_KEY_FILE={str(self.secret_key_file)!r} holds {len(key)} characters; a "
                        f"signing key needs 32 or more. Tip: {KEY_RECIPE}"
                    ]
                )
            return self.model_copy(update={"secret_key": key})
        if not self.embedded:
            raise SettingsError(
                [
                    f"{ENV_PREFIX}SECRET_KEY is not set, and with a database server no key is made on its own (every "
                    f"worker and every restart must share it). Tip: {KEY_RECIPE}, and set "
                    f"{ENV_PREFIX}SECRET_KEY or {ENV_PREFIX}SECRET_KEY_FILE"
                ]
            )
        return self.model_copy(update={"secret_key": stored_secret(self.data_dir)})


KEY_RECIPE = "make one with `python3 -c 'import secrets; print(secrets.token_urlsafe(48))'`"


class _FromEnv(BaseSettings, Settings):
    """The same fields, read by pydantic-settings (booleans as people write them: 1/0, true/false, yes/no, on/off)."""

    model_config = SettingsConfigDict(frozen=True, extra="forbid", env_prefix=ENV_PREFIX, env_ignore_empty=True)

    @classmethod
    def settings_customise_sources(
        cls, settings_cls: Any, init_settings: Any, env_settings: Any, dotenv_settings: Any, file_secret_settings: Any
    ) -> Any:
        return (init_settings, env_settings)  # `serve` options over the environment; no .env file, no secrets dir


def unknown_variables(environ: Mapping[str, str] | None = None) -> list[str]:
    """`HEROTABLE_*` variables that name no setting (a typo, or a setting of another version), for a warning."""
    known = {f"{ENV_PREFIX}{name.upper()}" for name in Settings.model_fields}
    return sorted(
        name
        for name in (os.environ if environ is None else environ)
        if name.upper().startswith(ENV_PREFIX)
        and name.upper() not in known
        and not name.upper().startswith((f"{ENV_PREFIX}TEST_", f"{ENV_PREFIX}BENCH_"))
    )


def meant(name: str) -> str | None:
    """The setting a misspelt variable most likely means (`HEROTABLE_TRUSTED_PROXY`: `HEROTABLE_TRUSTED_PROXIES`)."""
    import difflib

    known = [f"{ENV_PREFIX}{field.upper()}" for field in Settings.model_fields]
    close = difflib.get_close_matches(name.upper(), known, n=1, cutoff=0.8)
    return close[0] if close else None


class SettingsError(ValueError):
    """One or more settings are wrong: one line each, naming the setting and a fix."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


_WHAT = {
    "int_parsing": "is not a whole number",
    "int_from_float": "is not a whole number",
    "float_parsing": "is not a number",
    "bool_parsing": "is not yes or no (1/0, true/false, yes/no, on/off)",
    "greater_than_equal": "is below {ge}",
    "greater_than": "must be more than {gt}",
    "less_than_equal": "is above {le}",
    "literal_error": "is not one of {expected}",
}


EXAMPLES = {  # a value that works, for settings whose default is none
    "database_url": "postgresql+psycopg://herotable@127.0.0.1/herotable",
    "secret_key_file": "/etc/herotable/secret_key",
    "public_url": "https://table.example",
    "trusted_proxies": "127.0.0.1,::1",
    "secure_cookies": "true",
    "redis_url": "redis://127.0.0.1:6379/0",
    "redis_prefix": "herotable-2:",
}


def _problem(error: Any, given: Mapping[str, object]) -> str:
    name = str(error["loc"][0]) if error["loc"] else "?"
    field = Settings.model_fields.get(name)
    where = f"--{name.replace('_', '-')}" if name in given else f"{ENV_PREFIX}{name.upper()}"
    raw = error.get("input", given.get(name, ""))
    shown = "(hidden)" if name == "secret_key" else repr(str(raw))
    what = _WHAT.get(error["type"], "").format(**error.get("ctx", {}))
    if not what:
        what = str(error["msg"]).removeprefix("Value error, ")
    default = field.default if field is not None else None
    example = (
        ",".join(default)
        if isinstance(default, tuple)
        else str(default).lower()
        if isinstance(default, bool)
        else str(default)
    )
    if name == "secret_key":
        return f"{where} {what}. Tip: {KEY_RECIPE}"
    example = EXAMPLES.get(name, example)
    tip = f"e.g. {where}={example}" if example not in ("None", "") else "`herotable serve --help` lists every setting"
    return f"{where}={shown} {what}. Tip: {tip}"


def stored_secret(data_dir: Path) -> str:
    """The signing key kept in the data directory, made on first start so that sessions survive a restart."""
    path = data_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # readable by its owner from the first moment
    with os.fdopen(fd, "w") as file:
        file.write(key)
    logging.getLogger("herotable.settings").info(
        "made a signing key in %s (keep it with the database; a new one logs everyone out)", path
    )
    return key


def settings_table() -> str:
    """The Markdown table of every setting, as docs/operations.md shows it."""
    rows = ["| Variable | `serve` option | Default | What it does |", "|---|---|---|---|"]
    for name, field in Settings.model_fields.items():
        default = field.default
        shown = (
            "—"
            if default in (None, "", ())
            else ",".join(default)
            if isinstance(default, tuple)
            else str(default).lower()
            if isinstance(default, bool)
            else str(default)
        )
        text = " ".join((field.description or "").split())
        option = "—" if name == "secret_key" else f"`--{name.replace('_', '-')}`"  # never on a command line
        rows.append(f"| `{ENV_PREFIX}{name.upper()}` | {option} | `{shown}` | {text} |")
    return "\n".join(rows)
