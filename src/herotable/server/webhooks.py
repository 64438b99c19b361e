"""Outgoing webhooks: what a campaign's table sees, sent to Discord or to any receiver of signed JSON.

A command that the whole table sees leaves a row in the outbox, written with the command itself
(`herotable.store.webhooks`). The `Courier` of each server process takes the rows due, renders each as a spectator
reads it in the log (`log_entries` over the command's public events only: never a secret roll, a pending roll, a
whisper or a hidden sheet), sends it, and records the answer for the GM to see. A failed delivery is tried again after
10 s, 20 s, 40 s… up to 8 tries; Discord's 429 is waited out as its `Retry-After` says. An undo edits the Discord
message of the action it undid (signed JSON: an `undo` event naming it).

Every connection is checked where it is made (`GuardedBackend`): the name is resolved once and each address checked,
so a name that resolves differently a moment later (DNS rebinding) reaches nothing it was not allowed to. Loopback,
private and link-local addresses are refused unless the operator allows them (`webhook_private_addresses`); the
server's own port and its Redis are refused always.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import ipaddress
import json
import logging
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpcore

from herotable.service import TableService, recorded
from herotable.store.port import StoredEvent
from herotable.store.webhooks import ACTION, FAILED, PENDING, SENT, SKIPPED, TEST, Delivery, Webhook, WebhookStore
from herotable.table.chat import ChatRolled, ChatSaid
from herotable.table.render import LogEntry, Seen, log_entries
from herotable.table.undo import ActionUndone

log = logging.getLogger("herotable.webhooks")

MAX_TRIES = 8
GONE = (401, 403, 404, 410)  # a receiver's answers that mean the webhook is no more (Discord: deleted, or its token)
FIRST_WAIT_S = 10.0  # then 20, 40, 80 … s
LONGEST_WAIT_S = 3600.0
POLL_S = 5.0  # how often a process looks for rows written by another process
CLAIM = 8  # rows taken at once
SENDERS = 4  # deliveries at once, in each process
ANSWER_KEPT = 300  # characters of the receiver's answer kept for the GM
ANSWER_READ = 64 * 1024  # bytes of an answer read at most
NOT_SENT = frozenset({ChatSaid.type, ChatRolled.type})  # table talk stays at the table (no outbox row either)
SIGNATURE_HEADER = "Herotable-Signature"
TIMESTAMP_HEADER = "Herotable-Timestamp"
DELIVERY_HEADER = "Herotable-Delivery"
USER_AGENT = "herotable-webhooks/1"


class Unreachable(Exception):
    """An address the server will not send to; the message says which and why. `final`: the address itself is
    refused (trying again will not change it); otherwise the name did not resolve just now."""

    def __init__(self, message: str, *, final: bool = True) -> None:
        super().__init__(message)
        self.final = final


NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
LINK_LOCAL = (ipaddress.ip_network("169.254.0.0/16"), ipaddress.ip_network("fe80::/10"))  # cloud metadata lives here


def embedded(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (mapped, compatible, 6to4, Teredo, NAT64): each is checked as
    well, since a network may route to it."""
    if isinstance(ip, ipaddress.IPv4Address):
        return []
    found = [a for a in (ip.ipv4_mapped, ip.sixtofour) if a is not None]
    if ip.teredo is not None:
        found.extend(ip.teredo)
    if ip in IPV4_COMPATIBLE or any(ip in net for net in NAT64):
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return found


@dataclass(frozen=True)
class Reach:
    """Where webhooks may go. `allow_private`: loopback and private addresses too (never link-local, where cloud
    metadata lives). `guarded_ports`: the ports of the server itself, its Redis and its database, refused on every
    address that is not public; `forbidden`: (address, port) pairs of those refused wherever they are."""

    allow_private: bool = False
    guarded_ports: frozenset[int] = frozenset()
    forbidden: frozenset[tuple[str, int]] = frozenset()

    def addresses(self, host: str, port: int) -> list[str]:
        """The addresses `host` resolves to, every one checked. Raises Unreachable."""
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as err:
            said = getattr(err, "strerror", None) or err
            raise Unreachable(f"the name {host!r} does not resolve ({said})", final=False) from None
        found: list[str] = []
        for info in infos:
            address = str(info[4][0]).split("%", 1)[0]
            if address not in found:
                found.append(address)
        for address in found:
            self.check(address, port)
        return found

    def check(self, address: str, port: int) -> None:
        """Raises Unreachable for an address (or one it carries) a webhook may not reach on `port`."""
        ip = ipaddress.ip_address(address)
        for each in (ip, *embedded(ip)):
            self._check(each, port)

    def _check(self, ip: ipaddress.IPv4Address | ipaddress.IPv6Address, port: int) -> None:
        public = ip.is_global and not ip.is_site_local if isinstance(ip, ipaddress.IPv6Address) else ip.is_global
        if (str(ip), port) in self.forbidden or (port in self.guarded_ports and not public):
            raise Unreachable(
                f"{ip} port {port} may be herotable's own server, its Redis or its database, which webhooks never reach"
            )
        if ip.is_multicast or ip.is_unspecified:
            raise Unreachable(f"{ip} is not an address a receiver can have")
        if any(ip in net for net in LINK_LOCAL):
            raise Unreachable(
                f"{ip} is a link-local address (where cloud metadata is served), which webhooks never reach"
            )
        if not public and not self.allow_private:
            raise Unreachable(
                f"{ip} is a loopback or private address, which webhooks do not reach unless the server's operator "
                "allows it (HEROTABLE_WEBHOOK_PRIVATE_ADDRESSES)"
            )


def _port_of(url: str | None, default: int | None) -> tuple[str | None, int | None]:
    if not url:
        return None, None
    try:
        parts = urlsplit(url)
        return parts.hostname, parts.port or default or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None, None


def _resolved(host: str | None) -> list[str]:
    if not host:
        return []
    try:
        return sorted({str(info[4][0]).split("%", 1)[0] for info in socket.getaddrinfo(host, None)})
    except OSError:
        return []


def reach_for(settings: Any) -> Reach:
    """The reach of webhooks under these settings. The server's own port, its Redis's and its database's are refused
    on every address that is not public, and on the addresses their names have; so is the public address."""
    db = settings.database_url if settings.database_url and not settings.database_url.startswith("sqlite") else None
    guarded = [(settings.host, settings.port), _port_of(settings.redis_url, 6379), _port_of(db, 5432)]
    places = [*guarded, _port_of(settings.public_url, None)]
    ports = frozenset(port for _, port in guarded if port)
    forbidden = frozenset((address, port) for host, port in places if port for address in _resolved(host))
    return Reach(settings.webhook_private_addresses, ports, forbidden)


_deadline = threading.local()  # when the request this thread is sending must be over (`Sender.send`)


def _left(timeout: float | None) -> float | None:
    """What is left of the request's time, at most `timeout`. Raises httpcore.ReadTimeout once it is all spent."""
    until: float | None = getattr(_deadline, "at", None)
    if until is None:
        return timeout
    left = until - time.monotonic()
    if left <= 0:
        raise httpcore.ReadTimeout("the request took longer than its time in all")
    return left if timeout is None else min(timeout, left)


class DeadlineStream(httpcore.NetworkStream):
    """A connection whose every read and write waits at most what is left of its request's time: a receiver that
    answers a byte at a time holds a delivery no longer than a silent one."""

    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _left(timeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        return DeadlineStream(self._stream.start_tls(ssl_context, server_hostname, _left(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class GuardedBackend(httpcore.SyncBackend):
    """Connections made only to addresses `reach` allows, resolved here once: the address checked is the address
    connected to. TLS still checks the certificate against the name in the URL."""

    def __init__(self, reach: Callable[[], Reach]) -> None:
        self._reach = reach
        self._known: Reach | None = None

    @property
    def reach(self) -> Reach:
        """Resolved when the first webhook is sent, not as the server starts: a name that does not resolve then
        must not hold the start up."""
        if self._known is None:
            self._known = self._reach()
        return self._known

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        last: Exception | None = None
        for address in self.reach.addresses(host, port):
            try:
                return DeadlineStream(super().connect_tcp(address, port, _left(timeout), local_address, socket_options))
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as err:
                last = err
        assert last is not None
        raise last


@dataclass(frozen=True)
class Answer:
    status: int
    headers: Mapping[str, str]
    body: bytes

    def said(self) -> str:
        text = self.body.decode("utf-8", "replace").strip()
        text = re.sub(r"\s+", " ", text)
        return f"HTTP {self.status}" + (f": {text[:ANSWER_KEPT]}" if text else "")


class Sender:
    """HTTP requests to receivers, through the guarded backend, with no proxy from the environment and no redirect
    followed (a redirect could lead anywhere)."""

    def __init__(self, reach: Callable[[], Reach], timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self.backend = GuardedBackend(reach)
        self.pool = httpcore.ConnectionPool(network_backend=self.backend, max_connections=16, retries=0)

    def refusal(self, url: str) -> str | None:
        """Why `url` can never be sent to, when its host is an address (a name is checked when it is sent to: what
        it resolves to may change)."""
        parts = urlsplit(url)
        try:
            address = ipaddress.ip_address(parts.hostname or "")
        except ValueError:
            return None
        try:
            self.backend.reach.check(str(address), parts.port or (443 if parts.scheme == "https" else 80))
        except Unreachable as err:
            return str(err)
        return None

    def send(self, method: str, url: str, body: bytes, headers: Mapping[str, str]) -> Answer:
        """Raises Unreachable, or httpcore's errors (a timeout, a refused connection). The whole request, answer
        included, takes at most `timeout_s`."""
        t = self.timeout_s
        sent = {"Content-Type": "application/json", "User-Agent": USER_AGENT, **headers}
        _deadline.at = time.monotonic() + t
        try:
            return self._send(method, url, body, sent)
        finally:
            _deadline.at = None

    def _send(self, method: str, url: str, body: bytes, sent: Mapping[str, str]) -> Answer:
        t = self.timeout_s
        with self.pool.stream(
            method,
            url,
            headers=list(sent.items()),
            content=body,
            extensions={"timeout": {"connect": t, "read": t, "write": t, "pool": t}},
        ) as response:
            got = bytearray()
            for chunk in response.iter_stream():
                got += chunk
                if len(got) >= ANSWER_READ:
                    break
            names = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in response.headers}
            return Answer(response.status, names, bytes(got[:ANSWER_READ]))


def check_url(url: str) -> str | None:
    """Why `url` cannot be a webhook's address, or None."""
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 (raises for a port out of range)
    except ValueError:
        return "it is not a URL"
    if parts.scheme not in ("http", "https"):
        return "it must start with https:// (or http://)"
    if not parts.hostname:
        return "it has no host name"
    if parts.username or parts.password:
        return "it must not carry a user name or password"
    if parts.fragment:
        return "it must not have a #fragment"
    if len(url) > 2000:
        return "it is longer than 2,000 characters"
    if not url.isascii() or any(c.isspace() for c in url):
        return "it has spaces or letters beyond ASCII: use the address as the receiver gave it (IDNA, %-encoded)"
    if parts.port == 0:
        return "port 0 is no port"
    try:
        httpcore.URL(url)
    except Exception:
        return "it is not a URL that can be sent to"
    return None


def shown_url(url: str) -> str:
    """The address as the GM sees it on the page: the host, and the path's first part when it has more; never the
    rest, where Discord's token (and many a receiver's secret) is."""
    parts = urlsplit(url)
    first, _, rest = parts.path.lstrip("/").partition("/")
    if not rest:  # a path of one part may be all of the receiver's secret
        return f"{parts.scheme}://{parts.netloc}" + ("/…" if first or parts.query else "")
    return f"{parts.scheme}://{parts.netloc}/{first}/…"


# --- what is said -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Told:
    """One action as a spectator reads it, ready to send."""

    kind: str  # action, undo or test
    campaign_id: str
    campaign: str
    link: str | None
    command_id: str | None
    at: str
    who: str
    title: str
    lines: tuple[str, ...]
    dice: tuple[tuple[int, int], ...] = ()
    undone: bool = False
    undoes: tuple[str, ...] = field(default=())


_MARKDOWN = re.compile(r"([\\*_~`|<>\[\]()#-])")


def plain(text: str) -> str:
    """`text` with Discord's markdown characters escaped: a name or a line is shown as typed, never as formatting,
    and never pings anyone (mentions are off in every message too)."""
    return _MARKDOWN.sub(r"\\\1", text)


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def dice_text(dice: Sequence[tuple[int, int]]) -> str:
    return " · ".join(f"d{sides} **{face}**" for sides, face in dice)


def discord_body(told: Told) -> dict[str, Any]:
    """Discord's webhook JSON for `told`: one embed with who acted, what, the dice faces and a link back."""
    struck = told.undone
    lines = "\n".join(plain(line) for line in told.lines) or plain(told.title)
    embed: dict[str, Any] = {
        "author": {"name": _cut(told.who or told.campaign, 256)},
        "title": _cut(("Undone: " if struck else "") + told.title, 256),
        "description": _cut(f"~~{lines}~~\n*This was undone.*" if struck else lines, 4000),
        "footer": {"text": _cut(f"{told.campaign} · herotable", 2048)},
        "color": 0x8A8F98 if struck else (0x5865F2 if told.kind == TEST else 0xC0392B),
    }
    if told.at:
        embed["timestamp"] = told.at
    if told.link:
        embed["url"] = told.link
    if told.dice:
        embed["fields"] = [{"name": "Dice", "value": _cut(dice_text(told.dice), 1024), "inline": False}]
    return {"username": "herotable", "embeds": [embed], "allowed_mentions": {"parse": []}}


def json_body(told: Told, delivery: str) -> dict[str, Any]:
    """herotable's own JSON event for `told`; `id` is the same on every try of a delivery (drop duplicates by it)."""
    return {
        "id": delivery,
        "type": told.kind,
        "campaign": {"id": told.campaign_id, "name": told.campaign, "url": told.link},
        "command_id": told.command_id,
        "at": told.at,
        "who": told.who,
        "title": told.title,
        "lines": list(told.lines),
        "dice": [{"sides": s, "face": f} for s, f in told.dice],
        "undone": told.undone,
        "undoes": list(told.undoes),
    }


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """`v1=` and the hex HMAC-SHA256, keyed with the webhook's secret, of the timestamp, a dot and the body."""
    mac = hmac.new(secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256)
    return "v1=" + mac.hexdigest()


# --- the courier ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """How one try went: `ok`, or why not and whether to `retry` (after `wait_s`, or the backoff's wait when None);
    the message it made at the receiver (Discord's id)."""

    ok: bool
    answer: str
    retry: bool = True
    wait_s: float | None = None
    remote_id: str | None = None
    skipped: bool = False  # nothing to send: no request was made
    gone: bool = False  # the receiver says the webhook no longer exists: stop sending to it


def backoff_s(tries: int) -> float:
    """The wait after the `tries`-th failed try: 10 s, doubling, at most an hour."""
    wait: float = FIRST_WAIT_S * 2.0 ** (tries - 1)
    return min(wait, LONGEST_WAIT_S)


class Courier:
    """Sends the outbox of every campaign, in this process: `deliver_due` once (tests), or `start` a thread that does
    so whenever an append of this process wrote outbox rows (`wake`, called by the event store), and every few
    seconds for rows written elsewhere. A command on a campaign with no webhook does not wake it."""

    def __init__(
        self,
        store: WebhookStore,
        table: TableService,
        *,
        public_url: str | None,
        sender: Sender,
        clock: Callable[[], float] = time.time,
        timeout_s: float = 10.0,
        counted: Callable[[str], None] = lambda outcome: None,
    ) -> None:
        self.store = store
        self.table = table
        self.public_url = public_url.rstrip("/") if public_url else None
        self.sender = sender
        self.clock = clock
        self.counted = counted  # each try's outcome, for the metrics
        # a request takes at most `timeout_s` in all (`Sender`): a live worker settles a row well within its lease
        self.lease_s = timeout_s + 30
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._in_flight: set[int] = set()
        self._lock = threading.Lock()

    # the thread
    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="webhooks", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Take no more rows. A delivery under way is left to finish (within its time) or, should the process end
        first, to be sent again by another once its lease runs out."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=POLL_S)

    def wake(self) -> None:
        self._wake.set()

    def _run(self) -> None:
        """Keep up to SENDERS deliveries under way: a slow receiver holds one sender, never the others, and a row is
        taken as soon as a sender is free. A webhook's next row is not due while its older one is under way."""
        pool = ThreadPoolExecutor(SENDERS, thread_name_prefix="webhook")
        try:
            while not self._stop.is_set():
                with self._lock:
                    free = SENDERS - len(self._in_flight)
                rows: list[Delivery] = []
                if free > 0:
                    try:
                        rows = self.store.claim(self.clock(), self.lease_s, free)
                    except Exception:  # a database that went away: tried again at the next poll
                        log.exception("webhook deliveries could not be taken")
                for row in rows:
                    with self._lock:
                        self._in_flight.add(row.delivery_id)
                    pool.submit(self._deliver_then_free, row)
                if not rows:
                    self._wake.wait(POLL_S)
                    self._wake.clear()
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def _deliver_then_free(self, row: Delivery) -> None:
        try:
            self.deliver(row)
        except Exception:  # recorded by the next try, once the lease runs out
            log.exception("webhook delivery %s could not be recorded", row.delivery_id)
        finally:
            with self._lock:
                self._in_flight.discard(row.delivery_id)
            self._wake.set()

    # one round, for tests and tools
    def deliver_due(self) -> int:
        """Send the rows due now, waiting for each; how many were taken."""
        rows = self.store.claim(self.clock(), self.lease_s, CLAIM)
        if len(rows) == 1:
            self.deliver(rows[0])
        elif rows:
            with ThreadPoolExecutor(min(SENDERS, len(rows)), thread_name_prefix="webhook") as pool:
                list(pool.map(self.deliver, rows))
        return len(rows)

    def deliver(self, row: Delivery) -> Delivery:
        """One try at `row`, its outcome recorded."""
        hook = self.store.webhook(row.webhook_id)
        if hook is None:  # removed meanwhile, with its rows
            return row
        try:
            outcome = self.send_safely(hook, row)
        except Exception as err:  # a log that cannot be read, a store gone: recorded, tried later
            log.exception("webhook delivery %s failed before sending", row.delivery_id)
            outcome = Outcome(False, f"could not be prepared: {type(err).__name__}")
        settled = self._settled(row, outcome)
        if not self.store.settle(settled):  # another worker took it meanwhile: its outcome stands
            log.warning("webhook delivery %s outlived its lease; another worker's outcome stands", row.delivery_id)
            return row
        self.counted("retried" if settled.state == PENDING else settled.state)
        if outcome.gone:
            at = datetime.fromtimestamp(self.clock(), UTC).isoformat(timespec="seconds")
            self.store.stop_webhook(hook.webhook_id, at, outcome.answer.split(" (", 1)[0])
        return settled

    def _settled(self, row: Delivery, outcome: Outcome) -> Delivery:
        now = self.clock()
        if outcome.ok:
            state = SKIPPED if outcome.skipped else SENT
            return replace(
                row, state=state, tries=row.tries + 1, answer=outcome.answer, remote_id=outcome.remote_id, done_at=now
            )
        tries = row.tries + 1
        if not outcome.retry or tries >= MAX_TRIES:
            return replace(row, state=FAILED, tries=tries, answer=outcome.answer, done_at=now)
        wait = backoff_s(tries) if outcome.wait_s is None else outcome.wait_s
        return replace(row, state=PENDING, tries=tries, answer=outcome.answer, next_at=now + wait)

    def _try(self, hook: Webhook, row: Delivery) -> Outcome:
        told = self.told(hook, row)
        if told is None:
            return Outcome(True, "nothing the table sees: not sent", skipped=True)
        if hook.format == "discord":
            return self._discord(hook, row, told)
        return self._json(hook, row, told)

    # what a row says
    def told(self, hook: Webhook, row: Delivery) -> Told | None:
        """The row as a spectator reads it, or None when it says nothing they see."""
        state = self.table.state(row.campaign_id)
        link = f"{self.public_url}/campaigns/{row.campaign_id}/table" if self.public_url else None
        if row.kind == TEST:
            return Told(
                TEST,
                row.campaign_id,
                state.name,
                link,
                None,
                row.created_at,
                "herotable",
                "A test message",
                (f"The webhook “{hook.name}” reaches this channel: the table's rolls will appear here.",),
            )
        events = [
            e
            for e in self.table.store.command_events(row.campaign_id, row.command_id or "")
            if row.first_seq <= e.seq <= row.last_seq and e.visibility == "public"
        ]
        return self._told_of(state, events, link, row.command_id)

    def _told_of(
        self, state: Any, events: Sequence[StoredEvent], link: str | None, command_id: str | None
    ) -> Told | None:
        facts = recorded(events)
        seen = [
            Seen(e.seq, r.command_id, e.actor, e.at, e.visibility, r.fact, r.command_type)
            for e, r in zip(events, facts, strict=True)
            if r.fact.type not in NOT_SENT
        ]
        entries: list[LogEntry] = [x for x in log_entries(state, seen) if not x.private]
        if not entries:
            return None
        entry = entries[0]
        undoes = tuple(str(s.fact.command_id) for s in seen if isinstance(s.fact, ActionUndone))
        lines = tuple(line for x in entries for line in x.lines)
        dice = tuple(d for x in entries for d in x.dice)
        return Told(
            "undo" if undoes else ACTION,
            state.campaign_id,
            state.name,
            link,
            command_id,
            entry.at,
            entry.who,
            entry.title,
            lines,
            dice,
            entry.undone and not undoes,
            undoes,
        )

    # the two formats
    def _discord(self, hook: Webhook, row: Delivery, told: Told) -> Outcome:
        if told.kind == "undo":
            return self._discord_undo(hook, row, told)
        answer = self.sender.send("POST", _with_query(hook.url, wait="true"), _dumps(discord_body(told)), {})
        outcome = self._outcome(answer)
        if outcome.ok:
            message = _json_of(answer.body).get("id")
            said = f"{outcome.answer}, message {message}" if message else outcome.answer
            return replace(outcome, answer=said, remote_id=str(message) if message else None)
        return outcome

    def _discord_undo(self, hook: Webhook, row: Delivery, told: Told) -> Outcome:
        """Edit the message of each undone action to say so; an action never sent is left alone."""
        edited: list[str] = []
        for undone in told.undoes:
            message = self.store.sent_message(hook.webhook_id, undone)
            if message is None:
                continue
            original = self._told_of(
                self.table.state(row.campaign_id),
                [e for e in self.table.store.command_events(row.campaign_id, undone) if e.visibility == "public"],
                told.link,
                undone,
            )
            if original is None:
                continue
            body = discord_body(replace(original, undone=True))
            answer = self.sender.send("PATCH", _message_url(hook.url, message), _dumps(body), {})
            outcome = self._outcome(answer)
            if not outcome.ok:
                return outcome
            edited.append(message)
        if not edited:
            return Outcome(True, "nothing to edit: the undone action was not sent here", skipped=True)
        return Outcome(
            True, f"HTTP {answer.status}, message {edited[0]} edited to say it was undone", remote_id=edited[0]
        )

    def _json(self, hook: Webhook, row: Delivery, told: Told) -> Outcome:
        delivery = f"{row.webhook_id}.{row.delivery_id}"
        body = _dumps(json_body(told, delivery))
        stamp = int(self.clock())
        headers = {
            DELIVERY_HEADER: delivery,
            TIMESTAMP_HEADER: str(stamp),
            SIGNATURE_HEADER: signature(hook.secret, stamp, body),
        }
        return self._outcome(self.sender.send("POST", hook.url, body, headers))

    @staticmethod
    def _outcome(answer: Answer) -> Outcome:
        status = answer.status
        if 200 <= status < 300:  # its body is the receiver's business (Discord's: the whole message)
            return Outcome(True, f"HTTP {status}")
        if status == 429:
            return Outcome(False, answer.said(), wait_s=retry_after(answer))
        if 300 <= status < 400:  # never followed (it could lead anywhere): the address to give instead
            where = answer.headers.get("location", "")
            moved = f" (moved to {where[:ANSWER_KEPT]}: add the webhook with that address)" if where else ""
            return Outcome(False, f"HTTP {status}{moved}", False)
        if status in GONE:  # Discord's answer for a deleted webhook: sending more would only be refused again
            said = (
                answer.said()
                + " (the receiver says this webhook is gone: nothing more is sent until a test reaches it)"
            )
            return Outcome(False, said, False, gone=True)
        if 400 <= status < 500 and status not in (408, 409, 425):  # the request itself is wrong: trying again won't do
            return Outcome(False, answer.said() + " (not tried again: the receiver refused the request itself)", False)
        return Outcome(False, answer.said())

    def send_safely(self, hook: Webhook, row: Delivery) -> Outcome:
        """One try, every network error an outcome."""
        try:
            return self._try(hook, row)
        except Unreachable as err:
            return Outcome(False, f"not sent: {err}", retry=not err.final)
        except httpcore.TimeoutException:
            return Outcome(False, f"no answer within {self.sender.timeout_s:g} s")
        except httpcore.UnsupportedProtocol as err:
            return Outcome(False, f"not sent: {err}", False)
        except (httpcore.NetworkError, httpcore.ProtocolError, OSError) as err:
            return Outcome(False, f"could not connect: {err or type(err).__name__}")


def retry_after(answer: Answer) -> float:
    """Discord's wait before the next request, from its `Retry-After` header or its JSON `retry_after`."""
    for given in (answer.headers.get("retry-after"), _json_of(answer.body).get("retry_after")):
        with contextlib.suppress(TypeError, ValueError):
            if given is not None:
                wait = float(given)
                return min(max(wait, 0.0), LONGEST_WAIT_S)
    return FIRST_WAIT_S


def _json_of(body: bytes) -> dict[str, Any]:
    try:
        found = json.loads(body)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def _dumps(body: Mapping[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def _with_query(url: str, **more: str) -> str:
    parts = urlsplit(url)
    query = "&".join(q for q in (parts.query, "&".join(f"{k}={v}" for k, v in more.items())) if q)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def _message_url(url: str, message: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + f"/messages/{message}", parts.query, ""))
