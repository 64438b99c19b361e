"""Live updates: every viewer of a campaign gets the facts they may see, and their own view, as they happen.

Each connection reads its own stream (see `TableService.stream`) from the cursor of the last frame it was sent, so
a frame never skips or repeats a fact, numbers are the viewer's own, and a fact the viewer may not see sends no
frame at all. Across server processes, Redis pub/sub carries "campaign X has new events" (the events themselves when
they are small, else their span, which each process reads from the database itself) and "user Y's sessions
changed".

A socket follows its member: when their role changes it gets a fresh "hello" frame for the new role; when they
are removed, or the session it was opened with ends (logout, password change, "log out everywhere"), it is closed
at once (4403, 4401) on whichever process holds it.

A dropped socket resumes: opened again with the cursor and role of the last frame it got (`?after=…&role=…`), it is
sent every fact its member may see after that cursor, once and in order, instead of a "hello"; a cursor that is
not one of ours or lies past the end of the stream, or a role that changed meanwhile, gets a "hello" instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import queue
import random
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import WebSocket

from herotable.server.auth import LiveSessions, stamp
from herotable.server.log_pages import seen_json
from herotable.server.metrics import Metrics
from herotable.server.pages import live_fragments
from herotable.server.redis_link import RedisAway, RedisLink
from herotable.server.security import digest
from herotable.server.settings import DEFAULT_REDIS_PREFIX
from herotable.service import PAGE, Page, TableService, decode_cursor
from herotable.store.port import StoredEvent, UnknownCampaign
from herotable.table.commands import InvalidCommand
from herotable.table.dice_roll import DiceRolled
from herotable.table.render import Seen
from herotable.table.state import Role, TableState
from herotable.table.views import view_for

log = logging.getLogger(__name__)
CHANNEL = "campaign-events"  # after the settings' Redis prefix: `herotable:campaign-events` by default


def channel(prefix: str) -> str:
    """The Redis channel every process of one instance announces on: appends and ended sessions."""
    return prefix + CHANNEL


HELLO_EVENTS = 200  # a new viewer gets the newest facts of its stream; the API pages through older ones
RECONNECT_FIRST_S = 0.1  # the first wait before listening to Redis again; it doubles, with jitter, …
RECONNECT_MOST_S = 5.0  # … up to this
START_WAIT_S = 2.0  # how long start-up waits for the first subscription before serving anyway
STOP_ASK_S = 0.5  # at shutdown, how long to wait for the listener before asking it to stop again …
STOP_ASKS = 20  # … and how many times, before shutting down without it
CARRIED_BYTES = 16_384  # a batch up to this size travels in its Redis message; a bigger one is read from the store
PREMADE_KEPT = 256  # batches whose frames were made where they landed, kept until they are sent (the oldest go first)
PREMADE_BYTES = 8 * 1024 * 1024  # and the most text their frames may hold together
# facts that change the log alone: a frame of nothing else carries no panels (the log reloads itself)
LOG_ONLY = frozenset({DiceRolled.type})
LOG_ONLY_PREFIXES = ("chat.",)


def _log_only(kind: str) -> bool:
    return kind in LOG_ONLY or kind.startswith(LOG_ONLY_PREFIXES)


def changes_panels(seen: list[Seen]) -> bool:
    """Whether any of these facts may change a panel of the table page besides the log."""
    return not all(_log_only(s.fact.type) for s in seen)


SPECTATORS = "spectators"  # the audience every spectator shares, when they may all see the same


def owners_in(batch: list[StoredEvent] | None) -> frozenset[str | None] | None:
    """The members some event of `batch` is for alone (a whisper's sender and receiver, a hidden roll's owner), or
    None when the batch is not known."""
    return None if batch is None else frozenset(e.owner for e in batch if e.visibility != "public")


def audience_of(role: Role, user: str, owners: frozenset[str | None] | None) -> str:
    """Whose frame a viewer of `role` takes of a batch whose events for one member alone are for `owners` (None: the
    batch is not known): the spectators share one when nothing in the batch is this spectator's alone, so that it is
    made of what every spectator may see; otherwise, and for the GM and each player, their own."""
    return SPECTATORS if role is Role.SPECTATOR and owners is not None and user not in owners else user


def log_only(batch: list[StoredEvent]) -> bool:
    """Whether a batch holds log-only facts alone: its frames carry the facts and nothing else, cheap enough to make
    on the event loop rather than on a thread."""
    return all(_log_only(e.type) for e in batch)


def fragments(state: TableState, user: str, digests: dict[str, str]) -> str:
    """The table page's panels for `user`'s audience, as htmx out-of-band fragments (see `pages.live_fragments`)."""
    return live_fragments(state, user, digests)


# a frame as text (None: nothing its audience may see), the cursor after it, and whether more events wait after it
Frame = tuple[str | None, str, bool]
# frames that bring an audience's stream up to the end of a batch, by the audience and the cursor they start from
Frames = dict[tuple[str, str], Frame]


def announcement(campaign_id: str, events: list[StoredEvent], frames: Frames | None = None) -> str:
    """The Redis message that tells every process of a campaign's new events: a first line with the campaign and the
    span, then, when they are small enough, the events themselves on a second, so other processes make their frames
    without reading the store (and a process with no viewers of the campaign reads the first line alone); and with
    them, when they still fit, `frames` made of the batch, which other processes send as they are."""
    if not events:
        return json.dumps({"campaign_id": campaign_id})
    head = json.dumps({"campaign_id": campaign_id, "first": events[0].seq, "last": events[-1].seq})
    listed = [vars(e) for e in events]  # their fields as they are: JSON values already
    if frames:
        body = json.dumps({"events": listed, "frames": [[*key, text, last] for key, (text, last, _) in frames.items()]})
        if len(head) + len(body) < CARRIED_BYTES:
            return f"{head}\n{body}"
    body = json.dumps({"events": listed})
    return f"{head}\n{body}" if len(head) + len(body) < CARRIED_BYTES else head


def heard(message: str | bytes) -> tuple[dict[str, Any], str | None]:
    """An announcement's first line, read, and the rest (its events, unread), or None. Raises ValueError for a
    message that is not one."""
    text = message.decode() if isinstance(message, bytes) else message
    first, _, rest = text.partition("\n")
    data = json.loads(first)
    if not isinstance(data, dict):
        raise ValueError("an announcement is a JSON object")
    return data, rest or None


def carried(data: dict[str, Any], campaign_id: str, span: tuple[int, int]) -> list[StoredEvent] | None:
    """The events an announcement carries, when it carries the whole span of `campaign_id`'s events; else None (the
    store is read instead)."""
    listed = data.get("events")
    if not isinstance(listed, list) or not all(isinstance(item, dict) for item in listed):
        return None
    try:
        events = [StoredEvent(**item) for item in listed]
    except TypeError:
        return None
    if [e.seq for e in events] != list(range(span[0], span[1] + 1)) or any(
        e.campaign_id != campaign_id for e in events
    ):
        return None
    return events


def carried_frames(data: dict[str, Any]) -> Frames | None:
    """The frames an announcement carries, or None when it carries none (or not as `announcement` writes them, its
    cursors ones this service hands out)."""
    listed = data.get("frames")
    if not isinstance(listed, list):
        return None
    frames: Frames = {}
    for item in listed:
        if not (isinstance(item, list) and len(item) == 4 and all(isinstance(x, str) for x in item[:2])):
            return None
        audience, cursor, text, last = item
        if not (text is None or isinstance(text, str)) or not isinstance(last, str):
            return None
        try:
            decode_cursor(cursor)
            decode_cursor(last)
        except InvalidCommand:
            return None
        frames[(audience, cursor)] = (text, last, False)
    return frames


def _text_bytes(frames: Frames) -> int:
    return sum(len(text) for text, _, _ in frames.values() if text is not None)


# a campaign, a batch of its events to announce, and the frames made of it
Outgoing = tuple[str, list[StoredEvent], Frames | None]


def joined(batches: list[Outgoing]) -> list[Outgoing]:
    """Batches in order, each run of one campaign's that follow on from each other joined into one (with the frames
    made of its last part, which end where the run ends)."""
    out: list[Outgoing] = []
    for campaign_id, events, frames in batches:
        last = out[-1][1] if out and out[-1][0] == campaign_id else None
        if last and events and last[-1].seq + 1 == events[0].seq:
            out[-1] = (campaign_id, [*last, *events], frames)
        else:
            out.append((campaign_id, events, frames))
    return out


# a batch (when known), its span (when told), whether this process appended it (else another announced it), and the
# frames made of it where it landed (up to its end, from the cursors its audiences had before it)
Announced = tuple[list[StoredEvent] | None, tuple[int, int] | None, bool, Frames | None]


def runs(waiting: list[Announced]) -> list[Announced]:
    """Batches that wait to be sent, with each run of known batches that follow on from each other joined into one
    (its span the whole run's; its own when all of it is; the frames made of its last batch, which end where the run
    ends: an audience that has the rest already takes them); an unknown batch, or a call to catch up (neither),
    stays on its own, in order."""
    out: list[Announced] = []
    for events, span, own, made in waiting:
        if events and out:
            last, _, last_own, _ = out[-1]
            if last and last[-1].seq + 1 == events[0].seq and last[-1].campaign_id == events[0].campaign_id:
                joined = [*last, *events]
                out[-1] = (joined, (joined[0].seq, joined[-1].seq), own and last_own, made)
                continue
        out.append((events, span, own, made))
    return out


@dataclass(eq=False)
class Viewer:
    socket: WebSocket
    campaign_id: str
    user: str
    sid: str = ""  # the session the socket was opened with
    token_hash: str = ""  # or the hash of the API token it was opened with
    role: Role | None = None  # the role its frames were made for
    loop: asyncio.AbstractEventLoop = field(default_factory=asyncio.get_running_loop)
    cursor: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Hub:
    """The open WebSockets of this process, by campaign."""

    def __init__(
        self,
        service: TableService,
        link: RedisLink | None = None,
        sessions: LiveSessions | None = None,
        *,
        redis_prefix: str = DEFAULT_REDIS_PREFIX,
        metrics: Metrics | None = None,
    ) -> None:
        self.service = service
        self.metrics = metrics or Metrics()
        self.link = link  # with Redis: what a request publishes (an ending) goes through it, failing fast when away
        self.redis_url = redis_url = link.url if link is not None else None
        self.channel = channel(redis_prefix)
        self.sessions = sessions
        self._viewers: dict[str, set[Viewer]] = {}
        self._guard = threading.Lock()
        self._listener: asyncio.Task[None] | None = None
        self._stopping = False
        self._subscribed = asyncio.Event()
        self._campaign_locks: dict[tuple[str, asyncio.AbstractEventLoop], asyncio.Lock] = {}
        # per campaign and event loop, the batches announced and not yet sent, and whether they are being sent
        self._pending: dict[tuple[str, asyncio.AbstractEventLoop], list[Announced]] = {}
        self._draining: set[tuple[str, asyncio.AbstractEventLoop]] = set()
        # per campaign and event loop, the newest seq whose batch its viewers' frames were made from
        self._sent_upto: dict[tuple[str, asyncio.AbstractEventLoop], int] = {}
        # by campaign, span and last hash, the frames of a batch made where it landed, until its announcement sends them
        self._premade: OrderedDict[tuple[str, int, int, str], Frames] = OrderedDict()
        self._premade_bytes = 0
        self._publisher: Any = None
        # batches to announce, in order, and the thread that announces them (started with the first)
        self._outbox: queue.SimpleQueue[Outgoing | None] = queue.SimpleQueue()
        self._sender: threading.Thread | None = None
        if redis_url:
            import redis

            # a Redis that is down must not hold a command's answer: fail fast, the command is recorded anyway
            self._publisher = redis.Redis.from_url(redis_url, socket_connect_timeout=1, socket_timeout=1)
        service.subscribe(self._appended)

    async def start(self) -> None:
        """Listen for other processes' appends (with Redis), reconnecting for as long as the server runs; called by
        the app's lifespan. Waits briefly for the first subscription, and serves without it if Redis is down."""
        if self.redis_url:
            self._listener = asyncio.create_task(self._listen_forever(self.redis_url))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._subscribed.wait(), START_WAIT_S)

    async def stop(self) -> None:
        if self._listener is not None:
            await self._stop_listening(self._listener)
        with self._guard:
            sender = self._sender
        if sender is not None:  # what is queued goes out first
            self._outbox.put(None)
            await asyncio.to_thread(sender.join, START_WAIT_S)
            with self._guard:
                if not sender.is_alive():
                    self._sender = None
        if self._publisher is not None:
            self._publisher.close()

    async def _stop_listening(self, listener: asyncio.Task[None]) -> None:
        """Cancel the listener and wait for it. A cancellation can be lost inside the Redis client (a timeout
        inside it ending at the same moment), leaving the listener running: ask again, and after `STOP_ASKS` asks
        stop without it rather than hold the shutdown forever."""
        self._stopping = True  # a listener that missed its cancellation leaves its loop at the next turn
        for _ in range(STOP_ASKS):
            listener.cancel()
            done, _pending = await asyncio.wait({listener}, timeout=STOP_ASK_S)
            if done:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    listener.result()
                return
        log.warning("the Redis listener did not stop; shutting down without it")

    async def _listen_forever(self, url: str) -> None:
        """Subscribe and listen; when Redis goes away, wait (a doubling, jittered delay) and subscribe again. After
        any gap every viewer of this process catches up from the store by its own cursor: frames missed while Redis
        was away arrive then, once, in order."""
        import redis.asyncio as aioredis

        delay = RECONNECT_FIRST_S
        gap = False
        while not self._stopping:
            client = aioredis.Redis.from_url(url)
            reason: object = "the subscription ended"
            try:
                pubsub = client.pubsub()
                await pubsub.subscribe(self.channel)
                self._subscribed.set()
                if gap:
                    if self.sessions is not None:  # an ending told before the gap was noticed went unheard
                        self.sessions.heard()
                    log.info("listening to Redis again; every live viewer catches up")
                    self.catch_up()
                gap = False
                delay = RECONNECT_FIRST_S
                await self._listen(pubsub)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis down or gone: keep serving, and try again
                reason = error
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()
            if not gap:  # once per outage
                if self.sessions is not None:  # endings told elsewhere meanwhile are not heard: read the store
                    self.sessions.unheard()
                log.warning("lost Redis (%s); live frames from other processes wait until it is back", reason)
            gap = True
            await asyncio.sleep(delay * random.uniform(0.5, 1.0))
            delay = min(delay * 2, RECONNECT_MOST_S)

    async def _listen(self, pubsub: Any) -> None:
        async for message in pubsub.listen():
            if self._stopping:
                return
            if message.get("type") != "message":
                continue
            try:
                data, rest = heard(message["data"])
            except (ValueError, TypeError):
                continue
            if isinstance(data.get("campaign_id"), str):
                first, last = data.get("first"), data.get("last")
                span = (first, last) if isinstance(first, int) and isinstance(last, int) and 0 < first <= last else None
                with self._guard:  # a campaign nobody here watches: nothing to make frames of (the events unread)
                    watched = bool(self._viewers.get(data["campaign_id"]))
                if watched:
                    events, frames = None, None
                    # a batch this process appended has its frames made: what the announcement carries is not read
                    with self._guard:
                        made_here = span is not None and self._premade_for(data["campaign_id"], span)
                    if span is not None and rest is not None and not made_here:
                        with contextlib.suppress(ValueError, TypeError):
                            body = json.loads(rest)
                            events = carried(body, data["campaign_id"], span)
                            frames = carried_frames(body) if events is not None else None
                    self.notify(data["campaign_id"], events, span=span, frames=frames)
            elif isinstance(data.get("sessions_of"), str):
                self.check_sessions(data["sessions_of"])

    def _appended(self, campaign_id: str, events: list[StoredEvent]) -> None:
        """Called by the service (in whatever thread ran the command) after an append: the command is recorded
        whatever happens here. The frames of this process's viewers are made here first, while the batch and the
        state it landed on are at hand (`_premake`), so the event loop only sends them. With Redis, the announcement
        goes out from a thread of its own, in order, so the command's answer never waits for Redis, carrying the
        frames of every audience of a log-only batch for the other processes; without it (or when it is down) this
        process's viewers are told directly, and the other processes' viewers catch up when their listener is back."""
        made = None
        try:
            made = self._premake(campaign_id, events, everyone=self._publisher is not None)
        except Exception:  # a shortcut: the frames are made when the batch is sent instead
            log.warning("cannot make live frames for %s where its events landed", campaign_id, exc_info=True)
        if self._publisher is None:
            self.notify(campaign_id, events)
            return
        self._outbox.put((campaign_id, events, made if events and log_only(events) else None))
        with self._guard:
            if self._sender is None:
                self._sender = threading.Thread(target=self._announce, name="herotable-announce", daemon=True)
                self._sender.start()

    def _announce(self) -> None:
        """The announcing thread: publishes what `_appended` queued, in order. Batches that queued together and follow
        on from each other go out as one announcement. When a publish fails, the batch is told to this process's
        viewers directly; the next batch tries Redis again (skipping it would leave other processes whose listener
        never lost Redis without those events until another batch came). Failures are logged once until a publish
        succeeds again."""
        failing = False
        while True:
            waiting = [self._outbox.get()]
            while not self._outbox.empty():
                waiting.append(self._outbox.get_nowait())
            stopping = None in waiting  # what came before it still goes out
            batches = [w for w in waiting[: waiting.index(None)] if w is not None] if stopping else waiting
            for campaign_id, events, frames in joined([b for b in batches if b is not None]):
                try:
                    self._publisher.publish(self.channel, announcement(campaign_id, events, frames))
                    if failing:
                        log.info("publishing new events through Redis again")
                    failing = False
                    continue
                except Exception as error:
                    if not failing:
                        log.warning("could not publish new events (%s); telling this process's viewers directly", error)
                    failing = True
                try:
                    self.notify(campaign_id, events)
                except Exception:  # never the end of the thread: later batches still go out
                    log.exception("could not tell this process's viewers of %s", campaign_id)
            if stopping:
                return

    def _premake(self, campaign_id: str, events: list[StoredEvent], everyone: bool = False) -> Frames | None:
        """Make the frames of `events`, a batch this process just appended, for each audience of this process's
        viewers (every spectator; each player; the GM), from the cursor the audience had right before the batch: the
        frames `_update_all` would make of it, made once, in the thread that appended it. Kept by the batch's span
        until its announcement comes (`notify`). With `everyone`, a log-only batch's frames (a few facts each) of a
        campaign watched here are made for every audience of its members too, for the other processes' viewers (its
        members' pages are spread over the processes; one watched nowhere here costs nothing). Nothing is read from
        the store but the portraits' digests, when the batch changes the panels."""
        if not events:
            return None
        with self._guard:
            users = {viewer.user for viewer in self._viewers.get(campaign_id, ())}
        watched = bool(users)
        everyone = everyone and watched and log_only(events)
        state = self.service.remembered(campaign_id, events[-1].seq) if watched else None
        if state is None:
            return None
        if everyone:
            users |= {m.user for m in state.members}
        owners = owners_in(events)
        audiences: dict[tuple[str, str], str] = {}  # (audience, its cursor before the batch): one of its users
        for user in sorted(users):
            role = state.role_of(user)
            cursor = self.service.cursor_at(campaign_id, user, role, events[0].seq - 1) if role else None
            if role is not None and cursor is not None:
                audiences.setdefault((audience_of(role, user, owners), cursor), user)
        portraits = functools.cache(lambda: self.service.store.portrait_digests(campaign_id))
        made = self._frames_of(campaign_id, state, events, audiences, portraits)
        if made and watched:
            self._keep_premade(campaign_id, events, made)
        return made or None

    def _keep_premade(self, campaign_id: str, events: list[StoredEvent], made: Frames) -> None:
        """Keep the frames made of `events` until their announcement comes: `PREMADE_KEPT` batches and `PREMADE_BYTES`
        of text at most, the oldest forgotten first (their batch's frames are then made again when it is sent)."""
        with self._guard:
            self._premade[(campaign_id, events[0].seq, events[-1].seq, events[-1].hash)] = made
            self._premade_bytes += _text_bytes(made)
            while self._premade and (len(self._premade) > PREMADE_KEPT or self._premade_bytes > PREMADE_BYTES):
                self._premade_bytes -= _text_bytes(self._premade.popitem(last=False)[1])

    def _premade_for(self, campaign_id: str, span: tuple[int, int]) -> bool:
        """Whether frames were made here of a batch that ends where `span` does (its last part, when batches queued
        together were announced as one). Holds `_guard`."""
        return any(key[0] == campaign_id and key[2] == span[1] for key in self._premade)

    def _take_premade(self, campaign_id: str, events: list[StoredEvent]) -> Frames | None:
        """The frames made here of the batch that ends where `events` ends (the very batch, by its last hash),
        forgetting those of every batch within `events` (announced together, or told again). Holds `_guard`."""
        first, last = events[0].seq, events[-1].seq
        found = None
        for key in [key for key in self._premade if key[0] == campaign_id and first <= key[1] and key[2] <= last]:
            made = self._premade.pop(key)
            self._premade_bytes -= _text_bytes(made)
            if key[2] == last and key[3] == events[-1].hash:
                found = made
        return found

    def catch_up(self) -> None:
        """Bring every viewer of every campaign on this process up to date from the store. Thread-safe."""
        with self._guard:
            campaigns = [cid for cid, viewers in self._viewers.items() if viewers]
        for campaign_id in campaigns:
            self.notify(campaign_id)

    def notify(
        self,
        campaign_id: str,
        events: list[StoredEvent] | None = None,
        span: tuple[int, int] | None = None,
        frames: Frames | None = None,
    ) -> None:
        """Bring every viewer of the campaign up to date, on each viewer's event loop. Thread-safe. `events`: the
        batch just appended, when known; `span`: the first and last seq of a batch announced by Redis (one this process
        appended or folded is in the service's memory; another's came with the announcement, or is read once for every
        viewer); `frames`: those another process made of its batch, sent as they are when the batch follows on."""
        # a batch this process appended or folded itself, as the service remembers it (no need to check it)
        known = self.service.events_between(campaign_id, span[0] - 1, span[1]) if span is not None else None
        own = known is not None or (events is not None and span is None)  # known here, or told directly
        if known is not None:
            events = known
        with self._guard:
            made = (self._take_premade(campaign_id, events) if own and events else None) or frames
            loops = {viewer.loop for viewer in self._viewers.get(campaign_id, ())}
            starting = []
            for loop in loops:
                key = (campaign_id, loop)
                self._pending.setdefault(key, []).append((events, span, own, made))
                if key not in self._draining:
                    self._draining.add(key)
                    starting.append(loop)
        for loop in starting:
            asyncio.run_coroutine_threadsafe(self._drain(campaign_id, loop), loop)

    async def _drain(self, campaign_id: str, loop: asyncio.AbstractEventLoop) -> None:
        """Bring the campaign's viewers on this loop up to date with every batch announced, until none waits. The
        batches that wait together and follow on from each other make one frame per audience: under many commands at
        once, each audience's frame covers all that landed meanwhile rather than one frame per batch, in turn."""
        key = (campaign_id, loop)
        try:
            while True:
                with self._guard:
                    waiting = self._pending.pop(key, [])
                    if not waiting:
                        self._draining.discard(key)
                        return
                    viewers = [v for v in self._viewers.get(campaign_id, ()) if v.loop is loop]
                for events, span, own, made in runs(waiting):
                    if viewers:
                        try:
                            await self._update_all(campaign_id, viewers, events, span, own, made)
                        except Exception:  # one batch that cannot be sent must not stop the ones after it
                            log.warning("cannot send live frames of %s", campaign_id, exc_info=True)
        except BaseException:  # cancelled (the loop is closing): the next announcement starts afresh
            with self._guard:
                self._draining.discard(key)
            raise

    def _batch(self, campaign_id: str, span: tuple[int, int]) -> list[StoredEvent] | None:
        """The events of `span`, read once for every viewer; None when the log no longer holds them as announced."""
        first, last = span
        events = [e for e in self.service.store.load(campaign_id, first - 1) if e.seq <= last]
        return events if events and events[0].seq == first and events[-1].seq == last else None

    async def _update_all(
        self,
        campaign_id: str,
        viewers: list[Viewer],
        batch: list[StoredEvent] | None = None,
        span: tuple[int, int] | None = None,
        own: bool = True,
        premade: Frames | None = None,
    ) -> None:
        """One frame per audience: viewers who may see the same facts and the same view (every spectator; each
        player; the GM), caught up to the same cursor, share one frame, rendered and encoded once. When the batch
        of events that changed the campaign is known and follows straight on from an audience's cursor, its frame
        is made from the batch with no read (`premade` holds those made where the batch landed; the rest are made
        here, on a thread unless the batch is log-only); otherwise it is read from the store. A batch another
        process announced (not `own`) is taken only when it follows on, by the hash chain, from what this process
        knows. A viewer whose role changed, or who is still being greeted, is brought up to date on its own."""
        key = (campaign_id, asyncio.get_running_loop())
        lock = self._campaign_locks.setdefault(key, asyncio.Lock())
        async with lock:  # one batch at a time per campaign: cursors move in order
            try:
                if batch is not None and not own and not self.service.continues(campaign_id, batch):
                    batch, premade = None, None  # announced events that do not follow on from what is known: read
                if batch is None and span is not None:
                    batch = await asyncio.to_thread(self._batch, campaign_id, span)
                sent = self._sent_upto.get(key)
                if batch and sent is not None and sent < batch[0].seq - 1:
                    # announcements of two processes can cross: the one before this batch has not come yet. Its
                    # events are read once for every audience, rather than each audience's stream on its own
                    gap = await asyncio.to_thread(self._batch, campaign_id, (sent + 1, batch[0].seq - 1))
                    batch = [*gap, *batch] if gap else batch
                state = None
                if batch:  # this process's own batch is remembered; another's is folded onto what is
                    state = self.service.remembered(campaign_id, batch[-1].seq) or self.service.advanced(
                        campaign_id, batch
                    )
                if state is None:
                    state = await asyncio.to_thread(self.service.state, campaign_id)
            except UnknownCampaign:  # the GM deleted it: nothing more will happen there
                for viewer in viewers:
                    await self._close(viewer, 4404, "the GM deleted this campaign")
                return
            except Exception:
                log.warning("cannot read campaign %s for its live viewers", campaign_id, exc_info=True)
                return
            groups: dict[tuple[str, str], list[Viewer]] = {}
            alone: list[Viewer] = []
            owners = owners_in(batch or None)
            for viewer in viewers:
                role = state.role_of(viewer.user)
                if role is None or role is not viewer.role or viewer.cursor is None:
                    alone.append(viewer)
                    continue
                audience = audience_of(role, viewer.user, owners)
                groups.setdefault((audience, viewer.cursor), []).append(viewer)
            portraits = functools.cache(lambda: self.service.store.portrait_digests(campaign_id))
            made: Frames = {}
            if batch:
                self._sent_upto[key] = max(batch[-1].seq, self._sent_upto.get(key, 0))
                if premade:  # made of the batch's own last part: they end where it ends
                    made = {k: premade[k] for k in groups if k in premade}
                rest = {k: group[0].user for k, group in groups.items() if k not in made}
                try:
                    if rest and log_only(batch):
                        made |= self._frames_of(campaign_id, state, batch, rest, portraits)
                    elif rest:
                        made |= await asyncio.to_thread(self._frames_of, campaign_id, state, batch, rest, portraits)
                except Exception:
                    log.warning("cannot make live frames for %s from its new events", campaign_id, exc_info=True)
            for (audience, cursor), group in groups.items():
                try:
                    found = made.get((audience, cursor))
                    if found is None and len(group) > 1 and audience == SPECTATORS:
                        alone += group  # read from the store: what each has of their own there is not known
                        continue
                    if found is None:
                        found = await asyncio.to_thread(self._frame, campaign_id, group[0].user, cursor, portraits)
                    text, last, more = found
                except Exception:
                    log.warning("cannot make a live frame for %s", campaign_id, exc_info=True)
                    continue
                for viewer in group:
                    await self._deliver(viewer, cursor, text, last)
                if more:  # a long gap (Redis was away): the rest of it, page by page
                    alone += group
            for viewer in alone:
                await self._update(viewer)

    def _frames_of(
        self,
        campaign_id: str,
        state: TableState,
        batch: list[StoredEvent],
        audiences: dict[tuple[str, str], str],
        portraits: Callable[[], Any],
    ) -> Frames:
        """The frames of the audiences (by audience and cursor: one of its users) whose cursor `batch` follows straight
        on from, made from the batch alone."""
        made = {}
        for (audience, cursor), user in audiences.items():
            page = self.service.following(state, user, cursor, batch)
            if page is not None:
                made[(audience, cursor)] = self._frame(campaign_id, user, cursor, portraits, (page, state))
        return made

    def _frame(
        self,
        campaign_id: str,
        user: str,
        cursor: str | None,
        portraits: Callable[[], Any] | None = None,
        known: tuple[Page, TableState] | None = None,
    ) -> Frame:
        """The frame for `user`'s audience as text, the cursor after it, and whether more events wait after it: the
        events after `cursor` (a page of them at most), or with no cursor a "hello" with the newest of the stream,
        and (`html`) the table page's panels those events change, rendered for that audience. None instead of
        text: nothing they may see happened. `portraits` gives the campaign's portrait digests (a batch reads them
        once for all its audiences). `known`: the page after `cursor` and the state, made from a batch just appended
        (nothing is read)."""
        svc = self.service
        if known is not None:
            page, state = known
            if not page.seen:
                return None, page.last, False
        else:
            if cursor is None:
                page = svc.stream(campaign_id, user, limit=HELLO_EVENTS)
            else:
                page = svc.stream(campaign_id, user, after=cursor, limit=PAGE)
                if not page.seen:
                    return None, cursor, False
            state = svc.state(campaign_id)
        role = state.role_of(user)
        frame: dict[str, Any] = {
            "type": "hello" if cursor is None else "events",
            "role": role.value if role is not None else None,
            "events": [seen_json(state, s) for s in page.seen],
            "cursor": page.last,
        }
        whole = cursor is None or changes_panels(page.seen)  # a frame of log-only facts carries just the facts
        if whole:
            frame["view"] = view_for(state, user)
        if role is not None and whole:
            digests = portraits() if portraits is not None else svc.store.portrait_digests(campaign_id)
            frame["html"] = fragments(state, user, digests)
        return json.dumps(frame), page.last, known is None and cursor is not None and len(page.seen) >= PAGE

    async def _deliver(self, viewer: Viewer, cursor: str, text: str | None, last: str) -> None:
        """Send a shared frame to one viewer, if it is still where the frame starts; else catch it up alone."""
        async with viewer.lock:
            if viewer.cursor == cursor:
                if text is None:
                    return
                try:
                    await viewer.socket.send_text(text)
                    self.metrics.frames.inc()
                except Exception:  # a broken socket drops that viewer, not the broadcast
                    log.info("dropping a live viewer of %s", viewer.campaign_id, exc_info=True)
                    self.leave(viewer)
                    return
                viewer.cursor = last
                return
        await self._update(viewer)

    def sessions_ended(self, user: str) -> None:
        """Some of `user`'s sessions ended: forget them here at once, then on every process, and close their sockets.
        While Redis is away only this process is told; the others read sessions from the store meanwhile (see
        `LiveSessions`). Thread-safe."""
        if self.sessions is not None:
            self.sessions.ended(user)
        if self.link is not None:
            notice = json.dumps({"sessions_of": user})
            try:
                self.link.ask(lambda client: client.publish(self.channel, notice))
                return
            except RedisAway:  # Redis is a notifier: this process still closes its own sockets
                pass
        self.check_sessions(user)

    def check_sessions(self, user: str) -> None:
        """Some of `user`'s sessions may have ended: forget what this process keeps of them, and close its sockets of
        `user` whose session is no longer alive. Thread-safe."""
        if self.sessions is not None:
            self.sessions.ended(user)
        with self._guard:
            viewers = [v for vs in self._viewers.values() for v in vs if v.user == user]
        for viewer in viewers:
            asyncio.run_coroutine_threadsafe(self.recheck(viewer), viewer.loop)

    async def recheck(self, viewer: Viewer) -> None:
        """Close `viewer`'s socket if its session is no longer alive, as the store says now. A store that cannot say
        leaves the socket open (it was alive a moment ago), and says so in the log."""
        if self.sessions is None:
            return
        accounts = self.sessions.accounts  # the store itself: what it says now
        try:
            if viewer.token_hash:
                found = await asyncio.to_thread(accounts.token_user, viewer.token_hash, stamp())
                alive = found[1] if found is not None else None
            else:
                alive = await asyncio.to_thread(accounts.session_user, digest(viewer.sid), stamp())
        except Exception:
            log.warning("cannot check the session of a live viewer of %s", viewer.campaign_id, exc_info=True)
            return
        if alive is None or alive.user_id != viewer.user:
            why = "this API token was revoked or its account ended" if viewer.token_hash else "your session ended"
            await self._close(viewer, 4401, f"{why}: log in again" if not viewer.token_hash else why)

    async def _close(self, viewer: Viewer, code: int, reason: str) -> None:
        self.leave(viewer)
        with contextlib.suppress(Exception):  # already gone is as good as closed
            await viewer.socket.close(code=code, reason=reason)

    async def join(self, viewer: Viewer, after: str | None = None, role: str | None = None) -> None:
        """Start sending `viewer` its frames: a "hello", or, resuming a dropped socket, every fact it may see after
        `after` (the cursor of the last frame it got, for the role `role` that frame was made for)."""
        with self._guard:
            self._viewers.setdefault(viewer.campaign_id, set()).add(viewer)
        self.metrics.sockets.inc()
        await self._send(viewer, hello=True, resume=None if after is None else (after, role))

    def leave(self, viewer: Viewer) -> None:
        with self._guard:
            viewers = self._viewers.get(viewer.campaign_id, set())
            there = viewer in viewers
            viewers.discard(viewer)
        if there:
            self.metrics.sockets.dec()

    async def _update(self, viewer: Viewer) -> None:
        try:
            await self._send(viewer)
        except Exception:  # a broken socket drops that viewer, not the broadcast
            log.info("dropping a live viewer of %s", viewer.campaign_id, exc_info=True)
            self.leave(viewer)

    async def _send(self, viewer: Viewer, hello: bool = False, resume: tuple[str, str | None] | None = None) -> None:
        """Bring `viewer` up to date (with `hello`, afresh), page by page; `resume`: the cursor and role a dropped
        socket last got, to carry on from when they still hold."""
        async with viewer.lock:
            svc = self.service
            state = await asyncio.to_thread(svc.state, viewer.campaign_id)
            role = state.role_of(viewer.user)
            if role is None:
                await self._close(viewer, 4403, "you are no longer a member of this campaign")
                return
            if resume is not None and await asyncio.to_thread(self._resumable, viewer, role, *resume):
                hello, viewer.role, viewer.cursor = False, role, resume[0]
            if role is not viewer.role:  # a new role sees a different stream: start it afresh
                hello, viewer.role = True, role
            cursor = None if hello else viewer.cursor
            more = True
            while more:
                text, last, more = await asyncio.to_thread(self._frame, viewer.campaign_id, viewer.user, cursor)
                if text is None:
                    return
                await viewer.socket.send_text(text)
                self.metrics.frames.inc()
                viewer.cursor = cursor = last

    def _resumable(self, viewer: Viewer, role: Role, after: str, was: str | None) -> bool:
        """Whether a dropped socket may carry on from `after`: the member's role is still `was` (when given; another
        role reads another stream) and the cursor is one this service handed out, not past the stream's end."""
        if was is not None and was != role.value:
            return False
        try:
            self.service.stream(viewer.campaign_id, viewer.user, after=after, limit=1, untrusted=True)
        except InvalidCommand:
            return False
        return True
