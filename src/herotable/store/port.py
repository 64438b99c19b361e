"""The `EventStore` contract: what every backend stores, returns and refuses.

A campaign's log is a sequence of events numbered 1, 2, 3… without gaps. Writers append with optimistic
concurrency: `append(campaign_id, expected_seq, events)` succeeds only when the log's head is still
`expected_seq`, so two commands computed from the same state cannot both land. The events of one command
share a `command_id`, are appended together and sit next to each other in the log.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias

VISIBILITIES = ("public", "owner", "gm")


@dataclass(frozen=True)
class NewEvent:
    """An event about to be appended; the store gives it its campaign, sequence number, place in its viewers'
    stream and its hash. `command` (on a command's first event) is the command that decided it and its dice."""

    type: str
    data: Mapping[str, Any]
    command_id: str
    at: str
    actor: str | None = None
    visibility: str = "public"
    owner: str | None = None
    version: int = 1
    rules_version: int = 0
    command: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class StoredEvent:
    """An event in a campaign's log, at position `seq` (1, 2, 3… per campaign). `stream_pos` is its place among the
    events of the same audience (public; one member's; the GM's), `hash` chains it to `prev_hash` (see `chain`)."""

    campaign_id: str
    seq: int
    type: str
    data: Mapping[str, Any]
    command_id: str
    at: str
    actor: str | None = None
    visibility: str = "public"
    owner: str | None = None
    version: int = 1
    rules_version: int = 0
    command: Mapping[str, Any] | None = None
    prev_hash: str = ""
    hash: str = ""
    stream_pos: int = 0


StreamTops: TypeAlias = Mapping[tuple[str, str | None], int]


class CatchUp(Protocol):
    """What an appending writer does when the log moved on since it decided: given the events that landed after
    `expected_seq` (read in the append's own transaction, with the campaign held), it decides again on the state
    they lead to and gives the events to append instead, with the stream tops after them when it knows them. It may
    raise (a refusal by the rules, say): then nothing is written and the error reaches the appending caller."""

    def __call__(self, newer: Sequence[StoredEvent]) -> tuple[Sequence[NewEvent], StreamTops | None]: ...


LOG_VERSION = 2  # campaigns recorded as facts; 1: the command-events of the first table core


@dataclass(frozen=True)
class CampaignRow:
    """A campaign as the store knows it; `head` is the seq of its last event (0 when it has none). `log_version` 1
    marks a campaign recorded before events were facts: kept, but not readable by this herotable."""

    campaign_id: str
    name: str
    ruleset: str
    created_at: str
    head: int
    log_version: int = LOG_VERSION


@dataclass(frozen=True)
class Membership:
    """One member of a campaign in the membership read model: the store keeps these rows from the membership facts
    (see `herotable.store.memberships`), written with the events that change them."""

    campaign_id: str
    user: str
    role: str


@dataclass(frozen=True)
class StreamCursor:
    """A place in one viewer's stream: the last public event and the last of the viewer's own events seen (by their
    stream positions), or for a viewer who sees everything (the GM) the last seq seen (`public`, with `own` 0)."""

    public: int = 0
    own: int = 0


@dataclass(frozen=True)
class Snapshot:
    """A folded state of a campaign after event `seq`, in the state format `version`."""

    campaign_id: str
    seq: int
    state: Mapping[str, Any]
    version: int


@dataclass(frozen=True)
class Portrait:
    """A character's portrait as kept: an image the server already checked and re-encoded (no metadata), its size in
    pixels, the SHA-256 of its bytes (`digest`, hex), and who set it when. Kept beside the log, never in it."""

    campaign_id: str
    character_id: str
    media_type: str
    image: bytes
    width: int
    height: int
    digest: str
    set_by: str
    set_at: str

    @classmethod
    def of(
        cls,
        campaign_id: str,
        character_id: str,
        image: bytes,
        *,
        media_type: str,
        width: int,
        height: int,
        set_by: str,
        set_at: str,
    ) -> Portrait:
        """A portrait of these bytes, its digest computed."""
        digest = hashlib.sha256(image).hexdigest()
        return cls(campaign_id, character_id, media_type, image, width, height, digest, set_by, set_at)


@dataclass(frozen=True)
class CampaignImage:
    """An image a campaign's journal shows, as kept: checked and re-encoded by the server, keyed by the SHA-256 of its
    bytes (`digest`, hex), so the same picture uploaded twice is kept once."""

    campaign_id: str
    digest: str
    media_type: str
    image: bytes
    width: int
    height: int
    set_by: str
    set_at: str

    @classmethod
    def of(
        cls, campaign_id: str, image: bytes, *, media_type: str, width: int, height: int, set_by: str, set_at: str
    ) -> CampaignImage:
        return cls(campaign_id, hashlib.sha256(image).hexdigest(), media_type, image, width, height, set_by, set_at)


@dataclass(frozen=True)
class LibraryEntry:
    """A character a GM saved to their library, to add to any campaign of its game: the character file (`document`,
    JSON text, as a character is exported), its name, the campaign it was saved from and when. Kept beside every
    campaign, never in a log; one GM's alone. Listings leave the document out (None)."""

    entry_id: str
    owner: str
    ruleset: str
    name: str
    saved_from: str
    saved_at: str
    document: str | None = None


class StoreError(Exception):
    """The one error family of the store; the message says what is wrong and how to fix it."""

    def __init__(self, message: str) -> None:
        self.reason = message
        super().__init__(message)


class ConcurrencyError(StoreError):
    """The campaign moved on since the caller read it: its head is not `expected_seq`."""

    def __init__(self, campaign_id: str, expected_seq: int, actual_seq: int) -> None:
        self.campaign_id = campaign_id
        self.expected_seq = expected_seq
        self.actual_seq = actual_seq
        super().__init__(
            f"campaign {campaign_id!r} is at seq {actual_seq}, not {expected_seq}: another command was recorded "
            "first. Tip: reload the campaign and retry the command on the fresh state"
        )


class UnknownCampaign(StoreError):
    """No campaign with that id in this store."""

    def __init__(self, campaign_id: str) -> None:
        self.campaign_id = campaign_id
        super().__init__(
            f"no campaign {campaign_id!r} in this store. Tip: check the id against the listed campaigns, "
            "or create the campaign first"
        )


class CampaignExists(StoreError):
    """A campaign with that id is already in this store."""

    def __init__(self, campaign_id: str) -> None:
        self.campaign_id = campaign_id
        super().__init__(f"campaign {campaign_id!r} already exists in this store. Tip: choose another id")


class DuplicateCommand(StoreError):
    """The command's events are already in the log: a command is recorded once, all its events together."""

    def __init__(self, campaign_id: str, command_id: str) -> None:
        self.campaign_id = campaign_id
        self.command_id = command_id
        super().__init__(
            f"command {command_id!r} is already recorded in campaign {campaign_id!r}. Tip: a retried command "
            "that already landed needs no second append; a new command needs a new command_id"
        )


class OverQuota(StoreError):
    """An image that would take a campaign's images past their quota."""

    def __init__(self, used: int, size: int, quota: int) -> None:
        def mb(n: int) -> str:
            return f"{n / 1_000_000:.1f} MB"

        super().__init__(
            f"the campaign's images take {mb(used)} of its {mb(quota)}, and this one takes {mb(size)} more. "
            "Tip: remove images no entry shows any more, or ask the operator to raise the quota"
        )
        self.used, self.size, self.quota = used, size, quota


class InvalidExport(StoreError):
    """A campaign export that cannot be imported; `reason` names the field or event at fault."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"refused to import the campaign export: {reason}. Nothing was imported")
        self.reason = reason


class EventStore(Protocol):
    """Campaigns, their event logs and their snapshots. Every method is safe to call from many threads."""

    def create_campaign(self, campaign_id: str, name: str, ruleset: str, created_at: str) -> CampaignRow:
        """Create an empty campaign (head 0). Raises `CampaignExists`."""
        ...

    def campaigns(self) -> list[CampaignRow]:
        """Every campaign, oldest first."""
        ...

    def campaign(self, campaign_id: str) -> CampaignRow:
        """One campaign. Raises `UnknownCampaign`."""
        ...

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
        """Append all of `events` at seqs `expected_seq + 1…`, or nothing; the membership read model follows the
        membership facts among them in the same transaction.

        Raises `ConcurrencyError` when the head is not `expected_seq`, `DuplicateCommand` when a command id
        is already in the log, `UnknownCampaign`, and `StoreError` for events that break the contract. With
        `fresh_ids` the caller has just made the command ids itself (random, never sent before), and a store may
        skip looking for them in the log. `stream_tops`: what `stream_tops` gave when the log ended at `expected_seq`,
        when the caller knows it; a store may number the new events' stream positions from it (the head check makes
        sure nothing landed since). `catch_up`: when the head has moved on past `expected_seq`, instead of raising
        `ConcurrencyError` the store holds the campaign (no other writer appends meanwhile), hands `catch_up` the
        events after `expected_seq` and appends what it gives after them: writers of several processes queue on the
        campaign rather than clash and retry. The returned events tell where they landed. A head behind
        `expected_seq` (the caller remembers a log that is no longer there) is always a `ConcurrencyError`.
        `head_hash`: the hash of the event at `expected_seq`, when the caller knows it; with `stream_tops`, a store
        may then move the head without reading it first (a compare-and-set on seq and hash), and reads it only when
        that finds another head.
        """
        ...

    def on_outbox(self, wake: Callable[[], None]) -> None:
        """Call `wake` after each append of this process that wrote webhook outbox rows, once they are committed:
        the sender is woken for the campaigns that have webhooks, not for every command."""
        ...

    def load(self, campaign_id: str, after_seq: int = 0) -> list[StoredEvent]:
        """The events with seq > `after_seq`, in order. Raises `UnknownCampaign`."""
        ...

    def head(self, campaign_id: str) -> int:
        """The seq of the campaign's last event, 0 when it has none. Raises `UnknownCampaign`."""
        ...

    def events_of_types(self, types: Collection[str], campaign_ids: Collection[str]) -> list[StoredEvent]:
        """These campaigns' events of these types, by campaign, then in order (a listing's facts, read without
        loading whole logs); an unknown campaign has none."""
        ...

    def memberships_of(self, user: str) -> list[Membership]:
        """The campaigns `user` belongs to, one row each with their role, oldest campaign first; read from the
        membership read model alone, so it costs the same however many other campaigns the store holds."""
        ...

    def members(self, campaign_id: str) -> list[Membership]:
        """The campaign's rows in the membership read model, by user. Raises `UnknownCampaign`."""
        ...

    def command_events(self, campaign_id: str, command_id: str) -> list[StoredEvent]:
        """The events command `command_id` recorded, in order; none when it is not in the log. Raises
        `UnknownCampaign`."""
        ...

    def save_snapshot(self, campaign_id: str, seq: int, state: Mapping[str, Any], version: int) -> None:
        """Keep `state`, the fold of events 1..`seq` in state format `version` (replaces an equal one)."""
        ...

    def latest_snapshot(self, campaign_id: str, version: int) -> Snapshot | None:
        """The snapshot with the highest seq in state format `version`, or None. Raises `UnknownCampaign`."""
        ...

    def import_events(self, row: CampaignRow, events: Sequence[StoredEvent]) -> CampaignRow:
        """Create the campaign `row` with exactly `events` as its log, atomically; stream positions are computed, the
        hash chain is checked and the membership read model filled from the log's membership facts. Raises
        `CampaignExists`, `StoreError` for a broken chain or a membership fact that cannot be read."""
        ...

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
        """One viewer's events in order: public ones and `viewer`'s own, or all of them with `everything`; those
        after `after` (oldest first), or the `limit` newest before `before` (still oldest first). Raises
        `UnknownCampaign`, unless `known`: the caller has just read the campaign, and a store may then skip looking
        it up (an unknown campaign reads as an empty stream)."""
        ...

    def stream_tops(self, campaign_id: str) -> tuple[int, dict[tuple[str, str | None], int]]:
        """The seq of the campaign's last event and, by audience (visibility, owner), the stream position of its
        newest event, read together. Raises `UnknownCampaign`."""
        ...

    def stream_head(
        self, campaign_id: str, viewer: str | None, *, everything: bool = False, known: bool = False
    ) -> StreamCursor:
        """The cursor just after the viewer's newest event. Raises `UnknownCampaign` (unless `known`, as in
        `read_stream`)."""
        ...

    def delete_campaign(self, campaign_id: str) -> None:
        """Remove a campaign with its log, snapshots, portraits and memberships (its invitations go with it). Raises
        `UnknownCampaign`."""
        ...

    def set_portrait(self, portrait: Portrait) -> None:
        """Keep `portrait` as its character's, replacing the one before. Raises `UnknownCampaign`, and `StoreError`
        for a portrait that breaks the contract (a digest that is not its image's, an unknown media type)."""
        ...

    def portrait(self, campaign_id: str, character_id: str) -> Portrait | None:
        """The character's portrait, or None."""
        ...

    def portrait_digests(self, campaign_id: str) -> dict[str, str]:
        """The digest of each portrait of the campaign, by character id, without reading any image."""
        ...

    def delete_portrait(self, campaign_id: str, character_id: str) -> bool:
        """Remove the character's portrait; whether there was one."""
        ...

    def add_image(self, image: CampaignImage, quota: int) -> bool:
        """Keep `image` (False: it was kept already), unless the campaign's images would then take more than `quota`
        bytes. Raises `OverQuota`, `UnknownCampaign`, `StoreError`."""
        ...

    def campaign_image(self, campaign_id: str, digest: str) -> CampaignImage | None:
        """The image of this digest in the campaign, or None."""
        ...

    def campaign_images(self, campaign_id: str) -> list[CampaignImage]:
        """Every image of the campaign, bytes included, oldest first (for an export)."""
        ...

    def images_used(self, campaign_id: str) -> tuple[int, list[tuple[str, int]]]:
        """The bytes the campaign's images take, and each image's digest and size, oldest first."""
        ...

    def remove_image(self, campaign_id: str, digest: str) -> bool:
        """Remove the image; False when there was none."""
        ...

    def save_to_library(self, entry: LibraryEntry) -> None:
        """Keep `entry`, its document with it, in its owner's library. Raises `StoreError` for an entry that breaks
        the contract (no document, an empty field, a time that is not ISO-8601, an id already kept)."""
        ...

    def library(self, owner: str, ruleset: str | None = None) -> list[LibraryEntry]:
        """The entries of `owner`'s library (of one game, with `ruleset`), oldest first, without their documents; no
        other owner's, ever."""
        ...

    def library_entry(self, owner: str, entry_id: str) -> LibraryEntry | None:
        """One entry of `owner`'s library with its document; None when `owner` has no entry of that id (whether or not
        another owner has)."""
        ...

    def delete_from_library(self, owner: str, entry_id: str) -> bool:
        """Remove an entry of `owner`'s library; whether there was one (another owner's entry stays)."""
        ...

    def close(self) -> None:
        """Release connections; the store is not used afterwards."""
        ...
