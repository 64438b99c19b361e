"""`make bench`: throughput of the rules engine, of loading campaigns and of the odds, opening a campaign not held in
memory (`bench.opening`), the live table under load, many tables on one box (`bench.tables`), portrait uploads as an
attack (`bench.portraits`), and how light the table page is (`bench.pages`), written to bench/results.json.

Speed goals are checked here, never by timed tests. Each figure comes with the machine's raw rate of a
trivial loop measured in the same run, so results from different machines compare as ratios.
"""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from herotable.bench.campaigns import AT, played, record
from herotable.bench.live import live
from herotable.bench.odds import figures as odds_figures
from herotable.bench.opening import opening
from herotable.bench.pages import figures as pages_figures
from herotable.bench.portraits import portraits
from herotable.bench.tables import tables
from herotable.demo import run_demo
from herotable.dice import ScriptedRng, SeededRng
from herotable.service import fold_log
from herotable.store.chain import GENESIS, chain_problems, event_hash
from herotable.store.export import digest, export_campaign, import_campaign
from herotable.store.memory import MemoryEventStore
from herotable.store.port import StoredEvent
from herotable.table.commands import command_from_json
from herotable.table.decide import decide
from herotable.table.facts import FACT_TYPES, read_fact
from herotable.table.fold import Recorded, fold
from herotable.table.state import Ruleset, TableState

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


def _redecide(events: list[StoredEvent], *, check: bool) -> TableState:
    """The state reached by deciding every recorded command again from its recorded dice and folding what it
    decides. With `check`, each decided fact is compared with the recorded one, as replay did before events were
    facts (it re-ran each command and compared its result with the log)."""
    state = TableState("", "", Ruleset.LTL)
    i = 0
    while i < len(events):
        first = events[i]
        record = first.command or {}
        body = record["body"]
        if not state.members:
            state = TableState(first.campaign_id, "", Ruleset(body["ruleset"]))
        cmd = command_from_json(body)
        actor = first.actor or ""
        decided = decide(state, cmd, actor, ScriptedRng([tuple(d) for d in record["dice"]]), first.command_id)
        batch = []
        for e in decided.facts:
            stored = events[i]
            if check and (
                stored.type != e.fact.type
                or stored.visibility != e.visibility.value
                or e.fact != read_fact(stored.type, stored.version, stored.data)
            ):
                raise AssertionError(f"event {stored.seq} does not decide again as recorded")
            batch.append(Recorded(stored.seq, first.command_id, actor, cmd.type, e.fact, e.visibility, e.owner))
            i += 1
        state = fold(batch, state)
    return state


def _as_first_recorded(document: dict[str, Any]) -> dict[str, Any]:
    """An export as an older herotable recorded it: every cv.check_rolled at version 2 (its first die named
    `face`), the hash chain and digest made again, so reading the log upcasts them."""
    prev = GENESIS
    for e in document["events"]:
        if e["type"] == "cv.check_rolled":
            e["version"] = 2
            e["data"] = {("face" if k == "first" else k): v for k, v in e["data"].items()}
        e["prev_hash"] = prev
        prev = e["hash"] = event_hash(
            prev,
            **{k: e[k] for k in ("type", "version", "data", "visibility", "owner", "command_id", "actor", "at")},
            rules_version=e["rules_version"],
            command=e["command"],
        )
    document["sha256"] = digest(document["campaign"], document["events"], document.get("images"))
    return document


def _facts(total: int = 100_000) -> dict[str, object]:
    """Fold a mixed log of both games read from the store (decoding and upcasting included) against re-deciding
    the same log, and check its hash chain on its own."""
    import tempfile

    from herotable.store.sql import open_store

    per = total // 10
    memory = MemoryEventStore()
    ids = []
    for n in range(10):
        ruleset = Ruleset.LTL if n % 2 == 0 else Ruleset.CONVICTION
        ids.append(f"bench-{n}")
        memory.create_campaign(ids[-1], "Bench", ruleset.value, AT)
        record(memory, ids[-1], ruleset, played(ruleset, ids[-1], per, seed=n).commands)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"sqlite:///{tmp}/bench.db")
        for cid in ids:
            import_campaign(store, _as_first_recorded(export_campaign(memory, cid)))

        def loaded() -> list[list[StoredEvent]]:
            return [store.load(cid) for cid in ids]

        t_load = _best_of(loaded, 3)
        logs = loaded()
        store.close()
    events = sum(len(log) for log in logs)
    upcast = sum(e.version < FACT_TYPES[e.type].version for log in logs for e in log)
    folded = [fold_log(log) for log in logs]
    assert folded == [_redecide(log, check=True) for log in logs], "re-deciding lands on another state"
    t_fold = _best_of(lambda: [fold_log(log) for log in logs], 5)
    t_checked = _best_of(lambda: [_redecide(log, check=True) for log in logs], 2)
    t_plain = _best_of(lambda: [_redecide(log, check=False) for log in logs], 2)
    assert not any(chain_problems(log) for log in logs)
    t_chain = _best_of(lambda: [chain_problems(log) for log in logs], 3)
    return {
        "events": events,
        "campaigns": len(ids),
        "upcast_events": upcast,
        "load_from_store_s": round(t_load, 3),
        "fold_s": round(t_fold, 3),
        "fold_events_per_s": round(events / t_fold),
        "redecide_s": round(t_checked, 3),
        "redecide_events_per_s": round(events / t_checked),
        "fold_speedup_over_redecide": round(t_checked / t_fold, 1),
        "redecide_unchecked_s": round(t_plain, 3),
        "fold_speedup_over_unchecked_redecide": round(t_plain / t_fold, 1),
        "hash_chain_check_s": round(t_chain, 3),
        "hash_chain_events_per_s": round(events / t_chain),
    }


def _best_of(work: Callable[[], object], repeats: int) -> float:
    """The fastest of `repeats` runs, in seconds."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    baseline = _baseline()
    conflicts = _conflicts()
    results = {
        "machine": {"python": platform.python_version(), "processor": platform.machine()},
        "baseline_loop_iterations_per_s": round(baseline),
        "demo_conflicts_per_s": round(conflicts, 1),
        "facts": _facts(),
        "opening": opening(),
        **odds_figures(),
        "live": live(),
        "tables": tables(),
        "portraits": portraits(),
        **pages_figures(),
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
