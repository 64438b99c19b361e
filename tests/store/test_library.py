"""Each GM's library of characters, on every backend: an entry is kept with its character file, listed (by game, oldest
first, without the file) and read back by its owner alone, removed by its owner alone; one that breaks the contract is
refused and nothing is kept. It lives beside the campaigns: deleting one leaves the library as it was."""

from __future__ import annotations

from dataclasses import replace

import pytest

from herotable.store import EventStore, LibraryEntry, StoreError

from .helpers import AT, CREATED


def entry(entry_id: str, owner: str = "u-gwen", ruleset: str = "ltl", at: str = AT) -> LibraryEntry:
    return LibraryEntry(
        entry_id, owner, ruleset, f"Villain {entry_id}", "Harbour Nights", at, '{"format": "herotable.character"}'
    )


def test_an_entry_is_its_owners_alone_listed_read_and_removed(store: EventStore) -> None:
    store.save_to_library(entry("e2", at="2026-12-04T10:00:02+00:00"))
    store.save_to_library(entry("e1", at="2026-12-04T10:00:01+00:00"))
    store.save_to_library(entry("e3", ruleset="conviction", at="2026-12-04T10:00:03+00:00"))
    store.save_to_library(entry("theirs", owner="u-gina"))
    assert [e.entry_id for e in store.library("u-gwen")] == ["e1", "e2", "e3"]  # oldest first
    assert [e.entry_id for e in store.library("u-gwen", "ltl")] == ["e1", "e2"]
    assert all(e.document is None for e in store.library("u-gwen"))  # a listing reads no file
    assert store.library("u-pat") == []
    assert store.library_entry("u-gwen", "e1") == entry("e1", at="2026-12-04T10:00:01+00:00")
    # another owner's entry is not there for anyone else, to read or to remove
    assert store.library_entry("u-gwen", "theirs") is None
    assert store.delete_from_library("u-gwen", "theirs") is False
    assert store.library_entry("u-gina", "theirs") == entry("theirs", owner="u-gina")
    assert store.delete_from_library("u-gwen", "e1") is True
    assert store.delete_from_library("u-gwen", "e1") is False
    assert [e.entry_id for e in store.library("u-gwen")] == ["e2", "e3"]


def test_an_entry_that_breaks_the_contract_is_refused_and_nothing_is_kept(store: EventStore) -> None:
    store.save_to_library(entry("e1"))
    for bad, said in (
        (entry("e1"), "kept already"),
        (replace(entry("e2"), document=None), "with its document"),
        (replace(entry("e2"), document=""), "with its document"),
        (replace(entry("e2"), owner=""), "owner"),
        (replace(entry("e2"), saved_at="yesterday"), "ISO-8601"),
    ):
        with pytest.raises(StoreError, match=said):
            store.save_to_library(bad)
    assert [e.entry_id for e in store.library("u-gwen")] == ["e1"]


def test_a_campaign_deleted_leaves_the_library_as_it_was(store: EventStore) -> None:
    store.create_campaign("c1", "Harbour Nights", "ltl", CREATED)
    store.save_to_library(entry("e1"))
    store.delete_campaign("c1")
    assert store.library_entry("u-gwen", "e1") == entry("e1")
