"""The live path under load, as a streamed game: one campaign, `viewers` spectators on WebSockets, one player
rolling `table.roll 1d20` in a closed loop. Each roll's latency is the time from sending the command to a viewer's
frame holding it, over every (roll, viewer) pair. The same loop against a bare broadcast (a WebSocket endpoint that
sends a frame of the same size to every socket, nothing else) is the yardstick: the goal is herotable within 3× of
it. Run by `make bench` (`herotable.bench`), or alone: `python -m herotable.bench_live`.
"""

from __future__ import annotations

import asyncio
import json
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

PASSWORD = "bench-password-0123"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class _Server:
    """An ASGI app served by uvicorn on its own thread."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.port = _free_port()
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", ws="auto")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> _Server:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the bench server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(20)

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def _summary(latencies: list[float], elapsed: float, commands: int) -> dict[str, float]:
    return {
        "commands_per_s": round(commands / elapsed, 1),
        "latency_p50_ms": round(1000 * statistics.median(latencies), 1),
        "latency_p99_ms": round(1000 * _percentile(latencies, 99), 1),
    }


async def _run_loop(
    sockets: list[Any], send: Callable[[int], Awaitable[str]], commands: int, key: Callable[[dict[str, Any]], list[str]]
) -> tuple[list[float], float]:
    """Send `commands` one after another, each once every socket has its frame; the latencies and the time taken."""
    arrived: dict[str, list[float]] = {}
    waiting: dict[str, asyncio.Event] = {}

    async def read(ws: Any) -> None:
        async for raw in ws:
            now = time.perf_counter()
            for k in key(json.loads(raw)):
                arrived.setdefault(k, []).append(now)
                if len(arrived[k]) == len(sockets) and k in waiting:
                    waiting[k].set()

    readers = [asyncio.create_task(read(ws)) for ws in sockets]
    latencies: list[float] = []
    started = time.perf_counter()
    for n in range(commands):
        sent = time.perf_counter()
        k = await send(n)
        event = waiting.setdefault(k, asyncio.Event())
        if len(arrived.get(k, ())) < len(sockets):
            await asyncio.wait_for(event.wait(), 60)
        latencies += [t - sent for t in arrived[k]]
    elapsed = time.perf_counter() - started
    for task in readers:
        task.cancel()
    return latencies, elapsed


def _bare_app(frame_bytes: int) -> Any:
    """The yardstick: sockets that get, on each POST, one frame of `frame_bytes` bytes, sent to each in turn."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route, WebSocketRoute
    from starlette.websockets import WebSocket

    sockets: set[WebSocket] = set()

    async def ws(socket_: WebSocket) -> None:
        await socket_.accept()
        sockets.add(socket_)
        try:
            while True:
                await socket_.receive_text()
        except Exception:
            sockets.discard(socket_)

    async def post(request: Request) -> JSONResponse:
        body = await request.json()
        text = json.dumps({"key": body["key"], "padding": "x" * max(0, frame_bytes - 40)})
        for s in list(sockets):
            await s.send_text(text)
        return JSONResponse({"key": body["key"]})

    return Starlette(routes=[WebSocketRoute("/ws", ws), Route("/broadcast", post, methods=["POST"])])


async def _bare(viewers: int, commands: int, frame_bytes: int) -> dict[str, float]:
    import httpx
    import websockets

    with _Server(_bare_app(frame_bytes)) as server:
        sockets = [await websockets.connect(f"{server.ws}/ws", max_size=None) for _ in range(viewers)]
        async with httpx.AsyncClient(base_url=server.http) as client:

            async def send(n: int) -> str:
                answer = await client.post("/broadcast", json={"key": f"k{n}"})
                return str(answer.json()["key"])

            latencies, elapsed = await _run_loop(sockets, send, commands, lambda frame: [frame["key"]])
        for s in sockets:
            await s.close()
    return _summary(latencies, elapsed, commands)


async def _herotable(viewers: int, commands: int, data_dir: Path) -> tuple[dict[str, float], int]:
    import httpx
    import websockets

    from herotable.dice import SeededRng
    from herotable.server.app import create_app
    from herotable.server.settings import Settings
    from herotable.store.sql import open_store

    store = open_store(f"sqlite:///{data_dir / 'live.db'}")
    settings = Settings(secret_key="bench-live-secret-0123456789", register_attempts=10_000, address_attempts=10_000)
    app = create_app(settings, store=store, rng=SeededRng("live"))
    with _Server(app) as server:

        async def member(name: str) -> httpx.AsyncClient:
            client = httpx.AsyncClient(base_url=server.http)
            csrf = (await client.get("/api/v1/csrf")).json()["csrf_token"]
            answer = await client.post(
                "/api/v1/auth/register",
                json={"username": name, "password": PASSWORD, "display_name": name.title()},
                headers={"X-CSRF-Token": csrf},
            )
            answer.raise_for_status()
            client.headers["X-CSRF-Token"] = answer.json()["csrf_token"]
            return client

        gm = await member("gamemaster")
        cid = (await gm.post("/api/v1/campaigns", json={"name": "Streamed", "ruleset": "ltl"})).json()["campaign_id"]

        async def joined(name: str, role: str) -> httpx.AsyncClient:
            client = await member(name)
            code = (await gm.post(f"/api/v1/campaigns/{cid}/invites", json={"role": role})).json()["code"]
            (await client.post(f"/api/v1/join/{code}", json={})).raise_for_status()
            return client

        player = await joined("roller", "player")
        watchers = [await joined(f"viewer{n:03d}", "spectator") for n in range(viewers)]
        sockets = []
        for w in watchers:
            cookie = "; ".join(f"{k}={v}" for k, v in w.cookies.items())
            ws = await websockets.connect(
                f"{server.ws}/ws/campaigns/{cid}",
                additional_headers={"Cookie": cookie, "Origin": server.http},
                max_size=None,
            )
            hello = json.loads(await ws.recv())
            assert hello["type"] == "hello", hello
            sockets.append(ws)
        sizes: list[int] = []

        async def send(n: int) -> str:
            answer = await player.post(
                f"/api/v1/campaigns/{cid}/commands", json={"type": "table.roll", "expression": "1d20"}
            )
            answer.raise_for_status()
            return str(answer.json()["command_id"])

        def keys(frame: dict[str, Any]) -> list[str]:
            if frame.get("events"):
                sizes.append(len(json.dumps(frame)))
            return sorted({e["command_id"] for e in frame.get("events", ())})

        latencies, elapsed = await _run_loop(sockets, send, commands, keys)
        for s in sockets:
            await s.close()
        for c in (gm, player, *watchers):
            await c.aclose()
    store.close()
    return _summary(latencies, elapsed, commands), round(statistics.median(sizes)) if sizes else 0


def live(viewers: int = 50, commands: int = 40) -> dict[str, object]:
    """herotable's live path against a bare broadcast of frames of the same size, in one run."""
    with tempfile.TemporaryDirectory() as tmp:
        table, frame_bytes = asyncio.run(_herotable(viewers, commands, Path(tmp)))
    bare = asyncio.run(_bare(viewers, commands, frame_bytes))
    return {
        "viewers": viewers,
        "commands": commands,
        "frame_bytes": frame_bytes,
        "herotable": table,
        "bare_broadcast": bare,
        "p50_over_bare": round(table["latency_p50_ms"] / bare["latency_p50_ms"], 2),
        "p99_over_bare": round(table["latency_p99_ms"] / bare["latency_p99_ms"], 2),
    }


if __name__ == "__main__":
    print(json.dumps(live(), indent=2))
