"""`make bench`: throughput of the rules engine and of replay, written to bench/results.json.

Speed goals are checked here, never by timed tests. Each figure comes with the machine's raw rate of a
trivial loop measured in the same run, so results from different machines compare as ratios.
"""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Callable
from pathlib import Path

from herotable.demo import run_demo
from herotable.dice import SeededRng
from herotable.ltl.samples import CAPTAIN_COMET
from herotable.service import TableService, replay_events
from herotable.store.memory import MemoryEventStore
from herotable.table.campaign import CreateLtlCharacter, Join
from herotable.table.ltl_play import Override
from herotable.table.model import Ruleset

RESULTS = Path("bench/results.json")


def _rate(work: Callable[[], int], seconds: float = 2.0) -> float:
    """Units of work per second, over at least `seconds`."""
    done, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        done += work()
    return done / elapsed


def _baseline() -> float:
    def loop() -> int:
        total = 0
        for i in range(10_000):
            total += i
        return 10_000

    return _rate(loop, 1.0)


def _conflicts() -> float:
    seed = iter(range(10**9))

    def fight() -> int:
        run_demo(SeededRng(next(seed)))
        return 1

    return _rate(fight)


def _replay(events: int) -> tuple[float, int]:
    service = TableService(MemoryEventStore(), rng=SeededRng(1), snapshot_every=10**9)
    service.create_campaign("gm", "GM", "Bench", Ruleset.LTL, campaign_id="b")
    service.execute("b", "p", Join("P"))
    service.execute("b", "p", CreateLtlCharacter("h", CAPTAIN_COMET))
    for i in range(events - 3):
        service.execute("b", "gm", Override("h", f"tick {i}", try_again_tokens=i % 3))
    log = service.store.load("b")
    start = time.perf_counter()
    state = replay_events(log)
    elapsed = time.perf_counter() - start
    assert state.seq == len(log)
    return len(log) / elapsed, len(log)


def main() -> None:
    baseline = _baseline()
    conflicts = _conflicts()
    replay_rate, replayed = _replay(20_000)
    results = {
        "machine": {"python": platform.python_version(), "processor": platform.machine()},
        "baseline_loop_iterations_per_s": round(baseline),
        "demo_conflicts_per_s": round(conflicts, 1),
        "replay_events_per_s": round(replay_rate),
        "replayed_events": replayed,
        "replay_100k_events_s_estimate": round(100_000 / replay_rate, 2),
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
