"""Many against many: N heroes against M villains in simultaneous rounds (R-LTL-12), each fighter rolling its
base Power, with a targeting policy. Exact (an absorbing chain over every fighter's position) when the state
space is small, else Monte Carlo; the result always says which, with a confidence interval for Monte Carlo.

A round follows the table's reading of R-LTL-12: fighters act in list order (side A, then side B); each one
still to act picks a standing opponent and rolls an exchange with it, which is the target's action too unless
the target has acted already (then it only defends). The loser of each exchange loses one level, two on a
critical success within the cap, and a critical failure gives -1 die type on every roll next round (R-LTL-8, the
engine's defaults; one -1 a round however many criticals, a d20 rolling d12 and a d4 counting one lower). All
losses land at the end of the round; a side with nobody standing has lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import prod

from herotable.dice import Rating
from herotable.ltl.options import DEFAULT_OPTIONS, LtlOptions
from herotable.odds.distributions import ONE, ZERO
from herotable.odds.exchange import Roll, exchange, rolled_rating
from herotable.odds.melee_model import Estimate, MeleeOdds, Method, Targeting, check_sides
from herotable.odds.montecarlo import simulate_melee

__all__ = ["Estimate", "MeleeOdds", "Method", "Targeting", "exact_melee", "melee", "state_count", "targets"]

EXACT_STATE_LIMIT = 400  # product of (position + 1) over all fighters up to which melees are solved exactly


def targets(positions: Sequence[int], n_a: int, targeting: Targeting) -> list[tuple[int, int]]:
    """The exchanges of one round as (actor, target) indices, given every fighter's position (R-LTL-12)."""
    count = len(positions)
    acted = [False] * count
    out: list[tuple[int, int]] = []
    for i in range(count):
        if positions[i] <= 0 or acted[i]:
            continue
        own = range(n_a) if i < n_a else range(n_a, count)
        opponents = [j for j in (range(n_a, count) if i < n_a else range(n_a)) if positions[j] > 0]
        if not opponents:
            break
        if targeting is Targeting.WEAKEST:
            t = min(opponents, key=lambda j: (positions[j], j))
        elif targeting is Targeting.STRONGEST:
            t = min(opponents, key=lambda j: (-positions[j], j))
        else:
            rank = sum(1 for j in own if j < i and positions[j] > 0)
            t = opponents[rank % len(opponents)]
        acted[i] = acted[t] = True
        out.append((i, t))
    return out


State = tuple[tuple[int, int], ...]  # (position, -1 levels carried into this round) per fighter
Vector = tuple[Fraction, Fraction, Fraction, Fraction]  # A wins, B wins, draw, E[rounds]


class _ExactMelee:
    def __init__(self, n_a: int, targeting: Targeting, options: LtlOptions) -> None:
        self.n_a = n_a
        self.targeting = targeting
        self.options = options
        self.values: dict[State, Vector] = {}

    def _outcome(self, state: State) -> Vector | None:
        a_up = any(p > 0 for p, _ in state[: self.n_a])
        b_up = any(p > 0 for p, _ in state[self.n_a :])
        if a_up and b_up:
            return None
        return (ONE if a_up else ZERO, ONE if b_up else ZERO, ZERO if a_up or b_up else ONE, ZERO)

    def transitions(self, state: State) -> dict[State, Fraction]:
        count = len(state)
        extra = 1 if self.options.effect_cap >= 2 else 0
        partial: dict[tuple[tuple[int, ...], tuple[int, ...]], Fraction] = {((0,) * count, (0,) * count): ONE}
        for i, t in targets([p for p, _ in state], self.n_a, self.targeting):
            ri = rolled_rating(Rating(state[i][0]), minus_one=state[i][1])
            rt = rolled_rating(Rating(state[t][0]), minus_one=state[t][1])
            odds = exchange(Roll(ri), Roll(rt), self.options)
            cases = (
                (odds.crit_success, t, 1 + extra, True),
                (odds.win - odds.crit_success, t, 1, False),
                (odds.lose - odds.crit_failure, i, 1, False),
                (odds.crit_failure, i, 1 + extra, True),
            )
            grown: dict[tuple[tuple[int, ...], tuple[int, ...]], Fraction] = {}
            for (loss, crit), p in partial.items():
                if odds.tie:
                    grown[(loss, crit)] = grown.get((loss, crit), ZERO) + p * odds.tie
                for q, loser, levels, critical in cases:
                    if not q:
                        continue
                    nl = list(loss)
                    nl[loser] += levels
                    nc = list(crit)
                    nc[loser] += 1 if critical else 0
                    key = (tuple(nl), tuple(nc))
                    grown[key] = grown.get(key, ZERO) + p * q
            partial = grown
        out: dict[State, Fraction] = {}
        for (loss, crit), p in partial.items():
            nxt = tuple(
                (max(0, pos - loss[k]), crit[k] if pos - loss[k] > 0 else 0) for k, (pos, _) in enumerate(state)
            )
            out[nxt] = out.get(nxt, ZERO) + p
        return out

    def value(self, state: State) -> Vector:
        done = self._outcome(state)
        if done is not None:
            return done
        known = self.values.get(state)
        if known is not None:
            return known
        steps = self.transitions(state)
        stay = steps.get(state, ZERO)
        acc = [ZERO, ZERO, ZERO, ONE]
        for nxt, p in steps.items():
            if nxt != state:
                v = self.value(nxt)
                for k in range(4):
                    acc[k] += p * v[k]
        scale = ONE / (ONE - stay)
        result = (acc[0] * scale, acc[1] * scale, acc[2] * scale, acc[3] * scale)
        self.values[state] = result
        return result


def exact_melee(
    side_a: Sequence[Rating],
    side_b: Sequence[Rating],
    targeting: Targeting = Targeting.WEAKEST,
    options: LtlOptions = DEFAULT_OPTIONS,
) -> MeleeOdds:
    """Exact odds of a melee (R-LTL-12), whatever its size (the caller judges the cost; see `melee`).
    Raises ValueError for an empty side or a fighter below d4."""
    check_sides(side_a, side_b)
    solver = _ExactMelee(len(side_a), targeting, options)
    a, b, draw, rounds = solver.value(tuple((r.position, 0) for r in (*side_a, *side_b)))
    return MeleeOdds(Method.EXACT, Estimate.of(a), Estimate.of(b), Estimate.of(draw), Estimate.of(rounds))


def state_count(side_a: Sequence[Rating], side_b: Sequence[Rating]) -> int:
    """The size the exact solver's position space can reach: the product of (position + 1)."""
    return prod(r.position + 1 for r in (*side_a, *side_b))


def melee(
    side_a: Sequence[Rating],
    side_b: Sequence[Rating],
    targeting: Targeting = Targeting.WEAKEST,
    options: LtlOptions = DEFAULT_OPTIONS,
    *,
    seed: int | None = None,
    trials: int = 20_000,
    exact_limit: int = EXACT_STATE_LIMIT,
) -> MeleeOdds:
    """Odds of N against M (R-LTL-12): exact when `state_count` is within `exact_limit`, else Monte Carlo with
    `trials` conflicts from `seed`. Raises ValueError when Monte Carlo is needed and no seed is given."""
    check_sides(side_a, side_b)
    if state_count(side_a, side_b) <= exact_limit:
        return exact_melee(side_a, side_b, targeting, options)
    if seed is None:
        raise ValueError("this melee is too large to solve exactly; Tip: pass a seed for Monte Carlo")
    return simulate_melee(side_a, side_b, seed, trials=trials, targeting=targeting, options=options)
