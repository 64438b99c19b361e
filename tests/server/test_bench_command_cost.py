"""The command-cost bench's machinery at a tiny size, so that it cannot rot: both apps driven in this process, every
figure there, and every request it sent carried out. Nothing here is timed."""

from __future__ import annotations

from herotable.bench.command_cost import Size, command_cost


def test_the_command_cost_bench_measures_each_part_and_lands_every_command() -> None:
    size = Size(requests=3, rounds=2, warmup=2)
    figures = command_cost(size)

    cost = figures["ms_per_request"]
    assert set(cost["web"]) == {"herotable_csrf", "bare_csrf", "herotable_me", "herotable_command", "bare_insert"}
    assert set(cost["service"]) == {"execute"}
    assert set(cost["store"]) == {"append", "bare_insert"}
    assert all(ms > 0 for part in cost.values() for ms in part.values())
    # every roll landed: the campaign's creation (1 event), then one event per roll, through the web and without it
    rolls = 2 * (size.warmup + size.requests * size.rounds)
    assert figures["campaign_events"] == 1 + rolls
    ratio = figures["ratios"]["command_over_bare_insert"]
    assert abs(ratio - cost["web"]["bare_insert"] / cost["web"]["herotable_command"]) < 0.02  # the insert's over it
    assert figures["size"] == {"requests": 3, "rounds": 2, "warmup": 2}
