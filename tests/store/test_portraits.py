"""Portraits are kept beside the log, one per character, on every backend: set, replaced, read back byte for byte,
listed by digest without their images, removed with their character or their campaign; a portrait that breaks the
contract is refused and nothing is kept. Revision 0007 adds their table to a database that already holds campaigns."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import pytest
import sqlalchemy as sa

from herotable.dice import SeededRng
from herotable.service import TableService
from herotable.store import EventStore, MemoryEventStore, Portrait, StoreError, UnknownCampaign, open_store
from herotable.store.engine import create_store_engine
from herotable.store.migrate import current_revision, head_revision, upgrade
from herotable.store.sql import SqlEventStore, parse_database_url
from herotable.table.state import Ruleset
from herotable.table.structure import Join, StartScene

from .helpers import AT, CREATED, event, write_at_old_revision


def portrait(campaign_id: str, character_id: str, image: bytes = b"RIFF\x00\x00\x00\x00WEBPpixels") -> Portrait:
    return Portrait.of(
        campaign_id, character_id, image, media_type="image/webp", width=512, height=384, set_by="u-pat", set_at=AT
    )


def test_a_portrait_is_kept_replaced_and_removed(store: EventStore) -> None:
    store.create_campaign("c1", "Harbour Nights", "ltl", CREATED)
    store.create_campaign("c2", "Ninja Island", "conviction", CREATED)
    assert store.portrait("c1", "squall") is None
    assert store.portrait_digests("c1") == {}
    first = portrait("c1", "squall", b"first image \x00\xff bytes")
    store.set_portrait(first)
    store.set_portrait(portrait("c2", "squall", b"the other campaign's"))
    assert store.portrait("c1", "squall") == first
    assert store.portrait_digests("c1") == {"squall": hashlib.sha256(b"first image \x00\xff bytes").hexdigest()}
    second = replace(portrait("c1", "squall", b"second"), width=40, height=60, set_by="u-gwen")
    store.set_portrait(second)
    store.set_portrait(portrait("c1", "breaker", b"breaker's"))
    assert store.portrait("c1", "squall") == second
    assert store.portrait_digests("c1") == {
        "squall": second.digest,
        "breaker": portrait("c1", "breaker", b"breaker's").digest,
    }
    assert store.delete_portrait("c1", "squall") is True
    assert store.delete_portrait("c1", "squall") is False
    assert store.portrait("c1", "squall") is None
    assert store.portrait_digests("c1") == {"breaker": portrait("c1", "breaker", b"breaker's").digest}
    assert store.portrait("c2", "squall") == portrait("c2", "squall", b"the other campaign's")


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"digest": "0" * 64}, "digest is not the SHA-256 of its image"),
        ({"media_type": "image/svg+xml"}, "media_type is 'image/svg\\+xml'"),
        ({"width": 0}, "portrait width must be an integer of at least 1"),
        ({"set_at": "yesterday"}, "not an ISO-8601 timestamp"),
        ({"character_id": ""}, "portrait character_id must be a non-empty string"),
    ],
)
def test_a_portrait_that_breaks_the_contract_is_refused_and_nothing_is_kept(
    store: EventStore, change: dict[str, object], words: str
) -> None:
    store.create_campaign("c1", "Harbour Nights", "ltl", CREATED)
    kept = portrait("c1", "squall", b"kept")
    store.set_portrait(kept)
    with pytest.raises(StoreError, match=words):
        store.set_portrait(replace(portrait("c1", "squall", b"new"), **change))  # type: ignore[arg-type]
    assert store.portrait("c1", "squall") == kept
    with pytest.raises(UnknownCampaign):
        store.set_portrait(portrait("nowhere", "squall"))
    assert store.portrait("nowhere", "squall") is None


def test_deleting_a_campaign_deletes_its_portraits(store: EventStore) -> None:
    store.create_campaign("c1", "Harbour Nights", "ltl", CREATED)
    store.create_campaign("c2", "Ninja Island", "ltl", CREATED)
    store.append("c1", 0, [event("cmd-1")])
    store.set_portrait(portrait("c1", "squall"))
    store.set_portrait(portrait("c2", "squall"))
    store.delete_campaign("c1")
    assert store.portrait("c1", "squall") is None and store.portrait_digests("c1") == {}
    store.create_campaign("c1", "Harbour Nights again", "ltl", CREATED)
    assert store.portrait_digests("c1") == {}
    assert store.portrait("c2", "squall") == portrait("c2", "squall")


@pytest.fixture(params=["sqlite", "postgresql"])
def old_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database URL on each SQL backend, to migrate from an older revision."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'portraits.db'}"
    url: str = request.getfixturevalue("postgres_schema")()
    return url


def test_a_database_at_revision_0006_keeps_its_campaigns_and_takes_portraits(old_url: str) -> None:
    # revision 0007 adds the portraits table and touches nothing else: a campaign recorded at 0006 folds as before
    engine = create_store_engine(parse_database_url(old_url))
    upgrade(engine, "0006")
    old = TableService(MemoryEventStore(), rng=SeededRng(7))
    cid = old.create_campaign("u-gwen", "Gwen", "Harbour Nights", Ruleset.LTL).campaign_id
    old.execute(cid, "u-pat", Join("Pat"))
    old.execute(cid, "u-gwen", StartScene())
    before = old.state(cid)
    events = old.store.load(cid)
    write_at_old_revision(engine, old.store, cid)
    with engine.connect() as connection:
        assert "portraits" not in sa.inspect(connection).get_table_names()
    engine.dispose()
    store = open_store(old_url)
    try:
        assert isinstance(store, SqlEventStore)
        assert current_revision(store.engine) == head_revision()
        assert store.load(cid) == events
        table = TableService(store)
        assert table.state(cid) == before
        store.set_portrait(portrait(cid, "squall"))
        assert store.portrait(cid, "squall") == portrait(cid, "squall")
        with store.engine.connect() as connection:
            columns = {c["name"] for c in sa.inspect(connection).get_columns("portraits")}
        assert columns == {
            "campaign_id", "character_id", "media_type", "image", "width", "height", "digest", "set_by", "set_at",
        }  # fmt: skip
        store.delete_campaign(cid)
        assert store.portrait(cid, "squall") is None
    finally:
        store.close()
