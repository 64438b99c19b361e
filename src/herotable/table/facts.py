"""Facts: what happened at the table, in the past tense, one small frozen dataclass per kind.

A command is *decided* into facts; the state is a fold of the facts (`herotable.table.fold`); log text is
*rendered* from them when read (`herotable.table.render`). A fact carries every raw die face and every number the
state needs, so folding never rolls and never runs a rule.

Each kind has a stable `type` ("ltl.levels_lost") and a `version`. Kinds start at version 2 (version 1 was the
old command-events, which stored commands instead of facts). Changing a kind's shape bumps its version and
registers an upcaster from the old payload to the new one (`@upcaster("ltl.levels_lost", 2)`); stored events are
never rewritten, and reading applies the chain of upcasters up to the current version.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, TypeVar

from herotable.table.codec import CodecError, decoder, encode

FIRST_VERSION = 2  # version 1 was the command-events of the first table core: never read


class Visibility(StrEnum):
    """Who may see a fact: every member, one member (and the GM), or the GM only."""

    PUBLIC = "public"
    OWNER = "owner"
    GM = "gm"


class Fact:
    """Base of every fact kind. Subclasses are frozen dataclasses registered with `@fact`."""

    type: ClassVar[str] = ""
    version: ClassVar[int] = FIRST_VERSION
    commit: ClassVar[bool] = False  # rolls dice or acts on a roll: a player cannot undo it (R-T-4)
    rolled: ClassVar[bool] = False  # carries raw die faces
    reveals: ClassVar[str | None] = None  # the field naming a roll this fact makes public (R-T-4)
    inert: ClassVar[bool] = False  # tells the log something and changes no state: the fold passes it by
    news: ClassVar[bool] = False  # an outcome the table hears at once (a toast), beside every roll
    copied: ClassVar[bool] = False  # sent as one copy per reader: the GM, who sees every copy, reads it once

    @classmethod
    def headline(cls) -> bool:
        """Whether the table page tells this fact to the members who see it as it happens: rolls and outcomes."""
        return cls.rolled or cls.news

    def dice_faces(self) -> tuple[tuple[int, int], ...]:
        """Every die face this fact carries, as (sides, face), for the log."""
        return ()


@dataclass(frozen=True)
class Emitted:
    """A decided fact with its audience: `owner` names the member an OWNER fact is shown to."""

    fact: Fact
    visibility: Visibility = Visibility.PUBLIC
    owner: str | None = None


class FactError(ValueError):
    """A stored event that cannot be read as a fact: unknown kind, unknown version, or a payload that does not fit."""


F = TypeVar("F", bound=type[Fact])
FACT_TYPES: dict[str, type[Fact]] = {}
UPCASTERS: dict[tuple[str, int], Callable[[dict[str, Any]], dict[str, Any]]] = {}


def fact(cls: F) -> F:
    """Register a fact kind under its `type`."""
    if not cls.type or cls.type in FACT_TYPES:
        raise ValueError(f"fact type {cls.type!r} is empty or registered twice")
    if cls.version < FIRST_VERSION:
        raise ValueError(f"fact {cls.type!r}: versions start at {FIRST_VERSION}")
    FACT_TYPES[cls.type] = cls
    return cls


def upcaster(
    kind: str, from_version: int
) -> Callable[[Callable[[dict[str, Any]], dict[str, Any]]], Callable[[dict[str, Any]], dict[str, Any]]]:
    """Register a pure function turning a `kind` payload of `from_version` into one of `from_version + 1`."""

    def register(fn: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[dict[str, Any]], dict[str, Any]]:
        key = (kind, from_version)
        if key in UPCASTERS:
            raise ValueError(f"an upcaster for {kind!r} version {from_version} is registered twice")
        UPCASTERS[key] = fn
        return fn

    return register


def payload_of(f: Fact) -> dict[str, Any]:
    """The fact's payload as plain JSON."""
    data: dict[str, Any] = encode(f)
    return data


def upcast(kind: str, version: int, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The payload brought to the kind's current version through its registered upcasters. Raises FactError."""
    cls = FACT_TYPES.get(kind)
    if cls is None:
        raise FactError(f"unknown fact type {kind!r} (version {version}). Tip: this herotable is older than the log")
    if version < FIRST_VERSION:
        raise FactError(
            f"{kind!r} is a version {version} event, recorded before the table kept facts; this herotable reads "
            f"version {FIRST_VERSION} and newer. Tip: replay the campaign with the herotable that recorded it"
        )
    if version > cls.version:
        raise FactError(f"{kind!r} version {version} is newer than this herotable knows ({cls.version})")
    data = dict(payload)
    while version < cls.version:
        step = UPCASTERS.get((kind, version))
        if step is None:
            raise FactError(f"no upcaster from {kind!r} version {version} to {version + 1}")
        data = step(data)
        version += 1
    return data


def read_fact(kind: str, version: int, payload: Mapping[str, Any]) -> Fact:
    """The fact a stored event holds, upcast to the current version. Raises FactError."""
    cls = FACT_TYPES.get(kind)
    if cls is None or version != cls.version:
        payload = upcast(kind, version, payload)
    assert cls is not None
    try:
        return decoder(cls)(payload if isinstance(payload, dict) else dict(payload))
    except CodecError as err:
        raise FactError(f"{kind!r} version {version}: {err}") from None
