"""Live updates: every viewer of a campaign gets the facts they may see, and their own view, as they happen.

Each connection reads its own stream (see `TableService.stream`) from the cursor of the last frame it was sent, so
a frame never skips or repeats a fact, numbers are the viewer's own, and a fact the viewer may not see sends no
frame at all. Across server processes, Redis pub/sub carries only "campaign X has new events" (each process reads
them from the database itself) and "user Y's sessions changed".

A socket follows its member: when their role changes it gets a fresh "hello" frame for the new role; when they
are removed, or the session it was opened with ends (logout, password change, "log out everywhere"), it is closed
at once (4403, 4401) on whichever process holds it.
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

from herotable.server.auth import stamp
from herotable.server.security import digest
from herotable.service import Page, TableService
from herotable.store.accounts import AccountStore
from herotable.store.port import StoredEvent
from herotable.table.facts import payload_of
from herotable.table.render import Seen, render
from herotable.table.state import Role, TableState

log = logging.getLogger(__name__)
CHANNEL = "herotable:campaign-events"
HELLO_EVENTS = 200  # a new viewer gets the newest facts of its stream; the API pages through older ones


def seen_json(state: TableState, s: Seen) -> dict[str, Any]:
    """One fact as its viewer reads it: their own position, never the global sequence."""
    return {
        "position": s.position,
        "type": s.fact.type,
        "command_id": s.command_id,
        "actor": s.actor,
        "at": s.at,
        "visibility": s.visibility,
        "text": render(state, s.fact),
        "fact": payload_of(s.fact),
        "undone": s.command_id in state.undone,
    }


@dataclass(eq=False)
class Viewer:
    socket: WebSocket
    campaign_id: str
    user: str
    sid: str = ""  # the session the socket was opened with
    role: Role | None = None  # the role its frames were made for
    loop: asyncio.AbstractEventLoop = field(default_factory=asyncio.get_running_loop)
    cursor: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Hub:
    """The open WebSockets of this process, by campaign."""

    def __init__(
        self, service: TableService, redis_url: str | None = None, accounts: AccountStore | None = None
    ) -> None:
        self.service = service
        self.redis_url = redis_url
        self.accounts = accounts
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
                data = json.loads(message["data"])
            except (ValueError, TypeError):
                continue
            if not isinstance(data, dict):
                continue
            if isinstance(data.get("campaign_id"), str):
                self.notify(data["campaign_id"])
            elif isinstance(data.get("sessions_of"), str):
                self.check_sessions(data["sessions_of"])

    def _appended(self, campaign_id: str, events: list[StoredEvent]) -> None:
        """Called by the service (in whatever thread ran the command) after an append."""
        if self._publisher is not None:
            self._publisher.publish(CHANNEL, json.dumps({"campaign_id": campaign_id}))
        else:
            self.notify(campaign_id)

    def notify(self, campaign_id: str) -> None:
        """Bring every viewer of the campaign up to date, each on its own event loop. Thread-safe."""
        with self._guard:
            viewers = list(self._viewers.get(campaign_id, ()))
        for viewer in viewers:
            asyncio.run_coroutine_threadsafe(self._update(viewer), viewer.loop)

    def sessions_ended(self, user: str) -> None:
        """Some of `user`'s sessions ended: close their sockets, on every process. Thread-safe."""
        if self._publisher is not None:
            try:
                self._publisher.publish(CHANNEL, json.dumps({"sessions_of": user}))
                return
            except Exception:  # Redis is a notifier: this process still closes its own sockets
                log.warning("could not publish the end of %s's sessions", user, exc_info=True)
        self.check_sessions(user)

    def check_sessions(self, user: str) -> None:
        """Close this process's sockets of `user` whose session is no longer alive. Thread-safe."""
        with self._guard:
            viewers = [v for vs in self._viewers.values() for v in vs if v.user == user]
        for viewer in viewers:
            asyncio.run_coroutine_threadsafe(self._check_session(viewer), viewer.loop)

    async def _check_session(self, viewer: Viewer) -> None:
        if self.accounts is None:
            return
        alive = await asyncio.to_thread(self.accounts.session_user, digest(viewer.sid), stamp())
        if alive is None or alive.user_id != viewer.user:
            await self._close(viewer, 4401, "your session ended: log in again")

    async def _close(self, viewer: Viewer, code: int, reason: str) -> None:
        self.leave(viewer)
        with contextlib.suppress(Exception):  # already gone is as good as closed
            await viewer.socket.close(code=code, reason=reason)

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
            svc = self.service
            state = await asyncio.to_thread(svc.state, viewer.campaign_id)
            role = state.role_of(viewer.user)
            if role is None:
                await self._close(viewer, 4403, "you are no longer a member of this campaign")
                return
            if role is not viewer.role:  # a new role sees a different stream: start it afresh
                hello, viewer.role = True, role
            if hello:
                page: Page = await asyncio.to_thread(svc.stream, viewer.campaign_id, viewer.user, limit=HELLO_EVENTS)
            else:
                page = await asyncio.to_thread(svc.stream, viewer.campaign_id, viewer.user, after=viewer.cursor)
                if not page.seen:
                    return  # nothing this viewer may see happened: no frame at all
            state = await asyncio.to_thread(svc.state, viewer.campaign_id)
            view = await asyncio.to_thread(svc.view, viewer.campaign_id, viewer.user)
            frame = {
                "type": "hello" if hello else "events",
                "role": role.value,
                "events": [seen_json(state, s) for s in page.seen],
                "cursor": page.last,
                "view": view,
            }
            await viewer.socket.send_text(json.dumps(frame))
            viewer.cursor = page.last
