"""Many tables on one box: the real server (`herotable serve`) holding 1,000 live Larger Than Life campaigns at once,
each with its GM and three players watching, on SQLite (one process) and on PostgreSQL (two workers and Redis).

For each database, on a fresh one of its own, in one run:

- **Setup**: 4,000 accounts, each with a live session, and 1,000 campaigns of a GM and three players. The campaigns
  are made by the table service's own commands (created, each player joining) on a memory store, and their logs
  imported into the bench's database, so they are real facts that fold; the accounts and their sessions are written
  in one transaction. The session cookies are signed with the server's secret key, which the bench chose: nobody
  logs in.
- **Lone table**: one campaign's GM and players hold its WebSocket open; a player rolls `table.roll 1d20` in a closed
  loop. Command latency and fan-out (sending to each viewer's frame holding the event), as `bench.live` measures
  them.
- **Many tables**: every campaign's GM and players hold its WebSocket open (4,000 sockets), held by a few load
  generator processes, and each table sends a roll every 10 s on average (Poisson arrivals, about 100 commands/s in
  all) by one of its players chosen at random, whether or not its last one was answered. After a warm-up, a
  measured window: the same latencies, failed commands by status, and whether each of a table's four viewers got
  every event of its table's commands exactly once. Each generator reports the CPU it used over the window and how
  late it sent its commands, to show it was not the limit.
- **Memory**: the resident set of the server's processes together (`VmRSS` of the server and its workers), when it
  is ready, once the lone table has played (`start`), once every socket is open, at the end of the window, and its
  highest, sampled every half second; and what each open campaign costs: (sockets open − start) / campaigns.

Goals (`TARGETS`): p99 command latency and p99 fan-out at most 3× the lone table's; at most 1 GiB resident in all;
no frame missing.

Run by `make bench` (`herotable.bench`, the `tables` key of bench/results.json), or alone:
`python -m herotable.bench.tables`. PostgreSQL and Redis are found as `bench.live` finds them.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import http.cookiejar
import json
import multiprocessing
import os
import platform
import random
import secrets
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from herotable.bench.live import (
    DATABASE_URL_ENV,
    PASSWORD,
    ROLL,
    _closed_loop,
    _database,
    _env,
    _Fanout,
    _fanout,
    _figures,
    _herotable_command,
    _limits,
    _opened,
    _percentiles,
    _Process,
    _redis_url,
    _Refused,
    _running,
    _sender,
    _Unavailable,
    _Viewer,
    collections_held,
)
from herotable.server.security import CSRF_HEADER, SESSION_COOKIE
from herotable.server.transport import freeze_start_up_heap

TARGETS = {
    "latency_p99_over_lone": "at most 3: the p99 of command latency with every table live, over the lone table's",
    "fanout_p99_over_lone": "at most 3: the same for fan-out",
    "rss_mib_peak": "at most 1024: the server's processes together, at their highest",
    "frames_missing": "0",
}
LIMITS = {"latency_p99_over_lone": 3.0, "fanout_p99_over_lone": 3.0, "rss_mib_peak": 1024.0, "frames_missing": 0}
MIB = 1024 * 1024


@dataclass(frozen=True)
class Size:
    """How much the bench does. The defaults are the goal's box (1,000 tables of a GM and three players, a roll
    every 10 s each); the test runs a tiny one, fast."""

    campaigns: int = 1000
    players: int = 3  # each campaign's, besides its GM
    lone_commands: int = 200  # the lone table's closed loop
    every_s: float = 10.0  # a table's mean time between commands (Poisson arrivals)
    warmup_s: float = 5.0
    window_s: float = 45.0  # measured, after the warm-up (both databases in under 5 minutes)
    generators: int = 4  # load generator processes, each holding its share of the tables
    opening: int = 8  # sockets a generator opens at once
    databases: tuple[str, ...] = ("sqlite", "postgresql")
    postgres_workers: int = 2  # `herotable serve --workers N` on PostgreSQL (with Redis)
    cached_campaigns: int = 1024  # the server's HEROTABLE_CACHED_CAMPAIGNS: every table's state kept, as advised
    frame_wait_s: float = 30.0  # how long the last frames may take before they count as missing


@dataclass(frozen=True)
class _Seat:
    """A member at a table, logged in: their session cookie and its CSRF token."""

    role: str
    user_id: str
    cookie: str
    csrf: str

    def command_headers(self) -> dict[str, str]:
        return {"Cookie": f"{SESSION_COOKIE}={self.cookie}", CSRF_HEADER: self.csrf}

    def socket_headers(self, http: str) -> dict[str, str]:
        return {"Cookie": f"{SESSION_COOKIE}={self.cookie}", "Origin": http}


@dataclass(frozen=True)
class _Seated:
    """A campaign and its members: the GM first, then the players."""

    campaign_id: str
    seats: tuple[_Seat, ...]

    @property
    def players(self) -> tuple[_Seat, ...]:
        return self.seats[1:]


# --- setup, in the store before the server starts ---------------------------------------------------------------


@dataclass(frozen=True)
class _Cast:
    """Everyone and every campaign of the run, made once and written into each database: the accounts and their
    sessions as rows, the campaigns' logs in a memory store, and each table's seats."""

    users: list[dict[str, Any]]
    sessions: list[dict[str, Any]]
    logs: Any  # a MemoryEventStore
    tables: list[_Seated]
    secret_key: str
    made_s: float


def _cast(size: Size) -> _Cast:
    """The accounts, their sessions and the campaigns. Each campaign is made by the table service's commands on a
    memory store (a GM creates it, each player joins); each session is kept as `auth.start_session` keeps it (a
    hash of its id), and its cookie signed with a secret key of the run's, which the server is given."""
    from argon2 import PasswordHasher

    from herotable.server.auth import stamp
    from herotable.server.security import SESSION_MAX_AGE_S, Sessions, digest
    from herotable.service import TableService
    from herotable.store.accounts import User
    from herotable.store.memory import MemoryEventStore
    from herotable.table.state import Role, Ruleset
    from herotable.table.structure import Join

    started = time.perf_counter()
    secret_key = secrets.token_urlsafe(32)
    signer = Sessions(secret_key)
    hashed = PasswordHasher().hash(PASSWORD)  # one hash for all: nobody logs in with it
    now = datetime.now(UTC)
    made, expires = stamp(now), stamp(now + timedelta(seconds=SESSION_MAX_AGE_S))
    users: list[dict[str, Any]] = []
    sessions: list[dict[str, Any]] = []

    def seat(role: str, username: str, display_name: str) -> _Seat:
        user = User(secrets.token_hex(8), username, display_name, hashed, made)
        session = signer.new(user.user_id)
        users.append(vars(user))
        sessions.append(
            {
                "sid_hash": digest(session.sid),
                "user_id": user.user_id,
                "created_at": made,
                "expires_at": expires,
                "revoked_at": None,
            }
        )
        return _Seat(role, user.user_id, signer.dump(session), signer.csrf_token(session))

    logs = MemoryEventStore()
    service = TableService(logs)
    tables: list[_Seated] = []
    for n in range(size.campaigns):
        gm = seat("gm", f"gm{n:04d}", f"Gm {n}")
        campaign_id = service.create_campaign(gm.user_id, f"Gm {n}", f"Table {n}", Ruleset.LTL).campaign_id
        players = []
        for p in range(size.players):
            player = seat("player", f"player{n:04d}{p}", f"Player {n}-{p}")
            service.execute(campaign_id, player.user_id, Join(f"Player {n}-{p}", Role.PLAYER))
            players.append(player)
        tables.append(_Seated(campaign_id, (gm, *players)))
    return _Cast(users, sessions, logs, tables, secret_key, round(time.perf_counter() - started, 2))


def _seed(url: str, cast: _Cast) -> dict[str, Any]:
    """`cast` written into the fresh database at `url`: every account and its session in one transaction, then each
    campaign's log imported as it stands (their membership rows with them)."""
    from sqlalchemy import insert

    from herotable.store.engine import for_writing
    from herotable.store.schema import SessionRecord, UserRecord
    from herotable.store.sql import SqlEventStore, open_store

    started = time.perf_counter()
    store = open_store(url)
    try:
        if not isinstance(store, SqlEventStore):
            raise ValueError(f"{url}: the bench needs a database")
        with for_writing(store.engine).begin() as connection:
            connection.execute(insert(UserRecord), cast.users)
            connection.execute(insert(SessionRecord), cast.sessions)
        for table in cast.tables:
            store.import_events(cast.logs.campaign(table.campaign_id), cast.logs.load(table.campaign_id))
    finally:
        store.close()
    return {
        "accounts": len(cast.users),
        "campaigns": len(cast.tables),
        "events": sum(cast.logs.campaign(t.campaign_id).head for t in cast.tables),
        "made_s": cast.made_s,
        "written_s": round(time.perf_counter() - started, 2),
    }


# --- the server's processes, from /proc ---------------------------------------------------------------------------


def _family(pid: int) -> list[int]:
    """`pid` and every process descended from it (uvicorn's workers, and what they started)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        parents.setdefault(parent, []).append(int(entry.name))
    family, todo = [], [pid]
    while todo:
        found = todo.pop()
        family.append(found)
        todo += parents.get(found, [])
    return family


def _rss_mib(pid: int) -> float:
    """The resident memory of the server's processes together (`VmRSS`), in MiB."""
    from herotable.bench.portraits import _status

    total = 0.0
    for member in _family(pid):
        try:
            total += _status(member, "VmRSS")
        except (OSError, RuntimeError):  # gone meanwhile, or a zombie with no memory left
            continue
    return round(total, 1)


def _cpu_s(pid: int) -> float:
    """The CPU seconds the server's processes have used (user and system)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for member in _family(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def _machine_ticks() -> tuple[int, int]:
    """The machine's CPU time so far, in clock ticks: busy and in all (from /proc/stat)."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle, iowait
    return sum(values) - idle, sum(values)


# --- the lone table, from this process ----------------------------------------------------------------------------


def _no_cookies() -> http.cookiejar.CookieJar:
    """A cookie jar that keeps nothing: each request carries its member's session in its own headers."""
    return http.cookiejar.CookieJar(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))


def _socket_url(http_url: str, campaign_id: str) -> str:
    return http_url.replace("http://", "ws://", 1) + f"/ws/campaigns/{campaign_id}"


async def _lone(http_url: str, table: _Seated, size: Size) -> dict[str, Any]:
    """One table alone on the server: its members watching, a player rolling in a closed loop."""
    import httpx

    async with (
        httpx.AsyncClient(base_url=http_url, timeout=60, limits=_limits(), cookies=_no_cookies()) as client,
        _opened([_Viewer(seat.role) for seat in table.seats]) as viewers,
    ):
        for viewer, seat in zip(viewers, table.seats, strict=True):
            await viewer.open(
                _socket_url(http_url, table.campaign_id), seat.socket_headers(http_url), ping_interval=None
            )
        player = table.players[0]
        path = f"/api/v1/campaigns/{table.campaign_id}/commands"
        loop = await _closed_loop([_sender(client, path, ROLL, player.command_headers())], size.lone_commands)
        fanout = _Fanout()
        await _fanout(viewers, loop, size.frame_wait_s, fanout)
    figures = _figures(loop) | fanout.figures()
    figures["viewers"] = len(viewers)
    return figures


# --- a load generator, in a process of its own --------------------------------------------------------------------


def _arrivals(rng: random.Random, tables: int, start: float, end: float, every_s: float) -> list[tuple[float, int]]:
    """When each table sends a command between `start` and `end`: a Poisson process of mean gap `every_s` per
    table, all of them in time order."""
    out = []
    for table in range(tables):
        at = start + rng.expovariate(1 / every_s)
        while at < end:
            out.append((at, table))
            at += rng.expovariate(1 / every_s)
    out.sort()
    return out


async def _until(moment: float) -> None:
    await asyncio.sleep(max(0.0, moment - time.perf_counter()))


def _generator(pipe: Connection, http_url: str, tables: list[_Seated], size: Size, seed: int) -> None:
    """A load generator: told by `pipe` to open its tables' sockets, then to send their commands from a moment on;
    it answers with what it measured (see `_generate`)."""
    try:
        asyncio.run(_generate(pipe, http_url, tables, size, seed))
    except EOFError:  # the bench stopped (it closed its end): nothing to tell
        return
    except BaseException as error:
        with contextlib.suppress(OSError):
            pipe.send(("failed", f"{type(error).__name__}: {error}"))
        raise


async def _told(pipe: Connection, what: str) -> tuple[Any, ...]:
    message: tuple[Any, ...] = await asyncio.to_thread(pipe.recv)
    if message[0] != what:
        raise RuntimeError(f"the bench said {message[0]!r}, not {what!r}")
    return message


async def _generate(pipe: Connection, http_url: str, tables: list[_Seated], size: Size, seed: int) -> None:
    """Open every socket of `tables` (`size.opening` at a time), then from the moment the bench gives send each
    table's commands at their Poisson arrivals, each by one of its players chosen at random, without waiting for the
    last to be answered. Then wait for the frames, check them and report: latencies and fan-outs of the commands
    sent in the measured window, every command's frames missing or duplicated, failures, this process's CPU over the
    window and how late it sent each command. A generator that falls so far behind that the window is over does not
    send the rest of its arrivals (`unsent`)."""
    import httpx

    pipe.send(("ready",))
    await _told(pipe, "open")
    opening = asyncio.Semaphore(size.opening)
    viewers = [[_Viewer(seat.role) for seat in table.seats] for table in tables]
    sockets_failed: Counter[str] = Counter()

    async def open_one(viewer: _Viewer, table: _Seated, seat: _Seat) -> None:
        async with opening:
            try:
                await viewer.open(
                    _socket_url(http_url, table.campaign_id), seat.socket_headers(http_url), ping_interval=None
                )
            except Exception as error:  # counted, and its frames go missing
                viewer.closed = f"not opened: {type(error).__name__}"
                sockets_failed[type(error).__name__] += 1

    began = time.perf_counter()
    await asyncio.gather(
        *(
            open_one(viewer, table, seat)
            for table, group in zip(tables, viewers, strict=True)
            for viewer, seat in zip(group, table.seats, strict=True)
        )
    )
    pipe.send(("opened", {"seconds": round(time.perf_counter() - began, 1), "failed": dict(sockets_failed)}))
    (_, start) = await _told(pipe, "go")

    freeze_start_up_heap()  # the sockets and what they hold are never walked again; nothing is collected until the
    gc.disable()  # end (as `bench.live`): a pause here would be timed as the server's latency
    rng = random.Random(seed)
    window = (start + size.warmup_s, start + size.warmup_s + size.window_s)
    arrivals = _arrivals(rng, len(tables), start, window[1], size.every_s)
    sent: list[dict[str, tuple[float, bool]]] = [{} for _ in tables]  # per table, command id: (sent, measured)
    latencies: list[float] = []
    failed: Counter[str] = Counter()
    late: list[float] = []
    cpu: list[float] = []
    async with httpx.AsyncClient(
        base_url=http_url,
        timeout=60,
        limits=httpx.Limits(max_connections=1000, max_keepalive_connections=100, keepalive_expiry=3.0),
        cookies=_no_cookies(),
    ) as client:
        senders = [
            [
                _sender(client, f"/api/v1/campaigns/{table.campaign_id}/commands", ROLL, seat.command_headers())
                for seat in table.players
            ]
            for table in tables
        ]

        async def one(table: int, player: int) -> None:
            at = time.perf_counter()
            try:
                key = await senders[table][player]()
            except _Refused as refused:
                failed[str(refused)] += 1
                return
            measured = window[0] <= at < window[1]
            if measured:
                latencies.append(time.perf_counter() - at)
            sent[table][key] = (at, measured)

        async def cpu_over_window() -> None:
            await _until(window[0])
            cpu.append(time.process_time())
            await _until(window[1])
            cpu.append(time.process_time())

        timing = asyncio.create_task(cpu_over_window())
        flying = set()
        unsent = 0
        for n, (due, table) in enumerate(arrivals):
            await _until(due)
            if time.perf_counter() >= window[1]:  # this process fell behind: what is left is not sent at all
                unsent = len(arrivals) - n
                break
            late.append(time.perf_counter() - due)
            task = asyncio.create_task(one(table, rng.randrange(len(senders[table]))))
            flying.add(task)
            task.add_done_callback(flying.discard)
        await timing
        await asyncio.gather(*flying)

    deadline = time.monotonic() + size.frame_wait_s
    while time.monotonic() < deadline and any(
        not sent[t].keys() <= v.seen for t, group in enumerate(viewers) for v in group if v.socket is not None
    ):
        await asyncio.sleep(0.05)
    fanouts: list[float] = []
    frames = Counter[str]()
    for commands, group in zip(sent, viewers, strict=True):
        for viewer in group:
            first: dict[str, float] = {}
            positions: list[int] = []
            for arrived, position, key in viewer.arrivals:
                if key in commands:
                    first.setdefault(key, arrived)
                    positions.append(position)
            fanouts += [arrived - commands[key][0] for key, arrived in first.items() if commands[key][1]]
            frames["missing"] += len(commands.keys() - viewer.seen)
            frames["duplicated"] += len(positions) - len(set(positions))
            frames["fresh_hellos"] += viewer.hellos
            frames["sockets_closed"] += viewer.closed is not None
    await asyncio.gather(*(viewer.close() for group in viewers for viewer in group))
    gc.enable()
    gc.unfreeze()
    pipe.send(
        (
            "done",
            {
                "tables": len(tables),
                "sockets": sum(len(group) for group in viewers),
                "commands_checked": sum(len(commands) for commands in sent),
                "latencies": latencies,
                "fanouts": fanouts,
                "failed": dict(failed),
                "frames": dict(frames),
                "late": late,
                "unsent": unsent,
                "cpu_s": cpu[1] - cpu[0],
            },
        )
    )


class _Generators:
    """The load generator processes (spawned, so that each starts clean), each with its share of the tables, and
    the pipes the bench tells them what to do through."""

    def __init__(self, http_url: str, tables: list[_Seated], size: Size) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipes: list[Connection] = []
        self.processes: list[Any] = []
        self.shares = [tables[n :: size.generators] for n in range(size.generators)]
        for n, share in enumerate(self.shares):
            ours, theirs = context.Pipe()
            process = context.Process(target=_generator, args=(theirs, http_url, share, size, n), daemon=True)
            process.start()
            theirs.close()
            self.pipes.append(ours)
            self.processes.append(process)

    def tell(self, *message: Any) -> None:
        for pipe in self.pipes:
            pipe.send(message)

    def answers(self, what: str, timeout_s: float) -> list[Any]:
        """Each generator's answer `what` (its figures, if any), waiting at most `timeout_s` in all."""
        deadline = time.monotonic() + timeout_s
        out = []
        for n, pipe in enumerate(self.pipes):
            if not pipe.poll(max(0.0, deadline - time.monotonic())):
                raise RuntimeError(f"load generator {n} did not answer {what!r} within {timeout_s:g} s")
            try:
                message = pipe.recv()
            except EOFError:
                self.processes[n].join(5)
                raise RuntimeError(f"load generator {n} ended ({self.processes[n].exitcode}) before {what!r}") from None
            if message[0] != what:
                raise RuntimeError(f"load generator {n} answered {message!r}, not {what!r}")
            out.append(message[1] if len(message) > 1 else None)
        return out

    def close(self) -> None:
        """Wait for each to end; one still waiting to be told something ends when its pipe closes."""
        for pipe in self.pipes:
            pipe.close()
        for process in self.processes:
            process.join(30)
            if process.is_alive():
                process.kill()
                process.join(10)


# --- one database -------------------------------------------------------------------------------------------------


def _merged(done: list[dict[str, Any]], size: Size) -> dict[str, Any]:
    """The generators' figures as the server's: the commands of the window and their fan-out over every generator."""
    latencies = [s for d in done for s in d["latencies"]]
    failed = sum((Counter(d["failed"]) for d in done), Counter[str]())
    frames = sum((Counter(d["frames"]) for d in done), Counter[str]())
    return {
        "commands": len(latencies),
        "commands_per_s": round(len(latencies) / size.window_s, 1),
        "failed": dict(failed),
        "latency_ms": _percentiles(latencies, f"no command was answered in the window: {dict(failed)}"),
        "fanout_ms": _percentiles([s for d in done for s in d["fanouts"]], "no frame came in the window"),
        "commands_checked": sum(d["commands_checked"] for d in done),
        "frames_missing": frames["missing"],
        "frames_duplicated": frames["duplicated"],
        "fresh_hellos": frames["fresh_hellos"],
        "sockets_closed": frames["sockets_closed"],
    }


def _measured(server: _Process, tables: list[_Seated], size: Size) -> dict[str, Any]:
    """Everything measured on one running herotable: the lone table, then every table at once."""
    from herotable.bench.portraits import _Sampler

    generators = _Generators(server.url, tables, size)  # they start while the server does
    try:
        http_url = server.ready()
        generators.answers("ready", 120)
        pid = server.process.pid
        rss = {"ready": _rss_mib(pid)}
        cpu = _cpu_s(pid)
        lone = asyncio.run(_lone(http_url, tables[0], size))
        lone["server_cpu_ms_per_command"] = round(1000 * (_cpu_s(pid) - cpu) / lone["commands"], 2)
        rss["start"] = _rss_mib(pid)
        with _Sampler(lambda: _rss_mib(pid), every_s=0.5) as peak:
            began, cpu = time.perf_counter(), _cpu_s(pid)
            generators.tell("open")
            opened = generators.answers("opened", 600)
            open_s, open_cpu = time.perf_counter() - began, _cpu_s(pid) - cpu
            rss["sockets_open"] = _rss_mib(pid)
            start = time.perf_counter() + 1.0
            generators.tell("go", start)
            time.sleep(max(0.0, start + size.warmup_s - time.perf_counter()))
            cpu, (busy, ticks) = _cpu_s(pid), _machine_ticks()
            time.sleep(max(0.0, start + size.warmup_s + size.window_s - time.perf_counter()))
            cpu, busy, ticks = _cpu_s(pid) - cpu, _machine_ticks()[0] - busy, _machine_ticks()[1] - ticks
            rss["end"] = _rss_mib(pid)
            done = generators.answers("done", size.frame_wait_s + 120)
        rss["peak"] = max(peak.peak, *rss.values())
    finally:
        generators.close()
    many = _merged(done, size)
    many |= {
        "campaigns": len(tables),
        "sockets": sum(d["sockets"] for d in done),
        "sockets_failed": dict(sum((Counter(o["failed"]) for o in opened), Counter[str]())),
        "open_s": round(open_s, 1),
        "open_server_cpu_ms_per_socket": round(1000 * open_cpu / (len(tables) * (1 + size.players)), 2),
        "window_s": size.window_s,
        "server_cpu_cores": round(cpu / size.window_s, 2),
        "server_cpu_ms_per_command": round(1000 * cpu / many["commands"], 2) if many["commands"] else 0.0,
        "machine_busy_share": round(busy / ticks, 2) if ticks else 0.0,
    }
    return {
        "lone_table": lone,
        "many_tables": many,
        "generators": [
            {
                "tables": d["tables"],
                "sockets": d["sockets"],
                "open_s": o["seconds"],
                "cpu_s": round(d["cpu_s"], 2),
                "cpu_share": round(d["cpu_s"] / size.window_s, 3),
                "unsent": d["unsent"],
                "late_ms": _percentiles(d["late"]) | {"max": round(1000 * max(d["late"]), 1)} if d["late"] else {},
            }
            for d, o in zip(done, opened, strict=True)
        ],
        "rss_mib": {k: round(v, 1) for k, v in rss.items()},
        "rss_kib_per_campaign": round((rss["sockets_open"] - rss["start"]) * 1024 / len(tables), 1),
    }


def _database_run(kind: str, size: Size, cast: _Cast, tmp: Path) -> dict[str, Any]:
    tmp.mkdir(parents=True, exist_ok=True)
    redis_url = _redis_url() if kind == "postgresql" and size.postgres_workers > 1 else None
    workers = size.postgres_workers if redis_url else 1
    with _database(kind, tmp) as (url, durability):
        setup = _seed(url, cast)
        env = _env(
            **{
                DATABASE_URL_ENV: url,
                "HEROTABLE_DATA_DIR": str(tmp),
                "HEROTABLE_SECRET_KEY": cast.secret_key,
                "HEROTABLE_CACHED_CAMPAIGNS": str(size.cached_campaigns),
                # a prefix of its own: another run on the same Redis is not heard here
                **(
                    {"HEROTABLE_REDIS_URL": redis_url, "HEROTABLE_REDIS_PREFIX": f"bench-{secrets.token_hex(4)}:"}
                    if redis_url
                    else {}
                ),
            }
        )
        serve = [*_herotable_command(), "serve", "--workers", str(workers)]
        with _running((serve, env, tmp / "herotable.log")) as (server,):
            measured = _measured(server, cast.tables, size)
    return {
        "server": f"herotable serve --workers {workers} --cached-campaigns {size.cached_campaigns}"
        + (" (Redis between them)" if redis_url else ""),
        "durability": durability,
        "setup": setup,
        **measured,
    }


def _ratios(db: dict[str, Any]) -> dict[str, Any]:
    """Each goal's figure, and whether it is met."""
    lone, many = db["lone_table"], db["many_tables"]

    def ratio(a: float, b: float) -> float:
        return round(a / b, 2) if b else float("inf")

    figures = {
        "latency_p99_over_lone": ratio(many["latency_ms"]["p99"], lone["latency_ms"]["p99"]),
        "fanout_p99_over_lone": ratio(many["fanout_ms"]["p99"], lone["fanout_ms"]["p99"]),
        "rss_mib_peak": db["rss_mib"]["peak"],
        "frames_missing": many["frames_missing"] + lone["frames_missing"],
    }
    return figures | {"met": {k: v <= LIMITS[k] for k, v in figures.items()}}


def tables(size: Size | None = None) -> dict[str, Any]:
    """The figures on each database of `size`, with the goals and how they fared, in one run."""
    size = size or Size()
    if size.players < 1 or size.campaigns < size.generators:
        raise ValueError(f"{size}: a table needs a player, and each generator a table")
    started = time.perf_counter()
    results: dict[str, Any] = {
        "machine": {
            "cores": os.cpu_count(),
            "usable_cores": len(os.sched_getaffinity(0)),
            "load_average_1m_at_start": round(os.getloadavg()[0], 2),
            "python": platform.python_version(),
        },
        "size": {
            "campaigns": size.campaigns,
            "members_per_campaign": 1 + size.players,
            "lone_commands": size.lone_commands,
            "every_s": size.every_s,
            "warmup_s": size.warmup_s,
            "window_s": size.window_s,
            "generators": size.generators,
            "cached_campaigns": size.cached_campaigns,
        },
        "targets": TARGETS,
    }
    import tempfile

    with collections_held():  # as `bench.live`: this process's own collections are not timed as the lone table's
        cast = _cast(size)  # the same accounts and campaigns on each database
        with tempfile.TemporaryDirectory(prefix="herotable-bench-tables-") as tmp:
            measured = []
            for kind in size.databases:
                try:
                    results[kind] = _database_run(kind, size, cast, Path(tmp, kind))
                    measured.append(kind)
                except _Unavailable as why:
                    results[kind] = {"skipped": str(why)}
    results["ratios"] = {kind: _ratios(results[kind]) for kind in measured}
    results["seconds"] = round(time.perf_counter() - started, 1)
    return results


if __name__ == "__main__":
    print(json.dumps(tables(), indent=2))
