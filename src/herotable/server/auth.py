"""Guards around accounts: who is asking (the client's address, as server/proxy.py finds it), how many
login and registration attempts they may make (shared by every process), how many password hashes run at once,
and the server-side session and password-reset records.
"""

from __future__ import annotations

import ipaddress
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import HTTPException
from starlette.requests import HTTPConnection

from herotable.server.redis_link import RedisAway, RedisLink
from herotable.server.security import SESSION_MAX_AGE_S, digest
from herotable.server.settings import DEFAULT_REDIS_PREFIX, Settings
from herotable.server.slots import Busy, Slots
from herotable.store.accounts import AccountStore, User
from herotable.store.throttle import Keyed, Policy, Throttle

RESET_VALID = timedelta(hours=1)
SESSION_KEPT_S = 10.0  # how long a process trusts what the store said of a session (see LiveSessions)
SESSIONS_KEPT = 10_000
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_hasher = PasswordHasher()


def stamp(moment: datetime | None = None) -> str:
    """A time as the account tables keep it (ISO 8601 in UTC, microseconds), so text order is time order."""
    return (moment or datetime.now(UTC)).isoformat(timespec="microseconds")


# --- who is asking ---


def client_address(connection: HTTPConnection) -> str:
    """The address limits are counted under: the client as `proxy.ForwardedHeaders` found it (a trusted proxy's
    `X-Forwarded-For`, else the TCP peer)."""
    return connection.client.host if connection.client else "-"


# --- password hashing, a few at a time ---


class HashGate(Slots):
    """Argon2 takes 64 MiB per hash: at most `slots` run at once; a caller waits up to `wait_s` for a slot,
    then gets `Busy` (503). New hashes cost `memory_kib` and `rounds`; a check uses the cost its hash records."""

    def __init__(self, slots: int, wait_s: float, *, memory_kib: int = 65536, rounds: int = 3) -> None:
        super().__init__(slots, wait_s, work="password hashing", doing="checking other passwords")
        if memory_kib < 8 * _hasher.parallelism or rounds < 1:
            raise ValueError(
                f"a password hash needs at least {8 * _hasher.parallelism} KiB and 1 round "
                f"(got {memory_kib} KiB, {rounds} rounds). Tip: keep the defaults, 65536 KiB and 3 rounds"
            )
        self._hasher = (
            _hasher
            if (memory_kib, rounds) == (_hasher.memory_cost, _hasher.time_cost)
            else PasswordHasher(time_cost=rounds, memory_cost=memory_kib)
        )
        self._dummy: str | None = None

    def hash(self, password: str) -> str:
        with self.slot():
            return self._hasher.hash(password)

    def check(self, hashed: str | None, password: str) -> bool:
        """Whether `password` matches `hashed`. With no hash (an unknown user) a dummy one is checked, so an
        unknown name takes as long as a wrong password."""
        with self.slot():
            try:
                return self._hasher.verify(hashed or self._dummy_hash(), password) and hashed is not None
            except (VerificationError, InvalidHashError):
                return False

    def _dummy_hash(self) -> str:
        if self._dummy is None:  # a race makes two, either as good
            self._dummy = self._hasher.hash(secrets.token_urlsafe(16))
        return self._dummy


# --- attempt limits ---


class RedisThrottle:
    """A `Throttle` in Redis (when HEROTABLE_REDIS_URL is set): one Lua script per attempt, so it is atomic. While
    Redis is away (see `RedisLink`) attempts count in `fallback`, the database's throttle, which every process shares
    too; counts do not move between the two, so an outage starts the database's afresh (or from a recent outage's)."""

    PREFIX = "throttle:"  # after the settings' Redis prefix
    # seconds are stored with every digit: Lua's tostring keeps 14, which can put `blocked` a hair after `now`
    _EXACT = "local function exact(x) return string.format('%.17g', x) end\n"
    _ATTEMPT = (
        _EXACT
        + """
local now = tonumber(ARGV[1])
for _, key in ipairs(KEYS) do  -- an attempt that read the time before a racing one counts at the latest (_step)
  local last = tonumber(redis.call('HGET', key, 'last'))
  if last and last > now then now = last end
end
local counts, wait = {}, 0
for i, key in ipairs(KEYS) do
  local o = 1 + (i - 1) * 4
  local forget = tonumber(ARGV[o + 4])
  local v = redis.call('HMGET', key, 'count', 'last', 'blocked')
  local count, last, blocked = tonumber(v[1]) or 0, tonumber(v[2]) or now, tonumber(v[3]) or 0
  if now - last > forget then count, blocked = 0, 0 end
  counts[i] = count
  if blocked - now > wait then wait = blocked - now end
end
if wait > 0 then return tostring(wait) end
for i, key in ipairs(KEYS) do
  local o = 1 + (i - 1) * 4
  local free, base, cap, forget = tonumber(ARGV[o + 1]), tonumber(ARGV[o + 2]), tonumber(ARGV[o + 3]),
    tonumber(ARGV[o + 4])
  local n = counts[i] + 1
  local delay = 0
  if n >= free then delay = math.min(base * 2 ^ math.min(n - free, 64), cap) end
  redis.call('HSET', key, 'count', n, 'last', exact(now), 'blocked', exact(now + delay))
  redis.call('EXPIRE', key, math.ceil(forget + delay))
end
return '0'
"""
    )
    _UNCOUNT = (
        _EXACT
        + """
local now, free, base, cap = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local v = redis.call('HMGET', KEYS[1], 'count', 'blocked')
if not v[1] then return 0 end
local n = math.max(tonumber(v[1]) - 1, 0)
local delay = 0
if n >= free then delay = math.min(base * 2 ^ math.min(n - free, 64), cap) end
redis.call('HSET', KEYS[1], 'count', n, 'blocked', exact(math.min(tonumber(v[2]), now + delay)))
return 1
"""
    )

    def __init__(self, link: RedisLink, fallback: Throttle, prefix: str = DEFAULT_REDIS_PREFIX) -> None:
        self._link = link
        self._fallback = fallback
        self._prefix = prefix + self.PREFIX
        self._attempt = link.client.register_script(self._ATTEMPT)
        self._uncount = link.client.register_script(self._UNCOUNT)

    def attempt(self, keys: Keyed, now: float) -> float:
        ordered = sorted(dict(keys).items())
        args: list[float] = [now]
        for _, policy in ordered:
            args += [policy.free, policy.base_s, policy.cap_s, policy.forget_s]
        names, values = [self._prefix + k for k, _ in ordered], [repr(a) for a in args]
        try:
            return self._link.ask(lambda client: float(self._attempt(keys=names, args=values, client=client)))
        except RedisAway:
            return self._fallback.attempt(keys, now)

    def forgive(self, key: str, policy: Policy, now: float, *, clear: bool) -> None:
        """Forgiven where Redis is now: an attempt counted on the other side of an outage's edge stays counted."""
        name = self._prefix + key
        args = [repr(float(a)) for a in (now, policy.free, policy.base_s, policy.cap_s)]
        try:
            if clear:
                self._link.ask(lambda client: client.delete(name))
            else:
                self._link.ask(lambda client: self._uncount(keys=[name], args=args, client=client))
        except RedisAway:
            self._fallback.forgive(key, policy, now, clear=clear)


def _too_many(wait: float, what: str) -> HTTPException:
    seconds = max(1, int(wait + 0.999))
    return HTTPException(
        429,
        f"too many {what} from here or for this account; nothing was checked. Tip: try again in {seconds} s",
        headers={"Retry-After": str(seconds)},
    )


@dataclass
class Guard:
    """Everything that limits account requests, built from the settings."""

    throttle: Throttle
    account: Policy  # login attempts per account name
    address: Policy  # login attempts per address, whatever the account
    register: Policy  # registrations per address
    gate: HashGate
    clock: Callable[[], float] = time.time  # seconds; tests pass a clock that moves only when they say

    @classmethod
    def build(
        cls,
        settings: Settings,
        accounts: AccountStore,
        clock: Callable[[], float] = time.time,
        link: RedisLink | None = None,
    ) -> Guard:
        """The guard of one process; with a `link` to Redis (when HEROTABLE_REDIS_URL is set) its limits count in
        Redis, and in the database while Redis is away."""
        throttle: Throttle = accounts.throttle
        if link is not None:
            throttle = RedisThrottle(link, accounts.throttle, settings.redis_prefix)
        window = settings.login_window_s  # a wait never outlasts the window that remembers it
        return cls(
            throttle=throttle,
            account=Policy(settings.login_attempts, 1.0, min(settings.login_max_wait_s, window), window),
            address=Policy(settings.address_attempts, 1.0, min(settings.address_max_wait_s, window), window),
            register=Policy(settings.register_attempts, 60.0, settings.register_window_s, settings.register_window_s),
            gate=HashGate(
                settings.hash_slots,
                settings.hash_wait_s,
                memory_kib=settings.hash_memory_kib,
                rounds=settings.hash_rounds,
            ),
            clock=clock,
        )

    def address_of(self, connection: HTTPConnection) -> str:
        return client_address(connection)

    def _login_keys(self, username: str, address: str) -> list[tuple[str, Policy]]:
        return [(f"login-account:{username.lower()}", self.account), (f"login-address:{address}", self.address)]

    def login(self, accounts: AccountStore, username: str, password: str, address: str) -> User | None:
        """The user, when the password is right; None when it is wrong. Raises 429 while this account or address
        must wait (the password is then not even checked), 503 when too many hashes are running."""
        keys = self._login_keys(username, address)
        wait = self.throttle.attempt(keys, self.clock())
        if wait > 0:
            raise _too_many(wait, "failed logins")
        user = accounts.user_by_name(username.lower())
        try:
            right = self.gate.check(user.password_hash if user else None, password)
        except Busy:
            for key, policy in keys:  # nothing was tried: the attempt does not count
                self.throttle.forgive(key, policy, self.clock(), clear=False)
            raise
        if not right or user is None:
            return None
        account_key, address_key = keys
        self.throttle.forgive(account_key[0], self.account, self.clock(), clear=True)
        self.throttle.forgive(address_key[0], self.address, self.clock(), clear=False)
        return user

    def registering(self, address: str) -> None:
        """Count a registration from `address`; raises 429 while it must wait."""
        wait = self.throttle.attempt([(f"register-address:{address}", self.register)], self.clock())
        if wait > 0:
            raise _too_many(wait, "registrations")


# --- sessions and password resets in the store ---


def start_session(accounts: AccountStore, sid: str, user_id: str) -> None:
    now = datetime.now(UTC)
    accounts.add_session(digest(sid), user_id, stamp(now), stamp(now + timedelta(seconds=SESSION_MAX_AGE_S)))


class LiveSessions:
    """The users of live sessions as the store last gave them, each kept for `keep_s` seconds (LRU, `size` at most),
    so that a player's burst of requests (a command, a panel, the next command) reads the session once, not once
    each. A session that ends is forgotten at once by the process that ends it (`ended`, which every ending calls
    through `api.sessions_ended`) and, through Redis, by the others (the hub's `sessions_of` notice); with no Redis
    between them, another process accepts it for `keep_s` more at most, as it may a session that expires. While a
    process that listens to Redis cannot hear it (`unheard` to `heard`), it keeps nothing: every request reads the
    store, so an ending told nowhere is still refused at once. A read of the store that overlaps an ending is not
    kept. Thread-safe."""

    def __init__(
        self,
        accounts: AccountStore,
        *,
        keep_s: float = SESSION_KEPT_S,
        size: int = SESSIONS_KEPT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.accounts = accounts
        self.keep_s = keep_s
        self._size = size
        self._clock = clock
        self._kept: OrderedDict[str, tuple[User, float]] = OrderedDict()  # by the session id's digest: until when
        self._endings = 0  # how many times sessions ended here: a read that overlaps one is not kept
        self._hearing = True  # whether endings elsewhere reach this process (or may be late by `keep_s` at most)
        self._lock = threading.Lock()

    def user(self, sid: str, user_id: str) -> User | None:
        """The user of a live session whose cookie names `user_id`: kept, or read from the store."""
        key = digest(sid)
        now = self._clock()
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None and kept[1] > now:
                self._kept.move_to_end(key)
                return kept[0] if kept[0].user_id == user_id else None
            endings = self._endings
        user = self.accounts.session_user(key, stamp())
        if user is not None:
            with self._lock:
                if self._endings == endings and self._hearing:
                    self._kept[key] = (user, now + self.keep_s)
                    self._kept.move_to_end(key)
                    while len(self._kept) > self._size:
                        self._kept.popitem(last=False)
        return user if user is not None and user.user_id == user_id else None

    def unheard(self) -> None:
        """Endings on other processes are not heard now (the hub lost Redis): forget every kept session, and keep
        none until `heard`."""
        self._forget_all(hearing=False)

    def heard(self) -> None:
        """Endings are heard again (the hub listens to Redis again): keep sessions again, starting from none, since
        an ending told meanwhile may have been missed."""
        self._forget_all(hearing=True)

    def _forget_all(self, *, hearing: bool) -> None:
        with self._lock:
            self._endings += 1
            self._kept.clear()
            self._hearing = hearing

    def ended(self, user_id: str) -> None:
        """Some of `user_id`'s sessions ended (or their user changed): forget every one of them kept here."""
        with self._lock:
            self._endings += 1
            for key in [key for key, (user, _) in self._kept.items() if user.user_id == user_id]:
                del self._kept[key]


def new_reset_link(accounts: AccountStore, user: User, base_url: str) -> str:
    """A one-time link, good for an hour, that lets `user` choose a new password."""
    token = secrets.token_urlsafe(32)
    now = datetime.now(UTC)
    accounts.add_reset(digest(token), user.user_id, stamp(now), stamp(now + RESET_VALID))
    return f"{base_url.rstrip('/')}/reset/{token}"


def replace_password(accounts: AccountStore, gate: HashGate, user: User, password: str, *, keep: str | None) -> int:
    """Set `user`'s password and end their sessions but `keep` (a session id); how many sessions ended."""
    accounts.set_password(user.user_id, gate.hash(password))
    accounts.revoke_tokens(user.user_id, stamp())  # a token made under the old password ends with it
    return accounts.revoke_sessions(user.user_id, stamp(), keep=digest(keep) if keep else None)
