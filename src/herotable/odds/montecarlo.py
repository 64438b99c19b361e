"""Monte Carlo melees and duels, vectorised with numpy: every trial of a round is rolled at once (R-LTL-3,
R-LTL-8, R-LTL-12, R-LTL-18). The rules are those of `melee` (its exact solver is the reference); the
randomness comes only from the seed or numpy Generator passed in. Win rates carry a Wilson score interval,
the mean number of rounds a normal interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import sqrt
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from herotable.dice import DIE_SIDES, Rating
from herotable.ltl.options import DEFAULT_OPTIONS, LtlOptions
from herotable.ltl.roll import MAX_EXPLOSIONS
from herotable.odds.melee import Estimate, MeleeOdds, Method, Targeting, _check

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
_SIDES = np.array([1] + [DIE_SIDES[p] for p in range(1, 8)], dtype=np.int64)  # index 0 is never rolled
MAX_ROUNDS = 10_000


def wilson(successes: int, trials: int, confidence: float) -> tuple[float, float]:
    """The Wilson score interval for a proportion."""
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def _roll(rng: np.random.Generator, sides: IntArray, exploding: bool) -> tuple[IntArray, IntArray]:
    """Totals and natural faces of one die per entry; exploding adds while the die shows its maximum."""
    natural = rng.integers(1, sides + 1)
    total = natural.copy()
    if exploding:
        last = natural
        going = np.flatnonzero(last == sides)
        for _ in range(MAX_EXPLOSIONS):
            if going.size == 0:
                break
            again = rng.integers(1, sides[going] + 1)
            total[going] += again
            going = going[again == sides[going]]
    return total, natural


def _pick(pos: IntArray, actor: int, n_a: int, targeting: Targeting) -> IntArray:
    """Each trial's target for `actor` (index into all fighters), -1 where nobody is left to attack."""
    count = pos.shape[1]
    opp = np.arange(n_a, count) if actor < n_a else np.arange(0, n_a)
    standing = pos[:, opp] > 0
    if targeting is Targeting.WEAKEST:
        choice = np.argmin(np.where(standing, pos[:, opp], 99), axis=1)
    elif targeting is Targeting.STRONGEST:
        choice = np.argmax(np.where(standing, pos[:, opp], -1), axis=1)
    else:
        own = np.arange(0, n_a) if actor < n_a else np.arange(n_a, count)
        before = own[own < actor]
        rank = (pos[:, before] > 0).sum(axis=1)
        alive = standing.sum(axis=1)
        want = rank % np.maximum(alive, 1)
        choice = np.argmax(standing & (np.cumsum(standing, axis=1) == (want + 1)[:, None]), axis=1)
    return np.where(standing.any(axis=1), opp[choice], -1)


def simulate_melee(
    side_a: Sequence[Rating],
    side_b: Sequence[Rating],
    rng: np.random.Generator | int,
    *,
    trials: int = 20_000,
    targeting: Targeting = Targeting.WEAKEST,
    options: LtlOptions = DEFAULT_OPTIONS,
    confidence: float = 0.95,
) -> MeleeOdds:
    """Monte Carlo odds of a melee or duel by the rules of `melee` (R-LTL-12), `trials` conflicts at once.
    Raises ValueError for an empty side, a fighter below d4, or no trials."""
    _check(side_a, side_b)
    if trials < 1:
        raise ValueError("run at least one trial")
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    n_a = len(side_a)
    count = n_a + len(side_b)
    pos = np.tile(np.array([r.position for r in (*side_a, *side_b)], dtype=np.int64), (trials, 1))
    minus = np.zeros_like(pos)
    live = np.arange(trials)
    rounds = np.zeros(trials, dtype=np.int64)
    a_won = np.zeros(trials, dtype=bool)
    b_won = np.zeros(trials, dtype=bool)
    extra = 1 if options.effect_cap >= 2 else 0
    for _ in range(MAX_ROUNDS):
        if live.size == 0:
            break
        p, m = pos[live], minus[live]
        n = live.size
        rows = np.arange(n)
        acted = np.zeros((n, count), dtype=bool)
        loss = np.zeros((n, count), dtype=np.int64)
        crit = np.zeros((n, count), dtype=np.int64)
        rolled = np.maximum(1, p - m)
        for actor in range(count):
            acts = (p[:, actor] > 0) & ~acted[:, actor]
            target = _pick(p, actor, n_a, targeting)
            acts &= target >= 0
            idx = rows[acts]
            if idx.size == 0:
                continue
            tgt = target[acts]
            acted[idx, actor] = True
            acted[idx, tgt] = True
            s_a = _SIDES[rolled[idx, actor]]
            s_t = _SIDES[rolled[idx, tgt]]
            tot_a, nat_a = _roll(gen, s_a, options.exploding)
            tot_t, nat_t = _roll(gen, s_t, options.exploding)
            a_wins = tot_a > tot_t
            t_wins = tot_t > tot_a
            a_crit = a_wins & (nat_a == s_a) & (nat_t == 1)
            t_crit = t_wins & (nat_t == s_t) & (nat_a == 1)
            # each trial appears once per actor, so plain fancy-index additions do not collide
            loss[idx, tgt] += a_wins * (1 + extra * a_crit)
            loss[idx, actor] += t_wins * (1 + extra * t_crit)
            crit[idx, tgt] += a_crit
            crit[idx, actor] += t_crit
        p = p - loss
        m = np.where(p > 0, crit, 0)
        pos[live], minus[live] = p, m
        rounds[live] += 1
        a_up = (p[:, :n_a] > 0).any(axis=1)
        b_up = (p[:, n_a:] > 0).any(axis=1)
        over = ~(a_up & b_up)
        a_won[live[over & a_up]] = True
        b_won[live[over & b_up]] = True
        live = live[~over]
    if live.size:
        raise ArithmeticError(f"{live.size} trials still running after {MAX_ROUNDS} rounds")
    return _summary(int(a_won.sum()), int(b_won.sum()), rounds, confidence)


def _summary(a: int, b: int, rounds: IntArray, confidence: float) -> MeleeOdds:
    n = int(rounds.size)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    mean = float(rounds.mean())
    half = z * float(rounds.std(ddof=1)) / sqrt(n) if n > 1 else float("inf")

    def share(k: int) -> Estimate:
        low, high = wilson(k, n, confidence)
        return Estimate(k / n, low, high)

    return MeleeOdds(
        Method.MONTE_CARLO,
        share(a),
        share(b),
        share(n - a - b),
        Estimate(mean, mean - half, mean + half),
        trials=n,
        confidence=confidence,
    )
