"""The many-tables bench's machinery at a tiny size, so that `make bench` cannot rot: campaigns and sessions written
straight into the store, the real server in a process of its own on SQLite, the load spread over two generator
processes, and every figure there and sane. Nothing here is timed."""

from __future__ import annotations

from typing import Any

from herotable.bench.tables import LIMITS, TARGETS, Size, tables

PERCENTILES = {"p50", "p95", "p99"}


def _ordered(figures: dict[str, Any]) -> None:
    assert set(figures) >= PERCENTILES
    assert 0 < figures["p50"] <= figures["p95"] <= figures["p99"]


def test_the_many_tables_bench_measures_a_few_tables_on_sqlite() -> None:
    """Five tables of a GM and three players, each rolling about twice a second for a short window."""
    size = Size(
        campaigns=5,
        lone_commands=10,
        every_s=0.5,
        warmup_s=0.5,
        window_s=2.0,
        generators=2,
        databases=("sqlite",),
        cached_campaigns=3,  # fewer than the tables: states are read again, and frames must still all come
        frame_wait_s=20,
    )
    figures = tables(size)

    db = figures["sqlite"]
    assert db["server"].startswith("herotable serve --workers 1 --cached-campaigns 3")
    # made in the store: a GM and three players each, their sessions, and the campaign's four facts (created, joins)
    assert {k: db["setup"][k] for k in ("accounts", "campaigns", "events")} == {
        "accounts": 20,
        "campaigns": 5,
        "events": 20,
    }

    lone = db["lone_table"]
    assert (lone["viewers"], lone["commands"], lone["failed"]) == (4, 10, {})
    _ordered(lone["latency_ms"])
    _ordered(lone["fanout_ms"])
    assert (lone["frames_missing"], lone["frames_duplicated"]) == (0, 0)
    assert lone["server_cpu_ms_per_command"] > 0

    many = db["many_tables"]
    assert (many["campaigns"], many["sockets"], many["sockets_failed"], many["failed"]) == (5, 20, {}, {})
    assert many["commands"] > 0 and many["commands_checked"] >= many["commands"]
    _ordered(many["latency_ms"])
    _ordered(many["fanout_ms"])
    # every viewer got every event of its table's commands, once, warm-up included, on sockets that stayed open
    assert {k: many[k] for k in ("frames_missing", "frames_duplicated", "fresh_hellos", "sockets_closed")} == {
        "frames_missing": 0,
        "frames_duplicated": 0,
        "fresh_hellos": 0,
        "sockets_closed": 0,
    }
    for key in (
        "commands_per_s",
        "server_cpu_cores",
        "server_cpu_ms_per_command",
        "machine_busy_share",
        "open_s",
        "open_server_cpu_ms_per_socket",
    ):
        assert many[key] >= 0

    assert [g["tables"] for g in db["generators"]] == [3, 2]
    assert [g["sockets"] for g in db["generators"]] == [12, 8]
    for generator in db["generators"]:
        assert generator["cpu_s"] >= 0 and generator["cpu_share"] >= 0 and generator["unsent"] >= 0
        assert set(generator["late_ms"]) == PERCENTILES | {"max"}

    rss = db["rss_mib"]
    assert set(rss) == {"ready", "start", "sockets_open", "end", "peak"}
    assert all(v > 0 for v in rss.values()) and rss["peak"] == max(rss.values())
    assert "rss_kib_per_campaign" in db

    ratios = figures["ratios"]["sqlite"]
    assert set(ratios) == set(TARGETS) | {"met"} and set(ratios["met"]) == set(LIMITS)
    assert ratios["frames_missing"] == 0 and ratios["met"]["frames_missing"]
    assert ratios["latency_p99_over_lone"] > 0 and ratios["fanout_p99_over_lone"] > 0
    assert figures["seconds"] > 0
