"""The odds part of `make bench`: herotable's exact odds against icepool and dyce on the same questions, and the
Monte Carlo against numpy's raw integer rate. `python -m herotable.bench.odds` runs it alone and prints its
figures; `make bench` writes them into bench/results.json through `herotable.bench`.

The icepool and dyce models below are frozen: they are the reference questions every run compares against, so
the ratios mean the same from run to run. Change them only with the rules they model, and say so in
docs/performance.md.
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Callable
from fractions import Fraction
from functools import partial
from typing import Any

LADDER = (4, 6, 8, 10, 12, 20)
SIDES_AT = {1: 4, 2: 6, 3: 8, 4: 10, 5: 12, 6: 20, 7: 20}
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
    """Each question answered by herotable, icepool and dyce, the answers compared as exact fractions, then timed:
    herotable and dyce take turns, best of several each (icepool, seconds a run, best of two), so a busy spell
    on a shared machine falls on both sides of a ratio."""
    import warnings

    warnings.simplefilter("ignore")  # dyce's expand is marked experimental
    out: dict[str, object] = {}
    for name, ours, theirs, repeats in (
        ("exchange_table_36", _exchange_table_herotable, (_exchange_table_icepool, _exchange_table_dyce), 20),
        ("conflict_table_7x7", _conflict_table_herotable, (_conflict_table_icepool, _conflict_table_dyce), 7),
    ):
        answer = ours()
        for other in theirs:
            if other() != answer:
                raise AssertionError(f"{name}: {other.__name__} disagrees with herotable")
        t_ours = t_ice = t_dyce = float("inf")
        for turn in range(repeats):
            t_ours = min(t_ours, _best_of(ours, 1))
            t_dyce = min(t_dyce, _best_of(theirs[1], 1))
            if turn < 2:
                t_ice = min(t_ice, _best_of(theirs[0], 1))
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
    would understate the raw rate as much as it would the simulation's. The runs take turns (duels, melees, raw
    integers, raw draws, then again), so a busy spell on a shared machine falls on all of them alike."""
    np: Any = importlib.import_module("numpy")
    from herotable.dice import Rating
    from herotable.ltl.options import DEFAULT_OPTIONS
    from herotable.odds.melee import Targeting
    from herotable.odds.montecarlo import _simulate

    repeats = 7
    gen = np.random.default_rng(1)
    raw = 10_000_000
    trials = 200_000
    duel, melee = ([Rating(4)], [Rating(4)]), ([Rating(7)] * 3, [Rating(7)] * 3)
    best = {"duel": float("inf"), "melee": float("inf"), "raw": float("inf"), "draw": float("inf")}
    dice = {"duel": 0, "melee": 0}

    def timed(name: str, work: Callable[[], object]) -> object:
        start = time.perf_counter()
        done = work()
        best[name] = min(best[name], time.perf_counter() - start)
        return done

    def fights(side_a: list[Rating], side_b: list[Rating]) -> Callable[[], object]:
        return lambda: _simulate(side_a, side_b, gen, trials, Targeting.WEAKEST, DEFAULT_OPTIONS)

    for _ in range(repeats):
        for name, (side_a, side_b) in (("duel", duel), ("melee", melee)):
            tally: Any = timed(name, fights(side_a, side_b))
            dice[name] = 2 * tally.exchanges  # two dice an exchange, no exploding
        timed("raw", lambda: gen.integers(1, 11, size=raw))
        timed("draw", lambda: gen.integers(0, 14_400, size=raw))
    duels, duel_dice = trials / best["duel"], dice["duel"] / best["duel"]
    melees, melee_dice = trials / best["melee"], dice["melee"] / best["melee"]
    raw_rate, draw_rate = raw / best["raw"], raw / best["draw"]
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


def _exact_melees() -> dict[str, object]:
    """Two against two at the same ladder position (weakest first, the default), 1 to 7 (d4 to d20, 6 being a d20
    that has lost a level), solved exactly by `exact_melee`: the time (best of three; wall and this process's CPU,
    which a machine shared with other work inflates less), the states and the work
    `melee` bounds (`EXACT_WORK_LIMIT`), and which method `melee` picks; the plain solver's time where it takes
    under a second (positions 1 to 4) for comparison; and the largest melees of other shapes within the bound."""
    from herotable.dice import Rating
    from herotable.odds.melee import EXACT_WORK_LIMIT, exact_melee, exact_work, melee, plain_exact_melee

    exact_melee([Rating(2)] * 2, [Rating(2)] * 2)  # tables built once per process, as a server would have them
    out: dict[str, object] = {"exact_work_limit": EXACT_WORK_LIMIT}
    shapes = [([p, p], [p, p]) for p in range(1, 8)] + [([7], [7, 7, 7]), ([7, 7, 7], [7]), ([3, 3], [3, 3, 3])]
    for a, b in shapes:
        side_a, side_b = [Rating(p) for p in a], [Rating(p) for p in b]
        states, work = exact_work(side_a, side_b)
        wall = cpu = float("inf")
        for _ in range(3):
            start, start_cpu = time.perf_counter(), time.process_time()
            exact_melee(side_a, side_b)
            wall = min(wall, time.perf_counter() - start)
            cpu = min(cpu, time.process_time() - start_cpu)
        entry: dict[str, object] = {
            "exact_s": round(wall, 3),
            "exact_cpu_s": round(cpu, 3),
            "states": states,
            "work": work,
            "melee_picks": melee(side_a, side_b, seed=1).method.value,
        }
        if len(a) == len(b) == 2 and a[0] <= 4:
            entry["plain_s"] = round(_best_of(partial(plain_exact_melee, side_a, side_b), 1), 3)
        out["_vs_".join(",".join(str(p) for p in side) for side in (a, b))] = entry
    return out


def figures() -> dict[str, object]:
    """Every odds figure of one run, under the keys `make bench` writes."""
    return {"odds": _odds_vs_libraries(), "monte_carlo": _monte_carlo(), "exact_melee": _exact_melees()}


def main() -> dict[str, object]:
    found = figures()
    print(json.dumps(found, indent=2))
    return found


if __name__ == "__main__":
    main()
