"""A campaign as one JSON document, and back: export, and an import that checks everything before writing.

The document holds the campaign row, every event with all its fields (its hash chained to the event before it
included), the event count and a SHA-256 digest of the canonical JSON of those three, so a changed, reordered or
truncated document is refused. The digest and the chain guard against damage and careless edits; they are not a
signature.

Format version 2 holds facts (see `herotable.table.facts`); a version 1 document (the command-events of the first
table core) is refused with a message that says so. Version 3 adds the images the campaign's journal shows (`images`,
each with its bytes in base64, covered by the digest); a version 2 document, which has none, is still read.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import sys
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from herotable.store import payload
from herotable.store.invariants import check_image, check_log
from herotable.store.port import (
    CampaignExists,
    CampaignImage,
    CampaignRow,
    EventStore,
    InvalidExport,
    StoredEvent,
    StoreError,
    UnknownCampaign,
)

FORMAT = "herotable.campaign"
FORMAT_VERSION = 3
READ_VERSIONS = (2, 3)

_CAMPAIGN_FIELDS: dict[str, type] = {
    "campaign_id": str,
    "name": str,
    "ruleset": str,
    "created_at": str,
    "head": int,
    "log_version": int,
}
_EVENT_FIELDS: dict[str, type] = {
    "campaign_id": str,
    "seq": int,
    "type": str,
    "data": dict,
    "command_id": str,
    "at": str,
    "actor": str,
    "visibility": str,
    "owner": str,
    "version": int,
    "rules_version": int,
    "command": dict,
    "prev_hash": str,
    "hash": str,
}
_OPTIONAL = {"actor", "owner", "command"}
_EXPORT_AGAIN = "Tip: export the campaign again from the database it was recorded in"
_DOCUMENT_FIELDS = ("format", "format_version", "campaign", "event_count", "events", "sha256")
_IMAGE_FIELDS: dict[str, type] = {
    "digest": str,
    "media_type": str,
    "width": int,
    "height": int,
    "set_by": str,
    "set_at": str,
    "data": str,
}


def digest(
    campaign: Mapping[str, Any], events: list[dict[str, Any]], images: list[dict[str, Any]] | None = None
) -> str:
    """SHA-256 (hex) of the canonical JSON of {"campaign", "event_count", "events"} (and "images", from version 3)."""
    content: dict[str, Any] = {"campaign": campaign, "event_count": len(events), "events": events}
    if images is not None:
        content["images"] = images
    return hashlib.sha256(payload.canonical(content)).hexdigest()


def export_campaign(store: EventStore, campaign_id: str) -> dict[str, Any]:
    """The campaign and its whole log as one JSON-ready document. Raises `UnknownCampaign`."""
    row = store.campaign(campaign_id)
    # Events appended after `row` was read are left out, so the document is the log at one head.
    events = [_exported(event) for event in store.load(campaign_id)[: row.head]]
    images = [_image_out(image) for image in store.campaign_images(campaign_id)]
    campaign = asdict(row)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "campaign": campaign,
        "event_count": len(events),
        "events": events,
        "images": images,
        "sha256": digest(campaign, events, images),
    }


def _image_out(image: CampaignImage) -> dict[str, Any]:
    data = asdict(image)
    del data["campaign_id"], data["image"]
    return data | {"data": base64.b64encode(image.image).decode("ascii")}


def _images_in(campaign_id: str, listed: Any) -> list[CampaignImage]:
    if not isinstance(listed, list):
        raise InvalidExport(f"images must be a JSON array, got {type(listed).__name__}")
    out = []
    for index, item in enumerate(listed):
        where = f"images[{index}]"
        fields = _object(item, _IMAGE_FIELDS, where)
        try:
            data = base64.b64decode(fields["data"], validate=True)
        except (binascii.Error, ValueError):
            raise InvalidExport(f"{where}: data is not base64") from None
        kept = {k: v for k, v in fields.items() if k != "data"}
        image = CampaignImage(campaign_id=campaign_id, image=data, **kept)
        try:
            check_image(image)
        except StoreError as error:
            raise InvalidExport(f"{where}: {error.reason}") from None
        out.append(image)
    return out


def _exported(event: StoredEvent) -> dict[str, Any]:
    data = asdict(event)
    del data["stream_pos"]  # the store places each event in its viewers' streams again on import
    return data


def _object(value: Any, spec: Mapping[str, type], where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidExport(f"{where} must be a JSON object, got {type(value).__name__}")
    for name in spec:
        if name not in value:
            raise InvalidExport(f"{where}: field {name!r} is missing")
    for name in value:
        if name not in spec:
            raise InvalidExport(f"{where}: unknown field {name!r}")
    for name, kind in spec.items():
        field = value[name]
        if field is None and name in _OPTIONAL:
            continue
        if isinstance(field, bool) or not isinstance(field, kind):
            expected = {str: "a string", int: "an integer", dict: "a JSON object"}[kind]
            raise InvalidExport(f"{where}: field {name!r} must be {expected}, got {field!r:.60}")
    return value


def _read(document: Any) -> tuple[CampaignRow, list[StoredEvent], list[CampaignImage]]:
    """The campaign, events and images of a document, after checking its shape, every field, the count and digest."""
    if not isinstance(document, dict):
        raise InvalidExport(f"the document must be a JSON object, got {type(document).__name__}")
    for name in _DOCUMENT_FIELDS:
        if name not in document:
            raise InvalidExport(f"field {name!r} is missing")
    for name in document:
        if name not in (*_DOCUMENT_FIELDS, "images"):
            raise InvalidExport(f"unknown field {name!r}")
    if document["format"] != FORMAT:
        raise InvalidExport(f"format is {document['format']!r:.60}, not {FORMAT!r}: this is not a herotable campaign")
    if document["format_version"] == 1:
        raise InvalidExport(
            "this is a format version 1 export, recorded before campaigns were kept as facts (its events are version "
            f"1 command-events); this herotable reads format version {FORMAT_VERSION}"
        )
    if document["format_version"] not in READ_VERSIONS or isinstance(document["format_version"], bool):
        raise InvalidExport(
            f"format_version {document['format_version']!r:.20} is not one this herotable reads "
            f"({', '.join(map(str, READ_VERSIONS))})"
        )
    if (document["format_version"] == 3) != ("images" in document):
        said = "field 'images' is missing" if document["format_version"] == 3 else "unknown field 'images'"
        raise InvalidExport(said)
    campaign = _object(document["campaign"], _CAMPAIGN_FIELDS, "campaign")
    listed = document["events"]
    if not isinstance(listed, list):
        raise InvalidExport(f"events must be a JSON array, got {type(listed).__name__}")
    events: list[dict[str, Any]] = []
    for index, item in enumerate(listed):
        seq = item.get("seq") if isinstance(item, dict) else None
        where = f"events[{index}]" + (f" (seq {seq})" if isinstance(seq, int) else "")
        event = _object(item, _EVENT_FIELDS, where)
        try:
            payload.check_json(event["data"], f"{where}: data")
        except StoreError as error:
            raise InvalidExport(error.reason) from None
        events.append(event)
    count = document["event_count"]
    if isinstance(count, bool) or not isinstance(count, int) or count != len(events):
        raise InvalidExport(f"event_count is {count!r:.20} but the document holds {len(events)} events (truncated?)")
    row = CampaignRow(**campaign)
    log = [StoredEvent(**event) for event in events]
    try:
        check_log(row, log)
    except StoreError as error:
        raise InvalidExport(f"{error.reason}. {_EXPORT_AGAIN}") from None
    images = document.get("images")
    if document["sha256"] != digest(campaign, events, images):
        raise InvalidExport("the sha256 digest does not match the content: the document was changed after export")
    return row, log, [] if images is None else _images_in(row.campaign_id, images)


def import_campaign(store: EventStore, document: Any) -> CampaignRow:
    """Restore an exported campaign into `store`, all or nothing.

    Raises `InvalidExport`, naming the field or event at fault, for a document that is changed, truncated
    or malformed, whose campaign id is already in the store, or that the store refuses (a membership fact it
    cannot read).
    """
    row, events, images = _read(document)
    taken = f"campaign {row.campaign_id!r} already exists in this store. Tip: import into a store without it"
    try:
        store.campaign(row.campaign_id)
    except UnknownCampaign:
        pass
    else:
        raise InvalidExport(taken)
    try:
        made = store.import_events(row, events)
        for image in images:  # checked already: the operator's import, never refused by a server's quota
            store.add_image(image, sys.maxsize)
        return made
    except CampaignExists:
        raise InvalidExport(taken) from None
    except StoreError as error:
        raise InvalidExport(error.reason) from None
