"""Which sessions are alive is kept for a few seconds per process (`LiveSessions`), so a burst of requests reads the
store once; an ended session is forgotten at once where it ends and, through Redis, on every other process."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from herotable.server.auth import LiveSessions, stamp
from herotable.server.security import SESSION_COOKIE, digest
from herotable.store import open_store
from herotable.store.accounts import MemoryAccountStore, User

from .clients import called, make_app, register, table
from .test_account_security import login, receive_until_closed
from .test_live import receive

T0 = "2026-12-01T00:00:00.000000+00:00"
FAR = "2099-01-01T00:00:00.000000+00:00"


class CountedAccounts(MemoryAccountStore):
    """The memory store, counting how often it is asked for a session's user; `during_read` runs inside that read."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.during_read: Any = None

    def session_user(self, sid_hash: str, now: str) -> User | None:
        self.reads += 1
        if self.during_read is not None:
            self.during_read()
        return super().session_user(sid_hash, now)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def accounts_with(*sessions: tuple[str, str]) -> CountedAccounts:
    accounts = CountedAccounts()
    for user_id in {u for _, u in sessions}:
        accounts.add_user(User(user_id, user_id, user_id.title(), "hash", T0))
    for sid, user_id in sessions:
        accounts.add_session(digest(sid), user_id, T0, FAR)
    return accounts


def test_a_burst_of_requests_reads_a_session_once_until_it_is_kept_no_longer() -> None:
    accounts = accounts_with(("s1", "pat"))
    clock = Clock()
    live = LiveSessions(accounts, keep_s=10, clock=clock)
    for _ in range(5):
        found = live.user("s1", "pat")
        assert found is not None and found.user_id == "pat"
    assert accounts.reads == 1
    assert live.user("s1", "sam") is None and accounts.reads == 1  # the cookie names another user: refused
    clock.now += 10.5
    assert live.user("s1", "pat") is not None and accounts.reads == 2  # kept 10 s: read again


def test_an_ended_session_is_forgotten_at_once_and_others_stay_kept() -> None:
    accounts = accounts_with(("s1", "pat"), ("s2", "pat"), ("s3", "sam"))
    live = LiveSessions(accounts, clock=Clock())
    for sid, user in (("s1", "pat"), ("s2", "pat"), ("s3", "sam")):
        assert live.user(sid, user) is not None
    accounts.revoke_session(digest("s1"), stamp())
    live.ended("pat")
    assert live.user("s1", "pat") is None  # read again: revoked
    assert live.user("s2", "pat") is not None  # read again: still alive
    assert accounts.reads == 5
    assert live.user("s3", "sam") is not None and accounts.reads == 5  # another user's stays kept


def test_a_read_that_overlaps_an_ending_is_not_kept() -> None:
    accounts = accounts_with(("s1", "pat"))
    live = LiveSessions(accounts, clock=Clock())

    def ends_meanwhile() -> None:  # the store answered "alive" just before another request ended the session
        accounts.during_read = None
        live.ended("pat")

    accounts.during_read = ends_meanwhile
    assert live.user("s1", "pat") is not None  # what the store said then
    accounts.revoke_session(digest("s1"), stamp())
    assert live.user("s1", "pat") is None and accounts.reads == 2  # not kept: read again, and refused


def test_while_endings_go_unheard_nothing_is_kept_and_once_heard_again_sessions_are_kept_afresh() -> None:
    accounts = accounts_with(("s1", "pat"), ("s2", "sam"))
    live = LiveSessions(accounts, clock=Clock())
    live.user("s1", "pat")
    live.user("s2", "sam")
    live.unheard()  # the hub lost Redis
    for _ in range(3):
        assert live.user("s1", "pat") is not None
    assert accounts.reads == 5  # forgotten, and read every time
    accounts.revoke_session(digest("s1"), stamp())  # ended on another process, which could not say so
    assert live.user("s1", "pat") is None
    live.heard()  # listening again
    assert live.user("s2", "sam") is not None and live.user("s2", "sam") is not None
    assert accounts.reads == 7  # read once, then kept


def test_sessions_kept_are_bounded_the_least_recently_used_going_first() -> None:
    accounts = accounts_with(("s1", "pat"), ("s2", "sam"), ("s3", "sly"))
    live = LiveSessions(accounts, size=2, clock=Clock())
    live.user("s1", "pat")
    live.user("s2", "sam")
    live.user("s1", "pat")  # s1 used last: s2 goes when s3 comes
    live.user("s3", "sly")
    assert accounts.reads == 3
    live.user("s1", "pat")
    assert accounts.reads == 3
    live.user("s2", "sam")
    assert accounts.reads == 4


def told(live: LiveSessions, method: str) -> threading.Event:
    """An event set once `live.<method>` has been called (and has returned): what a test waits for, not a time."""
    done = threading.Event()
    original = getattr(live, method)

    def calling(*args: Any) -> None:
        original(*args)
        done.set()

    setattr(live, method, calling)
    return done


def test_a_logout_on_one_process_ends_the_session_on_another_through_redis(tmp_path: Any, shared_redis: str) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    first = make_app(store=open_store(url), redis_url=shared_redis)
    second = make_app(store=open_store(url), redis_url=shared_redis)
    ending = told(second.state.services.live_sessions, "ended")
    with TestClient(first) as here, TestClient(second) as there:  # their hubs listen to Redis
        gwen = register(first, "gwen")
        saved = gwen.client.cookies.get(SESSION_COOKIE)
        there.cookies = {SESSION_COOKIE: saved}
        assert there.get("/api/v1/me").status_code == 200  # now kept by the second process
        assert gwen.post("/api/v1/auth/logout").status_code == 200  # through the first
        here.cookies = {SESSION_COOKIE: saved}
        assert here.get("/api/v1/me").status_code == 401  # forgotten at once where it ended
        assert ending.wait(60), "Redis never told the other process"
        assert there.get("/api/v1/me").status_code == 401  # and on the other once Redis told it


@pytest.mark.parametrize("again_as", ["pat", "sam"])
def test_logging_in_again_over_a_session_closes_that_sessions_sockets(again_as: str) -> None:
    app = make_app()
    cid, m = table(app)
    pat = m["pat"]
    with pat.client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
        assert receive(ws)["type"] == "hello"
        assert login(pat.client, again_as, "correct horse").status_code == 200  # the old session is replaced
        with pytest.raises(WebSocketDisconnect) as ended:
            receive_until_closed(ws)
        assert ended.value.code == 4401


def test_a_process_that_cannot_hear_redis_reads_every_session_from_the_store_until_it_hears_it_again(
    tmp_path: Any, private_redis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ending told while Redis is away reaches no other process: one whose listener lost Redis forgets every
    session it kept and keeps none until it listens again, so such an ending is refused there at once."""
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    first = make_app(store=open_store(url), redis_url=private_redis.url)
    second = make_app(store=open_store(url), redis_url=private_redis.url)
    live = second.state.services.live_sessions
    live.keep_s = 3600.0  # kept far longer than the test: only forgetting ends it
    lost, back = called(monkeypatch, live, "unheard"), called(monkeypatch, live, "heard")
    with TestClient(first), TestClient(second) as there:
        gwen = register(first, "gwen")
        there.cookies = {SESSION_COOKIE: gwen.client.cookies.get(SESSION_COOKIE)}
        assert there.get("/api/v1/me").status_code == 200  # kept by the second process
        private_redis.stop()
        assert lost.wait(30), "the second process never noticed that Redis was gone"
        assert there.get("/api/v1/me").status_code == 200  # read from the store, and not kept
        assert gwen.post("/api/v1/auth/logout-everywhere").status_code == 200  # its notice goes nowhere
        assert there.get("/api/v1/me").status_code == 401  # read from the store: refused at once
        again = TestClient(second)
        assert login(again, "gwen", "correct horse").status_code == 200
        private_redis.start()
        assert back.wait(30), "the second process never listened to Redis again"
        assert again.get("/api/v1/me").status_code == 200  # read once more, and kept again
        sid = second.state.services.sessions.load(again.cookies.get(SESSION_COOKIE)).sid
        second.state.services.accounts.revoke_session(digest(sid), stamp())  # behind its back: nobody tells it
        assert again.get("/api/v1/me").status_code == 200  # kept: endings are heard through Redis again


def test_a_socket_whose_session_ended_while_it_opened_is_closed() -> None:
    """The session is checked when the socket opens, and an ending closes the sockets it finds; one that ended
    between the two (here: revoked in the store while still kept) is caught by a second look once the socket
    has joined."""
    app = make_app()
    cid, m = table(app)
    pat = m["pat"]
    assert pat.get("/api/v1/me").status_code == 200  # kept
    sid = app.state.services.sessions.load(pat.client.cookies.get(SESSION_COOKIE)).sid
    app.state.services.accounts.revoke_session(digest(sid), stamp())
    with pat.client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
        with pytest.raises(WebSocketDisconnect) as ended:
            receive_until_closed(ws)
        assert ended.value.code == 4401
