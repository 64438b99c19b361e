"""Accounts and invitations: who may log in, and which codes open which campaign seats.

Kept beside the event store (same database, same migrations) but outside the event log: an account is not
part of any campaign's story.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from herotable.store.engine import for_writing
from herotable.store.port import EventStore, StoreError
from herotable.store.schema import InviteRecord, UserRecord


@dataclass(frozen=True)
class User:
    user_id: str
    username: str
    display_name: str
    password_hash: str
    created_at: str


@dataclass(frozen=True)
class Invite:
    code: str
    campaign_id: str
    role: str
    created_at: str


class UsernameTaken(StoreError):
    def __init__(self, username: str) -> None:
        super().__init__(f"the username {username!r} is taken. Tip: choose another")


class AccountStore(Protocol):
    def add_user(self, user: User) -> User:
        """Raises UsernameTaken."""
        ...

    def user_by_name(self, username: str) -> User | None: ...

    def user(self, user_id: str) -> User | None: ...

    def add_invite(self, invite: Invite) -> Invite: ...

    def invite(self, code: str) -> Invite | None: ...

    def invites_for(self, campaign_id: str) -> list[Invite]: ...

    def revoke_invite(self, code: str) -> None: ...


class MemoryAccountStore:
    def __init__(self) -> None:
        self._users: dict[str, User] = {}
        self._invites: dict[str, Invite] = {}
        self._lock = threading.Lock()

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


class SqlAccountStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def add_user(self, user: User) -> User:
        try:
            with for_writing(self._engine).begin() as connection:
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

    def add_invite(self, invite: Invite) -> Invite:
        with for_writing(self._engine).begin() as connection:
            connection.execute(insert(InviteRecord).values(**vars(invite)))
        return invite

    def invite(self, code: str) -> Invite | None:
        with self._engine.connect() as connection:
            row = connection.execute(select(InviteRecord.__table__).where(InviteRecord.code == code)).mappings().first()
        return Invite(**row) if row else None

    def invites_for(self, campaign_id: str) -> list[Invite]:
        with self._engine.connect() as connection:
            rows = connection.execute(
                select(InviteRecord.__table__).where(InviteRecord.campaign_id == campaign_id)
            ).mappings()
            return [Invite(**r) for r in rows]

    def revoke_invite(self, code: str) -> None:
        with for_writing(self._engine).begin() as connection:
            connection.execute(delete(InviteRecord).where(InviteRecord.code == code))


def accounts_for(store: EventStore) -> AccountStore:
    """The account store that lives beside `store`: the same database, or memory for a memory store."""
    from herotable.store.sql import SqlEventStore

    if isinstance(store, SqlEventStore):
        return SqlAccountStore(store.engine)
    return MemoryAccountStore()
