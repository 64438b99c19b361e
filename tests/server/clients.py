"""Test clients for the API: an app over a real store, and members who are logged in."""

from __future__ import annotations

import html
import itertools
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from herotable.dice import Rng, SeededRng
from herotable.server.app import create_app
from herotable.server.settings import Settings
from herotable.store import EventStore, MemoryEventStore
from isolation import CHEAP_HASHES

SECRET = "test-secret-key-0123456789abcdef"

# Each test's Redis keys and channel start with a prefix of its own (`next_redis_prefix`, called before every server
# test), so tests, xdist workers and clones sharing the machine's Redis never hear one another.
_prefixes = itertools.count()
_prefix = [""]
_clocks: list[SteadyClock] = []


def next_test(run_id: str) -> None:
    """A new test begins: its own Redis prefix, and one clock for all its apps."""
    _prefix[0] = f"ht-test:{run_id}:{next(_prefixes)}:"
    _clocks[:] = [SteadyClock()]


def shared_clock() -> SteadyClock:
    """The clock of the test running now, which `make_app` gives its apps unless told another."""
    if not _clocks:
        _clocks.append(SteadyClock())
    return _clocks[0]


def redis_prefix() -> str:
    """The Redis prefix of the test running now: the one `make_app` gives its apps unless told another."""
    return _prefix[0] or "ht-test:"


def called(monkeypatch: pytest.MonkeyPatch, thing: Any, name: str) -> threading.Event:
    """An event set once `thing.name()` has run (the method still runs as before)."""
    done = threading.Event()
    method = getattr(thing, name)

    def wrapped() -> None:
        method()
        done.set()

    monkeypatch.setattr(thing, name, wrapped)
    return done


def listening_socket() -> socket.socket:
    """A TCP socket on 127.0.0.1, on a port the system chose (port 0), already listening: a server a test starts
    serves it (uvicorn's `sockets=[…]`), and a client may connect at once, its connection waiting in the backlog
    until the server takes it. No port is ever picked and then raced for."""
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen(128)
    return listening


def port_of(listening: socket.socket) -> int:
    port: int = listening.getsockname()[1]
    return port


def make_app(
    store: EventStore | None = None,
    rng: Rng | None = None,
    clock: Callable[[], float] | None = None,
    ticks: Callable[[], float] | None = None,
    **settings: Any,
) -> Any:
    """The app; one test client registers many users from one address, so registrations are not limited unless
    the test sets `register_attempts` itself. Its clocks stand still unless the test passes its own: `clock` is what
    the login limits and invitations count seconds by, `ticks` how long a session check is kept, so that how fast
    the machine runs never decides an outcome."""
    settings.setdefault("register_attempts", 1000)
    settings = {**CHEAP_HASHES, **settings}
    settings.setdefault("redis_prefix", redis_prefix())
    return create_app(
        Settings(secret_key=SECRET, **settings),
        store=store or MemoryEventStore(),
        rng=rng or SeededRng(1),
        clock=clock or shared_clock(),
        ticks=ticks or shared_clock(),
    )


class SteadyClock:
    """A clock for the app that moves only when a test moves it, a microsecond per reading aside (so that what
    happens later, a removal and then a new invitation, still reads as later): a slow machine (each password hash
    takes a while) cannot let a wait run out between two attempts the test meant to make back to back, nor a kept
    session check expire mid-test. Apps of one test share one, as server processes share the real time."""

    STEP_S = 1e-6

    def __init__(self) -> None:
        self.now = time.time()  # real seconds to start from, as records the app reads from elsewhere are stamped
        self._lock = threading.Lock()  # requests read it from many threads: it never goes back

    def __call__(self) -> float:
        with self._lock:
            self.now += self.STEP_S
            return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds


@dataclass
class Member:
    """A logged-in browser: its client and CSRF token."""

    client: TestClient
    user_id: str
    csrf: str
    invite: str = ""  # an invitation code a test hands this member

    @property
    def headers(self) -> dict[str, str]:
        return {"X-CSRF-Token": self.csrf}

    @property
    def cookie(self) -> dict[str, str]:
        """This member's session as a header, to open their socket on another test client: sockets of one test
        client share its event loop, as one server process holds them (each test client has a loop of its own)."""
        return {"cookie": "; ".join(f"{k}={v}" for k, v in self.client.cookies.items())}

    def get(self, url: str) -> Any:
        return self.client.get(url)

    def post(self, url: str, body: Any = None) -> Any:
        return self.client.post(url, json=body if body is not None else {}, headers=self.headers)

    def delete(self, url: str) -> Any:
        return self.client.delete(url, headers=self.headers)

    def command(self, campaign_id: str, **body: Any) -> Any:
        return self.post(f"/api/v1/campaigns/{campaign_id}/commands", body)


def anonymous(app: Any) -> TestClient:
    return TestClient(app)


def register(app: Any, username: str, name: str | None = None) -> Member:
    client = TestClient(app)
    token = client.get("/api/v1/csrf").json()["csrf_token"]
    r = client.post(
        "/api/v1/auth/register",
        json={"username": username, "password": "correct horse", "display_name": name or username.title()},
        headers={"X-CSRF-Token": token},
    )
    assert r.status_code == 201, r.text
    return Member(client, r.json()["user"]["user_id"], r.json()["csrf_token"])


def table(app: Any, ruleset: str = "ltl") -> tuple[str, dict[str, Member]]:
    """A campaign with a GM, two players and a spectator, each a logged-in client."""
    gm = register(app, "gwen")
    cid = gm.post("/api/v1/campaigns", {"name": "Harbour Nights", "ruleset": ruleset}).json()["campaign_id"]
    members = {"gm": gm}
    for name, role in (("pat", "player"), ("sam", "player"), ("sly", "spectator")):
        code = gm.post(f"/api/v1/campaigns/{cid}/invites", {"role": role}).json()["code"]
        member = register(app, name)
        assert member.post(f"/api/v1/join/{code}").status_code == 200
        members[name] = member
    return cid, members


FORM_SLOT = re.compile(r'<div class="form-slot" hx-get="([^"]+)"[^>]*>.*?</div>', re.S)


def opened(client: Any, page: str) -> str:
    """A table page (or panel) as its member sees it with every section open: each section's form loaded, as
    opening the section loads it (`hx-get` on the section's slot)."""
    return FORM_SLOT.sub(lambda m: client.get(html.unescape(m.group(1))).text, page)


def over_http(url: str, name: str, password: str) -> Any:
    """A new member of a server running elsewhere (a process, a thread): an httpx client that registered `name`,
    holding its session cookie and sending its CSRF token."""
    import httpx

    client = httpx.Client(base_url=url)
    csrf = client.get("/api/v1/csrf").json()["csrf_token"]
    answer = client.post(
        "/api/v1/auth/register",
        json={"username": name, "password": password, "display_name": name.title()},
        headers={"X-CSRF-Token": csrf},
    )
    assert answer.status_code == 201, answer.text
    client.headers["X-CSRF-Token"] = answer.json()["csrf_token"]
    return client


def until(done: Callable[[], bool], within_s: float = 60.0) -> bool:
    """Whether `done()` came true within a generous while, looked at every few milliseconds: for what a thread of the
    server does on its own time (a webhook's delivery). Passing never waits the while out."""
    give_up = time.monotonic() + within_s
    while not done():
        if time.monotonic() > give_up:
            return False
        time.sleep(0.005)
    return True
