"""The hash chain that makes a campaign's log tamper-evident: each event's hash covers its content and the
previous event's hash, so changing, dropping or reordering any event breaks every hash after it.

It is evidence against damage and careless edits, not a signature: whoever can rewrite the database can recompute
the chain.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from herotable.store import payload

GENESIS = ""  # the "previous hash" of a campaign's first event


def event_hash(
    prev: str,
    *,
    type: str,
    version: int,
    data: Mapping[str, Any],
    visibility: str,
    owner: str | None,
    command_id: str,
    actor: str | None,
    at: str,
    rules_version: int,
    command: Mapping[str, Any] | None,
) -> str:
    """SHA-256 (hex) of the previous hash followed by the canonical JSON of the event's content."""
    content = {
        "type": type,
        "version": version,
        "data": data,
        "visibility": visibility,
        "owner": owner,
        "command_id": command_id,
        "actor": actor,
        "at": at,
        "rules_version": rules_version,
        "command": command,
    }
    return hashlib.sha256(prev.encode() + payload.canonical(content)).hexdigest()


def hash_of(prev: str, event: Any) -> str:
    """The hash an event (a NewEvent or StoredEvent) gets after `prev`."""
    return event_hash(
        prev,
        type=event.type,
        version=event.version,
        data=event.data,
        visibility=event.visibility,
        owner=event.owner,
        command_id=event.command_id,
        actor=event.actor,
        at=event.at,
        rules_version=event.rules_version,
        command=event.command,
    )


def chain_problems(events: Sequence[Any]) -> list[str]:
    """Every place where a log's chain is broken (empty when it is whole): each event must name the previous
    event's hash and carry the hash of its own content."""
    problems = []
    prev = GENESIS
    for e in events:
        if e.prev_hash != prev:
            problems.append(f"event {e.seq} ({e.type}) does not follow the event before it (its previous hash differs)")
        expected = hash_of(e.prev_hash, e)
        if e.hash != expected:
            problems.append(f"event {e.seq} ({e.type}) was changed after it was recorded (its hash does not match)")
        prev = e.hash
    return problems
