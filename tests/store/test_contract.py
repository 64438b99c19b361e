"""The EventStore contract, run on every backend: memory, SQLite and PostgreSQL."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import threading
import uuid
from collections.abc import Callable
from dataclasses import replace
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from herotable.store import (
    LOG_VERSION,
    CampaignExists,
    CampaignRow,
    ConcurrencyError,
    DuplicateCommand,
    EventStore,
    InvalidExport,
    NewEvent,
    StoreError,
    StreamCursor,
    UnknownCampaign,
    export_campaign,
    import_campaign,
)
from herotable.store.chain import chain_problems, hash_of
from herotable.store.port import CampaignImage, OverQuota

from .helpers import AT, CREATED, assert_whole_log, command, event, same


def new_campaign(store: EventStore, campaign_id: str = "c1") -> CampaignRow:
    return store.create_campaign(campaign_id, "The Ninja Island Job", "ltl", CREATED)


def test_new_campaign_is_empty_and_listed(store: EventStore) -> None:
    row = new_campaign(store)
    assert row == CampaignRow("c1", "The Ninja Island Job", "ltl", CREATED, 0)
    assert store.campaign("c1") == row
    assert store.campaigns() == [row]
    assert store.head("c1") == 0
    assert store.load("c1") == []


def test_campaigns_are_listed_oldest_first(store: EventStore) -> None:
    store.create_campaign("zz", "Later", "conviction", "2024-06-01T00:00:00+00:00")
    store.create_campaign("aa", "Sooner", "ltl", "2024-01-01T00:00:00+00:00")
    assert [row.campaign_id for row in store.campaigns()] == ["aa", "zz"]


def test_creating_a_campaign_twice_is_refused(store: EventStore) -> None:
    new_campaign(store)
    store.append("c1", 0, [event("k1")])
    with pytest.raises(CampaignExists, match="'c1' already exists"):
        store.create_campaign("c1", "Another", "conviction", CREATED)
    assert store.campaign("c1") == CampaignRow("c1", "The Ninja Island Job", "ltl", CREATED, 1)


@pytest.mark.parametrize(
    "field, value",
    [("campaign_id", ""), ("name", ""), ("ruleset", ""), ("created_at", "yesterday evening")],
)
def test_a_campaign_with_a_bad_field_is_refused(store: EventStore, field: str, value: str) -> None:
    fields = {"campaign_id": "c1", "name": "N", "ruleset": "ltl", "created_at": CREATED, field: value}
    with pytest.raises(StoreError, match=field):
        store.create_campaign(**fields)
    assert store.campaigns() == []


def test_every_read_and_write_names_an_unknown_campaign(store: EventStore) -> None:
    calls: list[Callable[[], object]] = [
        lambda: store.campaign("ghost"),
        lambda: store.head("ghost"),
        lambda: store.load("ghost"),
        lambda: store.append("ghost", 0, [event("k1")]),
        lambda: store.save_snapshot("ghost", 0, {}, 1),
        lambda: store.latest_snapshot("ghost", 1),
        lambda: store.command_events("ghost", "k1"),
    ]
    for call in calls:
        with pytest.raises(UnknownCampaign, match="'ghost'") as raised:
            call()
        assert raised.value.campaign_id == "ghost"


def test_append_numbers_events_one_two_three_without_gaps(store: EventStore) -> None:
    new_campaign(store)
    first = store.append("c1", 0, command("k1", 2))
    second = store.append("c1", 2, command("k2", 3))
    assert [e.seq for e in first] == [1, 2]
    assert [e.seq for e in second] == [3, 4, 5]
    assert store.head("c1") == 5
    assert store.campaign("c1").head == 5
    assert store.load("c1") == first + second
    assert [e.command_id for e in store.load("c1")] == ["k1", "k1", "k2", "k2", "k2"]


def test_every_field_of_an_event_comes_back(store: EventStore) -> None:
    new_campaign(store)
    sent = [
        NewEvent("ltl.roll_made", {"faces": [3, 17]}, "k1", AT, actor="gm-1", visibility="gm", version=3),
        NewEvent("ltl.sheet_shown", {"hero": "Nova"}, "k1", AT, actor="p-7", visibility="owner", owner="p-7"),
    ]
    store.append("c1", 0, sent)
    gm_event, owner_event = store.load("c1")
    assert (gm_event.campaign_id, gm_event.seq, gm_event.type, gm_event.command_id, gm_event.at) == (
        "c1",
        1,
        "ltl.roll_made",
        "k1",
        AT,
    )
    assert (gm_event.actor, gm_event.visibility, gm_event.owner, gm_event.version) == ("gm-1", "gm", None, 3)
    assert (owner_event.actor, owner_event.visibility, owner_event.owner, owner_event.version) == (
        "p-7",
        "owner",
        "p-7",
        1,
    )
    assert same(dict(gm_event.data), {"faces": [3, 17]})


def test_a_stale_expected_seq_is_a_concurrency_error_and_writes_nothing(store: EventStore) -> None:
    new_campaign(store)
    store.append("c1", 0, command("k1", 2))
    before = store.load("c1")
    for stale in (0, 1, 3, 10):
        with pytest.raises(ConcurrencyError, match="reload the campaign and retry") as raised:
            store.append("c1", stale, command(f"late-{stale}", 2))
        assert (raised.value.campaign_id, raised.value.expected_seq, raised.value.actual_seq) == ("c1", stale, 2)
    assert store.load("c1") == before
    assert store.head("c1") == 2


@pytest.mark.parametrize(
    "bad, complaint",
    [
        (event("k2", visibility="friends"), "visibility"),
        (event("k2", visibility="owner"), "owner"),
        (event("k2", owner="p-1"), "owner"),
        (event("k2", at="19:30"), "ISO-8601"),
        (event("k2", type=""), "type"),
        (event("k2", version=0), "version"),
        (event("k2", data={"dice": {6, 7}}), "set"),
        (event("k2", data={"odds": float("nan")}), "nan"),
        (event("k2", data={1: "one"}), "key 1"),
        (event("k1"), r"events\[2\]: command 'k1' is split"),
    ],
)
def test_one_bad_event_in_a_command_writes_none_of_it(store: EventStore, bad: NewEvent, complaint: str) -> None:
    new_campaign(store)
    with pytest.raises(StoreError, match=complaint):
        store.append("c1", 0, [event("k1"), event("k2"), bad])
    assert store.head("c1") == 0
    assert store.load("c1") == []


def test_an_empty_append_is_refused(store: EventStore) -> None:
    new_campaign(store)
    with pytest.raises(StoreError, match="at least one event"):
        store.append("c1", 0, [])


def test_a_command_is_recorded_once(store: EventStore) -> None:
    new_campaign(store)
    store.append("c1", 0, command("k1", 2))
    with pytest.raises(DuplicateCommand, match="'k1' is already recorded"):
        store.append("c1", 2, [event("k2"), event("k1")])
    assert store.head("c1") == 2


def test_a_command_s_events_are_found_by_its_id(store: EventStore) -> None:
    new_campaign(store)
    first = store.append("c1", 0, command("k1", 2))
    second = store.append("c1", 2, command("k2", 3))
    assert store.command_events("c1", "k1") == first
    assert store.command_events("c1", "k2") == second
    assert store.command_events("c1", "k3") == []


def test_load_after_seq_gives_only_newer_events(store: EventStore) -> None:
    new_campaign(store)
    for n in range(4):
        store.append("c1", 2 * n, command(f"k{n}", 2))
    everything = store.load("c1")
    assert store.load("c1", after_seq=5) == everything[5:]
    assert [e.seq for e in store.load("c1", after_seq=5)] == [6, 7, 8]
    assert store.load("c1", after_seq=8) == []
    assert store.load("c1", after_seq=0) == everything


def test_the_latest_snapshot_of_a_state_version_is_found(store: EventStore) -> None:
    new_campaign(store)
    assert store.latest_snapshot("c1", 1) is None
    for n in range(3):
        store.append("c1", 2 * n, command(f"k{n}", 2))
    store.save_snapshot("c1", 2, {"karma": "d10"}, 1)
    store.save_snapshot("c1", 6, {"karma": "d6"}, 1)
    store.save_snapshot("c1", 4, {"karma": "d8"}, 1)
    store.save_snapshot("c1", 3, {"v2": True}, 2)
    latest = store.latest_snapshot("c1", 1)
    assert latest is not None
    assert (latest.campaign_id, latest.seq, latest.version) == ("c1", 6, 1)
    assert same(dict(latest.state), {"karma": "d6"})
    other = store.latest_snapshot("c1", 2)
    assert other is not None and (other.seq, dict(other.state)) == (3, {"v2": True})
    assert store.latest_snapshot("c1", 3) is None


def test_a_snapshot_saved_again_replaces_the_old_one(store: EventStore) -> None:
    new_campaign(store)
    store.append("c1", 0, command("k1", 2))
    store.save_snapshot("c1", 2, {"old": 1}, 1)
    store.save_snapshot("c1", 2, {"new": 2}, 1)
    latest = store.latest_snapshot("c1", 1)
    assert latest is not None and dict(latest.state) == {"new": 2}


def test_the_same_snapshot_saved_by_several_at_once_is_kept_once_and_refuses_none(store: EventStore) -> None:
    """Processes that read a campaign with no snapshot of their format each save one at its head, at the same
    moment: one is kept, and no reading fails (on PostgreSQL the second insert waits for the first and meets its
    key)."""
    new_campaign(store)
    store.append("c1", 0, command("k1", 12))
    errors: list[BaseException] = []
    for seq in range(1, 13):
        barrier = threading.Barrier(4)

        def save(at: int = seq, wait: threading.Barrier = barrier) -> None:
            wait.wait()
            try:
                store.save_snapshot("c1", at, {"seq": at}, 1)
            except BaseException as error:
                errors.append(error)

        threads = [threading.Thread(target=save) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        latest = store.latest_snapshot("c1", 1)
        assert latest is not None and (latest.seq, dict(latest.state)) == (seq, {"seq": seq})


def test_a_snapshot_past_the_head_is_refused(store: EventStore) -> None:
    new_campaign(store)
    store.append("c1", 0, command("k1", 2))
    with pytest.raises(StoreError, match="past campaign 'c1'"):
        store.save_snapshot("c1", 3, {}, 1)
    assert store.latest_snapshot("c1", 1) is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.dictionaries(st.text(), json_values, max_size=5), state=st.dictionaries(st.text(), json_values))
def test_payloads_and_snapshots_come_back_exactly(
    store: EventStore, data: dict[str, Any], state: dict[str, Any]
) -> None:
    campaign_id = f"c-{uuid.uuid4().hex}"
    new_campaign(store, campaign_id)
    expected = copy.deepcopy(data)
    returned = store.append(campaign_id, 0, [event("k1", data=data)])
    data.clear()
    (loaded,) = store.load(campaign_id)
    assert same(dict(returned[0].data), expected)
    assert same(dict(loaded.data), expected)
    store.save_snapshot(campaign_id, 1, state, 1)
    snapshot = store.latest_snapshot(campaign_id, 1)
    assert snapshot is not None and same(dict(snapshot.state), state)


def test_big_integers_and_unicode_come_back_exactly(store: EventStore) -> None:
    new_campaign(store)
    data = {
        "big": 2**70,
        "negative": -(2**63),
        "minus_zero": -0.0,
        "tiny": 5e-324,
        "text": "Dino-Pirates 🦖 ñ 忍者",
        "deep": [[[{}]]],
        "whole_float": 3.0,
    }
    store.append("c1", 0, [event("k1", data=data)])
    assert same(dict(store.load("c1")[0].data), data)


def played(store: EventStore) -> None:
    """A small campaign: three commands, public, owner-only and GM-only events, unicode data."""
    new_campaign(store)
    store.append("c1", 0, command("k1", 2))
    store.append(
        "c1",
        2,
        [
            NewEvent("ltl.roll_made", {"faces": [20, 1], "who": "Señor Ñandú"}, "k2", AT, actor="gm", visibility="gm"),
            NewEvent("ltl.note", {"text": "🦖"}, "k2", AT, actor="p1", visibility="owner", owner="p1", version=2),
        ],
    )
    store.append("c1", 4, command("k3", 3))


def expected_digest(document: dict[str, Any]) -> str:
    content = {"campaign": document["campaign"], "event_count": len(document["events"]), "events": document["events"]}
    if "images" in document:
        content["images"] = document["images"]
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_an_export_imported_into_an_empty_store_is_identical(store: EventStore, other_store: EventStore) -> None:
    played(store)
    document = json.loads(json.dumps(export_campaign(store, "c1")))
    assert document["format"] == "herotable.campaign"
    assert document["format_version"] == 3
    assert document["event_count"] == 7
    assert document["sha256"] == expected_digest(document)
    row = import_campaign(other_store, document)
    assert row == store.campaign("c1") == other_store.campaign("c1")
    assert other_store.campaigns() == store.campaigns()
    originals, restored = store.load("c1"), other_store.load("c1")
    assert restored == originals
    assert all(same(dict(a.data), dict(b.data)) for a, b in zip(originals, restored, strict=True))
    other_store.append("c1", 7, command("k4", 1))
    assert other_store.head("c1") == 8


def test_an_export_of_an_empty_campaign_round_trips(store: EventStore, other_store: EventStore) -> None:
    new_campaign(store)
    assert import_campaign(other_store, export_campaign(store, "c1")).head == 0
    assert other_store.load("c1") == []


def _change_data(doc: dict[str, Any]) -> None:
    doc["events"][2]["data"]["faces"] = [20, 20]


def _drop_last(doc: dict[str, Any]) -> None:
    doc["events"].pop()


def _drop_last_and_fix_counts(doc: dict[str, Any]) -> None:
    doc["events"].pop()
    doc["event_count"] -= 1
    doc["campaign"]["head"] -= 1


def _cut_tail_keep_head(doc: dict[str, Any]) -> None:
    # a log cut after its last event, the head left saying 7 and the count and digest made to agree
    doc["events"].pop()
    doc["event_count"] -= 1
    doc["sha256"] = expected_digest(doc)


def _swap(doc: dict[str, Any]) -> None:
    doc["events"][3], doc["events"][4] = doc["events"][4], doc["events"][3]


def _swap_within_a_command_and_renumber(doc: dict[str, Any]) -> None:
    doc["events"][4], doc["events"][5] = doc["events"][5], doc["events"][4]
    doc["events"][4]["seq"], doc["events"][5]["seq"] = 5, 6


def _wrong_digest(doc: dict[str, Any]) -> None:
    doc["sha256"] = "0" * 64


def _split_command(doc: dict[str, Any]) -> None:
    doc["events"][4]["command_id"] = "k1"


def _missing_field(doc: dict[str, Any]) -> None:
    del doc["events"][1]["visibility"]


def _seq_as_text(doc: dict[str, Any]) -> None:
    doc["events"][1]["seq"] = "2"


def _newer_format(doc: dict[str, Any]) -> None:
    doc["format_version"] = 4


def _first_format(doc: dict[str, Any]) -> None:
    doc["format_version"] = 1


def _forged_hash(doc: dict[str, Any]) -> None:
    doc["events"][1]["hash"] = "f" * 64


def _foreign_event(doc: dict[str, Any]) -> None:
    doc["events"][0]["campaign_id"] = "c2"


def _changed_image(doc: dict[str, Any]) -> None:
    doc["images"] = [IMAGE_OUT]


def _image_not_its_digest(doc: dict[str, Any]) -> None:
    doc["images"] = [IMAGE_OUT | {"data": base64.b64encode(b"other").decode()}]
    doc["sha256"] = expected_digest(doc)


IMAGE = CampaignImage.of("c1", b"RIFF-webp", media_type="image/webp", width=4, height=3, set_by="gm", set_at=AT)
IMAGE_OUT = {
    "digest": IMAGE.digest,
    "media_type": "image/webp",
    "width": 4,
    "height": 3,
    "set_by": "gm",
    "set_at": AT,
    "data": base64.b64encode(IMAGE.image).decode(),
}


def test_the_journals_images_travel_in_the_export_and_a_version_2_document_is_still_read(
    store: EventStore, other_store: EventStore
) -> None:
    played(store)
    assert store.add_image(IMAGE, 1000) is True
    assert store.add_image(IMAGE, 1000) is False  # the same picture again: kept once
    document = json.loads(json.dumps(export_campaign(store, "c1")))
    assert document["images"] == [IMAGE_OUT] and document["sha256"] == expected_digest(document)
    import_campaign(other_store, document)
    assert other_store.campaign_images("c1") == [IMAGE] == store.campaign_images("c1")
    older = {k: v for k, v in document.items() if k != "images"} | {"format_version": 2}
    older["sha256"] = expected_digest(older)
    store.delete_campaign("c1")
    import_campaign(store, older)
    assert store.load("c1") == other_store.load("c1") and store.campaign_images("c1") == []


def test_a_campaigns_images_stop_at_its_quota_counted_in_bytes(store: EventStore) -> None:
    new_campaign(store)
    size = len(IMAGE.image)
    with pytest.raises(OverQuota, match="raise the quota"):
        store.add_image(IMAGE, size - 1)
    assert store.images_used("c1") == (0, [])
    assert store.add_image(IMAGE, size)
    assert store.images_used("c1") == (size, [(IMAGE.digest, size)])
    assert store.campaign_image("c1", IMAGE.digest) == IMAGE and store.campaign_image("c2", IMAGE.digest) is None
    assert store.remove_image("c1", IMAGE.digest) and not store.remove_image("c1", IMAGE.digest)
    assert store.images_used("c1") == (0, [])


TAMPERINGS: list[tuple[Callable[[dict[str, Any]], None], str]] = [
    (_change_data, "event 3 .* was changed after it was recorded"),
    (_drop_last, "event_count is 7 but the document holds 6 events"),
    (_drop_last_and_fix_counts, "sha256 digest does not match"),
    (
        _cut_tail_keep_head,
        r"campaign 'The Ninja Island Job' \(c1\): its head is at event 7 but its log ends at event 6.*Tip: ",
    ),
    (_swap, "event number 4 in the log has seq 5"),
    (_swap_within_a_command_and_renumber, "event 5 .* does not follow the event before it"),
    (_wrong_digest, "sha256 digest does not match"),
    (_split_command, "event seq 5: command 'k1' is split"),
    (_missing_field, r"events\[1\] \(seq 2\): field 'visibility' is missing"),
    (_seq_as_text, r"events\[1\]: field 'seq' must be an integer"),
    (_newer_format, "format_version 4 is not one this herotable reads"),
    (_changed_image, "sha256 digest does not match"),
    (_image_not_its_digest, r"images\[0\]: image digest is not the SHA-256 of its image"),
    (_first_format, "format version 1 export, recorded before campaigns were kept as facts"),
    (_forged_hash, "event 2 .* was changed after it was recorded"),
    (_foreign_event, "event seq 1 belongs to campaign 'c2'"),
]


@pytest.mark.parametrize("tamper, reason", TAMPERINGS, ids=[t.__name__.strip("_") for t, _ in TAMPERINGS])
def test_a_tampered_export_is_refused_with_its_reason_and_imports_nothing(
    store: EventStore, other_store: EventStore, tamper: Callable[[dict[str, Any]], None], reason: str
) -> None:
    played(store)
    document = export_campaign(store, "c1")
    tamper(document)
    with pytest.raises(InvalidExport, match=reason) as raised:
        import_campaign(other_store, document)
    assert "Nothing was imported" in str(raised.value)
    assert other_store.campaigns() == []


def test_an_export_of_a_campaign_already_in_the_store_is_refused(store: EventStore) -> None:
    played(store)
    before = store.load("c1")
    with pytest.raises(InvalidExport, match="'c1' already exists"):
        import_campaign(store, export_campaign(store, "c1"))
    assert store.load("c1") == before


def _run_at_once(player: Callable[[int], None], threads: int) -> None:
    """`player(0)` … `player(threads - 1)`, each in a thread of its own, all at once; back when all are done."""
    workers = [threading.Thread(target=player, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)


def test_racing_appends_at_the_same_head_exactly_one_wins(store: EventStore) -> None:
    # Two players spending the last Karma level at once: one command lands, the others must reload.
    new_campaign(store)
    threads, rounds = 8, 5
    barrier = threading.Barrier(threads)
    wins: list[tuple[int, int]] = []
    clashes: list[tuple[int, int]] = []
    errors: list[BaseException] = []

    def player(number: int) -> None:
        try:
            for round_ in range(rounds):
                barrier.wait()
                expected = 2 * round_
                try:
                    store.append("c1", expected, command(f"r{round_}-p{number}", 2))
                    wins.append((round_, number))
                except ConcurrencyError as clash:
                    assert clash.actual_seq == expected + 2
                    clashes.append((round_, number))
                barrier.wait()
        except BaseException as error:
            errors.append(error)
            barrier.abort()

    _run_at_once(player, threads)
    assert errors == []
    assert sorted(round_ for round_, _ in wins) == list(range(rounds))
    assert len(clashes) == rounds * (threads - 1)
    log = store.load("c1")
    assert len(log) == 2 * rounds
    assert_whole_log(log, per_command=2)


def test_a_writer_that_finds_the_head_moved_is_handed_what_landed_and_appends_after_it(store: EventStore) -> None:
    # Two processes decided on the same state: the second is not refused but decides again after the first.
    new_campaign(store)
    first = store.append("c1", 0, command("first", 2))
    handed: list[list[Any]] = []

    def catch_up(newer: Any) -> tuple[list[NewEvent], None]:
        handed.append(list(newer))
        return command("second-again", 3), None

    stored = store.append("c1", 0, command("second", 1), catch_up=catch_up)
    assert handed == [first]
    assert [e.seq for e in stored] == [3, 4, 5]
    assert {e.command_id for e in stored} == {"second-again"}
    log = store.load("c1")
    assert [e.seq for e in log] == [1, 2, 3, 4, 5]
    assert [e.command_id for e in log] == ["first"] * 2 + ["second-again"] * 3
    assert chain_problems(log) == []
    assert store.head("c1") == 5


def test_a_writer_at_the_head_is_not_handed_anything(store: EventStore) -> None:
    new_campaign(store)
    store.append("c1", 0, command("first", 1))

    def catch_up(newer: Any) -> tuple[list[NewEvent], None]:
        raise AssertionError(f"handed {newer!r} though nothing landed since")

    assert [e.seq for e in store.append("c1", 1, command("second", 1), catch_up=catch_up)] == [2]


def test_a_writer_ahead_of_the_log_is_refused_and_not_handed_anything(store: EventStore) -> None:
    # it remembers a log that is no longer there (deleted and imported again): nothing to catch up from
    new_campaign(store)
    store.append("c1", 0, command("first", 1))

    def catch_up(newer: Any) -> tuple[list[NewEvent], None]:
        raise AssertionError("handed events though the writer is ahead of the log")

    with pytest.raises(ConcurrencyError) as clash:
        store.append("c1", 3, command("second", 1), catch_up=catch_up)
    assert (clash.value.expected_seq, clash.value.actual_seq) == (3, 1)
    assert store.head("c1") == 1


def test_a_refusal_while_catching_up_writes_nothing_and_reaches_the_writer(store: EventStore) -> None:
    new_campaign(store)
    store.append("c1", 0, command("first", 1))
    before = store.load("c1")

    def catch_up(newer: Any) -> tuple[list[NewEvent], None]:
        raise ValueError("the last Karma level was spent first")

    with pytest.raises(ValueError, match="spent first"):
        store.append("c1", 0, command("second", 1), catch_up=catch_up)
    assert store.load("c1") == before
    assert store.head("c1") == 1


def test_a_bad_batch_given_while_catching_up_is_refused_and_writes_nothing(store: EventStore) -> None:
    new_campaign(store)
    store.append("c1", 0, command("first", 1))
    with pytest.raises(StoreError):
        store.append("c1", 0, command("second", 1), catch_up=lambda newer: ([], None))
    assert store.head("c1") == 1


def test_racing_writers_that_catch_up_all_land_each_after_what_it_was_handed(store: EventStore) -> None:
    new_campaign(store)
    threads, rounds = 6, 4
    barrier = threading.Barrier(threads)
    errors: list[BaseException] = []
    handed: dict[str, list[int]] = {}

    def player(number: int) -> None:
        try:
            for round_ in range(rounds):
                barrier.wait()
                name = f"r{round_}-p{number}"
                seen: list[int] = []

                def catch_up(newer: Any, name: str = name, seen: list[int] = seen) -> tuple[list[NewEvent], None]:
                    seen[:] = [e.seq for e in newer]
                    return command(name, 2), None

                expected = store.head("c1")
                stored = store.append("c1", expected, command(name, 2), catch_up=catch_up)
                handed[name] = seen
                assert stored[0].seq == (seen[-1] if seen else expected) + 1
        except BaseException as error:
            errors.append(error)
            barrier.abort()

    _run_at_once(player, threads)
    assert errors == []
    log = store.load("c1")
    assert len(log) == 2 * threads * rounds
    assert_whole_log(log, per_command=2)
    assert len({e.command_id for e in log}) == threads * rounds


def test_every_event_is_chained_to_the_one_before(store: EventStore) -> None:
    played(store)
    log = store.load("c1")
    assert log[0].prev_hash == "" and all(b.prev_hash == a.hash for a, b in pairwise(log))
    assert all(e.hash == hash_of(e.prev_hash, e) and len(e.hash) == 64 for e in log)
    assert chain_problems(log) == []
    changed = [log[0], replace(log[1], data={"part": 9, "of": 2}), *log[2:]]
    assert chain_problems(changed) == [
        "event 2 (ltl.karma_spent) was changed after it was recorded (its hash does not match)"
    ]
    dropped = [log[0], *log[2:]]
    assert "event 3 (ltl.roll_made) does not follow the event before it" in chain_problems(dropped)[0]


def test_the_chain_carries_on_across_appends_and_imports(store: EventStore, other_store: EventStore) -> None:
    played(store)
    import_campaign(other_store, export_campaign(store, "c1"))
    mine = store.append("c1", 7, command("k4", 1))[0]
    theirs = other_store.append("c1", 7, command("k4", 1))[0]
    assert mine.prev_hash == theirs.prev_hash == store.load("c1")[6].hash
    assert mine.hash == theirs.hash


def test_each_audience_numbers_its_own_events(store: EventStore) -> None:
    played(store)
    log = store.load("c1")
    assert [(e.visibility, e.owner, e.stream_pos) for e in log] == [
        ("public", None, 1),
        ("public", None, 2),
        ("gm", None, 1),
        ("owner", "p1", 1),
        ("public", None, 3),
        ("public", None, 4),
        ("public", None, 5),
    ]


def test_stream_tops_are_each_audiences_newest_position_with_the_head(store: EventStore) -> None:
    new_campaign(store, "c2")
    assert store.stream_tops("c2") == (0, {})
    played(store)
    assert store.stream_tops("c1") == (7, {("public", None): 5, ("gm", None): 1, ("owner", "p1"): 1})
    with pytest.raises(UnknownCampaign):
        store.stream_tops("nope")


def test_stream_tops_and_heads_count_every_owner_beside_other_campaigns(store: EventStore) -> None:
    """The SQL store finds the owners and each stream's top by searching its index, owner after owner, rather than
    reading the log: each still as the log counts it, whatever the owners' names (one the start of another, beyond
    ASCII, one whose events stop early) and however other campaigns' streams interleave in the index."""
    import random

    from herotable.store.invariants import positions

    owners = ["p1", "p10", "p1 x", "Zoë", "ß", "a", "gone"]
    for campaign_id in ("c0", "c1", "c9"):
        new_campaign(store, campaign_id)
    rng = random.Random(7)
    for n in range(90):
        campaign_id = rng.choice(("c0", "c1", "c1", "c9"))
        audience = rng.choice(["public", "gm", *owners[:-1]] if n > 20 else ["public", *owners])
        kept = {"visibility": "owner", "owner": audience} if audience in owners else {"visibility": audience}
        store.append(campaign_id, store.head(campaign_id), [event(f"k{n}", **kept), event(f"k{n}")])
    for campaign_id in ("c0", "c1", "c9"):
        log = store.load(campaign_id)
        tops: dict[tuple[str, str | None], int] = {}
        for e, place in zip(log, positions(log), strict=True):
            tops[(e.visibility, e.owner)] = place
        assert store.stream_tops(campaign_id) == (log[-1].seq, tops)
        for owner in (*owners, "nobody"):
            assert store.stream_head(campaign_id, owner) == StreamCursor(
                tops[("public", None)], tops.get(("owner", owner), 0)
            )


def test_an_append_numbers_its_stream_positions_on_from_the_tops_it_is_given(store: EventStore) -> None:
    """The service hands the tops it remembers at the head it decided on; positions carry on from them exactly as
    when the store counts them itself."""
    played(store)
    _, tops = store.stream_tops("c1")
    batch = [event("k4"), event("k4", visibility="owner", owner="p1"), event("k4", visibility="owner", owner="p2")]
    stored = store.append("c1", 7, batch, stream_tops=tops)
    assert [e.stream_pos for e in stored] == [6, 2, 1]
    assert [e.stream_pos for e in store.load("c1")] == [1, 2, 1, 1, 3, 4, 5, 6, 2, 1]


def test_fresh_ids_skip_no_clash_check(store: EventStore) -> None:
    """`fresh_ids` may spare the look for earlier ids, never the head check."""
    played(store)
    with pytest.raises(ConcurrencyError):
        store.append("c1", 3, command("k9", 1), fresh_ids=True)
    assert len(store.append("c1", 7, command("k9", 1), fresh_ids=True)) == 1


def test_a_known_campaigns_stream_reads_as_an_unknown_one_does_not(store: EventStore) -> None:
    played(store)
    assert [e.seq for e in store.read_stream("c1", "p1", known=True)] == [e.seq for e in store.read_stream("c1", "p1")]
    assert store.stream_head("c1", "p1", known=True) == store.stream_head("c1", "p1")
    assert store.stream_head("c1", "gm", everything=True, known=True) == StreamCursor(7, 0)
    with pytest.raises(UnknownCampaign):
        store.read_stream("nope", "p1")


def test_a_viewer_reads_the_public_events_and_their_own(store: EventStore) -> None:
    played(store)
    store.append("c1", 7, [event("k4", visibility="owner", owner="p2"), event("k4", visibility="owner", owner="p1")])
    seqs = lambda events: [e.seq for e in events]  # noqa: E731
    assert seqs(store.read_stream("c1", "p1")) == [1, 2, 4, 5, 6, 7, 9]
    assert seqs(store.read_stream("c1", "p2")) == [1, 2, 5, 6, 7, 8]
    assert seqs(store.read_stream("c1", "sly")) == [1, 2, 5, 6, 7]
    assert seqs(store.read_stream("c1", "gm", everything=True)) == list(range(1, 10))
    assert store.stream_head("c1", "p1") == StreamCursor(5, 2)
    assert store.stream_head("c1", "gm", everything=True) == StreamCursor(9, 0)
    assert seqs(store.read_stream("c1", "p1", after=StreamCursor(2, 1))) == [5, 6, 7, 9]
    assert seqs(store.read_stream("c1", "p1", after=StreamCursor(2, 1), limit=2)) == [5, 6]
    assert seqs(store.read_stream("c1", "p1", before=StreamCursor(3, 1), limit=2)) == [4, 5]
    assert seqs(store.read_stream("c1", "gm", everything=True, before=StreamCursor(4, 0), limit=3)) == [2, 3, 4]
    assert seqs(store.read_stream("c1", "p1", after=StreamCursor(5, 2))) == []


def test_a_campaign_can_be_deleted_with_its_log(store: EventStore) -> None:
    played(store)
    store.save_snapshot("c1", 7, {"x": 1}, 1)
    new_campaign(store, "c2")
    store.delete_campaign("c1")
    assert [row.campaign_id for row in store.campaigns()] == ["c2"]
    with pytest.raises(UnknownCampaign):
        store.load("c1")
    with pytest.raises(UnknownCampaign):
        store.delete_campaign("c1")
    new_campaign(store)
    assert store.head("c1") == 0 and store.latest_snapshot("c1", 1) is None


def test_new_campaigns_are_kept_as_facts(store: EventStore) -> None:
    assert new_campaign(store).log_version == LOG_VERSION == 2


def test_a_read_of_one_statement_begins_no_transaction(shared_url: str) -> None:
    # the session check of every request: on PostgreSQL in autocommit (no BEGIN, no ROLLBACK round trips); on
    # SQLite with no BEGIN, its connections still out of sqlite3's implicit transactions
    import sqlalchemy as sa

    from herotable.store.engine import create_store_engine, for_one_read, for_writing
    from herotable.store.sql import parse_database_url

    engine = create_store_engine(parse_database_url(shared_url))
    statements: list[str] = []
    sa.event.listen(engine, "before_cursor_execute", lambda *args: statements.append(args[2].split()[0]))
    try:
        reader = for_one_read(engine)
        with reader.connect() as connection:
            assert connection.execute(sa.text("SELECT 1")).scalar() == 1
            if engine.dialect.name == "postgresql":
                assert connection.connection.driver_connection.autocommit is True
            else:
                assert connection.connection.driver_connection.isolation_level is None
                assert not connection.connection.driver_connection.in_transaction
        assert statements == ["SELECT"]
        with engine.connect() as connection:  # the pooled connection is back to transactions for everyone else
            connection.execute(sa.text("SELECT 1"))
            if engine.dialect.name == "postgresql":
                assert connection.connection.driver_connection.autocommit is False
        with for_writing(engine).begin() as connection:
            connection.execute(sa.text("SELECT 1"))
        if engine.dialect.name == "sqlite":
            assert statements[-2:] == ["BEGIN", "SELECT"]  # BEGIN IMMEDIATE, as every writer takes it
    finally:
        engine.dispose()


def _statements(store: EventStore) -> list[str]:
    """The SQL a SQL store runs from here on (a memory store runs none)."""
    import sqlalchemy as sa

    seen: list[str] = []
    engine = getattr(store, "engine", None)
    if engine is not None:
        sa.event.listen(engine, "before_cursor_execute", lambda *args: seen.append(" ".join(args[2].split())))
    return seen


def test_a_writer_that_knows_the_head_s_hash_moves_it_without_reading_it(store: EventStore) -> None:
    new_campaign(store)
    first = store.append("c1", 0, command("first", 2))
    head, tops = store.stream_tops("c1")
    statements = _statements(store)
    stored = store.append("c1", head, command("second", 2), fresh_ids=True, stream_tops=tops, head_hash=first[-1].hash)
    during = list(statements)
    assert [e.seq for e in stored] == [3, 4]
    assert stored == store.load("c1", 2)
    assert chain_problems(store.load("c1")) == []
    assert not any(s.upper().startswith("SELECT") for s in during), during  # no head read, no stream top


@pytest.mark.parametrize("known", ["an old hash", "the hash of an earlier event"])
def test_a_writer_with_another_hash_than_the_head_s_reads_it_and_lands_right(store: EventStore, known: str) -> None:
    """A hash at the right seq but not the head's (the log was replaced meanwhile), or one that is not the head's at
    all: the head is read, held, and the chain stays whole."""
    new_campaign(store)
    first = store.append("c1", 0, command("first", 2))
    head, tops = store.stream_tops("c1")
    wrong = hashlib.sha256(b"a log that is gone").hexdigest() if known == "an old hash" else first[0].hash
    stored = store.append("c1", head, command("second", 1), stream_tops=tops, head_hash=wrong)
    assert stored[0].prev_hash == first[-1].hash
    assert chain_problems(store.load("c1")) == []


def test_a_writer_that_knows_a_hash_behind_the_head_still_catches_up_or_is_refused(store: EventStore) -> None:
    new_campaign(store)
    first = store.append("c1", 0, command("first", 1))
    _, tops = store.stream_tops("c1")
    store.append("c1", 1, command("other", 1))
    with pytest.raises(ConcurrencyError) as clash:
        store.append("c1", 1, command("late", 1), stream_tops=tops, head_hash=first[-1].hash)
    assert (clash.value.expected_seq, clash.value.actual_seq) == (1, 2)

    def catch_up(newer: Any) -> tuple[list[NewEvent], None]:
        assert [e.command_id for e in newer] == ["other"]
        return command("late-again", 1), None

    stored = store.append("c1", 1, command("late", 1), stream_tops=tops, head_hash=first[-1].hash, catch_up=catch_up)
    assert [(e.seq, e.command_id) for e in stored] == [(3, "late-again")]
    assert chain_problems(store.load("c1")) == []


def test_a_writer_that_may_catch_up_reads_the_head_and_what_landed_in_one_statement(store: EventStore) -> None:
    new_campaign(store)
    first = store.append("c1", 0, command("first", 2))
    _, tops = store.stream_tops("c1")  # where the audiences' streams stand after what will be handed over
    statements = _statements(store)
    handed: list[list[Any]] = []

    def catch_up(newer: Any) -> tuple[list[NewEvent], Any]:
        handed.append(list(newer))
        return command("second-again", 1), tops

    stored = store.append("c1", 0, command("second", 1), fresh_ids=True, catch_up=catch_up)
    during = [s.split()[0] for s in statements]
    assert handed == [first]
    assert [(e.seq, e.prev_hash) for e in stored] == [(3, first[-1].hash)]
    if during:  # a SQL store: the head and the events after it in one read, then the head moved and the insert
        assert [s for s in during if s != "BEGIN"] == ["SELECT", "UPDATE", "INSERT"]  # (SQLite's BEGIN is a statement)


def test_the_webhook_sender_is_woken_only_by_an_append_that_wrote_outbox_rows(store: EventStore) -> None:
    """A command on a campaign with no webhook must not wake the sender (it would look for rows on every command,
    taking SQLite's write lock beside the commands); one that wrote rows wakes it, once they are committed."""
    from herotable.store.webhooks import Webhook, webhooks_for

    new_campaign(store)
    woken: list[int] = []
    hooks = webhooks_for(store)

    def wake() -> None:  # the rows are there to take when the sender wakes
        woken.append(len(hooks.claim(10.0**12, 60, 10)))

    store.on_outbox(wake)
    store.append("c1", 0, [NewEvent("table.rolled", {"n": 1}, "k1", AT, actor="gm")])
    assert woken == []
    hooks.add_webhook(Webhook("w1", "c1", "dice", "https://example.test/hook", "json", "s" * 32, "gm", AT))
    store.append("c1", 1, [NewEvent("table.rolled", {"n": 2}, "k2", AT, actor="gm", visibility="gm")])
    assert woken == []  # nothing the table sees: no row
    store.append("c1", 2, [NewEvent("table.rolled", {"n": 3}, "k3", AT, actor="gm")])
    assert woken == [1]
