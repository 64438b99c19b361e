"""Independent brute force for the odds tests: faces enumerated with itertools, never through herotable.odds."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import product

SIDES = {1: 4, 2: 6, 3: 8, 4: 10, 5: 12, 6: 20, 7: 20}


def exchange_counts(
    s: int,
    u: int,
    rerolls: int = 0,
    opp_rerolls: int = 0,
    new_stands: bool = False,
    *,
    shift: int = 0,
    opp_shift: int = 0,
) -> dict[str, Fraction]:
    """Every face of every roll; keep the best (or re-roll while not winning and keep the last). A `shift` counts
    every face that much lower (a d4 under a -1 die type, R-LTL-8); criticals stay on the natural faces."""
    counts = dict.fromkeys(("win", "tie", "lose", "crit_success", "crit_failure"), 0)
    n = 0
    for xs in product(range(1, s + 1), repeat=rerolls + 1):
        for ys in product(range(1, u + 1), repeat=opp_rerolls + 1):
            y = max(ys)
            if new_stands:
                x = next((v for v in xs if v - shift > y - opp_shift), xs[-1])
            else:
                x = max(xs)
            n += 1
            tx, ty = x - shift, y - opp_shift
            counts["win" if tx > ty else "tie" if tx == ty else "lose"] += 1
            counts["crit_success"] += x == s and y == 1 and tx > ty
            counts["crit_failure"] += x == 1 and y == u and tx < ty
    return {k: Fraction(v, n) for k, v in counts.items()}


def exploding_totals(s: int, depth: int) -> tuple[dict[int, Fraction], Fraction]:
    """Totals of an exploding d`s` from face sequences of up to `depth` dice, and the mass left unexplored."""
    totals: dict[int, Fraction] = {}
    for k in range(depth):
        for r in range(1, s):  # k maxima, then a face below the maximum
            totals[k * s + r] = Fraction(1, s ** (k + 1))
    return totals, Fraction(1, s**depth)


def check_success(bonus: int, dc: int, reroll: bool, wit: bool) -> Fraction:
    """d20 + bonus (+2) >= dc over all 20 (or 20×20) faces; a re-roll counts 1–10 as 11–20 and keeps the better."""
    add = bonus + (2 if wit else 0)
    if not reroll:
        return Fraction(sum(1 for f in range(1, 21) if f + add >= dc), 20)
    ok = 0
    for first, second in product(range(1, 21), repeat=2):
        counted = second + 10 if second <= 10 else second
        ok += max(first, counted) + add >= dc
    return Fraction(ok, 400)


def _rolled(position: int, minus: int) -> tuple[int, int]:
    """Sides and face shift of the die at a position under a -1: one die type (R-LTL-8 amended: d20 -> d12, and a
    d4 counts its face one lower)."""
    if not minus:
        return SIDES[position], 0
    if position >= 6:
        return 12, 0
    if position == 1:
        return 4, 1
    return SIDES[position - 1], 0


def duel(a: int, b: int, cap: int = 3) -> tuple[Fraction, Fraction]:
    """P(A wins), E[rounds] of a plain duel by direct recursion over faces: loser -1, a critical success -2
    (within the cap) and -1 die type on the critical failer's next roll; ties repeat the round."""

    @cache
    def value(pa: int, pb: int, ma: int, mb: int) -> tuple[Fraction, Fraction]:
        if pb <= 0:
            return Fraction(1), Fraction(0)
        if pa <= 0:
            return Fraction(0), Fraction(0)
        (sa, da), (sb, db) = _rolled(pa, ma), _rolled(pb, mb)
        extra = 1 if cap >= 2 else 0
        stay = Fraction(0)
        win = rounds = Fraction(0)
        each = Fraction(1, sa * sb)
        for x, y in product(range(1, sa + 1), range(1, sb + 1)):
            if x - da == y - db:
                nxt = (pa, pb, 0, 0)
            elif x - da > y - db:
                crit = x == sa and y == 1
                nxt = (pa, pb - 1 - (extra if crit else 0), 0, 1 if crit else 0)
            else:
                crit = y == sb and x == 1
                nxt = (pa - 1 - (extra if crit else 0), pb, 1 if crit else 0, 0)
            if nxt == (pa, pb, ma, mb):
                stay += each
                continue
            w, r = value(*nxt)
            win += each * w
            rounds += each * r
        return win / (1 - stay), (1 + rounds) / (1 - stay)

    return value(a, b, 0, 0)


def melee(side_a: list[int], side_b: list[int], targeting: str = "weakest", cap: int = 3) -> tuple[Fraction, ...]:
    """P(A wins), P(B wins), P(draw), E[rounds] of a melee by direct recursion over every face of every die
    rolled in a round (R-LTL-12 as the table reads it): fighters act in list order, side A first; each one still
    to act picks a standing opponent (weakest: lowest position, strongest: highest, first listed on ties; spread:
    the k-th standing fighter of its side takes the k-th standing opponent, cycling) and both have acted. The
    loser loses 1, 2 on a critical within the cap, and is at -1 die type next round after a critical; losses
    land at the end of the round."""
    n_a = len(side_a)
    extra = 1 if cap >= 2 else 0

    def pick(pos: tuple[int, ...]) -> list[tuple[int, int]]:
        acted = [False] * len(pos)
        out = []
        for i in range(len(pos)):
            if pos[i] <= 0 or acted[i]:
                continue
            mine = list(range(n_a)) if i < n_a else list(range(n_a, len(pos)))
            theirs = [j for j in (range(n_a, len(pos)) if i < n_a else range(n_a)) if pos[j] > 0]
            if not theirs:
                break
            if targeting == "weakest":
                t = min(theirs, key=lambda j: (pos[j], j))
            elif targeting == "strongest":
                t = min(theirs, key=lambda j: (-pos[j], j))
            else:
                t = theirs[sum(1 for j in mine if j < i and pos[j] > 0) % len(theirs)]
            acted[i] = acted[t] = True
            out.append((i, t))
        return out

    @cache
    def value(state: tuple[tuple[int, int], ...]) -> tuple[Fraction, ...]:
        pos = tuple(p for p, _ in state)
        a_up, b_up = any(p > 0 for p in pos[:n_a]), any(p > 0 for p in pos[n_a:])
        if not (a_up and b_up):
            return (Fraction(int(a_up)), Fraction(int(b_up)), Fraction(int(not (a_up or b_up))), Fraction(0))
        pairs = pick(pos)
        dice = [(_rolled(pos[i], state[i][1]), _rolled(pos[t], state[t][1])) for i, t in pairs]
        counts: dict[tuple[tuple[int, int], ...], int] = {}
        total = 0
        for faces in product(*(product(range(1, x[0] + 1), range(1, y[0] + 1)) for x, y in dice)):
            loss = [0] * len(pos)
            crit = [False] * len(pos)
            for (i, t), ((sx, dx), (sy, dy)), (x, y) in zip(pairs, dice, faces, strict=True):
                if x - dx > y - dy:
                    hit = x == sx and y == 1
                    loss[t] += 1 + (extra if hit else 0)
                    crit[t] = crit[t] or hit
                elif x - dx < y - dy:
                    hit = y == sy and x == 1
                    loss[i] += 1 + (extra if hit else 0)
                    crit[i] = crit[i] or hit
            nxt = tuple((p - lo, int(c)) if p - lo > 0 else (0, 0) for p, lo, c in zip(pos, loss, crit, strict=True))
            counts[nxt] = counts.get(nxt, 0) + 1
            total += 1
        stay = Fraction(counts.pop(state, 0), total)
        acc = [Fraction(0)] * 4
        for nxt, c in counts.items():
            v = value(nxt)
            for k in range(4):
                acc[k] += Fraction(c, total) * v[k]
        acc[3] += 1
        return tuple(x / (1 - stay) for x in acc)

    return value(tuple((p, 0) for p in (*side_a, *side_b)))
