"""Several `herotable serve` processes on one PostgreSQL database and one Redis: a viewer on any process sees what
a member did on another, and `--workers N` runs N processes behind one address (it needs Redis, and says so)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from .clients import over_http

PASSWORD = "workers-password-0123"
HEROTABLE = str(Path(sys.executable).with_name("herotable"))  # the command the package installs


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., str]]:
    """Start `herotable serve` with the given environment and options; gives its address once it answers."""
    running: list[subprocess.Popen[bytes]] = []

    def start(env: dict[str, str], *options: str) -> str:
        """The server takes a port of the system's choosing (port 0) and says which once it listens. With
        `--workers`, the parent says so when it has bound the port and each worker takes it up after its start-up:
        wait for every worker to say it started, then connect (a connection refused in the moment between that and
        the worker's listening is tried again)."""
        process = subprocess.Popen(
            [HEROTABLE, "serve", "--port", "0", *options],
            env={**os.environ, "HEROTABLE_DATA_DIR": str(tmp_path), **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        running.append(process)
        assert process.stderr is not None
        workers = int(options[options.index("--workers") + 1]) if "--workers" in options else 1
        url, started = None, 0
        for line in process.stderr:
            if found := re.search(r"running on (http://127\.0\.0\.1:\d+)", line):
                url = found.group(1)
            started += "Application startup complete" in line
            if url and started >= workers:
                threading.Thread(target=process.stderr.read, daemon=True).start()  # keep its pipe drained
                transport = httpx.HTTPTransport(retries=5)
                assert httpx.Client(transport=transport).get(f"{url}/api/v1/csrf").status_code == 200
                return url
        pytest.fail(f"herotable serve {' '.join(options)} ended (exit code {process.wait()}) without listening")

    yield start
    for process in running:
        process.terminate()
        process.wait(20)


def _member(url: str, name: str) -> Any:
    return over_http(url, name, PASSWORD)


def _socket(stack: contextlib.ExitStack, url: str, client: httpx.Client, cid: str) -> Any:
    cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
    address = f"ws{url.removeprefix('http')}/ws/campaigns/{cid}"
    ws = stack.enter_context(connect(address, additional_headers={"Cookie": cookie}))
    assert json.loads(ws.recv(timeout=60))["type"] == "hello"
    return ws


def _next_events(ws: Any) -> list[str]:
    return [e["type"] for e in json.loads(ws.recv(timeout=60))["events"]]


def test_viewers_on_any_process_see_what_happens_on_another(serve, private_redis, postgres_schema):
    env = {
        "HEROTABLE_DATABASE_URL": postgres_schema(),
        "HEROTABLE_REDIS_URL": private_redis.url,
        "HEROTABLE_SECRET_KEY": "workers-secret-key-0123456789-abcdef",
        "HEROTABLE_MIGRATE": "1",  # a new PostgreSQL database: its tables are made when the operator says so
    }
    first = serve(env)
    second = serve(env, "--workers", "2")
    gm = _member(first, "gamemaster")
    cid = gm.post("/api/v1/campaigns", json={"name": "Spread", "ruleset": "ltl"}).json()["campaign_id"]
    code = gm.post(f"/api/v1/campaigns/{cid}/invites", json={"role": "player"}).json()["code"]
    pat = _member(second, "patricia")
    assert pat.post(f"/api/v1/join/{code}", json={}).status_code == 200
    stack = contextlib.ExitStack()
    watching_second = [_socket(stack, second, pat, cid) for _ in range(4)]  # spread over the second's two workers
    watching_first = _socket(stack, first, gm, cid)
    assert gm.post(f"/api/v1/campaigns/{cid}/commands", json={"type": "structure.start_adventure"}).status_code == 200
    for ws in watching_second:
        assert _next_events(ws) == ["structure.adventure_started"]
    answer = pat.post(f"/api/v1/campaigns/{cid}/commands", json={"type": "table.roll", "expression": "1d20"})
    assert answer.status_code == 200, answer.text
    kinds: list[str] = []
    while "table.dice_rolled" not in kinds:
        kinds += _next_events(watching_first)
    # whichever worker answers the scrape, it reports both workers' counts: the second served Pat's one command,
    # and holds her four sockets
    scraped = httpx.get(f"{second}/metrics").text
    assert 'herotable_commands_total{outcome="ok",type="table.roll"} 1.0' in scraped, scraped
    assert "herotable_live_sockets 4.0" in scraped
    stack.close()


def test_several_workers_need_redis(tmp_path: Path) -> None:
    env = {**os.environ, "HEROTABLE_DATA_DIR": str(tmp_path), "HEROTABLE_DATABASE_URL": f"sqlite:///{tmp_path}/w.db"}
    env.pop("HEROTABLE_REDIS_URL", None)
    done = subprocess.run(
        [HEROTABLE, "serve", "--workers", "2", "--port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "HEROTABLE_REDIS_URL" in done.stderr
