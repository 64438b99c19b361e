"""The opening bench's machinery at a tiny size, so that `make bench` cannot rot: every figure there, on SQLite and
PostgreSQL, and the campaigns it measures as it says. Nothing here is timed."""

from __future__ import annotations

import os
from typing import Any

import pytest

from herotable.bench.live import POSTGRES_URL_ENV
from herotable.bench.opening import GOAL, Size, opening
from herotable.service import states
from herotable.table.fold import STATE_VERSION


def _positive(value: Any) -> bool:
    return isinstance(value, int | float) and value > 0


def test_the_opening_bench_reports_every_figure_on_each_database(monkeypatch: pytest.MonkeyPatch) -> None:
    test_server = os.environ.get("HEROTABLE_TEST_POSTGRES_URL")
    if test_server:
        monkeypatch.setenv(POSTGRES_URL_ENV, test_server)
    databases = ("sqlite", "postgresql") if test_server else ("sqlite",)
    size = Size(events=1_500, short=40, played=300, openings=2, snapshot_every=100, databases=databases)
    figures = opening(size)

    assert figures["goal"] == GOAL
    assert figures["upcast_events"] > 0  # some facts stored at an older version of their kind
    assert _positive(figures["seconds"]) and _positive(figures["build_s"])
    for kind in databases:
        db = figures[kind]
        assert 1_550 + 3 <= db["long_events"] <= 1_600  # played to 1,550, then three rolls: one not counted, two
        assert db["long_snapshot_seq"] % 100 < 20 and db["long_events"] - db["long_snapshot_seq"] >= 40
        assert db["short_events"] >= 40 and _positive(db["long_snapshot_bytes"])
        assert set(db["first_command_ms"]) == {"long", "short"} and all(map(_positive, db["first_command_ms"].values()))
        assert [len(db["each_ms"][k]) for k in ("long", "short")] == [2, 2]
        assert _positive(db["long_over_short"])
        changed = db["after_a_format_change_ms"]
        assert _positive(changed["first"]) and _positive(changed["second"])
        assert changed["snapshot_kept_at"] == db["long_events"]  # at the head its first opening found
    assert states.STATE_VERSION == STATE_VERSION  # the format the bench changed for its figure is put back
