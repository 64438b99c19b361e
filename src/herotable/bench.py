"""`make bench`: throughput of the rules engine, of loading campaigns and of the odds, written to bench/results.json.

Speed goals are checked here, never by timed tests. Each figure comes with the machine's raw rate of a
trivial loop measured in the same run, so results from different machines compare as ratios.
"""

from __future__ import annotations

import importlib
import json
import platform
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from herotable.bench_live import live
from herotable.demo import run_demo
from herotable.dice import ScriptedRng, SeededRng
from herotable.sampler import new_table, play
from herotable.service import fold_log
from herotable.store.chain import GENESIS, chain_problems, event_hash
from herotable.store.export import digest, export_campaign, import_campaign
from herotable.store.memory import MemoryEventStore
from herotable.store.port import EventStore, NewEvent, StoredEvent
from herotable.table.commands import command_from_json
from herotable.table.decide import decide
from herotable.table.facts import FACT_TYPES, payload_of, read_fact
from herotable.table.fold import Recorded, fold
from herotable.table.game import game_for
from herotable.table.state import Ruleset, TableState

RESULTS = Path("bench/results.json")
LADDER = (4, 6, 8, 10, 12, 20)
SIDES_AT = {1: 4, 2: 6, 3: 8, 4: 10, 5: 12, 6: 20, 7: 20}


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


_CLOSING = {"ltl.settle": 6.0, "cv.announce": 6.0, "request.answer": 4.0, "cv.exit.pass": 3.0}


def _at_a_table(kind: str) -> float:
    """How much likelier a kind of action is in the bench's campaigns than chance: rolls are settled and requests
    answered soon after they open, as at a table; members rarely leave."""
    return _CLOSING.get(kind, 0.02 if kind == "member.remove" else 0.1 if kind == "member.set_role" else 1.0)


def _record(store: EventStore, campaign_id: str, ruleset: Ruleset, events: int, seed: int) -> None:
    """Play a campaign through legal actions with random choices and dice until it holds `events` facts, and keep
    it in `store` exactly as the service would have recorded it."""
    import random

    table = new_table(SeededRng(seed), ruleset, campaign_id)
    play(table, random.Random(seed), until_events=events, prefer=_at_a_table)
    store.create_campaign(campaign_id, "Bench", ruleset.value, "2026-12-01T00:00:00+00:00")
    rules_version = game_for(ruleset).rules_version
    seq = 0
    for user, data, dice, recorded in table.commands:
        new = [
            NewEvent(
                r.fact.type,
                payload_of(r.fact),
                r.command_id,
                "2026-12-01T00:00:00+00:00",
                actor=user,
                visibility=r.visibility.value,
                owner=r.owner,
                version=r.fact.version,
                rules_version=rules_version,
                command={"body": data, "dice": [list(d) for d in dice]} if i == 0 else None,
            )
            for i, r in enumerate(recorded)
        ]
        store.append(campaign_id, seq, new)
        seq += len(new)


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
    document["sha256"] = digest(document["campaign"], document["events"])
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
        _record(memory, ids[-1], ruleset, per, seed=n)
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


# --- odds: herotable against icepool and dyce on the same questions (installed by `make bench`) --------------

WLT = tuple[Fraction, Fraction, Fraction]


def _best_of(work: Callable[[], object], repeats: int) -> float:
    """The fastest of `repeats` runs, in seconds."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def _exchange_table_herotable() -> dict[tuple[int, int], WLT]:
    from herotable.odds.distributions import dice_exchange

    dice_exchange.cache_clear()
    table = {}
    for s in LADDER:
        for u in LADDER:
            odds = dice_exchange(s, u)
            table[(s, u)] = (odds.win, odds.tie, odds.lose)
    return table


def _exchange_table_icepool() -> dict[tuple[int, int], WLT]:
    icepool: Any = importlib.import_module("icepool")
    table = {}
    for s in LADDER:
        for u in LADDER:
            x, y = icepool.d(s), icepool.d(u)
            table[(s, u)] = (
                Fraction((x > y).probability(True)),
                Fraction((x == y).probability(True)),
                Fraction((x < y).probability(True)),
            )
    return table


def _exchange_table_dyce() -> dict[tuple[int, int], WLT]:
    h: Any = importlib.import_module("dyce").H
    table = {}
    for s in LADDER:
        for u in LADDER:
            x, y = h(s), h(u)
            win, tie, lose = (Fraction(c.get(True, 0), c.total) for c in (x.gt(y), x.eq(y), x.lt(y)))
            table[(s, u)] = (win, tie, lose)
    return table


def _rolled_die(position: int, minus: int) -> tuple[int, int]:
    """Sides of the die rolled at a ladder position and how much lower its face counts, under a critical failure's
    -1 die type or not (R-LTL-1, R-LTL-8): a d20 (position 7 or 6) rolls d12, a d4 rolls d4 counted one lower."""
    if not minus:
        return SIDES_AT[position], 0
    if position >= 6:
        return 12, 0
    if position == 1:
        return 4, 1
    return SIDES_AT[position - 1], 0


def _duel_step(state: tuple[int, int, int, int], x: int, y: int) -> tuple[int, int, int, int]:
    """One round of a duel by the rules (R-LTL-3, R-LTL-8): the loser loses 1, 2 on a critical, and a critical
    failure is -1 die type next round (criticals on the natural faces); written once here for icepool and dyce to
    compute with."""
    pa, pb, ma, mb = state
    (sa, da), (sb, db) = _rolled_die(pa, ma), _rolled_die(pb, mb)
    if x - da == y - db:
        return (pa, pb, 0, 0)
    if x - da > y - db:
        crit = int(x == sa and y == 1)
        return (pa, pb - 1 - crit, 0, crit) if pb - 1 - crit > 0 else (pa, 0, 0, 0)
    crit = int(y == sb and x == 1)
    return (pa - 1 - crit, pb, crit, 0) if pa - 1 - crit > 0 else (0, pb, 0, 0)


def _conflict_table_herotable() -> dict[tuple[int, int], Fraction]:
    from herotable.dice import Rating
    from herotable.odds import conflict as chains
    from herotable.odds.distributions import dice_exchange

    dice_exchange.cache_clear()
    chains._chain.cache_clear()
    return {
        (a, b): chains.conflict(chains.Contender(Rating(a)), chains.Contender(Rating(b))).a_wins
        for a in range(1, 8)
        for b in range(1, 8)
    }


def _conflict_table_icepool() -> dict[tuple[int, int], Fraction]:
    """icepool's absorbing Markov solver: `map(..., repeat='inf')` over the duel state."""
    icepool: Any = importlib.import_module("icepool")

    def round_(state: tuple[int, int, int, int]) -> Any:
        pa, pb, ma, mb = state
        if pa <= 0 or pb <= 0:
            return state
        sa, sb = _rolled_die(pa, ma)[0], _rolled_die(pb, mb)[0]
        return icepool.map(lambda x, y: _duel_step(state, x, y), icepool.d(sa), icepool.d(sb))

    table = {}
    for a in range(1, 8):
        for b in range(1, 8):
            final = icepool.map(round_, icepool.Die([(a, b, 0, 0)]), repeat="inf")
            table[(a, b)] = sum((Fraction(final.probability(o)) for o in final.outcomes() if o[1] == 0), Fraction(0))
    return table


def _conflict_table_dyce() -> dict[tuple[int, int], Fraction]:
    """dyce's `expand` gives each round's next-state histogram with ties eliminated (`H({})`), which is the same
    chain conditioned on something happening; a memoised recursion walks it to the end."""
    dyce_h: Any = importlib.import_module("dyce").H
    expand: Any = importlib.import_module("dyce.evaluation").expand
    memo: dict[tuple[int, int, int, int], Fraction] = {}

    def value(state: tuple[int, int, int, int]) -> Fraction:
        pa, pb, ma, mb = state
        if pb <= 0 or pa <= 0:
            return Fraction(1 if pb <= 0 else 0)
        if state not in memo:
            sa, sb = _rolled_die(pa, ma)[0], _rolled_die(pb, mb)[0]

            def branch(x: Any, y: Any) -> Any:
                nxt = _duel_step(state, x.outcome, y.outcome)
                return dyce_h({}) if nxt == state else nxt

            h = expand(branch, dyce_h(sa), dyce_h(sb))
            memo[state] = sum((Fraction(c, h.total) * value(s) for s, c in h.items()), Fraction(0))
        return memo[state]

    return {(a, b): value((a, b, 0, 0)) for a in range(1, 8) for b in range(1, 8)}


def _odds_vs_libraries() -> dict[str, object]:
    import warnings

    warnings.simplefilter("ignore")  # dyce's expand is marked experimental
    out: dict[str, object] = {}
    for name, ours, theirs, repeats in (
        ("exchange_table_36", _exchange_table_herotable, (_exchange_table_icepool, _exchange_table_dyce), 20),
        ("conflict_table_7x7", _conflict_table_herotable, (_conflict_table_icepool, _conflict_table_dyce), 3),
    ):
        answer = ours()
        for other in theirs:
            if other() != answer:
                raise AssertionError(f"{name}: {other.__name__} disagrees with herotable")
        t_ours = _best_of(ours, repeats)
        t_ice = _best_of(theirs[0], 1)
        t_dyce = _best_of(theirs[1], 1)
        out[name] = {
            "herotable_ms": round(t_ours * 1000, 3),
            "icepool_ms": round(t_ice * 1000, 1),
            "dyce_ms": round(t_dyce * 1000, 1),
            "icepool_over_herotable": round(t_ice / t_ours, 1),
            "dyce_over_herotable": round(t_dyce / t_ours, 1),
            "answers_equal_exactly": True,
        }
    return out


def _monte_carlo() -> dict[str, object]:
    """Monte Carlo conflicts against numpy's raw integer rate, every figure the best of `repeats` runs: the
    first run of anything pays one-off costs (page faults on fresh arrays, building the outcome tables), which
    would understate the raw rate as much as it would the simulation's."""
    np: Any = importlib.import_module("numpy")
    from herotable.dice import Rating
    from herotable.ltl.options import DEFAULT_OPTIONS
    from herotable.odds.melee import Targeting
    from herotable.odds.montecarlo import _simulate

    repeats = 5
    gen = np.random.default_rng(1)

    def conflicts(side_a: list[Rating], side_b: list[Rating], trials: int) -> tuple[float, float]:
        best, dice = float("inf"), 0
        for _ in range(repeats):
            start = time.perf_counter()
            tally = _simulate(side_a, side_b, gen, trials, Targeting.WEAKEST, DEFAULT_OPTIONS)
            best = min(best, time.perf_counter() - start)
            dice = 2 * tally.exchanges  # two dice an exchange, no exploding
        return trials / best, dice / best

    duels, duel_dice = conflicts([Rating(4)], [Rating(4)], 200_000)
    melees, melee_dice = conflicts([Rating(7)] * 3, [Rating(7)] * 3, 200_000)
    raw = 10_000_000
    raw_rate = raw / _best_of(lambda: gen.integers(1, 11, size=raw), repeats)
    draw_rate = raw / _best_of(lambda: gen.integers(0, 14_400, size=raw, dtype=np.uint16), repeats)
    return {
        "mc_duel_d10_vs_d10_conflicts_per_s": round(duels),
        "mc_dice_per_s": round(duel_dice),
        "numpy_raw_integers_per_s": round(raw_rate),
        "mc_dice_rate_over_raw_rate": round(duel_dice / raw_rate, 3),
        "mc_melee_3d20_vs_3d20_conflicts_per_s": round(melees),
        "mc_melee_dice_per_s": round(melee_dice),
        "mc_melee_dice_rate_over_raw_rate": round(melee_dice / raw_rate, 3),
        "numpy_raw_exchange_draws_per_s": round(draw_rate),
    }


def main() -> None:
    baseline = _baseline()
    conflicts = _conflicts()
    results = {
        "machine": {"python": platform.python_version(), "processor": platform.machine()},
        "baseline_loop_iterations_per_s": round(baseline),
        "demo_conflicts_per_s": round(conflicts, 1),
        "facts": _facts(),
        "odds": _odds_vs_libraries(),
        "monte_carlo": _monte_carlo(),
        "live": live(),
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
