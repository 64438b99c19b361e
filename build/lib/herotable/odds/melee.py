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
from functools import cache
from math import prod

from herotable.dice import Rating
from herotable.ltl.options import DEFAULT_OPTIONS, LtlOptions
from herotable.odds.absorbing import IntValue, Steps, solve_in_order
from herotable.odds.conflict import int_odds
from herotable.odds.exchange import Roll, exchange, rolled_rating
from herotable.odds.melee_exact import _Chain, chain_size, fits
from herotable.odds.melee_model import Estimate, MeleeOdds, Method, Targeting, check_sides
from herotable.odds.montecarlo import simulate_melee

__all__ = [
    "EXACT_WORK_LIMIT",
    "FAST_STATE_WORK",
    "PLAIN_WORK_LIMIT",
    "Estimate",
    "MeleeOdds",
    "Method",
    "Targeting",
    "TooLarge",
    "exact_melee",
    "exact_work",
    "melee",
    "plain_exact_melee",
    "state_count",
    "targets",
]

# The exact solvers' work. The fast solver (`melee_exact`, every melee of up to six fighters without exploding
# dice) counts, before it builds anything (`melee_exact.chain_size`), the combinations of exchange cases it weighs
# plus `FAST_STATE_WORK` for each state of its product space (pushing a state's mass forward in integers costs
# about as much as weighing that many combinations). Its limit is measured (docs/odds.md): what it takes solves
# in about half a second of CPU on the bench machine, the slowest shapes in about 0.95 s; 2 d20 against 2 d20,
# the largest 2 against 2, is 9,823,680. The plain solver (`_ExactMelee`, for the rest) counts the round outcomes
# it weighs plus `STATE_WORK` for each state it reaches, and stops at `PLAIN_WORK_LIMIT` (about a second too).
FAST_STATE_WORK = 250
EXACT_WORK_LIMIT = 10_000_000
STATE_WORK = 50
PLAIN_WORK_LIMIT = 260_000


class TooLarge(Exception):
    """The exact solver would do more work than its budget allows (`EXACT_WORK_LIMIT`, or `PLAIN_WORK_LIMIT` for the
    plain solver)."""


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


State = tuple[tuple[int, int], ...]  # (position, -1 carried into this round: 0 or 1) per fighter
# Inside the solver a state is one integer, 4 bits a fighter: the position in bits 0-2 and the -1 in bit 3; it
# hashes and compares as fast as Python can.
_LANE = 16  # bits per fighter in a round's packed losses: levels lost in the low 8, criticals suffered above
_CRIT = 1 << 8


def _code(state: State) -> int:
    return sum((pos | (minus << 3)) << (4 * k) for k, (pos, minus) in enumerate(state))


def _uncode(code: int, count: int) -> State:
    return tuple((((code >> (4 * k)) & 7), (code >> (4 * k + 3)) & 1) for k in range(count))


class _Landing(dict[int, int]):
    """A fighter's nibble after a round (shifted into its place), by its packed lane of losses and criticals."""

    def __init__(self, pos: int, shift: int) -> None:
        super().__init__()
        self.pos = pos
        self.shift = shift

    def __missing__(self, lane: int) -> int:
        left = self.pos - (lane & 0xFF)
        found = self[lane] = (left | (8 if lane >> 8 else 0)) << self.shift if left > 0 else 0
        return found


@cache
def _landing(pos: int, k: int) -> _Landing:
    return _Landing(pos, 4 * k)


class _ExactMelee:
    """The melee chain: one round's steps in integers (`_raw_steps`), values by `absorbing.solve_in_order`."""

    def __init__(self, n_a: int, targeting: Targeting, options: LtlOptions, budget: int | None = None) -> None:
        self.n_a = n_a
        self.budget = budget
        self.work = 0
        self.weighed = 0
        self.targeting = targeting
        self.options = options
        self.extra = 1 if options.effect_cap >= 2 else 0
        self.values: dict[int, IntValue] = {}
        self.int_steps: dict[int, Steps[int]] = {}
        self._side_a = sum(7 << (4 * k) for k in range(n_a))
        self._pairs: dict[tuple[int, int], tuple[int, tuple[int, int, int, int, int]]] = {}
        self.count = 0

    def _outcome(self, code: int) -> IntValue | None:
        """A finished melee's value (A wins, B wins, draw, rounds), None while both sides stand."""
        a_up = code & self._side_a != 0
        b_up = code & ~self._side_a & _POSITIONS != 0
        if a_up and b_up:
            return None
        return _FINISHED[a_up, b_up]

    def _pair(self, actor: int, target: int) -> tuple[int, tuple[int, int, int, int, int]]:
        """The exchange between an actor and its target, by their nibbles (position, -1), as d and d·P(tie,
        critical win, plain win, critical loss, plain loss) from the actor's side."""
        key = (actor, target)
        known = self._pairs.get(key)
        if known is None:
            ri = rolled_rating(Rating(actor & 7), minus_one=actor >> 3)
            rt = rolled_rating(Rating(target & 7), minus_one=target >> 3)
            known = self._pairs[key] = int_odds(exchange(Roll(ri), Roll(rt), self.options))
        return known

    def _raw_steps(self, code: int) -> tuple[int, dict[int, int]]:
        """One round from a state: a denominator m and m·P(next state). Each exchange multiplies in its cases;
        the losses and criticals so far are one packed integer per combination, decoded once at the end."""
        nibbles = [(code >> (4 * k)) & 15 for k in range(self.count)]
        partial = {0: 1}
        m = 1
        crit_loss = (1 + self.extra) | _CRIT
        for i, t in targets([n & 7 for n in nibbles], self.n_a, self.targeting):
            d, (tie, cs, w, cf, lo) = self._pair(nibbles[i], nibbles[t])
            m *= d
            cases = [
                (dl, n)
                for dl, n in (
                    (0, tie),
                    (crit_loss << (_LANE * t), cs),
                    (1 << (_LANE * t), w),
                    (crit_loss << (_LANE * i), cf),
                    (1 << (_LANE * i), lo),
                )
                if n
            ]
            grown: dict[int, int] = {}
            for key, weight in partial.items():
                for dl, n in cases:
                    grown[key + dl] = grown.get(key + dl, 0) + weight * n
            partial = grown
        self.weighed += len(partial)
        out: dict[int, int] = {}
        lands = [(_LANE * k, _landing(n & 7, k)) for k, n in enumerate(nibbles)]
        for key, weight in partial.items():
            found = 0
            for shift, land in lands:
                found |= land[(key >> shift) & 0xFFFF]
            out[found] = out.get(found, 0) + weight
        return m, out

    def _int_steps(self, code: int) -> Steps[int]:
        got = self.int_steps.get(code)
        if got is None:
            m, steps = self._raw_steps(code)
            stay = steps.pop(code, 0)
            got = self.int_steps[code] = (m, stay, list(steps.items()))
            self.work = self.weighed + STATE_WORK * len(self.int_steps)
            if self.budget is not None and self.work > self.budget:
                raise TooLarge(f"more than {self.budget} units of work to solve exactly")
        return got

    def transitions(self, state: State) -> dict[State, Fraction]:
        """Where one round leads from `state`, exactly."""
        self.count = len(state)
        m, steps = self._raw_steps(_code(state))
        return {_uncode(nxt, self.count): Fraction(a, m) for nxt, a in steps.items()}

    def value(self, state: State) -> IntValue:
        """(A wins, B wins, draw, E[rounds]) from `state` as integer numerators over one denominator."""
        self.count = len(state)
        code = _code(state)
        done = self._outcome(code)
        if done is not None:
            return done
        if code not in self.values:
            solve_in_order(code, self._int_steps, self._outcome, self.values)
        return self.values[code]


_POSITIONS = sum(7 << (4 * k) for k in range(32))
_FINISHED: dict[tuple[bool, bool], IntValue] = {
    (True, False): ((1, 0, 0, 0), 1),
    (False, True): ((0, 1, 0, 0), 1),
    (False, False): ((0, 0, 1, 0), 1),
}


def exact_melee(
    side_a: Sequence[Rating],
    side_b: Sequence[Rating],
    targeting: Targeting = Targeting.WEAKEST,
    options: LtlOptions = DEFAULT_OPTIONS,
    *,
    budget: int | None = None,
) -> MeleeOdds:
    """Exact odds of a melee (R-LTL-12). Without a `budget` whatever its size (the caller judges the cost; see
    `melee`); with one, raises TooLarge when the solver's work (`exact_work`) would pass it, before the fast
    solver builds anything (the plain one stops once it passes). Raises ValueError for an empty side or a fighter
    below d4."""
    check_sides(side_a, side_b)
    tops = [r.position for r in (*side_a, *side_b)]
    if fits(len(tops), options):
        if budget is not None and (
            _least_work(tops, len(side_a)) > budget or _fast_work(tops, len(side_a), targeting, options)[1] > budget
        ):
            raise TooLarge(f"more than {budget} units of work to solve exactly")
        a, b, draw, rounds = _Chain(tops, len(side_a), targeting, options).solve()
    else:
        solver = _ExactMelee(len(side_a), targeting, options, budget)
        (na, nb, nd, nr), den = solver.value(tuple((p, 0) for p in tops))
        a, b, draw, rounds = (Fraction(x, den) for x in (na, nb, nd, nr))
    return MeleeOdds(Method.EXACT, Estimate.of(a), Estimate.of(b), Estimate.of(draw), Estimate.of(rounds))


def _least_work(tops: Sequence[int], n_a: int) -> int:
    """A lower bound of the fast solver's work, counted at once: its states with no -1 carried (every state has at
    least one exchange, 5 combinations). A large melee is refused by it without counting its product space."""
    running = prod(t + 1 for t in tops[:n_a]) - 1
    running *= prod(t + 1 for t in tops[n_a:]) - 1
    return running * (FAST_STATE_WORK + 5)


def _fast_work(tops: Sequence[int], n_a: int, targeting: Targeting, options: LtlOptions) -> tuple[int, int]:
    states, combos = chain_size(tops, n_a, targeting, options)
    return states, combos + FAST_STATE_WORK * states


def plain_exact_melee(
    side_a: Sequence[Rating],
    side_b: Sequence[Rating],
    targeting: Targeting = Targeting.WEAKEST,
    options: LtlOptions = DEFAULT_OPTIONS,
) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """(A wins, B wins, draw, expected rounds) by the plain solver, state by state from the start (the reference
    the fast solver is tested against)."""
    check_sides(side_a, side_b)
    solver = _ExactMelee(len(side_a), targeting, options)
    (na, nb, nd, nr), den = solver.value(tuple((r.position, 0) for r in (*side_a, *side_b)))
    return Fraction(na, den), Fraction(nb, den), Fraction(nd, den), Fraction(nr, den)


def exact_work(
    side_a: Sequence[Rating],
    side_b: Sequence[Rating],
    targeting: Targeting = Targeting.WEAKEST,
    options: LtlOptions = DEFAULT_OPTIONS,
) -> tuple[int, int]:
    """(states, work) of the exact solver `exact_melee` uses for this melee: what `EXACT_WORK_LIMIT` bounds (the
    fast solver's product space and its combinations plus `FAST_STATE_WORK` a state, counted without solving),
    or what `PLAIN_WORK_LIMIT` bounds (the plain solver's states reached and work, counted by solving)."""
    check_sides(side_a, side_b)
    tops = [r.position for r in (*side_a, *side_b)]
    if fits(len(tops), options):
        return _fast_work(tops, len(side_a), targeting, options)
    solver = _ExactMelee(len(side_a), targeting, options)
    solver.value(tuple((p, 0) for p in tops))
    return len(solver.values), solver.work


def state_count(side_a: Sequence[Rating], side_b: Sequence[Rating]) -> int:
    """The size of the fighters' position space: the product of (position + 1). The states reached are a few
    times more (the -1s carried), and the work grows faster than either (see `exact_work`)."""
    return prod(r.position + 1 for r in (*side_a, *side_b))


def melee(
    side_a: Sequence[Rating],
    side_b: Sequence[Rating],
    targeting: Targeting = Targeting.WEAKEST,
    options: LtlOptions = DEFAULT_OPTIONS,
    *,
    seed: int | None = None,
    trials: int = 20_000,
    exact_limit: int | None = None,
) -> MeleeOdds:
    """Odds of N against M (R-LTL-12): exact while the solver's work is within `exact_limit` (by default
    `EXACT_WORK_LIMIT` for the fast solver, `PLAIN_WORK_LIMIT` for the plain one), else Monte Carlo with `trials`
    conflicts from `seed`; `MeleeOdds.method` says which. Raises ValueError when Monte Carlo is needed and no seed
    is given."""
    check_sides(side_a, side_b)
    if exact_limit is None:
        fast = fits(len(side_a) + len(side_b), options)
        exact_limit = EXACT_WORK_LIMIT if fast else PLAIN_WORK_LIMIT
    try:
        return exact_melee(side_a, side_b, targeting, options, budget=exact_limit)
    except TooLarge:
        pass
    if seed is None:
        raise ValueError("this melee is too large to solve exactly; Tip: pass a seed for Monte Carlo")
    return simulate_melee(side_a, side_b, seed, trials=trials, targeting=targeting, options=options)
