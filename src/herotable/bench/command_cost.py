"""What a command costs the server beyond a bare insert, part by part, in this one process: no network, no load
generator and no other process sharing the cores, so that only the server's own time is measured.

Both apps are driven through ASGI directly (`_Driver`, one request at a time), each on a fresh SQLite file of its
own with the store's engine settings (WAL, `synchronous=FULL`, the write lock taken up front): herotable's app as
`herotable serve` builds it (`create_app`, its lifespan running), and the bare insert's (`bench.live.bare_insert_app`).
A member registers and creates a Larger Than Life campaign through the API first. Then, in `rounds` rounds taking
turns, `requests` requests of each kind; a figure is the median over the rounds of a round's mean, in ms (the
store's two: the median of every one timed):

- `web.herotable_csrf`, `web.bare_csrf`: `GET /api/v1/csrf` on each app, a trivial answer: the web layer alone
  (herotable's: its middlewares, routing among all its routes, the session cookie; the bare one's: FastAPI's);
- `web.herotable_me`: `GET /api/v1/me`, the session's user besides;
- `web.herotable_command`, `web.bare_insert`: `POST …/commands` with `table.roll 1d20`, against `POST /insert`;
- `service.execute`: the table service's `execute` of the same roll alone (decide, append, fold, announce), no web;
- `store.append`: the store's append within it (its transaction: the head moved, the event row written, the
  commit), and `store.bare_insert`: the bare insert's transaction alone, on the same engine.

`ratios.command_over_bare_insert` is the bare insert's time over the command's, as the `live` bench's ratio is
(commands/s over inserts/s), with neither the network nor the load generator in it.

Run alone: `python -m herotable.bench.command_cost` (about 35 s). Not part of `make bench`: it explains the `live`
figure `commands_over_bare_insert`, and takes no goal of its own.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PASSWORD = "bench-password-0123"
ROLL = {"type": "table.roll", "expression": "1d20"}


@dataclass(frozen=True)
class Size:
    requests: int = 1000  # of each kind, per round
    rounds: int = 5
    warmup: int = 200  # of each kind, before the rounds


Message = dict[str, Any]
App = Callable[[Message, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]]


@dataclass
class Answer:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def cookie(self) -> bytes:
        """The first cookie the answer sets, as a request sends it back (`name=value`)."""
        return next(v for k, v in self.headers if k == b"set-cookie").split(b";")[0]


class _Driver:
    """Sends one HTTP request to an ASGI app and collects its answer, as a server would, without a socket."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(
        self, method: str, path: str, body: bytes = b"", headers: list[tuple[bytes, bytes]] | None = None
    ) -> Answer:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [
                (b"host", b"bench"),
                (b"content-length", str(len(body)).encode()),
                (b"content-type", b"application/json"),
                *(headers or []),
            ],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 80),
            "state": {},
        }
        sent = False
        answer = Answer(0, [], b"")
        never = asyncio.Event()

        async def receive() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await never.wait()  # no disconnect while the answer is made
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                answer.status, answer.headers = message["status"], list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                answer.body += message.get("body", b"")

        await self.app(scope, receive, send)
        return answer


def _ms_each(times: list[float]) -> float:
    return round(statistics.median(times) * 1000, 3)


async def _mean_s(send: Callable[[], Awaitable[Answer]], count: int, ok: tuple[int, ...] = (200, 201)) -> float:
    began = time.perf_counter()
    for _ in range(count):
        answer = await send()
        if answer.status not in ok:
            raise RuntimeError(f"the bench's request was refused: {answer.status} {answer.body[:300]!r}")
    return (time.perf_counter() - began) / count


@contextmanager
def _timed(owner: Any, name: str, into: list[float]) -> Iterator[None]:
    """`owner.name` (a bound method) timed into `into` while the block runs, on this instance only."""
    method = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            into.append(time.perf_counter() - began)

    setattr(owner, name, timed)
    try:
        yield
    finally:
        delattr(owner, name)


async def _measure(herotable: Any, bare: Any, size: Size) -> dict[str, Any]:
    from herotable.table.commands import command_from_json

    app, insert = _Driver(herotable), _Driver(bare)
    answer = await app("GET", "/api/v1/csrf")
    headers = [(b"cookie", answer.cookie()), (b"x-csrf-token", answer.json()["csrf_token"].encode())]
    registration = {"username": "benchgm", "password": PASSWORD, "display_name": "Bench GM"}
    answer = await app("POST", "/api/v1/auth/register", json.dumps(registration).encode(), headers)
    if answer.status != 201:
        raise RuntimeError(f"registering: {answer.status} {answer.body[:300]!r}")
    headers = [(b"cookie", answer.cookie()), (b"x-csrf-token", answer.json()["csrf_token"].encode())]
    user = answer.json()["user"]["user_id"]
    answer = await app("POST", "/api/v1/campaigns", json.dumps({"name": "Cost", "ruleset": "ltl"}).encode(), headers)
    campaign = answer.json()["campaign_id"]
    roll = json.dumps(ROLL).encode()
    command_path = f"/api/v1/campaigns/{campaign}/commands"
    services = herotable.state.services
    table = services.table
    store = table.store
    cmd = command_from_json(ROLL)

    async def executed() -> Answer:  # the service's execute, as the command route calls it, without the web
        table.execute(campaign, user, cmd, command_id=uuid.uuid4().hex, fresh=True)
        return Answer(200, [], b"")

    kinds: dict[str, Callable[[], Awaitable[Answer]]] = {
        "herotable_csrf": lambda: app("GET", "/api/v1/csrf", b"", headers),
        "bare_csrf": lambda: insert("GET", "/api/v1/csrf"),
        "herotable_me": lambda: app("GET", "/api/v1/me", b"", headers),
        "herotable_command": lambda: app("POST", command_path, roll, headers),
        "bare_insert": lambda: insert("POST", "/insert", roll),
        "execute": executed,
    }
    for send in kinds.values():
        await _mean_s(send, size.warmup)
    means: dict[str, list[float]] = {kind: [] for kind in kinds}
    appends: list[float] = []
    for _ in range(size.rounds):
        for kind, send in kinds.items():
            if kind == "execute":
                with _timed(store, "append", appends):
                    means[kind].append(await _mean_s(send, size.requests))
            else:
                means[kind].append(await _mean_s(send, size.requests))
    inserts = _bare_inserts(size)
    head = store.head(campaign)
    return {
        "web": {kind: _ms_each(means[kind]) for kind in kinds if kind != "execute"},
        "service": {"execute": _ms_each(means["execute"])},
        "store": {"append": _ms_each(appends), "bare_insert": _ms_each(inserts)},
        "campaign_events": head,
        "ratios": {
            "command_over_bare_insert": round(_ms_each(means["bare_insert"]) / _ms_each(means["herotable_command"]), 2)
        },
    }


def _bare_inserts(size: Size) -> list[float]:
    """The bare insert's transaction alone, on the store's engine, each timed (its own rows table)."""
    from datetime import UTC, datetime

    from herotable.bench.live import DATABASE_URL_ENV, _rows_table
    from herotable.store.engine import create_store_engine, for_writing
    from herotable.store.sql import parse_database_url

    engine = create_store_engine(parse_database_url(os.environ[DATABASE_URL_ENV]))
    writing, rows, times = for_writing(engine), _rows_table(), []
    try:
        for n in range(size.warmup + size.requests * size.rounds):
            began = time.perf_counter()
            with writing.begin() as connection:
                at = datetime.now(UTC).isoformat()
                connection.execute(rows.insert().values(key=uuid.uuid4().hex, at=at, data=json.dumps(ROLL)))
            if n >= size.warmup:
                times.append(time.perf_counter() - began)
    finally:
        engine.dispose()
    return times


def command_cost(size: Size | None = None) -> dict[str, Any]:
    """The figures above, measured in this process on fresh SQLite files in a temporary directory."""
    from herotable.bench.live import DATABASE_URL_ENV, _make_rows_table, bare_insert_app
    from herotable.server.app import create_app
    from herotable.server.settings import Settings

    size = size or Size()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="herotable-bench-cost-") as tmp:
        settings = Settings(
            data_dir=Path(tmp), database_url=f"sqlite:///{tmp}/herotable.db", secret_key="b" * 40, migrate=True
        )
        bare_url = f"sqlite:///{tmp}/bare.db"
        _make_rows_table(bare_url)
        before = os.environ.get(DATABASE_URL_ENV)
        os.environ[DATABASE_URL_ENV] = bare_url  # what the bare app reads, as in its own process
        try:
            bare = bare_insert_app()
            herotable = create_app(settings)

            async def run() -> dict[str, Any]:
                async with herotable.router.lifespan_context(herotable):
                    return await _measure(herotable, bare, size)

            figures = asyncio.run(run())
        finally:
            if before is None:
                os.environ.pop(DATABASE_URL_ENV, None)
            else:
                os.environ[DATABASE_URL_ENV] = before
    return {
        "size": {"requests": size.requests, "rounds": size.rounds, "warmup": size.warmup},
        "ms_per_request": {k: figures[k] for k in ("web", "service", "store")},
        "campaign_events": figures["campaign_events"],
        "ratios": figures["ratios"],
        "seconds": round(time.perf_counter() - started, 1),
    }


if __name__ == "__main__":
    print(json.dumps(command_cost(), indent=2))
