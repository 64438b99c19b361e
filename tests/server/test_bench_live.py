"""The live bench's machinery at a tiny size, so that `make bench` cannot rot: the real server and the two baselines
each in a process of their own, on SQLite, and every figure there and sane. Nothing here is timed."""

from __future__ import annotations

from typing import Any

from herotable.bench.live import TARGETS, Size, live

PERCENTILES = {"p50", "p95", "p99"}


def _sane_loop(figures: dict[str, Any], writers: int, commands: int, fanout: bool) -> None:
    assert figures["writers"] == writers
    assert figures["failed"] == {}
    assert figures["commands"] == commands
    assert figures["commands_per_s"] > 0
    assert set(figures["latency_ms"]) == PERCENTILES
    assert 0 < figures["latency_ms"]["p50"] <= figures["latency_ms"]["p95"] <= figures["latency_ms"]["p99"]
    if fanout:
        assert set(figures["fanout_ms"]) == PERCENTILES
        assert 0 < figures["fanout_ms"]["p50"] <= figures["fanout_ms"]["p99"]
        assert figures["frames_missing"] == 0
        assert figures["frames_duplicated"] == 0


def test_the_live_bench_measures_a_tiny_table_on_sqlite() -> None:
    """Each figure of herotable and of its baseline, measured in rounds that take turns."""
    size = Size(
        players=2,
        spectators=1,
        commands=8,
        rounds=2,
        writers=(1, 2),
        other_campaigns=(1, 3),
        listings=3,
        databases=("sqlite",),
        frame_wait_s=20,
    )
    figures = live(size)

    assert figures["size"]["viewers"] == 4
    db = figures["sqlite"]
    assert db["server"] == "herotable serve --workers 1"
    assert "synchronous=FULL" in db["durability"]
    assert set(db["listing_ms"]) == {"other_campaigns_few", "other_campaigns_many"}
    for listing in db["listing_ms"].values():
        assert set(listing) == PERCENTILES and listing["p50"] > 0
    assert figures["size"]["rounds"] == 2
    for writers in (1, 2):
        key = f"writers_{writers}"  # each loop's 8 commands in two rounds of 4, shared by its writers
        _sane_loop(db["no_viewers"][key], writers, 8, fanout=False)
        rounds = db["no_viewers"][key]["rounds_over_bare_insert"]  # the goal's ratio is their median
        assert len(rounds) == 2 and all(r > 0 for r in rounds)
        assert min(rounds) <= figures["ratios"]["sqlite"]["commands_over_bare_insert"][key] <= max(rounds)
        _sane_loop(db["bare_insert"][key], writers, 8, fanout=False)
        _sane_loop(db["viewers"][key], writers, 8, fanout=True)
        _sane_loop(db["bare_broadcast"][key], writers, 8, fanout=True)
    # every viewer's own stream, read back through the API, came in frames: the table's joins and the 16 rolls
    assert db["streams"]["viewers"] == 4
    assert db["streams"]["events_checked"] >= 4 * 16
    assert {k: v for k, v in db["streams"].items() if k not in ("viewers", "events_checked")} == {
        "missing": 0,
        "duplicated": 0,
        "unexpected": 0,
        "fresh_hellos": 0,
        "sockets_closed": 0,
    }
    assert db["frame_bytes"] > 0  # what the bare broadcast sends: the median size of herotable's frames

    ratios = figures["ratios"]["sqlite"]
    assert set(ratios) == set(TARGETS)
    assert ratios["frames_missing"] == 0
    assert ratios["listing_p50_many_over_one"] > 0
    for kind in ("commands_over_bare_insert", "fanout_p99_over_bare_broadcast"):
        assert set(ratios[kind]) == {"writers_1", "writers_2"}
        assert all(0 < r < float("inf") for r in ratios[kind].values())
