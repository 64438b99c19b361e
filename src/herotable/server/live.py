"""Live updates: every viewer of a campaign gets the events they may see, and their own view, as they happen.

Each connection remembers the last seq it was sent and is brought up to date from the store, so a frame can
never skip or repeat an event, and secrets are filtered per viewer exactly as for the API. Across server
processes, Redis pub/sub carries only "campaign X has new events"; each process reads them from the
database itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from fastapi import WebSocket

from herotable.service import TableService
from herotable.store.port import StoredEvent

log = logging.getLogger(__name__)
CHANNEL = "herotable:campaign-events"
HELLO_EVENTS = 200  # a new viewer gets the latest events of the log; the API pages through older ones


def event_json(e: StoredEvent) -> dict[str, Any]:
    return {
        "seq": e.seq,
        "type": e.type,
        "actor": e.actor,
        "at": e.at,
        "visibility": e.visibility,
        "command_id": e.command_id,
        "summary": e.data.get("summary", {}),
        "faces": e.data.get("faces", []),
    }


@dataclass(eq=False)
class Viewer:
    socket: WebSocket
    campaign_id: str
    user: str
    loop: asyncio.AbstractEventLoop = field(default_factory=asyncio.get_running_loop)
    sent_seq: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Hub:
    """The open WebSockets of this process, by campaign."""

    def __init__(self, service: TableService, redis_url: str | None = None) -> None:
        self.service = service
        self.redis_url = redis_url
        self._viewers: dict[str, set[Viewer]] = {}
        self._guard = threading.Lock()
        self._listener: asyncio.Task[None] | None = None
        self._publisher: Any = None
        if redis_url:
            import redis

            self._publisher = redis.Redis.from_url(redis_url)
        service.subscribe(self._appended)

    async def start(self) -> None:
        """Listen for other processes' appends (with Redis); called by the app's lifespan."""
        if self.redis_url:
            import redis.asyncio as aioredis

            pubsub = aioredis.Redis.from_url(self.redis_url).pubsub()
            await pubsub.subscribe(CHANNEL)
            self._listener = asyncio.create_task(self._listen(pubsub))

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        if self._publisher is not None:
            self._publisher.close()

    async def _listen(self, pubsub: Any) -> None:
        async for message in pubsub.listen():
            if message.get("type") != "message":
                continue
            try:
                campaign_id = json.loads(message["data"])["campaign_id"]
            except (ValueError, KeyError, TypeError):
                continue
            self.notify(campaign_id)

    def _appended(self, campaign_id: str, events: list[StoredEvent]) -> None:
        """Called by the service (in whatever thread ran the command) after an append."""
        if self._publisher is not None:
            self._publisher.publish(CHANNEL, json.dumps({"campaign_id": campaign_id, "seq": events[-1].seq}))
        else:
            self.notify(campaign_id)

    def notify(self, campaign_id: str) -> None:
        """Bring every viewer of the campaign up to date, each on its own event loop. Thread-safe."""
        with self._guard:
            viewers = list(self._viewers.get(campaign_id, ()))
        for viewer in viewers:
            asyncio.run_coroutine_threadsafe(self._update(viewer), viewer.loop)

    async def join(self, viewer: Viewer) -> None:
        with self._guard:
            self._viewers.setdefault(viewer.campaign_id, set()).add(viewer)
        await self._send(viewer, hello=True)

    def leave(self, viewer: Viewer) -> None:
        with self._guard:
            self._viewers.get(viewer.campaign_id, set()).discard(viewer)

    async def _update(self, viewer: Viewer) -> None:
        try:
            await self._send(viewer)
        except Exception:  # a broken socket drops that viewer, not the broadcast
            log.info("dropping a live viewer of %s", viewer.campaign_id, exc_info=True)
            self.leave(viewer)

    async def _send(self, viewer: Viewer, hello: bool = False) -> None:
        async with viewer.lock:
            head = await asyncio.to_thread(self.service.store.head, viewer.campaign_id)
            if head <= viewer.sent_seq and not hello:
                return
            events = await asyncio.to_thread(self.service.events_for, viewer.campaign_id, viewer.user, viewer.sent_seq)
            events = [e for e in events if e.seq <= head][-HELLO_EVENTS if hello else None :]
            view = await asyncio.to_thread(self.service.view, viewer.campaign_id, viewer.user)
            frame = {"type": "hello" if hello else "events", "events": [event_json(e) for e in events], "view": view}
            await viewer.socket.send_text(json.dumps(frame))
            viewer.sent_seq = head
