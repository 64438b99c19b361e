"""Exact distributions of one Larger Than Life exchange between two dice (R-LTL-3, R-LTL-8, R-LTL-9, R-LTL-18).

Every total a side keeps is described by its *tail* G(t) = P(total > t). For a plain die of s sides
G(t) = (s - t)/s; with exploding maxima (R-LTL-18) a total is k·s + r with r in 1..s-1, and
G(k·s + r) = (s - r)·s^-(k+1), G(k·s) = s^-k. The support is infinite, but the tail is periodic with
geometric decay: over the common period L = lcm(s, u) of both dice, G(t + L) = a·G(t) with a = s^-(L/s).
Every quantity below is a sum over t of a polynomial in G_X(t), G_X(t-1), G_Y(t), G_Y(t-1); a monomial
with exponents (i, j) on X and Y scales by (a^i·b^j)^n from one period to the next, so its sum over all t is
its sum over the first period times 1/(1 - a^i·b^j), exactly. Plain dice are the case a = b = 0.
Criticals look at natural faces, and a kept total fixes its faces, so criticals follow from totals alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb, lcm

from herotable.ltl.options import RerollMode

ZERO = Fraction(0)
ONE = Fraction(1)

# a monomial G_X(t)^i · G_X(t-1)^i' · G_Y(t)^j · G_Y(t-1)^j', keyed by (i, i', j, j')
Monomial = tuple[int, int, int, int]
Poly = dict[Monomial, Fraction]


@dataclass(frozen=True)
class ExchangeOdds:
    """Exact odds of one exchange from the roller's side (R-LTL-3, R-LTL-8). `crit_success` is part of `win`
    and `crit_failure` part of `lose`; win + tie + lose == 1 exactly."""

    win: Fraction
    tie: Fraction
    lose: Fraction
    crit_success: Fraction = ZERO
    crit_failure: Fraction = ZERO

    def flipped(self) -> ExchangeOdds:
        """The same exchange seen from the other side."""
        return ExchangeOdds(self.lose, self.tie, self.win, self.crit_failure, self.crit_success)

    def as_dict(self) -> dict[str, Fraction]:
        return {
            "win": self.win,
            "tie": self.tie,
            "lose": self.lose,
            "crit_success": self.crit_success,
            "crit_failure": self.crit_failure,
        }


def tail(sides: int, t: int, exploding: bool) -> Fraction:
    """P(one roll of a d`sides` totals more than t), t >= 0 (R-LTL-18 when exploding)."""
    if not exploding:
        return Fraction(max(0, sides - t), sides)
    k, r = divmod(t, sides)
    if r == 0:
        return Fraction(1, sides**k)
    return Fraction(sides - r, sides ** (k + 1))


def total_pmf(sides: int, t: int, exploding: bool) -> Fraction:
    """P(one roll of a d`sides` totals exactly t)."""
    return tail(sides, t - 1, exploding) - tail(sides, t, exploding) if t >= 1 else ZERO


# --- polynomials in the four tails -------------------------------------------------------------------------


def _mul(p: Poly, q: Poly) -> Poly:
    out: Poly = {}
    for (a, b, c, d), x in p.items():
        for (e, f, g, h), y in q.items():
            key = (a + e, b + f, c + g, d + h)
            out[key] = out.get(key, ZERO) + x * y
    return {k: v for k, v in out.items() if v}


def _add(*polys: tuple[int, Poly]) -> Poly:
    out: Poly = {}
    for sign, p in polys:
        for k, v in p.items():
            out[k] = out.get(k, ZERO) + sign * v
    return {k: v for k, v in out.items() if v}


def _cdf_power(var: int, power: int) -> Poly:
    """(1 - G)^power for the tail variable at index `var`: the CDF of the best of `power` rolls."""
    out: Poly = {}
    for i in range(power + 1):
        exps = [0, 0, 0, 0]
        exps[var] = i
        out[(exps[0], exps[1], exps[2], exps[3])] = Fraction(comb(power, i) * (-1) ** i)
    return out


_X1, _X0, _Y1, _Y0 = 0, 1, 2, 3  # G_X(t), G_X(t-1), G_Y(t), G_Y(t-1)
_UNIT: Poly = {(0, 0, 0, 0): ONE}


def _sum_over_t(poly: Poly, sx: int, sy: int, exploding: bool, dx: int = 0, dy: int = 0) -> Fraction:
    """Sum over t of the polynomial, exactly, by periods of lcm(sx, sy) and geometric series. `dx`, `dy` count each
    side's totals that much lower (a d4 under a -1 die type, R-LTL-8): its tail is G(t + d), totals start at 0."""
    period = lcm(sx, sy)
    a = Fraction(1, sx ** (period // sx)) if exploding else ZERO
    b = Fraction(1, sy ** (period // sy)) if exploding else ZERO
    if dx or dy:
        # t runs from 0; a plain die's terms end within one period, an exploding one's repeat from t = 0 on
        ts = range(0, period if exploding else period + 1)
        gx = {t: _shifted_tail(sx, t, dx, exploding) for t in range(-1, period + 1)}
        gy = {t: _shifted_tail(sy, t, dy, exploding) for t in range(-1, period + 1)}
    else:
        ts = range(1, period + 1)
        gx = {t: tail(sx, t, exploding) for t in range(period + 1)}
        gy = {t: tail(sy, t, exploding) for t in range(period + 1)}
    total = ZERO
    for (i1, i0, j1, j0), coef in poly.items():
        ex, ey = i1 + i0, j1 + j0
        if ex == 0 and ey == 0:
            raise ArithmeticError("a constant term would sum to infinity")  # probabilities never have one
        first = sum((gx[t] ** i1 * gx[t - 1] ** i0 * gy[t] ** j1 * gy[t - 1] ** j0 for t in ts), ZERO)
        total += coef * first / (ONE - a**ex * b**ey)
    return total


def _shifted_tail(sides: int, t: int, shift: int, exploding: bool) -> Fraction:
    """P(a total counted `shift` lower is more than t); every total is at least 0."""
    return ONE if t + shift < 0 else tail(sides, t + shift, exploding)


def _keep_better(sx: int, sy: int, mx: int, my: int, exploding: bool, dx: int = 0, dy: int = 0) -> ExchangeOdds:
    fx1, fx0, fy1, fy0 = _cdf_power(_X1, mx), _cdf_power(_X0, mx), _cdf_power(_Y1, my), _cdf_power(_Y0, my)
    px = _add((1, fx1), (-1, fx0))  # P(X = t)
    py = _add((1, fy1), (-1, fy0))
    win = _sum_over_t(_mul(py, _add((1, _UNIT), (-1, fx1))), sx, sy, exploding, dx, dy)
    tie = _sum_over_t(_mul(px, py), sx, sy, exploding, dx, dy)
    lose = _sum_over_t(_mul(px, _add((1, _UNIT), (-1, fy1))), sx, sy, exploding, dx, dy)
    # a natural maximum (at least 3 after a penalty) beats a natural 1 (at most 1): criticals do not move
    return _with_crits(win, tie, lose, _best_crits(sx, sy, mx, my))


def _best_crits(sx: int, sy: int, mx: int, my: int) -> tuple[Fraction, Fraction]:
    """Criticals when every roll is kept at its best: natural maximum iff the total reaches the die's size."""
    x_max = ONE - Fraction(sx - 1, sx) ** mx
    y_max = ONE - Fraction(sy - 1, sy) ** my
    x_one, y_one = Fraction(1, sx) ** mx, Fraction(1, sy) ** my
    return x_max * y_one, x_one * y_max


def _new_stands(sx: int, sy: int, k: int, exploding: bool, dx: int = 0, dy: int = 0) -> ExchangeOdds:
    """X re-rolls up to k times while not winning and the last roll stands (R-LTL-9 option); Y rolls once. `dx`,
    `dy`: totals counted one lower (a d4 under a -1 die type, R-LTL-8)."""
    fx1, fx0 = _cdf_power(_X1, 1), _cdf_power(_X0, 1)
    fx1k = _cdf_power(_X1, k)
    py = _add((1, _cdf_power(_Y1, 1)), (-1, _cdf_power(_Y0, 1)))
    not_won_before = _mul(py, fx1k)  # P(Y = t) · P(the first k rolls did not beat t)
    win = _sum_over_t(_mul(py, _add((1, _UNIT), (-1, _cdf_power(_X1, k + 1)))), sx, sy, exploding, dx, dy)
    tie = _sum_over_t(_mul(not_won_before, _add((1, fx1), (-1, fx0))), sx, sy, exploding, dx, dy)
    lose = _sum_over_t(_mul(not_won_before, fx0), sx, sy, exploding, dx, dy)
    x_one = Fraction(1, sx)
    # critical success: Y shows 1 and the first roll of X that beats it is a maximum. A roll fails to beat Y's 1
    # when its face is at most 1 - dy + dx (never a maximum), so with q that chance, each roll in turn:
    q = Fraction(1 - dy + dx, sx)
    crit_success = Fraction(1, sy) * x_one * (ONE - q ** (k + 1)) / (ONE - q)
    # critical failure: the last roll is a 1 after k rolls that did not beat Y, and Y is a natural maximum
    every_y = _sum_over_t(_mul(not_won_before, {(0, 0, 0, 0): x_one}), sx, sy, exploding, dx, dy)
    low_y = sum(
        (total_pmf(sy, t, exploding) * (ONE - tail(sx, t - dy + dx, exploding)) ** k * x_one for t in range(1, sy)),
        ZERO,
    )
    crit_failure = every_y - low_y
    return _with_crits(win, tie, lose, (crit_success, crit_failure))


def _with_crits(win: Fraction, tie: Fraction, lose: Fraction, crits: tuple[Fraction, Fraction]) -> ExchangeOdds:
    if win + tie + lose != 1:
        raise ArithmeticError(f"exchange odds sum to {win + tie + lose}, not 1")
    return ExchangeOdds(win, tie, lose, crits[0], crits[1])


def _plain_keep_better(sx: int, sy: int, mx: int, my: int, dx: int = 0, dy: int = 0) -> ExchangeOdds:
    """Plain dice, best of mx against best of my, counted with integers: P(max <= t) = t^m / s^m. `dx`, `dy`: faces
    counted one lower (a d4 under a -1 die type, R-LTL-8); criticals stay on the natural faces."""
    win = tie = 0
    for t in range(1, sy + 1):
        y_at = t**my - (t - 1) ** my
        u = t - dy + dx  # X's face that ties Y's t
        win += y_at * (sx**mx - max(0, min(u, sx)) ** mx)
        if 1 <= u <= sx:
            tie += y_at * (u**mx - (u - 1) ** mx)
    whole = sx**mx * sy**my
    lose = whole - win - tie
    crit_success = sx**mx - (sx - 1) ** mx  # any maximum among X's rolls, every Y roll a 1
    crit_failure = sy**my - (sy - 1) ** my
    return ExchangeOdds(
        Fraction(win, whole),
        Fraction(tie, whole),
        Fraction(lose, whole),
        Fraction(crit_success, whole),
        Fraction(crit_failure, whole),
    )


@lru_cache(maxsize=4096)
def dice_exchange(
    sides: int,
    opp_sides: int,
    *,
    rerolls: int = 0,
    opp_rerolls: int = 0,
    exploding: bool = False,
    reroll_mode: RerollMode = RerollMode.KEEP_BETTER,
    penalty: int = 0,
    opp_penalty: int = 0,
) -> ExchangeOdds:
    """Exact odds of a d`sides` against a d`opp_sides`: higher total wins, a tie changes nothing (R-LTL-3);
    criticals on natural faces (R-LTL-8); re-rolls (R-LTL-9) keep the better result, or under "new result
    stands" are taken while that side is not winning; exploding maxima (R-LTL-18); a `penalty` of 1 counts that
    side's result one lower (a d4 under a -1 die type, R-LTL-8). Raises ValueError for a negative re-roll count,
    a penalty other than 0 or 1, or re-rolls on both sides under "new result stands" (their order would matter)."""
    if rerolls < 0 or opp_rerolls < 0:
        raise ValueError("re-rolls must be zero or more")
    if penalty not in (0, 1, 2) or opp_penalty not in (0, 1, 2):
        raise ValueError("a penalty counts a d4's face one or two lower, or nothing")
    if min(sides, opp_sides) < 2:
        raise ValueError("a ladder die has at least four sides")
    if reroll_mode is RerollMode.NEW_STANDS and rerolls and opp_rerolls:
        raise ValueError(
            "under 'new result stands' the order of both sides' re-rolls decides the odds; "
            "Tip: give re-rolls to one side, or use keep-better"
        )
    if reroll_mode is RerollMode.NEW_STANDS and (rerolls or opp_rerolls):
        if opp_rerolls:
            return _new_stands(opp_sides, sides, opp_rerolls, exploding, opp_penalty, penalty).flipped()
        return _new_stands(sides, opp_sides, rerolls, exploding, penalty, opp_penalty)
    if not exploding:
        return _plain_keep_better(sides, opp_sides, 1 + rerolls, 1 + opp_rerolls, penalty, opp_penalty)
    return _keep_better(sides, opp_sides, 1 + rerolls, 1 + opp_rerolls, exploding, penalty, opp_penalty)


def general_exchange(sides: int, opp_sides: int, rerolls: int, opp_rerolls: int, exploding: bool) -> ExchangeOdds:
    """The keep-better exchange by the periodic-tail sums even for plain dice (a cross-check of the counting)."""
    return _keep_better(sides, opp_sides, 1 + rerolls, 1 + opp_rerolls, exploding)


def beats(sides: int, opp_sides: int, exploding: bool) -> Fraction:
    """P(a d`sides` rolls strictly higher than a d`opp_sides`): Heroism rolls for Pushing and Recovery,
    where a tie fails (R-LTL-11)."""
    return dice_exchange(sides, opp_sides, exploding=exploding).win
