"""Fixtures for the server tests: an app over a memory store whose dice the test queues, and logged-in members.

`table` builds a campaign of either game with a GM, two players and a spectator, each a `Member` whose
client carries their session cookie and CSRF token.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from herotable.server.app import create_app
from herotable.server.settings import Settings
from herotable.store.memory import MemoryEventStore
from isolation import CHEAP_HASHES, RUN_ID

from .clients import next_test, shared_clock

SECRET = "server-tests-secret-key-0123456789"
PASSWORD = "correct-horse-battery"


class QueueRng:
    """Faces handed out in order; a test sets the dice of the next command by appending to `faces`."""

    def __init__(self) -> None:
        self.faces: list[int] = []

    def roll(self, sides: int) -> int:
        if not self.faces:
            raise AssertionError(f"a d{sides} was rolled but no face was queued")
        face = self.faces.pop(0)
        assert 1 <= face <= sides, f"queued {face} for a d{sides}"
        return face


@dataclass
class Member:
    """A logged-in user of the test app: their client (session cookie set), id and CSRF token."""

    client: TestClient
    user_id: str
    username: str
    csrf: str

    def post(self, url: str, data: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        """A form post with this member's CSRF token (unless the test passes its own)."""
        form = {"csrf_token": self.csrf, **(data or {})}
        return self.client.post(url, data=form, follow_redirects=False, **kwargs)

    def command(self, campaign_id: str, body: dict[str, Any]) -> Any:
        """Run a table command through the REST API."""
        return self.client.post(
            f"/api/v1/campaigns/{campaign_id}/commands", json=body, headers={"X-CSRF-Token": self.csrf}
        )


@pytest.fixture
def dice() -> QueueRng:
    return QueueRng()


@pytest.fixture(autouse=True)
def _redis_prefix_of_its_own() -> None:
    """Every server test keys and announces in Redis under a prefix of its own (see `clients.redis_prefix`)."""
    next_test(RUN_ID)


@pytest.fixture
def app(dice: QueueRng) -> FastAPI:
    # one test client registers many users from one address: the registration limit has its own tests; the clocks
    # stand still, so a slow machine cannot expire a limit's window or a kept session check mid-test
    return create_app(
        Settings(secret_key=SECRET, register_attempts=1000, **CHEAP_HASHES),
        store=MemoryEventStore(),
        rng=dice,
        clock=shared_clock(),
        ticks=shared_clock(),
    )


@pytest.fixture
def anonymous(app: FastAPI) -> TestClient:
    return TestClient(app)


@pytest.fixture
def login(app: FastAPI) -> Callable[[str], Member]:
    """Register (and so log in) a user by name."""

    def make(username: str) -> Member:
        client = TestClient(app)
        csrf = client.get("/api/v1/csrf").json()["csrf_token"]
        answer = client.post(
            "/api/v1/auth/register",
            json={"username": username, "password": PASSWORD, "display_name": username.capitalize()},
            headers={"X-CSRF-Token": csrf},
        )
        assert answer.status_code == 201, answer.text
        body = answer.json()
        return Member(client, body["user"]["user_id"], username, body["csrf_token"])

    return make


@dataclass
class Table:
    campaign_id: str
    gm: Member
    pat: Member
    sam: Member
    sly: Member  # a spectator


@pytest.fixture
def make_table(login: Callable[[str], Member]) -> Callable[[str], Table]:
    """A campaign of `ruleset` ("ltl" or "conviction") with a GM, two players and a spectator."""

    def make(ruleset: str) -> Table:
        gm, pat, sam, sly = login("gwen"), login("pat"), login("sam"), login("sly")
        created = gm.client.post(
            "/api/v1/campaigns", json={"name": "Harbour Nights", "ruleset": ruleset}, headers={"X-CSRF-Token": gm.csrf}
        )
        campaign_id = created.json()["campaign_id"]
        for who, role in ((pat, "player"), (sam, "player"), (sly, "spectator")):
            code = gm.client.post(
                f"/api/v1/campaigns/{campaign_id}/invites", json={"role": role}, headers={"X-CSRF-Token": gm.csrf}
            ).json()["code"]
            joined = who.client.post(f"/api/v1/join/{code}", json={}, headers={"X-CSRF-Token": who.csrf})
            assert joined.status_code == 200, joined.text
        return Table(campaign_id, gm, pat, sam, sly)

    return make


# --- a Redis server of the test's own (the outage and worker tests stop and start it) ---


@dataclass
class PrivateRedis:
    socket: Path
    start: Callable[[], None]
    stop: Callable[[], None]

    @property
    def url(self) -> str:
        return f"unix://{self.socket}?db=0"


@pytest.fixture
def private_redis(needs: Callable[[str], None]) -> Iterator[PrivateRedis]:
    """A redis-server of the test's own, on a Unix socket (no port to race for), which the test may stop and start;
    the machine's shared Redis is never touched. `start` returns once the server says it accepts connections."""
    binary = shutil.which("redis-server")
    if binary is None:
        needs("the Redis outage tests start their own redis-server, which is not installed")
    assert binary is not None
    home = Path(tempfile.mkdtemp(prefix="ht-redis-"))  # short: a socket's path may not pass 107 bytes
    path = home / "redis.sock"
    running: list[subprocess.Popen[str]] = []

    def start() -> None:
        args = [binary, "--port", "0", "--unixsocket", str(path), "--save", "", "--appendonly", "no"]
        process = subprocess.Popen([*args, "--dir", str(home)], stdout=subprocess.PIPE, text=True)
        running.append(process)
        assert process.stdout is not None
        for line in process.stdout:  # read until it is ready (or has ended): an event, not a guess at time
            if "ready to accept connections" in line.lower():
                threading.Thread(target=process.stdout.read, daemon=True).start()  # keep its pipe drained
                return
        pytest.fail(f"the private redis-server did not start (exit code {process.wait()})")

    def stop() -> None:
        while running:
            process = running.pop()
            process.terminate()
            process.wait(10)

    start()
    try:
        yield PrivateRedis(path, start, stop)
    finally:
        stop()
        shutil.rmtree(home, ignore_errors=True)


SHARED_REDIS_URL = os.environ.get("HEROTABLE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def shared_redis(needs: Callable[[str], None]) -> str:
    """The URL of the machine's Redis (HEROTABLE_TEST_REDIS_URL), which two app instances share as two server
    processes would; `needs` it when it does not answer (a skip locally, a failure in CI)."""
    import redis

    try:
        redis.Redis.from_url(SHARED_REDIS_URL).ping()
    except redis.exceptions.ConnectionError:
        needs(f"no Redis at {SHARED_REDIS_URL}; set HEROTABLE_TEST_REDIS_URL to run the tests across processes")
    return SHARED_REDIS_URL
