"""The portrait bench's machinery with two uploads at a time, so that `make bench` cannot rot: the real server in a
process of its own, both pictures sent, every figure there and sane. Nothing here is timed."""

from __future__ import annotations

import pytest

from herotable.bench.portraits import TARGETS, costliest_side, portraits, thin_png
from herotable.server.portrait_image import MAX_DECODE_BYTES, decode_bytes


def test_the_costliest_picture_is_the_largest_the_budget_takes() -> None:
    side = costliest_side()
    assert decode_bytes(side, side, "RGBA", alpha=True) <= MAX_DECODE_BYTES
    assert decode_bytes(side + 1, side + 1, "RGBA", alpha=True) > MAX_DECODE_BYTES


def test_the_portrait_bench_sends_both_pictures_to_a_real_server() -> None:
    figures = portraits(uploads=2)
    assert figures["uploads_at_once"] == 2 and figures["targets"] == TARGETS
    assert (figures["image_slots"], figures["max_decode_mib"]) == (2, 100.0)
    assert figures["thin"]["answers"] == {"422": 2}  # refused by its shape, before any pixel is decoded
    assert figures["thin"]["file_kb"] == round(len(thin_png()) / 1024, 1) < 64
    assert sum(figures["costliest"]["answers"].values()) == 2
    assert set(figures["costliest"]["answers"]) <= {"303", "503"}
    for load in (figures["thin"], figures["costliest"]):
        assert load["me_failed"] == {} and load["me_ms"]["count"] >= 1
        assert 0 < load["me_ms"]["p50"] <= load["me_ms"]["max"]
        assert load["upload_ms"]["count"] == 2
        assert 0 < load["rss_before_mib"] <= load["rss_peak_mib"]
        assert load["rss_increase_mib"] == pytest.approx(load["rss_peak_mib"] - load["rss_before_mib"], abs=0.11)
