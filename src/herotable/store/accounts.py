"""Accounts, sessions and invitations: who may log in, which sessions are alive, and which codes open which
campaign seats, for how long and how many times.

Kept beside the event store (same database, same migrations) but outside the event log: an account is not
part of any campaign's story.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import ClassVar, Protocol

from sqlalchemy import and_, bindparam, delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from herotable.store.engine import for_one_read, for_writing
from herotable.store.port import EventStore, StoreError
from herotable.store.schema import (
    ApiTokenRecord,
    InviteRecord,
    InviteUseRecord,
    PasswordResetRecord,
    RemovalRecord,
    SessionRecord,
    UserRecord,
)
from herotable.store.throttle import MemoryThrottle, SqlThrottle, Throttle


@dataclass(frozen=True)
class User:
    user_id: str
    username: str
    display_name: str
    password_hash: str
    created_at: str
    admin: bool = False  # the server's administrator: given only from the shell (`herotable users promote`)
    disabled_at: str | None = None  # when the server's owner disabled the account: no login, no session
    invited_with: str | None = None  # the invitation code it registered with, where registration asked for one

    @property
    def disabled(self) -> bool:
        return self.disabled_at is not None


@dataclass(frozen=True)
class ApiToken:
    """A personal API token as the store keeps it: never the token itself, only its hash."""

    token_id: str
    token_hash: str
    user_id: str
    name: str
    scope: str  # read, play or gm
    campaign_id: str | None
    created_at: str
    expires_at: str | None = None
    last_used_at: str | None = None
    revoked_at: str | None = None

    def live(self, now: str) -> bool:
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)


@dataclass(frozen=True)
class Invite:
    """An invitation link: good until `expires_at`, for at most `max_uses` joins (None: no limit)."""

    code: str
    campaign_id: str
    role: str
    created_at: str
    expires_at: str
    max_uses: int | None = None
    uses: int = 0


@dataclass(frozen=True)
class InviteUse:
    """`user_id` joined the campaign through invitation `code` at `joined_at`."""

    code: str
    user_id: str
    campaign_id: str
    joined_at: str


class UsernameTaken(StoreError):
    def __init__(self, username: str) -> None:
        super().__init__(f"the username {username!r} is not available. Tip: choose another")


class InviteRefused(StoreError):
    """An invitation that does not admit this user now; `why` is unknown, expired, used_up or removed."""

    MESSAGES: ClassVar[dict[str, str]] = {
        "unknown": "this invitation is unknown or was withdrawn. Tip: ask the GM for a new link",
        "expired": "this invitation has expired. Tip: ask the GM for a new link",
        "used_up": "this invitation has been used as many times as the GM allowed. Tip: ask the GM for a new link",
        "removed": "the GM removed you from this campaign after this invitation was made, so it no longer "
        "admits you. Tip: ask the GM for a new link if you are welcome back",
    }

    def __init__(self, why: str) -> None:
        self.why = why
        super().__init__(self.MESSAGES[why])


class AccountStore(Protocol):
    throttle: Throttle

    def add_user(self, user: User) -> User:
        """Raises UsernameTaken."""
        ...

    def user_by_name(self, username: str) -> User | None: ...

    def user(self, user_id: str) -> User | None: ...

    def set_password(self, user_id: str, password_hash: str) -> None: ...

    def users(self) -> list[User]:
        """Every account, oldest first."""
        ...

    def set_admin(self, user_id: str, admin: bool) -> None: ...

    def registered_with(self, code: str) -> int:
        """How many accounts registered with the invitation `code`."""
        ...

    def add_token(self, token: ApiToken) -> ApiToken: ...

    def token_user(self, token_hash: str, now: str) -> tuple[ApiToken, User] | None:
        """The live token of this hash and its enabled user, or None."""
        ...

    def tokens_of(self, user_id: str) -> list[ApiToken]:
        """Every token of the user, revoked and expired ones too, newest first."""
        ...

    def revoke_token(self, token_id: str, user_id: str, at: str) -> bool:
        """Revoke the user's token `token_id`; whether there was such a live token."""
        ...

    def revoke_tokens(self, user_id: str, at: str) -> int:
        """Revoke every live token of the user; how many."""
        ...

    def token_used(self, token_id: str, at: str) -> None: ...

    def set_disabled(self, user_id: str, at: str | None) -> None:
        """Disable the account from `at` (its sessions are no longer live), or enable it again (None)."""
        ...

    # --- sessions (kept by a hash of their id) ---

    def add_session(self, sid_hash: str, user_id: str, created_at: str, expires_at: str) -> None: ...

    def session_user(self, sid_hash: str, now: str) -> User | None:
        """The user of a session that is neither revoked nor expired at `now`, while the account is enabled."""
        ...

    def revoke_session(self, sid_hash: str, at: str) -> None: ...

    def revoke_sessions(self, user_id: str, at: str, *, keep: str | None = None) -> int:
        """Revoke every live session of `user_id` except `keep` (a sid hash); the number revoked."""
        ...

    # --- one-time password resets (kept by a hash of their token) ---

    def add_reset(self, token_hash: str, user_id: str, created_at: str, expires_at: str) -> None: ...

    def reset_user(self, token_hash: str, now: str) -> User | None:
        """The user a reset token is for, while it is unused and unexpired."""
        ...

    def use_reset(self, token_hash: str, now: str) -> User | None:
        """Spend the token (once only): its user, or None when it is unknown, used or expired."""
        ...

    # --- invitations ---

    def add_invite(self, invite: Invite) -> Invite: ...

    def invite(self, code: str) -> Invite | None: ...

    def invites_for(self, campaign_id: str) -> list[Invite]: ...

    def revoke_invite(self, code: str) -> None: ...

    def claim_invite(self, code: str, user_id: str, now: str) -> Invite:
        """Count one use of the invitation by `user_id` and record it. Raises InviteRefused (nothing changed)."""
        ...

    def unclaim_invite(self, code: str, user_id: str) -> None:
        """Take back a claim whose join did not happen."""
        ...

    def invite_uses(self, campaign_id: str) -> list[InviteUse]: ...

    def record_removal(self, campaign_id: str, user_id: str, at: str) -> None: ...


def _refusal(invite: Invite | None, removed_at: str | None, now: str) -> str | None:
    """Why `invite` does not admit a user removed at `removed_at` (None: never), or None when it does."""
    if invite is None:
        return "unknown"
    if invite.expires_at <= now:
        return "expired"
    if invite.max_uses is not None and invite.uses >= invite.max_uses:
        return "used_up"
    if removed_at is not None and removed_at >= invite.created_at:
        return "removed"
    return None


@dataclass
class _Session:
    user_id: str
    expires_at: str
    revoked_at: str | None = None


@dataclass
class _Reset:
    user_id: str
    expires_at: str
    used_at: str | None = None


class MemoryAccountStore:
    def __init__(self) -> None:
        self._users: dict[str, User] = {}
        self._invites: dict[str, Invite] = {}
        self._uses: dict[tuple[str, str], InviteUse] = {}
        self._removals: dict[tuple[str, str], str] = {}
        self._sessions: dict[str, _Session] = {}
        self._resets: dict[str, _Reset] = {}
        self._tokens: dict[str, ApiToken] = {}
        self._lock = threading.Lock()
        self.throttle: Throttle = MemoryThrottle()

    def add_user(self, user: User) -> User:
        with self._lock:
            if any(u.username == user.username for u in self._users.values()):
                raise UsernameTaken(user.username)
            self._users[user.user_id] = user
        return user

    def user_by_name(self, username: str) -> User | None:
        return next((u for u in self._users.values() if u.username == username), None)

    def user(self, user_id: str) -> User | None:
        return self._users.get(user_id)

    def set_password(self, user_id: str, password_hash: str) -> None:
        with self._lock:
            self._users[user_id] = replace(self._users[user_id], password_hash=password_hash)

    def users(self) -> list[User]:
        return sorted(self._users.values(), key=lambda u: (u.created_at, u.username))

    def set_admin(self, user_id: str, admin: bool) -> None:
        with self._lock:
            self._users[user_id] = replace(self._users[user_id], admin=admin)

    def registered_with(self, code: str) -> int:
        return sum(1 for u in self._users.values() if u.invited_with == code)

    def add_token(self, token: ApiToken) -> ApiToken:
        with self._lock:
            self._tokens[token.token_id] = token
        return token

    def token_user(self, token_hash: str, now: str) -> tuple[ApiToken, User] | None:
        token = next((t for t in self._tokens.values() if t.token_hash == token_hash), None)
        user = self._users.get(token.user_id) if token is not None else None
        if token is None or user is None or not token.live(now) or user.disabled:
            return None
        return token, user

    def tokens_of(self, user_id: str) -> list[ApiToken]:
        return sorted((t for t in self._tokens.values() if t.user_id == user_id), key=lambda t: t.created_at)[::-1]

    def revoke_token(self, token_id: str, user_id: str, at: str) -> bool:
        with self._lock:
            token = self._tokens.get(token_id)
            if token is None or token.user_id != user_id or token.revoked_at is not None:
                return False
            self._tokens[token_id] = replace(token, revoked_at=at)
            return True

    def revoke_tokens(self, user_id: str, at: str) -> int:
        with self._lock:
            live = [t for t in self._tokens.values() if t.user_id == user_id and t.revoked_at is None]
            for token in live:
                self._tokens[token.token_id] = replace(token, revoked_at=at)
        return len(live)

    def token_used(self, token_id: str, at: str) -> None:
        with self._lock:
            if token_id in self._tokens:
                self._tokens[token_id] = replace(self._tokens[token_id], last_used_at=at)

    def set_disabled(self, user_id: str, at: str | None) -> None:
        with self._lock:
            self._users[user_id] = replace(self._users[user_id], disabled_at=at)

    def add_session(self, sid_hash: str, user_id: str, created_at: str, expires_at: str) -> None:
        with self._lock:
            self._sessions[sid_hash] = _Session(user_id, expires_at)

    def session_user(self, sid_hash: str, now: str) -> User | None:
        found = self._sessions.get(sid_hash)
        if found is None or found.revoked_at is not None or found.expires_at <= now:
            return None
        user = self._users.get(found.user_id)
        return user if user is not None and not user.disabled else None

    def revoke_session(self, sid_hash: str, at: str) -> None:
        with self._lock:
            found = self._sessions.get(sid_hash)
            if found is not None and found.revoked_at is None:
                found.revoked_at = at

    def revoke_sessions(self, user_id: str, at: str, *, keep: str | None = None) -> int:
        with self._lock:
            ended = [
                s
                for h, s in self._sessions.items()
                if s.user_id == user_id and s.revoked_at is None and h != keep and s.expires_at > at
            ]
            for s in ended:
                s.revoked_at = at
        return len(ended)

    def add_reset(self, token_hash: str, user_id: str, created_at: str, expires_at: str) -> None:
        with self._lock:
            self._resets[token_hash] = _Reset(user_id, expires_at)

    def reset_user(self, token_hash: str, now: str) -> User | None:
        found = self._resets.get(token_hash)
        if found is None or found.used_at is not None or found.expires_at <= now:
            return None
        return self._users.get(found.user_id)

    def use_reset(self, token_hash: str, now: str) -> User | None:
        with self._lock:
            user = self.reset_user(token_hash, now)
            if user is not None:
                self._resets[token_hash].used_at = now
        return user

    def add_invite(self, invite: Invite) -> Invite:
        with self._lock:
            self._invites[invite.code] = invite
        return invite

    def invite(self, code: str) -> Invite | None:
        return self._invites.get(code)

    def invites_for(self, campaign_id: str) -> list[Invite]:
        return [i for i in self._invites.values() if i.campaign_id == campaign_id]

    def revoke_invite(self, code: str) -> None:
        with self._lock:
            self._invites.pop(code, None)

    def claim_invite(self, code: str, user_id: str, now: str) -> Invite:
        with self._lock:
            found = self._invites.get(code)
            removed = self._removals.get((found.campaign_id, user_id)) if found else None
            why = _refusal(found, removed, now)
            if why is not None or found is None:
                raise InviteRefused(why or "unknown")
            claimed = replace(found, uses=found.uses + 1)
            self._invites[code] = claimed
            self._uses[(code, user_id)] = InviteUse(code, user_id, found.campaign_id, now)
        return claimed

    def unclaim_invite(self, code: str, user_id: str) -> None:
        with self._lock:
            if self._uses.pop((code, user_id), None) is not None and code in self._invites:
                found = self._invites[code]
                self._invites[code] = replace(found, uses=max(found.uses - 1, 0))

    def invite_uses(self, campaign_id: str) -> list[InviteUse]:
        uses = [u for u in self._uses.values() if u.campaign_id == campaign_id]
        return sorted(uses, key=lambda u: u.joined_at)

    def record_removal(self, campaign_id: str, user_id: str, at: str) -> None:
        with self._lock:
            self._removals[(campaign_id, user_id)] = at


# every request of a logged-in member runs it: built once, its parameters bound by name
_SESSION_USER = (
    select(UserRecord.__table__)
    .join(SessionRecord, SessionRecord.user_id == UserRecord.user_id)
    .where(
        SessionRecord.sid_hash == bindparam("sid_hash"),
        SessionRecord.revoked_at.is_(None),
        SessionRecord.expires_at > bindparam("now"),
        UserRecord.disabled_at.is_(None),
    )
)


class SqlAccountStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._writer = for_writing(engine)
        self._one_read = for_one_read(engine)
        self.throttle: Throttle = SqlThrottle(engine)

    def add_user(self, user: User) -> User:
        try:
            with self._writer.begin() as connection:
                connection.execute(insert(UserRecord).values(**vars(user)))
        except IntegrityError:
            raise UsernameTaken(user.username) from None
        return user

    def _one_user(self, clause: object) -> User | None:
        with self._engine.connect() as connection:
            row = connection.execute(select(UserRecord.__table__).where(clause)).mappings().first()  # type: ignore[arg-type]
        return User(**row) if row else None

    def user_by_name(self, username: str) -> User | None:
        return self._one_user(UserRecord.username == username)

    def user(self, user_id: str) -> User | None:
        return self._one_user(UserRecord.user_id == user_id)

    def set_password(self, user_id: str, password_hash: str) -> None:
        with self._writer.begin() as connection:
            connection.execute(
                update(UserRecord).where(UserRecord.user_id == user_id).values(password_hash=password_hash)
            )

    def users(self) -> list[User]:
        with self._engine.connect() as connection:
            rows = connection.execute(
                select(UserRecord.__table__).order_by(UserRecord.created_at, UserRecord.username)
            ).mappings()
            return [User(**row) for row in rows]

    def set_admin(self, user_id: str, admin: bool) -> None:
        with self._writer.begin() as connection:
            connection.execute(update(UserRecord).where(UserRecord.user_id == user_id).values(admin=admin))

    def add_token(self, token: ApiToken) -> ApiToken:
        with self._writer.begin() as connection:
            connection.execute(insert(ApiTokenRecord).values(**vars(token)))
        return token

    def token_user(self, token_hash: str, now: str) -> tuple[ApiToken, User] | None:
        with self._one_read.connect() as connection:
            row = connection.execute(
                select(ApiTokenRecord.__table__, UserRecord.__table__)
                .join(UserRecord, UserRecord.user_id == ApiTokenRecord.user_id)
                .where(
                    ApiTokenRecord.token_hash == token_hash,
                    ApiTokenRecord.revoked_at.is_(None),
                    or_(ApiTokenRecord.expires_at.is_(None), ApiTokenRecord.expires_at > now),
                    UserRecord.disabled_at.is_(None),
                )
            ).first()
        if row is None:
            return None
        token_columns = [c.name for c in ApiTokenRecord.__table__.columns]
        user_columns = [c.name for c in UserRecord.__table__.columns]
        values = tuple(row)
        token = ApiToken(**dict(zip(token_columns, values[: len(token_columns)], strict=True)))
        user = User(**dict(zip(user_columns, values[len(token_columns) :], strict=True)))
        return token, user

    def tokens_of(self, user_id: str) -> list[ApiToken]:
        with self._engine.connect() as connection:
            rows = connection.execute(
                select(ApiTokenRecord.__table__)
                .where(ApiTokenRecord.user_id == user_id)
                .order_by(ApiTokenRecord.created_at.desc())
            ).mappings()
            return [ApiToken(**row) for row in rows]

    def revoke_token(self, token_id: str, user_id: str, at: str) -> bool:
        with self._writer.begin() as connection:
            done = connection.execute(
                update(ApiTokenRecord)
                .where(
                    ApiTokenRecord.token_id == token_id,
                    ApiTokenRecord.user_id == user_id,
                    ApiTokenRecord.revoked_at.is_(None),
                )
                .values(revoked_at=at)
            )
        return bool(done.rowcount)

    def revoke_tokens(self, user_id: str, at: str) -> int:
        with self._writer.begin() as connection:
            done = connection.execute(
                update(ApiTokenRecord)
                .where(ApiTokenRecord.user_id == user_id, ApiTokenRecord.revoked_at.is_(None))
                .values(revoked_at=at)
            )
        return int(done.rowcount)

    def token_used(self, token_id: str, at: str) -> None:
        with self._writer.begin() as connection:
            connection.execute(
                update(ApiTokenRecord).where(ApiTokenRecord.token_id == token_id).values(last_used_at=at)
            )

    def registered_with(self, code: str) -> int:
        with self._engine.connect() as connection:
            count = connection.execute(
                select(func.count()).select_from(UserRecord).where(UserRecord.invited_with == code)
            ).scalar_one()
        return int(count)

    def set_disabled(self, user_id: str, at: str | None) -> None:
        with self._writer.begin() as connection:
            connection.execute(update(UserRecord).where(UserRecord.user_id == user_id).values(disabled_at=at))

    def add_session(self, sid_hash: str, user_id: str, created_at: str, expires_at: str) -> None:
        with self._writer.begin() as connection:
            connection.execute(
                insert(SessionRecord).values(
                    sid_hash=sid_hash, user_id=user_id, created_at=created_at, expires_at=expires_at, revoked_at=None
                )
            )

    def session_user(self, sid_hash: str, now: str) -> User | None:
        with self._one_read.connect() as connection:
            row = connection.execute(_SESSION_USER, {"sid_hash": sid_hash, "now": now}).mappings().first()
        return User(**row) if row else None

    def revoke_session(self, sid_hash: str, at: str) -> None:
        with self._writer.begin() as connection:
            connection.execute(
                update(SessionRecord)
                .where(SessionRecord.sid_hash == sid_hash, SessionRecord.revoked_at.is_(None))
                .values(revoked_at=at)
            )

    def revoke_sessions(self, user_id: str, at: str, *, keep: str | None = None) -> int:
        with self._writer.begin() as connection:
            ended = connection.execute(
                update(SessionRecord)
                .where(
                    SessionRecord.user_id == user_id,
                    SessionRecord.revoked_at.is_(None),
                    SessionRecord.expires_at > at,
                    SessionRecord.sid_hash != (keep or ""),
                )
                .values(revoked_at=at)
            )
        return int(ended.rowcount)

    def add_reset(self, token_hash: str, user_id: str, created_at: str, expires_at: str) -> None:
        with self._writer.begin() as connection:
            connection.execute(
                insert(PasswordResetRecord).values(
                    token_hash=token_hash, user_id=user_id, created_at=created_at, expires_at=expires_at, used_at=None
                )
            )

    @staticmethod
    def _reset_user(connection: Connection, token_hash: str, now: str) -> User | None:
        row = (
            connection.execute(
                select(UserRecord.__table__)
                .join(PasswordResetRecord, PasswordResetRecord.user_id == UserRecord.user_id)
                .where(
                    PasswordResetRecord.token_hash == token_hash,
                    PasswordResetRecord.used_at.is_(None),
                    PasswordResetRecord.expires_at > now,
                )
            )
            .mappings()
            .first()
        )
        return User(**row) if row else None

    def reset_user(self, token_hash: str, now: str) -> User | None:
        with self._engine.connect() as connection:
            return self._reset_user(connection, token_hash, now)

    def use_reset(self, token_hash: str, now: str) -> User | None:
        with self._writer.begin() as connection:
            spent = connection.execute(
                update(PasswordResetRecord)
                .where(
                    PasswordResetRecord.token_hash == token_hash,
                    PasswordResetRecord.used_at.is_(None),
                    PasswordResetRecord.expires_at > now,
                )
                .values(used_at=now)
            )
            if spent.rowcount != 1:
                return None
            user_id = connection.execute(
                select(PasswordResetRecord.user_id).where(PasswordResetRecord.token_hash == token_hash)
            ).scalar_one()
            row = connection.execute(select(UserRecord.__table__).where(UserRecord.user_id == user_id)).mappings().one()
        return User(**row)

    def add_invite(self, invite: Invite) -> Invite:
        with self._writer.begin() as connection:
            connection.execute(insert(InviteRecord).values(**vars(invite)))
        return invite

    @staticmethod
    def _invite(connection: Connection, code: str) -> Invite | None:
        row = connection.execute(select(InviteRecord.__table__).where(InviteRecord.code == code)).mappings().first()
        return Invite(**row) if row else None

    def invite(self, code: str) -> Invite | None:
        with self._engine.connect() as connection:
            return self._invite(connection, code)

    def invites_for(self, campaign_id: str) -> list[Invite]:
        with self._engine.connect() as connection:
            rows = connection.execute(
                select(InviteRecord.__table__)
                .where(InviteRecord.campaign_id == campaign_id)
                .order_by(InviteRecord.created_at)
            ).mappings()
            return [Invite(**r) for r in rows]

    def revoke_invite(self, code: str) -> None:
        with self._writer.begin() as connection:
            connection.execute(delete(InviteRecord).where(InviteRecord.code == code))

    def claim_invite(self, code: str, user_id: str, now: str) -> Invite:
        with self._writer.begin() as connection:
            # the use is counted by one conditional UPDATE, so two joins at once never exceed the limit
            counted = connection.execute(
                update(InviteRecord)
                .where(
                    InviteRecord.code == code,
                    InviteRecord.expires_at > now,
                    or_(InviteRecord.max_uses.is_(None), InviteRecord.uses < InviteRecord.max_uses),
                    ~select(RemovalRecord.user_id)
                    .where(
                        RemovalRecord.campaign_id == InviteRecord.campaign_id,
                        RemovalRecord.user_id == user_id,
                        RemovalRecord.removed_at >= InviteRecord.created_at,
                    )
                    .exists(),
                )
                .values(uses=InviteRecord.uses + 1)
            )
            found = self._invite(connection, code)
            if counted.rowcount != 1 or found is None:
                removed = None
                if found is not None:
                    removed = connection.execute(
                        select(RemovalRecord.removed_at).where(
                            and_(RemovalRecord.campaign_id == found.campaign_id, RemovalRecord.user_id == user_id)
                        )
                    ).scalar()
                raise InviteRefused(_refusal(found, removed, now) or "unknown")
            connection.execute(
                delete(InviteUseRecord).where(InviteUseRecord.code == code, InviteUseRecord.user_id == user_id)
            )
            connection.execute(
                insert(InviteUseRecord).values(code=code, user_id=user_id, campaign_id=found.campaign_id, joined_at=now)
            )
        return found

    def unclaim_invite(self, code: str, user_id: str) -> None:
        with self._writer.begin() as connection:
            gone = connection.execute(
                delete(InviteUseRecord).where(InviteUseRecord.code == code, InviteUseRecord.user_id == user_id)
            )
            if gone.rowcount:
                connection.execute(
                    update(InviteRecord)
                    .where(InviteRecord.code == code, InviteRecord.uses > 0)
                    .values(uses=InviteRecord.uses - 1)
                )

    def invite_uses(self, campaign_id: str) -> list[InviteUse]:
        with self._engine.connect() as connection:
            rows = connection.execute(
                select(InviteUseRecord.__table__)
                .where(InviteUseRecord.campaign_id == campaign_id)
                .order_by(InviteUseRecord.joined_at)
            ).mappings()
            return [InviteUse(**r) for r in rows]

    def record_removal(self, campaign_id: str, user_id: str, at: str) -> None:
        with self._writer.begin() as connection:
            connection.execute(
                delete(RemovalRecord).where(RemovalRecord.campaign_id == campaign_id, RemovalRecord.user_id == user_id)
            )
            connection.execute(insert(RemovalRecord).values(campaign_id=campaign_id, user_id=user_id, removed_at=at))


def accounts_for(store: EventStore) -> AccountStore:
    """The account store that lives beside `store`: the same database, or memory for a memory store."""
    from herotable.store.sql import SqlEventStore

    if isinstance(store, SqlEventStore):
        return SqlAccountStore(store.engine)
    return MemoryAccountStore()
