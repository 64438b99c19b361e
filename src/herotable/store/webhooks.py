"""Outgoing webhooks: the receivers a GM set for a campaign, and the outbox of what is to be sent to them.

The outbox is written by the event store's `append`, in the transaction that records the command (`enqueue`): a
command whose events reach the table (public ones) leaves one row for each of its campaign's webhooks, naming the
command and the seqs of its events. Nothing about a webhook ever runs on the command's path; workers in every
process take the rows due (`claim`: `FOR UPDATE SKIP LOCKED` on PostgreSQL, SQLite's write lock taken up front), send
them, and record how it went (`settle`). A row taken is leased for a while: a process that stops while sending leaves
it to be taken again once the lease ends, so every row is sent at least once.

The rows of one webhook go out in the order they were written: a row is due only when no older row of its webhook is
still pending (a test message goes out at once, beside them).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from sqlalchemy import bindparam, delete, insert, select, text, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import aliased

from herotable.store.engine import for_one_read, for_writing
from herotable.store.port import EventStore, StoredEvent, StoreError, UnknownCampaign
from herotable.store.schema import CampaignRecord, OutboxRecord, WebhookRecord

NOT_TOLD = frozenset({"chat.said", "chat.rolled"})  # the table's talk stays at the table: no outbox row
KEPT = 50  # settled rows kept per webhook, for the GM to see how deliveries went
PENDING, SENT, FAILED, SKIPPED = "pending", "sent", "failed", "skipped"
ACTION, TEST = "action", "test"


@dataclass(frozen=True)
class Webhook:
    """A receiver a GM set for a campaign: where to send (`url`), in which `format` (Discord's webhook JSON, or
    herotable's own JSON signed with `secret`)."""

    webhook_id: str
    campaign_id: str
    name: str
    url: str
    format: str
    secret: str
    created_by: str
    created_at: str
    stopped_at: str | None = None  # when the receiver said it is gone (401, 403, 404, 410): nothing is sent since
    stopped_why: str = ""  # its answer then


@dataclass(frozen=True)
class Delivery:
    """One row of the outbox: what to send to one webhook (a command's events `first_seq`…`last_seq`, or a test),
    how many tries it had, when it is due again, how it went (`answer`: the receiver's answer or why none came) and,
    once sent to Discord, the message it made (`remote_id`), which an undo edits. Times are seconds since the
    epoch, but `created_at`, the time of the command (ISO 8601)."""

    delivery_id: int
    webhook_id: str
    campaign_id: str
    kind: str
    command_id: str | None
    first_seq: int
    last_seq: int
    created_at: str
    tries: int = 0
    next_at: float = 0.0
    claimed_until: float = 0.0
    state: str = PENDING
    answer: str = ""
    remote_id: str | None = None
    done_at: float | None = None


def public_commands(stored: Sequence[StoredEvent]) -> list[tuple[str, int, int, str]]:
    """The commands among `stored` with events the whole table sees, each as (command id, first seq, last seq, at):
    what a webhook may be told about."""
    found: dict[str, tuple[str, int, int, str]] = {}
    for e in stored:
        if e.visibility != "public" or e.type in NOT_TOLD:
            continue
        first = found.get(e.command_id)
        found[e.command_id] = (e.command_id, first[1] if first else e.seq, e.seq, first[3] if first else e.at)
    return list(found.values())


_ENQUEUE = text(
    "INSERT INTO webhook_outbox (webhook_id, campaign_id, kind, command_id, first_seq, last_seq, created_at, tries, "
    "next_at, claimed_until, state, answer) "
    "SELECT webhook_id, campaign_id, 'action', :command_id, :first_seq, :last_seq, :created_at, 0, 0, 0, 'pending', '' "
    "FROM webhooks WHERE campaign_id = :campaign_id AND stopped_at IS NULL"
)


# the claim's first look: a row that may be due, read with no lock. The courier looks at every wake and every poll
# (POLL_S, in every process), and most looks find nothing; they must not each take the write lock (on SQLite, the
# lock every command's append waits for)
_MAY_BE_DUE = (
    select(OutboxRecord.delivery_id)
    .where(OutboxRecord.state == PENDING)
    .where(OutboxRecord.next_at <= bindparam("now"))
    .where(OutboxRecord.claimed_until <= bindparam("now"))
    .limit(1)
)


def enqueue(connection: Connection, campaign_id: str, stored: Sequence[StoredEvent]) -> bool:
    """Write the outbox rows of `stored` (just appended) in the append's own transaction: one per webhook of the
    campaign and command the table sees (a campaign with no webhook writes none). Whether it wrote any."""
    rows = [
        {"campaign_id": campaign_id, "command_id": c, "first_seq": first, "last_seq": last, "created_at": at}
        for c, first, last, at in public_commands(stored)
    ]
    if rows:
        connection.execute(_ENQUEUE, rows)
    return bool(rows)


class WebhookStore(Protocol):
    def add_webhook(self, hook: Webhook) -> Webhook:
        """Keep `hook`. Raises `UnknownCampaign`."""
        ...

    def webhooks(self, campaign_id: str) -> list[Webhook]:
        """The campaign's webhooks, oldest first."""
        ...

    def webhook(self, webhook_id: str) -> Webhook | None: ...

    def remove_webhook(self, campaign_id: str, webhook_id: str) -> bool:
        """Forget the webhook and its outbox rows; whether there was one."""
        ...

    def enqueue_test(self, hook: Webhook, at: str) -> int:
        """A test message for `hook`, due now; its delivery id. A stopped webhook starts again: the test tells
        whether its receiver is back."""
        ...

    def stop_webhook(self, webhook_id: str, at: str, why: str) -> None:
        """Stop sending to a webhook whose receiver said it is gone; its pending actions fail with `why`."""
        ...

    def claim(self, now: float, lease_s: float, limit: int) -> list[Delivery]:
        """Take up to `limit` rows due at `now`, each the oldest pending of its webhook (or a test), leased until
        `now + lease_s`: no other worker takes them meanwhile."""
        ...

    def settle(self, delivery: Delivery) -> bool:
        """Record how a delivery went (its state, tries, next time, answer, Discord message), ending its lease; only
        while the lease it was taken with (`claimed_until`) still holds: whether it did. Settled rows beyond the
        KEPT latest of the webhook are forgotten."""
        ...

    def test_pending(self, webhook_id: str) -> bool:
        """Whether a test message to the webhook is still on its way."""
        ...

    def deliveries(self, webhook_id: str, limit: int = 10) -> list[Delivery]:
        """The webhook's latest rows that had something to send, newest first."""
        ...

    def sent_message(self, webhook_id: str, command_id: str) -> str | None:
        """The message a sent delivery of `command_id` made at the receiver (Discord's message id), if any."""
        ...


def _due() -> Any:
    """The statement that finds the rows due at `now`: each webhook's oldest pending action (a test message goes
    beside them), at most `limit`. Built once: the sender runs it on every wake and every poll."""
    older = aliased(OutboxRecord)
    behind = (
        select(older.delivery_id)
        .where(older.webhook_id == OutboxRecord.webhook_id)
        .where(older.state == PENDING)
        .where(older.kind == ACTION)
        .where(older.delivery_id < OutboxRecord.delivery_id)
        .exists()
    )
    return (
        select(OutboxRecord.delivery_id)
        .where(OutboxRecord.state == PENDING)
        .where(OutboxRecord.next_at <= bindparam("now"))
        .where(OutboxRecord.claimed_until <= bindparam("now"))
        .where((OutboxRecord.kind == TEST) | ~behind)
        .order_by(OutboxRecord.delivery_id)
        .limit(bindparam("limit"))
        .with_for_update(skip_locked=True)  # PostgreSQL; SQLite's write lock is taken as the transaction begins
    )


_DUE = _due()


class SqlWebhookStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._writer = for_writing(engine)
        self._one_read = for_one_read(engine)

    def add_webhook(self, hook: Webhook) -> Webhook:
        with self._writer.begin() as connection:
            known = connection.execute(
                select(CampaignRecord.campaign_id).where(CampaignRecord.campaign_id == hook.campaign_id)
            ).first()
            if known is None:
                raise UnknownCampaign(hook.campaign_id)
            connection.execute(insert(WebhookRecord).values(**vars(hook)))
            connection.execute(_count(hook.campaign_id, +1))
        return hook

    def webhooks(self, campaign_id: str) -> list[Webhook]:
        with self._engine.connect() as connection:
            rows = connection.execute(
                select(WebhookRecord)
                .where(WebhookRecord.campaign_id == campaign_id)
                .order_by(WebhookRecord.created_at, WebhookRecord.webhook_id)
            )
            return [_webhook(row) for row in rows]

    def webhook(self, webhook_id: str) -> Webhook | None:
        with self._engine.connect() as connection:
            row = connection.execute(select(WebhookRecord).where(WebhookRecord.webhook_id == webhook_id)).first()
        return None if row is None else _webhook(row)

    def remove_webhook(self, campaign_id: str, webhook_id: str) -> bool:
        with self._writer.begin() as connection:
            gone = connection.execute(
                delete(WebhookRecord)
                .where(WebhookRecord.webhook_id == webhook_id)
                .where(WebhookRecord.campaign_id == campaign_id)
            )
            if not gone.rowcount:
                return False
            connection.execute(delete(OutboxRecord).where(OutboxRecord.webhook_id == webhook_id))
            connection.execute(_count(campaign_id, -1))
            return True

    def stop_webhook(self, webhook_id: str, at: str, why: str) -> None:
        with self._writer.begin() as connection:
            connection.execute(
                update(WebhookRecord)
                .where(WebhookRecord.webhook_id == webhook_id)
                .values(stopped_at=at, stopped_why=why)
            )
            connection.execute(
                update(OutboxRecord)
                .where(OutboxRecord.webhook_id == webhook_id)
                .where(OutboxRecord.state == PENDING)
                .where(OutboxRecord.kind == ACTION)
                .values(state=FAILED, answer=f"not sent: the webhook stopped ({why})", claimed_until=0.0)
            )

    def enqueue_test(self, hook: Webhook, at: str) -> int:
        with self._writer.begin() as connection:
            connection.execute(
                update(WebhookRecord)
                .where(WebhookRecord.webhook_id == hook.webhook_id)
                .values(stopped_at=None, stopped_why="")
            )
            made = connection.execute(
                insert(OutboxRecord)
                .values(
                    webhook_id=hook.webhook_id,
                    campaign_id=hook.campaign_id,
                    kind=TEST,
                    command_id=None,
                    first_seq=0,
                    last_seq=0,
                    created_at=at,
                    tries=0,
                    next_at=0.0,
                    claimed_until=0.0,
                    state=PENDING,
                    answer="",
                )
                .returning(OutboxRecord.delivery_id)
            )
            return int(made.scalar_one())

    def claim(self, now: float, lease_s: float, limit: int) -> list[Delivery]:
        with self._one_read.connect() as connection:  # most looks find nothing: no write lock for them
            if connection.execute(_MAY_BE_DUE, {"now": now}).first() is None:
                return []
        with self._writer.begin() as connection:
            ids = list(connection.execute(_DUE, {"now": now, "limit": limit}).scalars())
            if not ids:
                return []
            connection.execute(
                update(OutboxRecord).where(OutboxRecord.delivery_id.in_(ids)).values(claimed_until=now + lease_s)
            )
            rows = connection.execute(
                select(OutboxRecord).where(OutboxRecord.delivery_id.in_(ids)).order_by(OutboxRecord.delivery_id)
            )
            return [_delivery(row) for row in rows]

    def settle(self, delivery: Delivery) -> bool:
        with self._writer.begin() as connection:
            settled = connection.execute(
                update(OutboxRecord)
                .where(OutboxRecord.delivery_id == delivery.delivery_id)
                .where(OutboxRecord.claimed_until == delivery.claimed_until)
                .values(
                    state=delivery.state,
                    tries=delivery.tries,
                    next_at=delivery.next_at,
                    claimed_until=0.0,
                    answer=delivery.answer,
                    remote_id=delivery.remote_id,
                    done_at=delivery.done_at,
                )
            )
            if not settled.rowcount:
                return False
            if delivery.state != PENDING:
                oldest_kept = (
                    select(OutboxRecord.delivery_id)
                    .where(OutboxRecord.webhook_id == delivery.webhook_id)
                    .order_by(OutboxRecord.delivery_id.desc())
                    .offset(KEPT)
                    .limit(1)
                    .scalar_subquery()
                )
                connection.execute(
                    delete(OutboxRecord)
                    .where(OutboxRecord.webhook_id == delivery.webhook_id)
                    .where(OutboxRecord.state != PENDING)
                    .where(OutboxRecord.delivery_id <= oldest_kept)
                )
            return True

    def test_pending(self, webhook_id: str) -> bool:
        with self._engine.connect() as connection:
            found = connection.execute(
                select(OutboxRecord.delivery_id)
                .where(OutboxRecord.webhook_id == webhook_id)
                .where(OutboxRecord.kind == TEST)
                .where(OutboxRecord.state == PENDING)
                .limit(1)
            ).first()
        return found is not None

    def deliveries(self, webhook_id: str, limit: int = 10) -> list[Delivery]:
        with self._engine.connect() as connection:
            rows = connection.execute(
                select(OutboxRecord)
                .where(OutboxRecord.webhook_id == webhook_id)
                .where(OutboxRecord.state != SKIPPED)
                .order_by(OutboxRecord.delivery_id.desc())
                .limit(limit)
            )
            return [_delivery(row) for row in rows]

    def sent_message(self, webhook_id: str, command_id: str) -> str | None:
        with self._engine.connect() as connection:
            found: str | None = connection.execute(
                select(OutboxRecord.remote_id)
                .where(OutboxRecord.webhook_id == webhook_id)
                .where(OutboxRecord.command_id == command_id)
                .where(OutboxRecord.state == SENT)
                .where(OutboxRecord.remote_id.is_not(None))
                .order_by(OutboxRecord.delivery_id)
                .limit(1)
            ).scalar_one_or_none()
        return found


def _count(campaign_id: str, by: int) -> Any:
    """Move the campaign's count of webhooks, which every append reads with the head."""
    return (
        update(CampaignRecord)
        .where(CampaignRecord.campaign_id == campaign_id)
        .values(webhooks=CampaignRecord.webhooks + by)
    )


def _webhook(row: object) -> Webhook:
    return Webhook(**{name: getattr(row, name) for name in Webhook.__dataclass_fields__})


def _delivery(row: object) -> Delivery:
    return Delivery(**{name: getattr(row, name) for name in Delivery.__dataclass_fields__})


class MemoryWebhookStore:
    """The same, in memory, kept by a `MemoryEventStore` (whose `append` calls `enqueue` under its own lock)."""

    def __init__(self, campaigns: EventStore) -> None:
        self._campaigns = campaigns
        self._lock = threading.Lock()
        self._hooks: dict[str, Webhook] = {}
        self._rows: dict[int, Delivery] = {}
        self._next = 1

    def enqueue(self, campaign_id: str, stored: Sequence[StoredEvent]) -> bool:
        """Write the outbox rows of `stored`: whether there were any."""
        with self._lock:
            hooks = [h for h in self._hooks.values() if h.campaign_id == campaign_id and h.stopped_at is None]
            wrote = False
            for c, first, last, at in public_commands(stored) if hooks else ():
                for h in hooks:
                    self._add(Delivery(0, h.webhook_id, campaign_id, ACTION, c, first, last, at))
                    wrote = True
            return wrote

    def _add(self, row: Delivery) -> int:
        number = self._next
        self._next += 1
        self._rows[number] = replace(row, delivery_id=number)
        return number

    def forget_campaign(self, campaign_id: str) -> None:
        with self._lock:
            self._hooks = {k: h for k, h in self._hooks.items() if h.campaign_id != campaign_id}
            self._rows = {k: r for k, r in self._rows.items() if r.campaign_id != campaign_id}

    def add_webhook(self, hook: Webhook) -> Webhook:
        self._campaigns.campaign(hook.campaign_id)  # raises UnknownCampaign
        with self._lock:
            if hook.webhook_id in self._hooks:
                raise StoreError(f"webhook {hook.webhook_id!r} already exists. Tip: make a new id")
            self._hooks[hook.webhook_id] = hook
        return hook

    def webhooks(self, campaign_id: str) -> list[Webhook]:
        with self._lock:
            found = [h for h in self._hooks.values() if h.campaign_id == campaign_id]
        return sorted(found, key=lambda h: (h.created_at, h.webhook_id))

    def webhook(self, webhook_id: str) -> Webhook | None:
        with self._lock:
            return self._hooks.get(webhook_id)

    def remove_webhook(self, campaign_id: str, webhook_id: str) -> bool:
        with self._lock:
            hook = self._hooks.get(webhook_id)
            if hook is None or hook.campaign_id != campaign_id:
                return False
            del self._hooks[webhook_id]
            self._rows = {k: r for k, r in self._rows.items() if r.webhook_id != webhook_id}
            return True

    def enqueue_test(self, hook: Webhook, at: str) -> int:
        with self._lock:
            if hook.webhook_id in self._hooks:
                self._hooks[hook.webhook_id] = replace(self._hooks[hook.webhook_id], stopped_at=None, stopped_why="")
            return self._add(Delivery(0, hook.webhook_id, hook.campaign_id, TEST, None, 0, 0, at))

    def stop_webhook(self, webhook_id: str, at: str, why: str) -> None:
        with self._lock:
            if webhook_id in self._hooks:
                self._hooks[webhook_id] = replace(self._hooks[webhook_id], stopped_at=at, stopped_why=why)
            for k, r in self._rows.items():
                if r.webhook_id == webhook_id and r.state == PENDING and r.kind == ACTION:
                    answer = f"not sent: the webhook stopped ({why})"
                    self._rows[k] = replace(r, state=FAILED, answer=answer, claimed_until=0.0)

    def claim(self, now: float, lease_s: float, limit: int) -> list[Delivery]:
        with self._lock:
            taken: list[Delivery] = []
            heads: set[str] = set()  # webhooks whose oldest pending action is already behind us
            for number in sorted(self._rows):
                row = self._rows[number]
                if row.state != PENDING:
                    continue
                first_of_hook = row.kind == TEST or row.webhook_id not in heads
                if row.kind == ACTION:
                    heads.add(row.webhook_id)
                if first_of_hook and row.next_at <= now and row.claimed_until <= now and len(taken) < limit:
                    self._rows[number] = replace(row, claimed_until=now + lease_s)
                    taken.append(self._rows[number])
            return taken

    def settle(self, delivery: Delivery) -> bool:
        with self._lock:
            now = self._rows.get(delivery.delivery_id)
            if now is None or now.claimed_until != delivery.claimed_until:
                return False
            self._rows[delivery.delivery_id] = replace(delivery, claimed_until=0.0)
            if delivery.state != PENDING:
                mine = sorted((k for k, r in self._rows.items() if r.webhook_id == delivery.webhook_id), reverse=True)
                for old in mine[KEPT:]:
                    if self._rows[old].state != PENDING:
                        del self._rows[old]
            return True

    def test_pending(self, webhook_id: str) -> bool:
        with self._lock:
            return any(
                r.webhook_id == webhook_id and r.kind == TEST and r.state == PENDING for r in self._rows.values()
            )

    def deliveries(self, webhook_id: str, limit: int = 10) -> list[Delivery]:
        with self._lock:
            found = [r for r in self._rows.values() if r.webhook_id == webhook_id and r.state != SKIPPED]
        return sorted(found, key=lambda r: -r.delivery_id)[:limit]

    def sent_message(self, webhook_id: str, command_id: str) -> str | None:
        with self._lock:
            for number in sorted(self._rows):
                r = self._rows[number]
                if r.webhook_id == webhook_id and r.command_id == command_id and r.state == SENT and r.remote_id:
                    return r.remote_id
        return None


def webhooks_for(store: EventStore) -> WebhookStore:
    """The webhook store beside `store`: the memory store's own, or in the same database."""
    found: WebhookStore | None = getattr(store, "webhooks", None)
    if found is not None:
        return found
    engine = getattr(store, "engine", None)
    if isinstance(engine, Engine):
        return SqlWebhookStore(engine)
    raise StoreError(f"{type(store).__name__} keeps no webhooks")
