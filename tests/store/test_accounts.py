"""Accounts beside the event store, on every backend: sessions, password resets, invitations and attempt limits."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from herotable.dice import SeededRng
from herotable.service import TableService, utc_now
from herotable.store import EventStore, MemoryEventStore, open_store
from herotable.store.accounts import (
    AccountStore,
    Invite,
    InviteRefused,
    User,
    UsernameTaken,
    accounts_for,
)
from herotable.store.engine import create_store_engine
from herotable.store.migrate import upgrade
from herotable.store.sql import parse_database_url
from herotable.store.throttle import Policy
from herotable.table.state import Ruleset
from herotable.table.structure import StartScene

from .helpers import CREATED, write_at_old_revision

T0 = "2024-05-01T19:00:00.000000+00:00"
T1 = "2024-05-01T20:00:00.000000+00:00"
T2 = "2024-05-01T21:00:00.000000+00:00"
LATER = "2024-06-01T00:00:00.000000+00:00"


@pytest.fixture
def accounts(store: EventStore) -> AccountStore:
    store.create_campaign("c1", "Harbour Nights", "ltl", CREATED)
    found = accounts_for(store)
    for name in ("gwen", "pat", "sam"):
        found.add_user(User(f"u-{name}", name, name.title(), "$argon2-not-really", CREATED))
    return found


def test_usernames_are_unique(accounts: AccountStore) -> None:
    with pytest.raises(UsernameTaken, match="not available"):
        accounts.add_user(User("u-other", "gwen", "Another Gwen", "h", CREATED))
    assert accounts.user_by_name("gwen") == accounts.user("u-gwen")


def test_a_password_change_is_stored(accounts: AccountStore) -> None:
    accounts.set_password("u-pat", "$argon2-new")
    found = accounts.user("u-pat")
    assert found is not None and found.password_hash == "$argon2-new"


def test_sessions_live_until_revoked_or_expired(accounts: AccountStore) -> None:
    accounts.add_session("s1", "u-pat", T0, T2)
    accounts.add_session("s2", "u-pat", T0, T2)
    accounts.add_session("s3", "u-pat", T0, T2)
    accounts.add_session("g1", "u-gwen", T0, T2)
    assert accounts.session_user("s1", T1) == accounts.user("u-pat")
    assert accounts.session_user("s1", T2) is None  # expired
    assert accounts.session_user("nope", T1) is None
    accounts.revoke_session("s1", T1)
    assert accounts.session_user("s1", T1) is None
    # a password change ends every other session of the user, and only theirs
    assert accounts.revoke_sessions("u-pat", T1, keep="s2") == 1
    assert accounts.session_user("s2", T1) is not None and accounts.session_user("s3", T1) is None
    assert accounts.session_user("g1", T1) is not None
    assert accounts.revoke_sessions("u-pat", T1) == 1  # everywhere
    assert accounts.session_user("s2", T1) is None


def test_a_password_reset_token_works_once_and_expires(accounts: AccountStore) -> None:
    accounts.add_reset("r1", "u-sam", T0, T2)
    accounts.add_reset("r2", "u-sam", T0, T1)
    assert accounts.reset_user("r1", T1) == accounts.user("u-sam")
    assert accounts.use_reset("r1", T1) == accounts.user("u-sam")
    assert accounts.use_reset("r1", T1) is None and accounts.reset_user("r1", T1) is None
    assert accounts.use_reset("r2", T2) is None  # expired
    assert accounts.use_reset("unknown", T0) is None


def invite(
    accounts: AccountStore, code: str, *, created: str = T0, expires: str = LATER, uses: int | None = None
) -> Invite:
    return accounts.add_invite(Invite(code, "c1", "player", created, expires, uses))


def test_an_invitation_counts_its_uses_and_records_who_joined(accounts: AccountStore) -> None:
    invite(accounts, "twice", uses=2)
    assert accounts.claim_invite("twice", "u-pat", T1).uses == 1
    assert accounts.claim_invite("twice", "u-sam", T1).uses == 2
    with pytest.raises(InviteRefused, match="used as many times") as refused:
        accounts.claim_invite("twice", "u-gwen", T1)
    assert refused.value.why == "used_up"
    found = accounts.invite("twice")
    assert found is not None and found.uses == 2
    assert [(u.code, u.user_id) for u in accounts.invite_uses("c1")] == [("twice", "u-pat"), ("twice", "u-sam")]
    accounts.unclaim_invite("twice", "u-sam")  # that join did not happen
    assert [u.user_id for u in accounts.invite_uses("c1")] == ["u-pat"]
    assert accounts.claim_invite("twice", "u-gwen", T1).uses == 2


def test_an_expired_or_unknown_invitation_admits_nobody(accounts: AccountStore) -> None:
    invite(accounts, "short", expires=T1)
    with pytest.raises(InviteRefused, match="expired"):
        accounts.claim_invite("short", "u-pat", T1)
    with pytest.raises(InviteRefused, match="unknown or was withdrawn"):
        accounts.claim_invite("nothing", "u-pat", T1)
    invite(accounts, "gone")
    accounts.revoke_invite("gone")
    with pytest.raises(InviteRefused, match="withdrawn"):
        accounts.claim_invite("gone", "u-pat", T1)
    assert accounts.invite_uses("c1") == []
    assert accounts.invite("short") is not None and accounts.invite("short").uses == 0  # type: ignore[union-attr]


def test_a_removed_member_cannot_rejoin_with_a_link_made_before_the_removal(accounts: AccountStore) -> None:
    invite(accounts, "old", created=T0)
    accounts.claim_invite("old", "u-pat", T0)
    accounts.record_removal("c1", "u-pat", T1)
    with pytest.raises(InviteRefused, match="removed you") as refused:
        accounts.claim_invite("old", "u-pat", T1)
    assert refused.value.why == "removed"
    assert accounts.invite("old").uses == 1  # type: ignore[union-attr]
    accounts.claim_invite("old", "u-sam", T1)  # the link still admits others
    invite(accounts, "new", created=T2)
    assert accounts.claim_invite("new", "u-pat", T2).code == "new"


def test_concurrent_joins_never_exceed_an_invitations_limit(accounts: AccountStore) -> None:
    invite(accounts, "three", uses=3)
    for n in range(12):
        accounts.add_user(User(f"u-{n}", f"player{n}", f"P{n}", "h", CREATED))
    results: list[str] = []
    start = threading.Barrier(12)

    def join(n: int) -> None:
        start.wait()
        try:
            accounts.claim_invite("three", f"u-{n}", T1)
            results.append("in")
        except InviteRefused as refused:
            results.append(refused.why)

    threads = [threading.Thread(target=join, args=(n,)) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["in"] * 3 + ["used_up"] * 9
    assert accounts.invite("three").uses == 3  # type: ignore[union-attr]
    assert len(accounts.invite_uses("c1")) == 3


ACCOUNT = Policy(free=3, base_s=1.0, cap_s=8.0, forget_s=60.0)
ADDRESS = Policy(free=5, base_s=1.0, cap_s=30.0, forget_s=600.0)


def test_waits_grow_after_the_free_attempts_and_are_forgotten(accounts: AccountStore) -> None:
    throttle = accounts.throttle
    now = 1000.0
    assert [throttle.attempt([("acct:pat", ACCOUNT)], now) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert throttle.attempt([("acct:pat", ACCOUNT)], now) == 1.0  # still waiting: not counted
    assert throttle.attempt([("acct:pat", ACCOUNT)], now + 1) == 0.0  # 4th counted, now waits 2 s
    assert throttle.attempt([("acct:pat", ACCOUNT)], now + 2) == 1.0
    assert throttle.attempt([("acct:pat", ACCOUNT)], now + 3) == 0.0  # 5th, waits 4 s
    waits = []
    t = now + 7
    for _ in range(4):
        assert throttle.attempt([("acct:pat", ACCOUNT)], t) == 0.0
        waits.append(throttle.attempt([("acct:pat", ACCOUNT)], t))
        t += waits[-1]
    assert waits == [8.0, 8.0, 8.0, 8.0]  # capped
    assert throttle.attempt([("acct:pat", ACCOUNT)], t + 61) == 0.0  # forgotten after a quiet minute
    assert throttle.attempt([("acct:pat", ACCOUNT)], t + 61) == 0.0


def test_an_attempt_that_read_the_time_before_a_racing_one_counts_at_the_later_time(accounts: AccountStore) -> None:
    # requests read the clock before their attempt reaches the store: the second to arrive may hold the earlier time
    throttle = accounts.throttle
    assert throttle.attempt([("acct:pat", ACCOUNT)], 1000.0) == 0.0
    assert throttle.attempt([("acct:pat", ACCOUNT)], 999.5) == 0.0  # still free: no wait for a free attempt
    assert throttle.attempt([("acct:pat", ACCOUNT)], 999.0) == 0.0  # the 3rd, counted at 1000: waits until 1001
    assert throttle.attempt([("acct:pat", ACCOUNT)], 1000.25) == 0.75


def test_an_attempt_counts_under_every_key_or_none(accounts: AccountStore) -> None:
    throttle = accounts.throttle
    for n in range(4):
        assert throttle.attempt([(f"acct:user{n}", ACCOUNT), ("addr:10.0.0.1", ADDRESS)], 0.0) == 0.0
    assert throttle.attempt([("acct:pat", ACCOUNT), ("addr:10.0.0.1", ADDRESS)], 0.0) == 0.0  # the address's 5th
    assert throttle.attempt([("acct:pat", ACCOUNT), ("addr:10.0.0.1", ADDRESS)], 0.0) == 1.0  # the address waits
    # the refused attempt was not counted for pat's account: one so far, two more are free
    assert throttle.attempt([("acct:pat", ACCOUNT), ("addr:10.0.0.2", ADDRESS)], 0.0) == 0.0
    assert throttle.attempt([("acct:pat", ACCOUNT), ("addr:10.0.0.2", ADDRESS)], 0.0) == 0.0
    assert throttle.attempt([("acct:pat", ACCOUNT), ("addr:10.0.0.2", ADDRESS)], 0.0) == 1.0


def test_forgiving_takes_back_an_attempt_or_clears_the_key(accounts: AccountStore) -> None:
    throttle = accounts.throttle
    for _ in range(3):
        throttle.attempt([("acct:pat", ACCOUNT)], 0.0)
    throttle.forgive("acct:pat", ACCOUNT, 0.0, clear=False)  # two counted, no wait
    assert throttle.attempt([("acct:pat", ACCOUNT)], 0.0) == 0.0
    assert throttle.attempt([("acct:pat", ACCOUNT)], 0.0) == 1.0
    throttle.forgive("acct:pat", ACCOUNT, 0.0, clear=True)
    assert [throttle.attempt([("acct:pat", ACCOUNT)], 0.0) for _ in range(3)] == [0.0, 0.0, 0.0]


def test_concurrent_attempts_pass_only_as_many_as_are_free(accounts: AccountStore) -> None:
    # the check and the count are one step: 40 guesses at once cannot all pass the check before one is counted
    throttle = accounts.throttle
    passed: list[float] = []
    start = threading.Barrier(40)

    def guess() -> None:
        start.wait()
        passed.append(throttle.attempt([("acct:pat", ACCOUNT), ("addr:10.9.9.9", ADDRESS)], 500.0))

    threads = [threading.Thread(target=guess) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(w == 0 for w in passed) == ACCOUNT.free


@pytest.fixture
def two_processes(shared_url: str) -> Iterator[tuple[AccountStore, AccountStore]]:
    """Two account stores on one database, as two server processes have."""
    first, second = open_store(shared_url), open_store(shared_url)
    yield accounts_for(first), accounts_for(second)
    first.close()
    second.close()


def test_every_process_sees_the_same_limits_and_sessions(two_processes: tuple[AccountStore, AccountStore]) -> None:
    one, two = two_processes
    for _ in range(2):
        assert one.throttle.attempt([("acct:pat", ACCOUNT)], 0.0) == 0.0
    assert two.throttle.attempt([("acct:pat", ACCOUNT)], 0.0) == 0.0
    assert one.throttle.attempt([("acct:pat", ACCOUNT)], 0.0) == 1.0
    one.add_user(User("u-pat", "pat", "Pat", "h", CREATED))
    one.add_session("s1", "u-pat", T0, T2)
    assert two.session_user("s1", T1) is not None
    two.revoke_session("s1", T1)
    assert one.session_user("s1", T1) is None


def test_bad_limits_are_refused_with_the_rule() -> None:
    with pytest.raises(ValueError, match="at least one attempt"):
        Policy(free=0, base_s=1, cap_s=2, forget_s=3)
    with pytest.raises(ValueError, match="base_s <= cap_s <= forget_s"):
        Policy(free=1, base_s=5, cap_s=2, forget_s=3)


@pytest.fixture(params=["sqlite", "postgresql"])
def old_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database URL on each SQL backend, to migrate from an older revision."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'accounts.db'}"
    url: str = request.getfixturevalue("postgres_schema")()
    return url


def test_a_database_at_revision_0004_keeps_its_campaign_accounts_and_invitations(old_url: str) -> None:
    # revision 0005: sessions, limits, resets, invitation expiry and uses. A GM's campaign recorded at 0004, its
    # accounts and its invitation all survive; the old invitation keeps working for a week, with no use limit.
    engine = create_store_engine(parse_database_url(old_url))
    upgrade(engine, "0004")
    with engine.begin() as connection:  # the accounts as revision 0004 kept them
        for uid, name in (("u-gwen", "gwen"), ("u-pat", "pat")):
            connection.execute(
                sa.text(
                    "INSERT INTO users (user_id, username, display_name, password_hash, created_at) "
                    "VALUES (:u, :n, :d, '$argon2id$kept', :t)"
                ),
                {"u": uid, "n": name, "d": name.title(), "t": CREATED},
            )
    table = TableService(MemoryEventStore(), rng=SeededRng(3))
    cid = table.create_campaign("u-gwen", "Gwen", "Harbour Nights", Ruleset.LTL).campaign_id
    table.execute(cid, "u-gwen", StartScene())
    head = table.store.head(cid)
    write_at_old_revision(engine, table.store, cid)
    with engine.begin() as connection:
        connection.execute(
            sa.text("INSERT INTO invites (code, campaign_id, role, created_at) VALUES ('oldcode', :c, 'player', :t)"),
            {"c": cid, "t": CREATED},
        )
    engine.dispose()
    store = open_store(old_url)
    try:
        accounts = accounts_for(store)
        assert accounts.user_by_name("gwen") is not None
        assert accounts.user_by_name("gwen").password_hash == "$argon2id$kept"  # type: ignore[union-attr]
        kept = accounts.invite("oldcode")
        assert kept is not None and (kept.max_uses, kept.uses) == (None, 0)
        now = utc_now()
        assert now < kept.expires_at <= (datetime.now(UTC) + timedelta(days=7)).isoformat()
        assert accounts.claim_invite("oldcode", "u-pat", now).uses == 1
        state = TableService(store).state(cid)
        assert store.head(cid) == head and state.is_gm("u-gwen") and state.name == "Harbour Nights"
        accounts.add_session("s1", "u-gwen", now, kept.expires_at)
        assert accounts.session_user("s1", now) is not None
        assert accounts.throttle.attempt([("acct:gwen", ACCOUNT)], 0.0) == 0.0
    finally:
        store.close()


def test_a_sqlite_database_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    # it holds password hashes and sessions: a new file is 0600 (and so are SQLite's -wal and -shm), an old
    # world-readable one is narrowed, and a new data directory is 0700
    path = tmp_path / "data" / "herotable.db"
    store = open_store(f"sqlite:///{path}")
    store.create_campaign("c1", "N", "ltl", CREATED)
    for made in (path, path.with_name("herotable.db-wal"), path.with_name("herotable.db-shm")):
        assert made.stat().st_mode & 0o777 == 0o600, made
    assert path.parent.stat().st_mode & 0o777 == 0o700
    store.close()
    path.chmod(0o644)
    open_store(f"sqlite:///{path}").close()
    assert path.stat().st_mode & 0o777 == 0o600
