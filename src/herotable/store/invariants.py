"""What every store checks before it writes, so every backend refuses the same things the same way."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from herotable.store import payload
from herotable.store.chain import GENESIS, chain_problems, hash_of
from herotable.store.port import (
    VISIBILITIES,
    CampaignImage,
    CampaignRow,
    LibraryEntry,
    NewEvent,
    Portrait,
    StoredEvent,
    StoreError,
)

PORTRAIT_TYPES = ("image/webp", "image/png")  # what the server re-encodes portraits to


def _text(value: object, where: str) -> None:
    if not isinstance(value, str) or not value:
        raise StoreError(f"{where} must be a non-empty string, got {value!r}")


def _timestamp(value: object, where: str) -> None:
    _text(value, where)
    try:
        datetime.fromisoformat(str(value))
    except ValueError:
        raise StoreError(
            f"{where} is {value!r}, not an ISO-8601 timestamp. Tip: pass datetime.now(UTC).isoformat()"
        ) from None


def _count(value: object, where: str, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise StoreError(f"{where} must be an integer of at least {least}, got {value!r}")


def check_campaign(campaign_id: str, name: str, ruleset: str, created_at: str) -> None:
    """Raise `StoreError` unless the campaign fields are non-empty strings and `created_at` is ISO-8601."""
    _text(campaign_id, "campaign_id")
    _text(name, "name")
    _text(ruleset, "ruleset")
    _timestamp(created_at, "created_at")


def check_seq(value: int, where: str) -> None:
    """Raise `StoreError` unless `value` is a seq a caller may name (0 = before the first event)."""
    _count(value, where, 0)


def check_event(event: NewEvent | StoredEvent, where: str) -> None:
    """Raise `StoreError` naming the first field of `event` that breaks the contract."""
    _text(event.type, f"{where}: type")
    _text(event.command_id, f"{where}: command_id")
    _timestamp(event.at, f"{where}: at")
    if event.actor is not None:
        _text(event.actor, f"{where}: actor")
    if event.visibility not in VISIBILITIES:
        raise StoreError(f"{where}: visibility is {event.visibility!r}; it must be one of {', '.join(VISIBILITIES)}")
    if event.visibility == "owner":
        _text(event.owner, f"{where}: owner (the user an 'owner' event is shown to)")
    elif event.owner is not None:
        raise StoreError(f"{where}: owner is set but visibility is {event.visibility!r}; only 'owner' events name one")
    _count(event.version, f"{where}: version", 1)
    _count(event.rules_version, f"{where}: rules_version", 0)
    if not isinstance(event.data, dict):
        raise StoreError(f"{where}: data must be a JSON object (a dict), got {type(event.data).__name__}")
    if event.command is not None and not isinstance(event.command, dict):
        raise StoreError(f"{where}: command must be a JSON object or null, got {type(event.command).__name__}")


def _check_commands_whole(command_ids: Sequence[str], where: Callable[[int], str]) -> None:
    seen: set[str] = set()
    previous: str | None = None
    for index, command_id in enumerate(command_ids):
        if command_id != previous and command_id in seen:
            raise StoreError(
                f"{where(index)}: command {command_id!r} is split; the events of one command must be next to each other"
            )
        seen.add(command_id)
        previous = command_id


def check_batch(events: Sequence[NewEvent]) -> None:
    """Raise `StoreError` unless `events` is a non-empty run of valid events, each command's events together."""
    if not events:
        raise StoreError("append needs at least one event")
    for index, event in enumerate(events):
        if not isinstance(event, NewEvent):
            raise StoreError(f"events[{index}] is a {type(event).__name__}, not a NewEvent")
        check_event(event, f"events[{index}]")
    _check_commands_whole([event.command_id for event in events], lambda index: f"events[{index}]")


def check_log(row: CampaignRow, events: Sequence[StoredEvent], head_hash: str | None = None) -> None:
    """Raise `StoreError`, naming the campaign, unless `events` is a whole log of campaign `row`: seqs 1..head,
    commands together, the hash chain intact and, when `head_hash` (what a store keeps of the head) is given, ending
    on that hash. A log that ends before its head was cut short: the next command would land past a gap."""
    check_campaign(row.campaign_id, row.name, row.ruleset, row.created_at)
    try:
        _check_whole(row, events, head_hash)
    except StoreError as error:
        raise StoreError(f"campaign {row.name!r} ({row.campaign_id}): {error.reason}") from None


def _check_whole(row: CampaignRow, events: Sequence[StoredEvent], head_hash: str | None) -> None:
    for index, event in enumerate(events):
        where = f"event seq {event.seq}"
        if event.campaign_id != row.campaign_id:
            raise StoreError(f"{where} belongs to campaign {event.campaign_id!r}, not {row.campaign_id!r}")
        if event.seq != index + 1:
            raise StoreError(
                f"event number {index + 1} in the log has seq {event.seq!r}; seqs must run 1, 2, 3… in order "
                "without gaps"
            )
        check_event(event, where)
    last = len(events)
    if isinstance(row.head, bool) or not isinstance(row.head, int):
        raise StoreError(f"its head is {row.head!r}, not the seq of its last event ({last})")
    if row.head > last:
        ends = f"ends at event {last}" if last else "holds no events"
        raise StoreError(f"its head is at event {row.head} but its log {ends}: the events after {last} are missing")
    if row.head < last:
        raise StoreError(f"its log runs on to event {last}, past its head at event {row.head}")
    _check_commands_whole([event.command_id for event in events], lambda index: f"event seq {index + 1}")
    problems = chain_problems(events)
    if problems:
        raise StoreError(f"the log's hash chain is broken: {problems[0]}")
    if head_hash is not None and head_hash != (events[-1].hash if events else GENESIS):
        raise StoreError(
            f"its head's hash is not the hash of its last event, {last}: the head or the log was changed"
            if events
            else "its head holds a hash although its log holds no events"
        )


def encode_snapshot(seq: int, state: Mapping[str, Any], version: int) -> str:
    """Check a snapshot's seq, version and state, and return the state as JSON text."""
    check_seq(seq, "seq")
    _count(version, "version", 1)
    if not isinstance(state, dict):
        raise StoreError(f"state must be a JSON object (a dict), got {type(state).__name__}")
    return payload.dumps(state, "state")


def check_snapshot_seq(campaign_id: str, seq: int, head: int) -> None:
    """Raise `StoreError` when a snapshot would claim events the campaign does not have."""
    if seq > head:
        raise StoreError(
            f"a snapshot at seq {seq} is past campaign {campaign_id!r}'s last event ({head}). "
            "Tip: snapshot the state folded from the events you loaded, at their last seq"
        )


def stream_key(event: NewEvent | StoredEvent) -> tuple[str, str | None]:
    """The audience an event counts in: public, one member's, or the GM's."""
    return (event.visibility, event.owner)


def positions(events: Sequence[StoredEvent]) -> list[int]:
    """Each event's place among the events of its audience, in log order (1, 2, 3… per audience)."""
    counts: dict[tuple[str, str | None], int] = {}
    out = []
    for event in events:
        key = stream_key(event)
        counts[key] = counts.get(key, 0) + 1
        out.append(counts[key])
    return out


def check_library_entry(entry: LibraryEntry) -> None:
    """Raise `StoreError` naming the first field of a library entry that breaks the contract."""
    for name in ("entry_id", "owner", "ruleset", "name", "saved_from"):
        _text(getattr(entry, name), f"library entry {name}")
    _timestamp(entry.saved_at, "library entry saved_at")
    if not isinstance(entry.document, str) or not entry.document:
        raise StoreError("a library entry is kept with its document. Tip: give the character file as JSON text")


def check_portrait(portrait: Portrait) -> None:
    """Raise `StoreError` naming the first field of `portrait` that breaks the contract."""
    _text(portrait.character_id, "portrait character_id")
    _kept_image("portrait", portrait, "Portrait.of")


def _kept_image(what: str, kept: Portrait | CampaignImage, maker: str) -> None:
    """An image the server re-encoded, as either store keeps one: raise `StoreError` naming its first wrong field."""
    _text(kept.campaign_id, f"{what} campaign_id")
    _text(kept.set_by, f"{what} set_by")
    _timestamp(kept.set_at, f"{what} set_at")
    if kept.media_type not in PORTRAIT_TYPES:
        raise StoreError(
            f"{what} media_type is {kept.media_type!r}; it must be one of {', '.join(PORTRAIT_TYPES)}. "
            "Tip: keep only images the server re-encoded"
        )
    _count(kept.width, f"{what} width", 1)
    _count(kept.height, f"{what} height", 1)
    if not kept.image or hashlib.sha256(kept.image).hexdigest() != kept.digest:
        raise StoreError(f"{what} digest is not the SHA-256 of its image. Tip: make it with {maker}")


def chained(
    campaign_id: str,
    expected_seq: int,
    prev: str,
    events: Sequence[NewEvent],
    encoded: Sequence[str],
    commands: Sequence[str | None],
    streams: dict[tuple[str, str | None], int],
) -> list[StoredEvent]:
    """`events` as they are stored right after `expected_seq`, whose event's hash is `prev`: each with its seq, its
    link in the hash chain, and its position in its stream, counted on from `streams` (the tops, carried on here)."""
    stored = []
    for offset, (event, data, command) in enumerate(zip(events, encoded, commands, strict=True), start=1):
        key = stream_key(event)
        streams[key] = streams.get(key, 0) + 1
        digest = hash_of(prev, event)
        stored.append(
            StoredEvent(
                campaign_id=campaign_id,
                seq=expected_seq + offset,
                type=event.type,
                data=payload.loads(data),
                command_id=event.command_id,
                at=event.at,
                actor=event.actor,
                visibility=event.visibility,
                owner=event.owner,
                version=event.version,
                rules_version=event.rules_version,
                command=None if command is None else payload.loads(command),
                prev_hash=prev,
                hash=digest,
                stream_pos=streams[key],
            )
        )
        prev = digest
    return stored


def check_image(image: CampaignImage) -> None:
    """Raise `StoreError` naming the first field of `image` that breaks the contract."""
    _kept_image("image", image, "CampaignImage.of")
