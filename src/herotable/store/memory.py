"""`MemoryEventStore`: the contract held in a process's memory, for tests, demos and `memory://`."""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from herotable.store import payload
from herotable.store.chain import GENESIS
from herotable.store.invariants import (
    chained,
    check_batch,
    check_campaign,
    check_image,
    check_library_entry,
    check_log,
    check_portrait,
    check_seq,
    check_snapshot_seq,
    encode_snapshot,
    positions,
    stream_key,
)
from herotable.store.memberships import changes_members, members_after
from herotable.store.port import (
    LOG_VERSION,
    CampaignExists,
    CampaignImage,
    CampaignRow,
    CatchUp,
    ConcurrencyError,
    DuplicateCommand,
    LibraryEntry,
    Membership,
    NewEvent,
    OverQuota,
    Portrait,
    Snapshot,
    StoredEvent,
    StoreError,
    StreamCursor,
    StreamTops,
    UnknownCampaign,
)
from herotable.store.webhooks import MemoryWebhookStore


@dataclass
class _Log:
    row: CampaignRow
    events: list[tuple[StoredEvent, str, str | None]]  # the event without payloads, its data, its command
    command_ids: set[str]
    snapshots: dict[tuple[int, int], str]
    head_hash: str = GENESIS
    streams: dict[tuple[str, str | None], int] = field(default_factory=dict)
    portraits: dict[str, Portrait] = field(default_factory=dict)  # by character id
    images: dict[str, CampaignImage] = field(default_factory=dict)  # by digest, oldest first
    members: dict[str, str] = field(default_factory=dict)  # the membership read model: user → role


def _decoded(event: StoredEvent, data: str, command: str | None) -> StoredEvent:
    return replace(event, data=payload.loads(data), command=None if command is None else payload.loads(command))


def _encoded(events: Sequence[NewEvent]) -> tuple[list[str], list[str | None]]:
    """The events' payloads and commands as kept text. Raises StoreError for one that cannot be kept."""
    return (
        [payload.dumps(event.data, f"events[{index}].data") for index, event in enumerate(events)],
        [
            None if event.command is None else payload.dumps(event.command, f"events[{index}].command")
            for index, event in enumerate(events)
        ],
    )


def _visible(event: StoredEvent, viewer: str | None, everything: bool) -> bool:
    return everything or event.visibility == "public" or (event.visibility == "owner" and event.owner == viewer)


class MemoryEventStore:
    """An `EventStore` in memory. Payloads are kept as JSON text, so callers never share mutable data with it."""

    def __init__(self) -> None:
        self._lock = threading.RLock()  # reentrant: an append's `catch_up` may read
        self._logs: dict[str, _Log] = {}
        self._campaigns_of: dict[str, set[str]] = {}  # user → the campaigns they belong to
        self._library: dict[str, LibraryEntry] = {}  # every GM's library, by entry id, in the order saved
        self.webhooks = MemoryWebhookStore(self)  # its outbox written by `append`, under the same lock
        self._outbox_woken: list[Callable[[], None]] = []

    def _set_members(self, log: _Log, members: dict[str, str]) -> None:
        """Make `members` the campaign's membership rows, and index them by user. Under the lock."""
        cid = log.row.campaign_id
        for user in log.members.keys() - members.keys():
            self._campaigns_of[user].discard(cid)
        for user in members:
            self._campaigns_of.setdefault(user, set()).add(cid)
        log.members = members

    def _log(self, campaign_id: str) -> _Log:
        log = self._logs.get(campaign_id)
        if log is None:
            raise UnknownCampaign(campaign_id)
        return log

    def create_campaign(self, campaign_id: str, name: str, ruleset: str, created_at: str) -> CampaignRow:
        """Create an empty campaign (head 0). Raises `CampaignExists`."""
        check_campaign(campaign_id, name, ruleset, created_at)
        row = CampaignRow(campaign_id, name, ruleset, created_at, 0, LOG_VERSION)
        with self._lock:
            if campaign_id in self._logs:
                raise CampaignExists(campaign_id)
            self._logs[campaign_id] = _Log(row, [], set(), {})
        return row

    def campaigns(self) -> list[CampaignRow]:
        """Every campaign, oldest first."""
        with self._lock:
            rows = [log.row for log in self._logs.values()]
        return sorted(rows, key=lambda row: (row.created_at, row.campaign_id))

    def campaign(self, campaign_id: str) -> CampaignRow:
        """One campaign. Raises `UnknownCampaign`."""
        with self._lock:
            return self._log(campaign_id).row

    def append(
        self,
        campaign_id: str,
        expected_seq: int,
        events: Sequence[NewEvent],
        *,
        fresh_ids: bool = False,
        stream_tops: StreamTops | None = None,
        catch_up: CatchUp | None = None,
        head_hash: str | None = None,
    ) -> list[StoredEvent]:
        """Append all of `events` after `expected_seq`, or nothing. Raises `ConcurrencyError` on a clash (with no
        `catch_up`; with it, what landed after `expected_seq` is handed to it under the store's lock and what it
        gives is appended instead). Command ids are always checked and stream positions counted here (`fresh_ids`,
        `stream_tops` and `head_hash` save nothing)."""
        check_seq(expected_seq, "expected_seq")
        check_batch(events)
        encoded, commands = _encoded(events)
        with self._lock:
            log = self._log(campaign_id)
            if log.row.head > expected_seq and catch_up is not None:
                newer = [_decoded(*event) for event in log.events[expected_seq:]]
                events = list(catch_up(newer)[0])
                check_batch(events)
                encoded, commands = _encoded(events)
                expected_seq = log.row.head
            if log.row.head != expected_seq:
                raise ConcurrencyError(campaign_id, expected_seq, log.row.head)
            for event in events:
                if event.command_id in log.command_ids:
                    raise DuplicateCommand(campaign_id, event.command_id)
            members = members_after(log.members, events) if changes_members(events) else None
            streams = dict(log.streams)
            stored = chained(campaign_id, expected_seq, log.head_hash, events, encoded, commands, streams)
            log.events.extend(zip(stored, encoded, commands, strict=True))
            log.command_ids.update(event.command_id for event in events)
            log.row = replace(log.row, head=expected_seq + len(events))
            log.head_hash = stored[-1].hash
            log.streams = streams
            if members is not None:
                self._set_members(log, members)
            wrote = self.webhooks.enqueue(campaign_id, stored)
        if wrote:  # out of the lock, as the SQL store wakes the sender after its commit
            for wake in self._outbox_woken:
                wake()
        return [_decoded(e, d, c) for e, d, c in zip(stored, encoded, commands, strict=True)]

    def on_outbox(self, wake: Callable[[], None]) -> None:
        self._outbox_woken.append(wake)

    def load(self, campaign_id: str, after_seq: int = 0) -> list[StoredEvent]:
        """The events with seq > `after_seq`, in order. Raises `UnknownCampaign`."""
        check_seq(after_seq, "after_seq")
        with self._lock:
            tail = self._log(campaign_id).events[after_seq:]
        return [_decoded(event, data, command) for event, data, command in tail]

    def events_of_types(self, types: Collection[str], campaign_ids: Collection[str]) -> list[StoredEvent]:
        """These campaigns' events of these types, by campaign then seq."""
        wanted = set(types)
        with self._lock:
            logs = [self._logs[cid] for cid in sorted(set(campaign_ids)) if cid in self._logs]
            found = [e for log in logs for e in log.events if e[0].type in wanted]
        return [_decoded(event, data, command) for event, data, command in found]

    def memberships_of(self, user: str) -> list[Membership]:
        """The campaigns `user` belongs to, with their role, oldest first (from the index by user)."""
        with self._lock:
            logs = [self._logs[cid] for cid in self._campaigns_of.get(user, ())]
            rows = [log.row for log in logs]
            roles = [log.members[user] for log in logs]
        found = sorted(zip(rows, roles, strict=True), key=lambda pair: (pair[0].created_at, pair[0].campaign_id))
        return [Membership(row.campaign_id, user, role) for row, role in found]

    def members(self, campaign_id: str) -> list[Membership]:
        """The campaign's membership rows, by user. Raises `UnknownCampaign`."""
        with self._lock:
            members = dict(self._log(campaign_id).members)
        return [Membership(campaign_id, user, members[user]) for user in sorted(members)]

    def command_events(self, campaign_id: str, command_id: str) -> list[StoredEvent]:
        """The events `command_id` recorded, in order (none when it is not in the log). Raises `UnknownCampaign`."""
        with self._lock:
            found = [e for e in self._log(campaign_id).events if e[0].command_id == command_id]
        return [_decoded(event, data, command) for event, data, command in found]

    def read_stream(
        self,
        campaign_id: str,
        viewer: str | None,
        *,
        everything: bool = False,
        after: StreamCursor | None = None,
        before: StreamCursor | None = None,
        limit: int = 100,
        known: bool = False,
    ) -> list[StoredEvent]:
        """One viewer's events, after `after` (oldest first) or the newest before `before`. Raises `UnknownCampaign`
        (`known` changes nothing here: finding the campaign costs nothing)."""
        with self._lock:
            events = list(self._log(campaign_id).events)

        def position_ok(e: StoredEvent) -> bool:
            if everything:
                seq_after = after.public if after else 0
                return e.seq > seq_after and (before is None or e.seq <= before.public)
            mark = e.stream_pos
            if e.visibility == "public":
                return (after is None or mark > after.public) and (before is None or mark <= before.public)
            return (after is None or mark > after.own) and (before is None or mark <= before.own)

        found = [(e, d, c) for e, d, c in events if _visible(e, viewer, everything) and position_ok(e)]
        found = found[-limit:] if before is not None else found[:limit]
        return [_decoded(e, d, c) for e, d, c in found]

    def stream_tops(self, campaign_id: str) -> tuple[int, dict[tuple[str, str | None], int]]:
        with self._lock:
            log = self._log(campaign_id)
            return log.row.head, dict(log.streams)

    def stream_head(
        self, campaign_id: str, viewer: str | None, *, everything: bool = False, known: bool = False
    ) -> StreamCursor:
        with self._lock:
            log = self._log(campaign_id)
            if everything:
                return StreamCursor(log.row.head, 0)
            return StreamCursor(log.streams.get(("public", None), 0), log.streams.get(("owner", viewer), 0))

    def head(self, campaign_id: str) -> int:
        """The seq of the campaign's last event, 0 when it has none. Raises `UnknownCampaign`."""
        with self._lock:
            return self._log(campaign_id).row.head

    def save_snapshot(self, campaign_id: str, seq: int, state: Mapping[str, Any], version: int) -> None:
        """Keep `state` as the fold of events 1..`seq` in state format `version`."""
        encoded = encode_snapshot(seq, state, version)
        with self._lock:
            log = self._log(campaign_id)
            check_snapshot_seq(campaign_id, seq, log.row.head)
            log.snapshots[(version, seq)] = encoded

    def latest_snapshot(self, campaign_id: str, version: int) -> Snapshot | None:
        """The snapshot with the highest seq in state format `version`, or None."""
        with self._lock:
            snapshots = self._log(campaign_id).snapshots
            seqs = [seq for (kept_version, seq) in snapshots if kept_version == version]
            if not seqs:
                return None
            seq = max(seqs)
            return Snapshot(campaign_id, seq, payload.loads(snapshots[(version, seq)]), version)

    def import_events(self, row: CampaignRow, events: Sequence[StoredEvent]) -> CampaignRow:
        """Create campaign `row` with exactly `events` as its log, atomically. Raises `CampaignExists`."""
        check_log(row, events)
        encoded = [payload.dumps(event.data, f"event seq {event.seq}: data") for event in events]
        commands = [
            None if e.command is None else payload.dumps(e.command, f"event seq {e.seq}: command") for e in events
        ]
        placed = [
            replace(e, data={}, command=None, stream_pos=p) for e, p in zip(events, positions(events), strict=True)
        ]
        streams: dict[tuple[str, str | None], int] = {}
        for e in placed:
            streams[stream_key(e)] = e.stream_pos
        members = members_after({}, events) if row.log_version >= LOG_VERSION else {}
        with self._lock:
            if row.campaign_id in self._logs:
                raise CampaignExists(row.campaign_id)
            log = _Log(
                row,
                list(zip(placed, encoded, commands, strict=True)),
                {event.command_id for event in events},
                {},
                events[-1].hash if events else GENESIS,
                streams,
            )
            self._logs[row.campaign_id] = log
            self._set_members(log, members)
        return row

    def delete_campaign(self, campaign_id: str) -> None:
        """Remove a campaign with its log, snapshots, portraits and memberships. Raises `UnknownCampaign`."""
        with self._lock:
            self._set_members(self._log(campaign_id), {})
            del self._logs[campaign_id]
            self.webhooks.forget_campaign(campaign_id)

    def set_portrait(self, portrait: Portrait) -> None:
        """Keep `portrait`, replacing its character's earlier one. Raises `UnknownCampaign`, `StoreError`."""
        check_portrait(portrait)
        with self._lock:
            self._log(portrait.campaign_id).portraits[portrait.character_id] = portrait

    def add_image(self, image: CampaignImage, quota: int) -> bool:
        check_image(image)
        with self._lock:
            images = self._log(image.campaign_id).images
            if image.digest in images:
                return False
            used = sum(len(i.image) for i in images.values())
            if used + len(image.image) > quota:
                raise OverQuota(used, len(image.image), quota)
            images[image.digest] = image
            return True

    def campaign_image(self, campaign_id: str, digest: str) -> CampaignImage | None:
        with self._lock:
            log = self._logs.get(campaign_id)
            return None if log is None else log.images.get(digest)

    def campaign_images(self, campaign_id: str) -> list[CampaignImage]:
        with self._lock:
            return list(self._log(campaign_id).images.values())

    def images_used(self, campaign_id: str) -> tuple[int, list[tuple[str, int]]]:
        with self._lock:
            log = self._logs.get(campaign_id)
            sizes = [] if log is None else [(d, len(i.image)) for d, i in log.images.items()]
            return sum(size for _, size in sizes), sizes

    def remove_image(self, campaign_id: str, digest: str) -> bool:
        with self._lock:
            log = self._logs.get(campaign_id)
            return log is not None and log.images.pop(digest, None) is not None

    def portrait(self, campaign_id: str, character_id: str) -> Portrait | None:
        """The character's portrait, or None."""
        with self._lock:
            log = self._logs.get(campaign_id)
            return None if log is None else log.portraits.get(character_id)

    def portrait_digests(self, campaign_id: str) -> dict[str, str]:
        """Each portrait's digest by character id."""
        with self._lock:
            log = self._logs.get(campaign_id)
            return {} if log is None else {cid: p.digest for cid, p in log.portraits.items()}

    def delete_portrait(self, campaign_id: str, character_id: str) -> bool:
        """Remove the character's portrait; whether there was one."""
        with self._lock:
            log = self._logs.get(campaign_id)
            return log is not None and log.portraits.pop(character_id, None) is not None

    def save_to_library(self, entry: LibraryEntry) -> None:
        """Keep `entry` in its owner's library. Raises `StoreError`."""
        check_library_entry(entry)
        with self._lock:
            if entry.entry_id in self._library:
                raise StoreError(f"library entry {entry.entry_id!r} is kept already. Tip: give a new entry a new id")
            self._library[entry.entry_id] = entry

    def library(self, owner: str, ruleset: str | None = None) -> list[LibraryEntry]:
        """`owner`'s entries (of one game), oldest first, without their documents."""
        with self._lock:
            mine = [e for e in self._library.values() if e.owner == owner and ruleset in (None, e.ruleset)]
        return sorted((replace(e, document=None) for e in mine), key=lambda e: (e.saved_at, e.entry_id))

    def library_entry(self, owner: str, entry_id: str) -> LibraryEntry | None:
        """One of `owner`'s entries with its document, or None."""
        with self._lock:
            found = self._library.get(entry_id)
        return found if found is not None and found.owner == owner else None

    def delete_from_library(self, owner: str, entry_id: str) -> bool:
        """Remove one of `owner`'s entries; whether there was one."""
        with self._lock:
            found = self._library.get(entry_id)
            if found is None or found.owner != owner:
                return False
            del self._library[entry_id]
            return True

    def close(self) -> None:
        """Nothing to release."""
