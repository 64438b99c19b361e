"""The fast exact melee solver (R-LTL-12): every round's transitions built at once with numpy, then the chain's
probability mass pushed forward through the states in topological order in exact integers.

The rules are those of `melee` (`_ExactMelee` there is the plain solver, state by state, and the reference the
tests hold this one to). The state is every fighter's nibble, position in bits 0-2 and the -1 carried into the
round in bit 3. Two steps:

1. **Transitions, vectorised.** Every state of the product space (each fighter down, or at a position up to its
   start with or without a -1) in which both sides stand is built at once. The round's exchanges depend only on
   the positions (`montecarlo._plan`, which tests hold to `melee.targets`), so the states are grouped by their
   exchange pattern. Within a pattern, the 5^e combinations of the e exchanges' cases (tie, critical win, win,
   critical loss, loss) add up to a packed word of losses and criticals per fighter that depends on the pattern
   alone; combinations with the same word are merged once per pattern, and each state's weights of the merged
   words are one product and one sum per combination, over all the pattern's states at once. A table lands each
   fighter's lane on its nibble.
2. **Mass forward, in integers.** A state's round leaves it with probability (m − stay)/m, where m is the product
   of its exchanges' denominators and stay the weight of the round that changes nothing (all ties with no -1
   carried). With Δ a common scale, M(s) = Δ·P(the melee ever enters s) is an integer; the state passes
   X = M(s)/(m − stay) on, a·X to each successor reached with weight a, and spends m·X/Δ rounds in s on average.
   The order is topological without a search: a round that changes anything lowers the sum of positions, or
   (a tie) clears every -1 at the same positions. Δ starts at 1 and is raised, by the least factor that makes
   a division exact, whenever one is not; values written before are brought up to the new scale only when they
   are next touched (each remembers the scale it was written at). Only integers a few hundred digits long are
   multiplied by small ones, and the answer, M over Δ at the absorbing states, is reduced once as a `Fraction`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from itertools import product
from math import gcd

import numpy as np
import numpy.typing as npt

from herotable.dice import Rating
from herotable.ltl.options import LtlOptions
from herotable.odds.conflict import int_odds
from herotable.odds.exchange import Roll, exchange, rolled_rating
from herotable.odds.melee_model import Targeting
from herotable.odds.montecarlo import _plan

IntArray = npt.NDArray[np.int64]

MAX_FIGHTERS = 6  # the exchange plans are tabulated for every position code, 8**count of them
_CASES = 5  # tie, critical win, win, critical loss, loss (from the actor's side)
# a fighter's lane in a round's packed word: levels lost in bits 0-3, criticals suffered in bits 4-7
_LANE = 8


@cache
def _pair_table(options: LtlOptions) -> tuple[IntArray, IntArray]:
    """For every pair of nibbles (actor, target): the exchange's denominator d, and d·P(tie, critical win, plain
    win, critical loss, plain loss) as integers (the one-exchange odds of `exchange.exchange`)."""
    den = np.ones((16, 16), dtype=np.int64)
    cases = np.zeros((16, 16, _CASES), dtype=np.int64)
    nibbles = [p | (m << 3) for p in range(1, 8) for m in (0, 1)]
    for a, t in product(nibbles, nibbles):
        ra = rolled_rating(Rating(a & 7), minus_one=a >> 3)
        rt = rolled_rating(Rating(t & 7), minus_one=t >> 3)
        d, parts = int_odds(exchange(Roll(ra), Roll(rt), options))
        den[a, t] = d
        cases[a, t] = parts
    return den, cases


@cache
def _landing() -> IntArray:
    """`[nibble, lane]` → the fighter's nibble after the round: position less the levels lost (0 when down), and
    the -1 for next round when it suffered a critical."""
    out = np.zeros((16, 256), dtype=np.int64)
    for nib in range(16):
        for lane in range(256):
            left = (nib & 7) - (lane & 15)
            out[nib, lane] = (left | (8 if lane >> 4 else 0)) if left > 0 else 0
    return out


@cache
def _pattern(packed: int, exchanges: int, extra: int) -> tuple[list[tuple[int, int]], IntArray, IntArray, IntArray]:
    """A round's exchange pattern: its (actor, target) pairs; the combinations of the exchanges' cases (the first
    exchange's case most significant) in an order that groups those adding up to the same packed word of losses
    and criticals; where each group starts; and the groups' words, one lane a fighter."""
    pairs = [((packed >> (8 * k + 4)) & 15, (packed >> (8 * k)) & 15) for k in range(exchanges)]
    hit = ((0, 0), ((1 + extra) | 16, 0), (1, 0), (0, (1 + extra) | 16), (0, 1))  # (target's lane, actor's lane)
    case = np.indices((_CASES,) * exchanges).reshape(exchanges, -1)
    words = np.zeros(case.shape[1], dtype=np.int64)
    for k, (actor, target) in enumerate(pairs):
        adds = np.array([(t << (_LANE * target)) + (a << (_LANE * actor)) for t, a in hit], dtype=np.int64)
        words += adds[case[k]]
    unique, group = np.unique(words, return_inverse=True)
    order = np.argsort(group, kind="stable")
    starts = np.flatnonzero(np.concatenate(([True], group[order][1:] != group[order][:-1])))
    return pairs, order, starts, unique


def fits(count: int, options: LtlOptions) -> bool:
    """Whether the fast solver takes this melee: at most `MAX_FIGHTERS`, and a round's denominator (a product of
    its exchanges' denominators, at most count - 1 of them) within int64. Exploding dice's exact odds have
    denominators near 2**46, so only a duel of them fits; the plain solver (`melee._ExactMelee`) takes the rest."""
    den, _ = _pair_table(options)
    return 2 <= count <= MAX_FIGHTERS and int(den.max()) ** (count - 1) < 1 << 62


def chain_size(tops: Sequence[int], n_a: int, targeting: Targeting, options: LtlOptions) -> tuple[int, int]:
    """(states, work) of the fast solver before it builds anything: the running states of its product space (each
    fighter down, at a position up to its start, or carrying a -1 where it can), and the combinations of exchange
    cases it weighs, Σ 5^(the state's exchanges). Only for a melee that `fits`."""
    count = len(tops)
    extra = 1 if options.effect_cap >= 2 else 0
    _, exchanges = _plan(count, n_a, targeting)
    axes = np.meshgrid(*(np.arange(top + 1) for top in tops), indexing="ij")
    pos = np.stack([g.ravel() for g in axes]).astype(np.int64)
    running = (pos[:n_a] > 0).any(axis=0) & (pos[n_a:] > 0).any(axis=0)
    pos = pos[:, running]
    # a standing fighter with or without a -1, the -1 only 1 + extra levels or more below its start
    tops_col = np.array(tops, dtype=np.int64)[:, None]
    variants = np.prod(np.where((pos > 0) & (pos < tops_col - extra), 2, 1), axis=0)
    combos = _CASES ** exchanges[(pos << (3 * np.arange(count)[:, None])).sum(axis=0)].astype(np.int64)
    return int(variants.sum()), int((variants * combos).sum())


class _Chain:
    """The melee's states in topological order with each one's round: m, m − stay, successors and weights."""

    def __init__(self, tops: Sequence[int], n_a: int, targeting: Targeting, options: LtlOptions) -> None:
        count = len(tops)
        extra = 1 if options.effect_cap >= 2 else 0
        # each fighter's nibbles: down, a position up to its start, or one carrying a -1, which comes with a
        # critical loss of 1 + extra levels and so never within that of the start
        per = [[0, *range(1, top + 1), *(p | 8 for p in range(1, top - extra))] for top in tops]
        grid = np.stack([g.ravel() for g in np.meshgrid(*map(np.array, per), indexing="ij")]).astype(np.int64)
        pos = grid & 7
        a_up = (pos[:n_a] > 0).any(axis=0)
        b_up = (pos[n_a:] > 0).any(axis=0)
        running = np.flatnonzero(a_up & b_up)
        nib = grid[:, running]
        pos = pos[:, running]
        order = np.lexsort((-(nib >> 3).sum(axis=0), -pos.sum(axis=0)))
        nib, pos = nib[:, order], pos[:, order]
        size = nib.shape[1]
        # a grid index (mixed radix, one digit a fighter) to the state's index in order, or to the absorbing
        # states after the running ones: A wins, B wins, a draw
        lookup = np.where(a_up, size, np.where(b_up, size + 1, size + 2)).astype(np.int64)
        lookup[running[order]] = np.arange(size)
        place = [int(np.prod([len(q) for q in per[f + 1 :]], dtype=np.int64)) for f in range(count)]
        landing = _landing()
        lands = []
        for f in range(count):
            rank = np.zeros(16, dtype=np.int64)
            rank[per[f]] = np.arange(len(per[f])) * place[f]
            lands.append(rank[landing])
        self.size = size
        self.root = int(lookup[sum(top * place[f] for f, top in enumerate(tops))])
        plan, exchanges = _plan(count, n_a, targeting)
        poscode = (pos << (3 * np.arange(count)[:, None])).sum(axis=0)
        packed = plan[poscode]
        den, cases = _pair_table(options)
        m_all = np.ones(size, dtype=np.int64)
        stay_all = np.zeros(size, dtype=np.int64)
        # each state's successors and their weights: in its pattern's arrays, from begin to end
        self.dst: list[IntArray] = []
        self.weight: list[IntArray] = []
        group_of = np.zeros(size, dtype=np.int64)
        begin = np.zeros(size, dtype=np.int64)
        end = np.zeros(size, dtype=np.int64)
        self.combos = 0  # the combinations of exchange cases weighed (`chain_size` counts them beforehand)
        patterns, which = np.unique(packed, return_inverse=True)
        which = which.ravel()
        groups = np.split(np.argsort(which, kind="stable"), np.cumsum(np.bincount(which))[:-1])
        for g, (pk, rows) in enumerate(zip(patterns.tolist(), groups, strict=True)):
            e = int(exchanges[poscode[rows[0]]])
            pairs, order, starts, words = _pattern(pk, e, extra)
            here = nib[:, rows]
            m = np.ones(rows.size, dtype=np.int64)
            w = np.ones((rows.size, 1), dtype=np.int64)
            for actor, target in pairs:
                an, tn = here[actor], here[target]
                m *= den[an, tn]
                w = (w[:, :, None] * cases[an, tn][:, None, :]).reshape(rows.size, -1)
            self.combos += w.size
            merged = np.add.reduceat(w[:, order], starts, axis=1)
            at = np.zeros(merged.shape, dtype=np.int64)
            for f in range(count):
                at += lands[f][:, (words >> (_LANE * f)) & 255][here[f]]
            idx = lookup[at]
            stay_at = idx == rows[:, None]
            m_all[rows] = m
            stay_all[rows] = (merged * stay_at).sum(axis=1)
            merged[stay_at] = 0
            # successors that coincide (a fighter down whatever it lost) are merged: sort each row by successor
            ranks = np.argsort(idx, axis=1)
            keys = (np.arange(rows.size)[:, None] * (size + 3) + np.take_along_axis(idx, ranks, axis=1)).ravel()
            sums = np.take_along_axis(merged, ranks, axis=1).ravel()
            first = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
            keys, sums = keys[first], np.add.reduceat(sums, first)
            keep = sums != 0
            keys, sums = keys[keep], sums[keep]
            counts = np.bincount(keys // (size + 3), minlength=rows.size)
            group_of[rows] = g
            end[rows] = np.cumsum(counts)
            begin[rows] = end[rows] - counts
            # kept as arrays, each state's made a list when it is reached: lists of every transition would hold
            # millions of Python ints at once
            self.dst.append(keys % (size + 3))
            self.weight.append(sums)
        self.group: list[int] = group_of.tolist()
        self.begin: list[int] = begin.tolist()
        self.end: list[int] = end.tolist()
        self.m: list[int] = m_all.tolist()
        self.leave: list[int] = (m_all - stay_all).tolist()

    def solve(self) -> tuple[Fraction, Fraction, Fraction, Fraction]:
        """(A wins, B wins, draw, expected rounds) from the root, exactly (see the module's step 2)."""
        size = self.size
        mass = [0] * (size + 3)
        written = [0] * (size + 3)  # the scale's epoch each mass was written at
        scales = [1]  # Δ at each epoch
        epoch = 0
        ups: dict[int, int] = {}  # Δ now over Δ then, by then

        def up(then: int) -> int:
            got = ups.get(then)
            if got is None:
                got = ups[then] = scales[epoch] // scales[then]
            return got

        mass[self.root] = 1
        rounds = 0
        m_of, leave_of, dst, weight, group, begin, end = (
            self.m,
            self.leave,
            self.dst,
            self.weight,
            self.group,
            self.begin,
            self.end,
        )
        for i in range(self.root, size):
            x = mass[i]
            if not x:
                continue
            if written[i] != epoch:
                x *= up(written[i])
            leave = leave_of[i]
            q, r = divmod(x, leave)
            if r:
                grow = leave // gcd(x, leave)
                scales.append(scales[-1] * grow)
                epoch += 1
                ups = {}
                rounds *= grow
                q = x * grow // leave
            rounds += m_of[i] * q
            g, b, e = group[i], begin[i], end[i]
            for j, a in zip(dst[g][b:e].tolist(), weight[g][b:e].tolist(), strict=True):
                if written[j] == epoch:
                    mass[j] += a * q
                else:
                    old = mass[j]
                    mass[j] = (old * up(written[j]) if old else 0) + a * q
                    written[j] = epoch
        scale = scales[epoch]
        ends = [mass[size + k] * up(written[size + k]) if mass[size + k] else 0 for k in range(3)]
        return (
            Fraction(ends[0], scale),
            Fraction(ends[1], scale),
            Fraction(ends[2], scale),
            Fraction(rounds, scale),
        )
