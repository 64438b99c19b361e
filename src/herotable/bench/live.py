"""The live path under load: the real server (`herotable serve`) in a process of its own, on SQLite
and on PostgreSQL (several workers and Redis), driven by a load generator in this process.

For each database, on a fresh one of its own:

- **Listing**: a user's `GET /api/v1/campaigns` while another user holds 1, then 1,000 campaigns.
- **No viewers**: players roll `table.roll 1d20` in a closed loop (each sends its next command once the last one was
  answered), one writer, then four; against a bare FastAPI endpoint that inserts one row into the same database with
  the store's own engine settings (SQLite: WAL, `synchronous=FULL`, write lock taken up front), served the same way
  (the same number of processes, the access log on, Nagle off, the start-up heap frozen), in its own process too.
- **50 viewers**: the GM, 5 players and 44 spectators hold the campaign's WebSocket open; the same loops again.
  Fan-out is the time from sending a command to each viewer's frame holding its event, over every (command, viewer)
  pair. Afterwards each viewer reads its own stream through the API from where its first frame left it, and every
  event it may see must have reached it in a frame, exactly once.

Once per run, the yardstick for fan-out: a bare WebSocket broadcast (a FastAPI process that, on each POST, sends one
frame of the size herotable's frames had to every socket) with the same sockets and writers.

Run by `make bench` (`herotable.bench`, the `live` key of bench/results.json), or alone:
`python -m herotable.bench.live`. PostgreSQL is taken from HEROTABLE_BENCH_POSTGRES_URL (default: the local test
server; the bench makes a schema of its own and drops it), Redis from HEROTABLE_BENCH_REDIS_URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import ipaddress
import itertools
import json
import os
import platform
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from fastapi import Body, FastAPI, WebSocket  # at the top: FastAPI reads the endpoints' annotations here

from herotable.server.transport import freeze_start_up_heap  # as `herotable serve` does (light: no app)

PASSWORD = "bench-password-0123"
POSTGRES_URL_ENV = "HEROTABLE_BENCH_POSTGRES_URL"
REDIS_URL_ENV = "HEROTABLE_BENCH_REDIS_URL"
DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DATABASE_URL_ENV = "HEROTABLE_DATABASE_URL"  # what the bare insert endpoint reads, as herotable does
ROLL = {"type": "table.roll", "expression": "1d20"}
SQLITE_DURABILITY = "WAL, synchronous=FULL, BEGIN IMMEDIATE (the store's engine)"
TARGETS = {
    "commands_over_bare_insert": "at least 0.8, with no viewers: the median of the rounds' ratios",
    "fanout_p99_over_bare_broadcast": "at most 5, with the 50 viewers",
    "listing_p50_many_over_one": "about 1: no growth with other users' campaigns",
    "frames_missing": "0",
}


@dataclass(frozen=True)
class Size:
    """How much the bench does. The defaults are a realistic table (the GM, 5 players, 44 spectators); the test
    runs a tiny one."""

    players: int = 5
    spectators: int = 44
    commands: int = 500  # per loop, shared by its writers and split over the rounds
    rounds: int = 5  # each loop runs in this many rounds, herotable's and its baseline's in turn (see `_phases`)
    writers: tuple[int, ...] = (1, 4)
    other_campaigns: tuple[int, int] = (1, 1000)  # another user's campaigns when the listing is measured
    listings: int = 50  # requests per listing figure
    databases: tuple[str, ...] = ("sqlite", "postgresql")
    postgres_workers: int = 2  # `herotable serve --workers N` on PostgreSQL (with Redis)
    frame_wait_s: float = 30.0  # how long the last frames of a loop may take before they count as missing

    @property
    def viewers(self) -> int:
        return 1 + self.players + self.spectators


# --- processes ------------------------------------------------------------------------------------------------


_HANDED_OUT: set[int] = set()


def _free_port() -> int:
    """A port nothing listens on now and not yet given to a server of this run: servers start at once, so a port
    handed out but not yet bound must not be handed out again."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port: int = s.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


def _env(**settings: str) -> dict[str, str]:
    """This process's environment without any herotable setting, plus `settings`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEROTABLE_")}
    env.update(settings)
    return env


def _herotable_command() -> list[str]:
    script = Path(sys.executable).with_name("herotable")  # the command the package installs
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from herotable.cli import main; main()"]


def _uvicorn_command(factory: str, workers: int) -> list[str]:
    """uvicorn serving one of the baselines below, as `herotable serve` serves the table (its access log on, its HTTP
    protocol)."""
    return [
        *(sys.executable, "-m", "uvicorn", f"herotable.bench.live:{factory}", "--factory"),
        *("--host", "127.0.0.1", "--workers", str(workers), "--log-level", "info"),
        *("--http", "herotable.server.transport:NoDelayHTTP"),  # TCP_NODELAY with several workers, as herotable
    ]


def _tail(log: Path) -> str:
    return log.read_text(errors="replace")[-3000:] if log.exists() else ""


class _Process:
    """A server started in a process (group) of its own, logging to `log`; `ready()` waits until it answers
    GET /api/v1/csrf, `stop()` stops it (SIGINT, as Ctrl-C would, then SIGKILL to its group)."""

    def __init__(self, argv: list[str], env: dict[str, str], log: Path) -> None:
        self.port = _free_port()
        self.argv = [*argv, "--port", str(self.port)]
        self.log = log
        self.url = f"http://127.0.0.1:{self.port}"
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                self.argv, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )

    def ready(self) -> str:
        import httpx

        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"{' '.join(self.argv)} exited with {self.process.returncode}:\n{_tail(self.log)}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{' '.join(self.argv)} did not answer within 60 s:\n{_tail(self.log)}")
            try:
                if httpx.get(f"{self.url}/api/v1/csrf", timeout=2).status_code == 200:
                    return self.url
            except httpx.HTTPError:
                pass
            time.sleep(0.05)

    def interrupt(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)

    def stop(self) -> None:
        self.interrupt()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(20)


@contextlib.contextmanager
def _running(*servers: tuple[list[str], dict[str, str], Path]) -> Iterator[list[_Process]]:
    """Servers started at once (their start-ups overlap), all stopped on the way out."""
    processes: list[_Process] = []
    try:
        for argv, env, log in servers:
            processes.append(_Process(argv, env, log))
        yield processes
    finally:
        for process in processes:
            process.interrupt()
        for process in processes:
            process.stop()


class _Unavailable(Exception):
    """A database the bench cannot reach: its figures are skipped, with the reason, and the rest still run."""


@contextlib.contextmanager
def _database(kind: str, tmp: Path) -> Iterator[tuple[str, str]]:
    """A fresh database of `kind`, removed afterwards: its URL and its durability settings, in words."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp / 'live.db'}", SQLITE_DURABILITY
        return
    if kind != "postgresql":
        raise ValueError(f"no database {kind!r}: the bench knows sqlite and postgresql")
    import sqlalchemy as sa
    from sqlalchemy.engine import make_url

    url = make_url(os.environ.get(POSTGRES_URL_ENV) or DEFAULT_POSTGRES_URL).set(drivername="postgresql+psycopg")
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    schema = f"bench_live_{secrets.token_hex(5)}"
    try:
        try:
            with engine.connect() as connection:
                connection.exec_driver_sql(f"CREATE SCHEMA {schema}")
                settings = {
                    name: connection.exec_driver_sql(f"SHOW {name}").scalar()
                    for name in ("synchronous_commit", "fsync", "wal_sync_method")
                }
        except sa.exc.OperationalError as error:
            raise _Unavailable(
                f"PostgreSQL at {url.render_as_string()} is not reachable ({error.orig}). "
                f"Tip: set {POSTGRES_URL_ENV} to a server the bench may make a schema on"
            ) from None
        try:
            own = url.update_query_dict({"options": f"-csearch_path={schema}"})
            yield own.render_as_string(hide_password=False), ", ".join(f"{k}={v}" for k, v in settings.items())
        finally:
            with engine.connect() as connection:
                connection.exec_driver_sql(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    finally:
        engine.dispose()


def _redis_url() -> str | None:
    """The Redis several workers need, if one answers."""
    import redis

    url = os.environ.get(REDIS_URL_ENV) or DEFAULT_REDIS_URL
    client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
    try:
        client.ping()
    except redis.exceptions.RedisError:
        return None
    finally:
        client.close()
    return url


# --- the baselines, each served by uvicorn in a process of its own ---------------------------------------------


def _rows_table() -> Any:
    import sqlalchemy as sa

    return sa.Table(
        "bench_rows",
        sa.MetaData(),
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(40), nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
    )


def _make_rows_table(url: str) -> None:
    from herotable.store.engine import create_store_engine, for_writing
    from herotable.store.sql import parse_database_url

    engine = create_store_engine(parse_database_url(url))
    try:
        with for_writing(engine).begin() as connection:  # SQLite: the write lock first, as herotable migrates too
            _rows_table().metadata.create_all(connection)
    finally:
        engine.dispose()


def bare_insert_app() -> Any:
    """The durable-write limit: `POST /insert` commits one row to HEROTABLE_DATABASE_URL, with the engine the event
    store uses (SQLite: WAL, `synchronous=FULL`, the write lock taken when the transaction begins), and nothing
    else. The table is made beforehand (`_make_rows_table`)."""
    from datetime import UTC, datetime

    from herotable.store.engine import create_store_engine, for_writing
    from herotable.store.sql import parse_database_url

    engine = for_writing(create_store_engine(parse_database_url(os.environ[DATABASE_URL_ENV])))
    rows = _rows_table()
    app = FastAPI()

    @app.get("/api/v1/csrf")
    def ready() -> dict[str, str]:
        return {}

    @app.post("/insert")
    def insert(body: Annotated[dict[str, Any], Body()]) -> dict[str, str]:
        key = uuid.uuid4().hex
        with engine.begin() as connection:
            connection.execute(rows.insert().values(key=key, at=datetime.now(UTC).isoformat(), data=json.dumps(body)))
        return {"command_id": key}

    freeze_start_up_heap()  # as `herotable serve` does
    return app


def bare_broadcast_app() -> Any:
    """The fan-out yardstick: WebSockets at /ws that get, on each `POST /broadcast {"bytes": n}`, one frame of n bytes
    shaped like herotable's (an event with a position and a command id), encoded once and sent to each socket in
    turn."""
    sockets: set[WebSocket] = set()
    positions = itertools.count(1)
    app = FastAPI()

    @app.get("/api/v1/csrf")
    def ready() -> dict[str, str]:
        return {}

    @app.websocket("/ws")
    async def ws(socket_: WebSocket) -> None:
        await socket_.accept()
        await socket_.send_text(json.dumps({"type": "hello", "events": [], "cursor": None}))
        sockets.add(socket_)
        try:
            while True:
                await socket_.receive_text()
        except Exception:
            sockets.discard(socket_)

    @app.post("/broadcast")
    async def broadcast(body: Annotated[dict[str, Any], Body()]) -> dict[str, str]:
        key = uuid.uuid4().hex
        frame_bytes = int(body.get("bytes", 4096))
        frame = {"type": "events", "events": [{"position": next(positions), "command_id": key}], "padding": ""}
        frame["padding"] = "x" * max(0, frame_bytes - len(json.dumps(frame)))
        text = json.dumps(frame)
        for s in list(sockets):
            await s.send_text(text)
        return {"command_id": key}

    freeze_start_up_heap()  # as `herotable serve` does
    return app


# --- the load generator ---------------------------------------------------------------------------------------


class _Refused(Exception):
    """A command that was not carried out: its status and error code, as counted in `failed`."""


@dataclass(eq=False)
class _Viewer:
    """One open WebSocket and everything its frames brought: (arrival, position, command id) per event."""

    role: str
    client: Any = None  # the member's httpx client (None for the bare broadcast's sockets)
    socket: Any = None
    cursor: str | None = None  # where its first ("hello") frame left its stream
    arrivals: list[tuple[float, int, str]] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)  # command ids
    sizes: list[int] = field(default_factory=list)  # bytes of each frame that carried events
    hellos: int = 0  # "hello" frames after the first: the server started the stream afresh
    closed: str | None = None  # why the socket closed before the bench closed it
    closing: bool = False
    reader: asyncio.Task[None] | None = None

    async def open(self, url: str, headers: dict[str, str], *, ping_interval: float | None = 20.0) -> None:
        """Connect and read the hello. `ping_interval`: the client's own pings (a browser sends none; the server
        pings each socket itself)."""
        import websockets

        self.socket = await websockets.connect(
            url, additional_headers=headers, max_size=None, open_timeout=30, ping_interval=ping_interval
        )
        hello = json.loads(await asyncio.wait_for(self.socket.recv(), 30))
        if hello.get("type") != "hello":
            raise RuntimeError(f"the first frame was not a hello: {str(hello)[:200]}")
        self.cursor = hello.get("cursor")
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for raw in self.socket:
                now = time.perf_counter()
                frame = json.loads(raw)
                if frame.get("type") == "hello":
                    self.hellos += 1
                events = frame.get("events") or ()
                if events:
                    self.sizes.append(len(raw.encode() if isinstance(raw, str) else raw))
                for event in events:
                    self.arrivals.append((now, event["position"], event["command_id"]))
                    self.seen.add(event["command_id"])
        except Exception as error:  # the socket broke under us: counted, and its frames then go missing
            self.closed = f"{type(error).__name__}: {error}"
        else:
            if not self.closing:
                self.closed = f"closed by the server: {self.socket.close_code} {self.socket.close_reason}"

    async def close(self) -> None:
        self.closing = True
        if self.socket is not None:
            await self.socket.close()
        if self.reader is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self.reader, 10)


@dataclass
class _Loop:
    writers: int
    sent: dict[str, float] = field(default_factory=dict)  # command id: when it was sent
    latencies: list[float] = field(default_factory=list)
    failed: Counter[str] = field(default_factory=Counter)
    elapsed: float = 0.0


def _percentiles(values: list[float], none: str = "nothing was measured") -> dict[str, float]:
    """p50, p95 and p99 (nearest rank) of seconds, in ms; `none` is the error when there is nothing to rank."""
    if not values:
        raise RuntimeError(none)
    ordered = sorted(values)

    def at(p: float) -> float:
        return round(1000 * ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))], 1)

    return {"p50": at(50), "p95": at(95), "p99": at(99)}


async def _closed_loop(writers: list[Callable[[], Awaitable[str]]], commands: int) -> _Loop:
    """Each writer sends its share of `commands`, the next once the last was answered. The load generator's garbage
    is collected first, before anything is sent or timed (the bench collects only between loops: see `live`)."""
    gc.collect()
    loop = _Loop(len(writers))

    async def run(send: Callable[[], Awaitable[str]]) -> None:
        for _ in range(max(1, commands // len(writers))):
            sent = time.perf_counter()
            try:
                key = await send()
            except _Refused as refused:
                loop.failed[str(refused)] += 1
                continue
            loop.latencies.append(time.perf_counter() - sent)
            loop.sent[key] = sent

    started = time.perf_counter()
    await asyncio.gather(*(run(send) for send in writers))
    loop.elapsed = time.perf_counter() - started
    return loop


def _sender(
    client: Any, path: str, body: dict[str, Any] = ROLL, headers: dict[str, str] | None = None
) -> Callable[[], Awaitable[str]]:
    """A writer: it posts `body` to `path` (with `headers` besides the client's: a member's session, when several
    share one client) and gives the command id of the answer (or raises `_Refused`)."""
    import httpx

    async def send() -> str:
        try:
            answer = await client.post(path, json=body, headers=headers)
        except httpx.HTTPError as error:
            raise _Refused(type(error).__name__) from None
        if answer.status_code != 200:
            with contextlib.suppress(ValueError, KeyError, TypeError):
                raise _Refused(f"{answer.status_code} {answer.json()['error']['code']}")
            raise _Refused(str(answer.status_code))
        return str(answer.json()["command_id"])

    return send


def _figures(loop: _Loop) -> dict[str, Any]:
    return {
        "writers": loop.writers,
        "commands": len(loop.latencies),
        "failed": dict(loop.failed),
        "commands_per_s": round(len(loop.latencies) / loop.elapsed, 1),
        "latency_ms": _percentiles(loop.latencies, f"every command failed: {dict(loop.failed)}"),
    }


@dataclass
class _Fanout:
    """What the viewers' frames of one or more loops brought: the seconds from each command's sending to each
    viewer's frame holding its event, and the (command, viewer) pairs never delivered or delivered twice."""

    latencies: list[float] = field(default_factory=list)
    missing: int = 0
    duplicated: int = 0

    def figures(self) -> dict[str, Any]:
        return {
            "fanout_ms": _percentiles(self.latencies),
            "frames_missing": self.missing,
            "frames_duplicated": self.duplicated,
        }


async def _fanout(viewers: list[_Viewer], loop: _Loop, wait_s: float, into: _Fanout) -> None:
    """Wait (up to `wait_s`) for every viewer to hold every command of the loop; its fan-out added `into`."""
    keys = set(loop.sent)
    deadline = time.monotonic() + wait_s
    while any(not keys <= v.seen for v in viewers) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    for viewer in viewers:
        first: dict[str, float] = {}
        positions: list[int] = []
        for arrived, position, key in viewer.arrivals:
            if key in keys:
                first.setdefault(key, arrived)
                positions.append(position)
        into.latencies += [arrived - loop.sent[key] for key, arrived in first.items()]
        into.duplicated += len(positions) - len(set(positions))
        into.missing += len(keys - viewer.seen)


def _merged(loops: list[_Loop]) -> _Loop:
    """The rounds of one loop as one: every command of each, over their summed time."""
    merged = _Loop(loops[0].writers)
    for loop in loops:
        merged.sent.update(loop.sent)
        merged.latencies += loop.latencies
        merged.failed.update(loop.failed)
        merged.elapsed += loop.elapsed
    return merged


async def _streams_check(viewers: list[_Viewer], campaign_id: str) -> dict[str, int]:
    """Each viewer's own stream, read through the API after its hello frame's cursor, against what its frames held:
    every event it may see must have come in a frame, once, and nothing else."""
    totals = Counter[str]()
    for viewer in viewers:
        expected: set[int] = set()
        after = viewer.cursor
        while True:
            params = {"limit": 500, **({"after": after} if after else {})}
            answer = await viewer.client.get(f"/api/v1/campaigns/{campaign_id}/events", params=params)
            answer.raise_for_status()
            page = answer.json()
            expected |= {e["position"] for e in page["events"]}
            if not page["events"] or page["last"] == after:
                break
            after = page["last"]
        received = [position for _, position, _ in viewer.arrivals]
        totals["events_checked"] += len(expected)
        totals["missing"] += len(expected - set(received))
        totals["duplicated"] += len(received) - len(set(received))
        totals["unexpected"] += len(set(received) - expected)
        totals["fresh_hellos"] += viewer.hellos
        totals["sockets_closed"] += viewer.closed is not None
    return {"viewers": len(viewers), **totals}


def _addresses() -> Iterator[str]:
    """Client addresses for X-Forwarded-For (the server trusts 127.0.0.1 as its proxy), fresh for each run in the
    benchmarking network 198.18.0.0/15, so registration limits count each bench user on its own."""
    base = int(ipaddress.IPv4Address("198.18.0.0")) + secrets.randbelow(2**17 - 10_000)
    return (str(ipaddress.IPv4Address(base + n)) for n in itertools.count())


# A keep-alive connection idle this long is not used again: uvicorn closes one idle for 5 s (`timeout_keep_alive`), and
# a request sent just as it does fails (httpx.ReadError) while members register, one after another, for seconds.
KEEPALIVE_S = 3.0


def _limits() -> Any:
    import httpx

    return httpx.Limits(keepalive_expiry=KEEPALIVE_S)


class _Table:
    """The members of one campaign on a running herotable, logged in through the API."""

    def __init__(self, http: str) -> None:
        self.http = http
        self.addresses = _addresses()
        self.clients: list[Any] = []

    async def member(self, name: str) -> Any:
        import httpx

        client = httpx.AsyncClient(
            base_url=self.http, headers={"X-Forwarded-For": next(self.addresses)}, timeout=60, limits=_limits()
        )
        self.clients.append(client)
        csrf = await self._csrf(client)
        answer = await client.post(
            "/api/v1/auth/register",
            json={"username": name, "password": PASSWORD, "display_name": name.title()},
            headers={"X-CSRF-Token": csrf},
        )
        if answer.status_code != 201:
            raise RuntimeError(f"registering {name}: {answer.status_code} {answer.text[:300]}")
        client.headers["X-CSRF-Token"] = answer.json()["csrf_token"]
        return client

    @staticmethod
    async def _csrf(client: Any) -> str:
        """A fresh client's CSRF token, asked again while the server answers anything else (a busy moment),
        and the answer said when it never comes."""
        for _ in range(20):
            answer = await client.get("/api/v1/csrf")
            is_json = answer.headers.get("content-type", "").startswith("application/json")
            token = answer.json().get("csrf_token") if answer.status_code == 200 and is_json else None
            if isinstance(token, str):
                return token
            await asyncio.sleep(0.25)
        raise RuntimeError(f"{client.base_url} gives no CSRF token: {answer.status_code} {answer.text[:300]}")

    async def members(self, names: list[str]) -> list[Any]:
        """Registered two at a time (each hashes a password)."""
        gate = asyncio.Semaphore(2)

        async def one(name: str) -> Any:
            async with gate:
                return await self.member(name)

        return list(await asyncio.gather(*(one(n) for n in names)))

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()


async def _created(client: Any, count: int, start: int) -> None:
    """`count` new campaigns of `client`'s user, four requests at a time."""
    gate = asyncio.Semaphore(4)

    async def one(n: int) -> None:
        async with gate:
            ruleset = "ltl" if n % 2 else "conviction"
            answer = await client.post("/api/v1/campaigns", json={"name": f"Other table {n}", "ruleset": ruleset})
            if answer.status_code != 201:
                raise RuntimeError(f"creating a campaign: {answer.status_code} {answer.text[:300]}")

    await asyncio.gather(*(one(n) for n in range(start, start + count)))


async def _listing(client: Any, times: int, expect: int) -> dict[str, float]:
    gc.collect()  # between loops, as `_closed_loop`
    latencies: list[float] = []
    for _ in range(times):
        sent = time.perf_counter()
        answer = await client.get("/api/v1/campaigns")
        latencies.append(time.perf_counter() - sent)
        answer.raise_for_status()
        if len(answer.json()) != expect:
            raise RuntimeError(f"the listing held {len(answer.json())} campaigns, not {expect}")
    return _percentiles(latencies)


@contextlib.asynccontextmanager
async def _opened(viewers: list[_Viewer]) -> AsyncIterator[list[_Viewer]]:
    try:
        yield viewers
    finally:
        for viewer in viewers:
            await viewer.close()


async def _phases(http: str, bare_http: str, broadcast_http: str, size: Size) -> dict[str, Any]:
    """Everything measured on one running herotable, with its baselines: listing, no viewers against the bare insert,
    the viewers' table against the bare broadcast. Each loop runs in `size.rounds` rounds, herotable's round and then
    its baseline's, so that a machine whose speed drifts during the run weighs on both alike."""
    import httpx

    table = _Table(http)
    # one client (a keep-alive connection) per writer, as each player has
    inserting = [httpx.AsyncClient(base_url=bare_http, timeout=60, limits=_limits()) for _ in range(max(size.writers))]
    casting = [
        httpx.AsyncClient(base_url=broadcast_http, timeout=60, limits=_limits()) for _ in range(max(size.writers))
    ]
    share = max(1, size.commands // size.rounds)
    try:
        gm = await table.member("gamemaster")
        created = await gm.post("/api/v1/campaigns", json={"name": "Streamed", "ruleset": "ltl"})
        created.raise_for_status()
        cid = created.json()["campaign_id"]
        players = await table.members([f"player{n:02d}" for n in range(size.players)])
        spectators = await table.members([f"spectator{n:03d}" for n in range(size.spectators)])
        for role, group in (("player", players), ("spectator", spectators)):
            for chunk in (group[n : n + 100] for n in range(0, len(group), 100)):  # an invite admits 100
                invite = await gm.post(f"/api/v1/campaigns/{cid}/invites", json={"role": role, "max_uses": len(chunk)})
                invite.raise_for_status()
                for client in chunk:  # one after another: each join is a command on the campaign
                    (await client.post(f"/api/v1/join/{invite.json()['code']}", json={})).raise_for_status()

        other = await table.member("otherusers")
        few, many = size.other_campaigns
        await _created(other, few, 0)
        listing = {"other_campaigns_few": await _listing(gm, size.listings, 1)}
        await _created(other, many - few, few)
        listing["other_campaigns_many"] = await _listing(gm, size.listings, 1)

        senders = [_sender(p, f"/api/v1/campaigns/{cid}/commands") for p in players]
        inserts = [_sender(client, "/insert") for client in inserting]
        loops: dict[tuple[str, int], list[_Loop]] = {}
        for _ in range(size.rounds):
            for w in size.writers:
                loops.setdefault(("herotable", w), []).append(await _closed_loop(senders[:w], share))
                loops.setdefault(("bare", w), []).append(await _closed_loop(inserts[:w], share))
        no_viewers = {f"writers_{w}": _figures(_merged(loops["herotable", w])) for w in size.writers}
        bare_insert = {f"writers_{w}": _figures(_merged(loops["bare", w])) for w in size.writers}
        for w in size.writers:  # each round's ratio: herotable's commands/s over the bare insert's right after it
            no_viewers[f"writers_{w}"]["rounds_over_bare_insert"] = [
                round(len(h.latencies) / h.elapsed / (len(b.latencies) / b.elapsed), 2)
                for h, b in zip(loops["herotable", w], loops["bare", w], strict=True)
            ]

        ws = http.replace("http://", "ws://", 1) + f"/ws/campaigns/{cid}"
        members = [("gm", gm)] + [("player", p) for p in players] + [("spectator", s) for s in spectators]
        loops = {}
        fanouts: dict[tuple[str, int], _Fanout] = {}
        async with (
            _opened([_Viewer(role, client) for role, client in members]) as viewers,
            _opened([_Viewer("socket") for _ in range(size.viewers)]) as sockets,
        ):
            for viewer in viewers:
                cookie = "; ".join(f"{k}={v}" for k, v in viewer.client.cookies.items())
                await viewer.open(ws, {"Cookie": cookie, "Origin": http})
            for socket_ in sockets:
                await socket_.open(broadcast_http.replace("http://", "ws://", 1) + "/ws", {})
            frame_bytes = 0
            for _ in range(size.rounds):
                for w in size.writers:
                    loop = await _closed_loop(senders[:w], share)
                    await _fanout(viewers, loop, size.frame_wait_s, fanouts.setdefault(("herotable", w), _Fanout()))
                    loops.setdefault(("herotable", w), []).append(loop)
                    # the bare broadcast's frame: the median size of herotable's event frames so far
                    frame_bytes = round(statistics.median([n for v in viewers for n in v.sizes] or [4096]))
                    broadcasts = [_sender(client, "/broadcast", {"bytes": frame_bytes}) for client in casting[:w]]
                    loop = await _closed_loop(broadcasts, share)
                    await _fanout(sockets, loop, size.frame_wait_s, fanouts.setdefault(("bare", w), _Fanout()))
                    loops.setdefault(("bare", w), []).append(loop)
            streams = await _streams_check(viewers, cid)
        return {
            "listing_ms": listing,
            "no_viewers": no_viewers,
            "bare_insert": bare_insert,
            "viewers": {
                f"writers_{w}": _figures(_merged(loops["herotable", w])) | fanouts["herotable", w].figures()
                for w in size.writers
            },
            "streams": streams,
            "frame_bytes": frame_bytes,
            "bare_broadcast": {
                f"writers_{w}": _figures(_merged(loops["bare", w])) | fanouts["bare", w].figures() for w in size.writers
            },
        }
    finally:
        await table.aclose()
        for client in inserting + casting:
            await client.aclose()


# --- the runs -------------------------------------------------------------------------------------------------


def _database_run(kind: str, size: Size, tmp: Path, broadcast_http: str) -> dict[str, Any]:
    tmp.mkdir(parents=True, exist_ok=True)
    redis_url = _redis_url() if kind == "postgresql" and size.postgres_workers > 1 else None
    workers = size.postgres_workers if redis_url else 1
    with _database(kind, tmp) as (url, durability):
        env = _env(
            **{
                DATABASE_URL_ENV: url,
                "HEROTABLE_DATA_DIR": str(tmp),
                "HEROTABLE_SECRET_KEY": secrets.token_urlsafe(32),
                "HEROTABLE_TRUSTED_PROXIES": "127.0.0.1",  # the bench's users come from addresses of their own
                **({"HEROTABLE_REDIS_URL": redis_url} if redis_url else {}),
            }
        )
        serve = [*_herotable_command(), "serve", "--migrate", "--workers", str(workers)]
        bare_insert = _uvicorn_command("bare_insert_app", workers)
        with _running((serve, env, tmp / "herotable.log"), (bare_insert, env, tmp / "bare-insert.log")) as (
            herotable_process,
            bare_process,
        ):  # each waits idle while the other is measured
            _make_rows_table(url)  # while they start; the bare endpoint reads it only when called
            measured = asyncio.run(_phases(herotable_process.ready(), bare_process.ready(), broadcast_http, size))
    return {
        "server": f"herotable serve --workers {workers}" + (" (Redis between them)" if redis_url else ""),
        "durability": durability,
        **measured,
    }


def _ratios(db: dict[str, Any]) -> dict[str, Any]:
    def ratio(a: float, b: float) -> float:
        return round(a / b, 2) if b else float("inf")

    writers = list(db["no_viewers"])
    few, many = db["listing_ms"]["other_campaigns_few"], db["listing_ms"]["other_campaigns_many"]
    return {
        "commands_over_bare_insert": {
            w: statistics.median(db["no_viewers"][w]["rounds_over_bare_insert"]) for w in writers
        },
        "fanout_p99_over_bare_broadcast": {
            w: ratio(db["viewers"][w]["fanout_ms"]["p99"], db["bare_broadcast"][w]["fanout_ms"]["p99"]) for w in writers
        },
        "listing_p50_many_over_one": ratio(many["p50"], few["p50"]),
        "frames_missing": sum(db["viewers"][w]["frames_missing"] for w in writers) + db["streams"]["missing"],
    }


@contextlib.contextmanager
def collections_held() -> Iterator[None]:
    """The load generator's heap kept out of its garbage collections, and none run by themselves, while the block
    measures (`make bench` runs other benchmarks in this process first, leaving large tables): a pause here would
    count as the server's latency (a full collection of what the frames brought, tens of milliseconds, landed on a
    few commands of a loop and set its p99). The bench collects only between loops (`_closed_loop`, `_listing`)."""
    freeze_start_up_heap()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()


def live(size: Size | None = None) -> dict[str, Any]:
    """The live figures on each database of `size`, with their baselines and ratios, in one run."""
    size = size or Size()
    if max(size.writers) > size.players:
        raise ValueError(f"{max(size.writers)} writers need as many players; the table has {size.players}")
    started = time.perf_counter()
    load = os.getloadavg()[0]
    results: dict[str, Any] = {
        "machine": {
            "cores": os.cpu_count(),
            "usable_cores": len(os.sched_getaffinity(0)),
            "load_average_1m_at_start": round(load, 2),
            "python": platform.python_version(),
        },
        "size": {
            "viewers": size.viewers,
            "gm": 1,
            "players": size.players,
            "spectators": size.spectators,
            "commands_per_loop": size.commands,
            "rounds": size.rounds,
            "writers": list(size.writers),
            "other_campaigns": list(size.other_campaigns),
            "listing_requests": size.listings,
        },
        "targets": TARGETS,
    }
    with (
        collections_held(),
        tempfile.TemporaryDirectory(prefix="herotable-bench-live-") as tmp,
        _running((_uvicorn_command("bare_broadcast_app", 1), _env(), Path(tmp, "bare-broadcast.log"))) as (bare,),
    ):
        measured: list[str] = []
        for kind in size.databases:
            try:
                results[kind] = _database_run(kind, size, Path(tmp, kind), bare.ready())
                measured.append(kind)
            except _Unavailable as why:
                results[kind] = {"skipped": str(why)}
    results["ratios"] = {kind: _ratios(results[kind]) for kind in measured}
    results["seconds"] = round(time.perf_counter() - started, 1)
    return results


if __name__ == "__main__":
    print(json.dumps(live(), indent=2))
