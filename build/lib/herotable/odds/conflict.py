"""Whole duels as absorbing Markov chains over the ladder positions of R-LTL-1 (R-LTL-3, R-LTL-7, R-LTL-8,
R-LTL-11, R-LTL-12).

A state holds, for each side, its base Power position (0..7; position 6 is a d20 that has lost one level, so a
d20 survives one loss), its Heroism position, the rolled Recovery tries left, and the critical effects in force
this round (+1, -1, a re-roll; each one die type, at most one of each, R-LTL-8 amended). One round is one
exchange, settled exactly like `ltl.task.settle`: a Push is declared (priced by the highest die it creates, its
roll's critical failure carrying -1), Going For Broke is paid, the dice are rolled, the loser loses 1 + the
winner's Broke levels within the cap, a critical adds its extra level (or the advantage chosen at the cap) and
gives the loser one -1 next round (never two: "opponent -1" then falls back to the advantage chosen at the cap);
losses land at the end of the round, then Recovery may be tried (a critical failure carries -1 too). Defeat (base
below d4) absorbs.

Every transition but a tie lowers a position or spends Heroism or a Recovery try, so the states with the same
positions, Heroism and tries (a *key*) are the only ones a round can return to: a tie clears the carried effects
and a fumbled Push roll sets a -1. Those few states are solved together, exactly, as one small linear system
(I - Q) V = R, R holding what leaves the key; a plain tie's self-loop is its 1x1 case,
V(s) = sum over s' != s of P(s -> s') V(s') / (1 - p). States are solved in topological order (Tarjan's
algorithm, iterative), each value kept as integer numerators over one common denominator, reduced once per state
by one gcd: Fraction arithmetic, which reduces after every operation, was the cost. Results are exact Fractions at
the API edge.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache
from math import lcm
from typing import NamedTuple

from herotable.dice import MAX_POSITION, Rating
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.options import DEFAULT_OPTIONS, LtlOptions
from herotable.ltl.task import CritBonus, CritPenalty
from herotable.odds.absorbing import IntValue, Steps, solve_in_order
from herotable.odds.distributions import ONE, ZERO, ExchangeOdds
from herotable.odds.exchange import Roll, exchange, push_burn_cost, push_odds, rolled_die


class Push(StrEnum):
    """When a side Pushes with Heroism (R-LTL-11): never, every round by a Heroism roll, or every round by
    burning Heroism while it can pay (no d4 double burn, which would knock the hero out)."""

    NEVER = "never"
    ROLL = "roll"
    BURN = "burn"


class Recovery(StrEnum):
    """How a side tries Heroism Recovery at the end of a round (R-LTL-11): never, by rolling against
    (levels lost + 1) or Inconceivable from below d4, or by burning 1 level (2 from below d4)."""

    NEVER = "never"
    ROLL = "roll"
    BURN = "burn"


@dataclass(frozen=True)
class Policy:
    """A side's standing decisions: Going For Broke levels each round (R-LTL-7, trimmed to the cap and to
    keeping a die), Push and Recovery (R-LTL-11), the reward chosen for a critical success and the one chosen
    when the extra level would pass the cap, and the critical-failure penalty taken (R-LTL-8)."""

    broke: int = 0
    push: Push = Push.NEVER
    recovery: Recovery = Recovery.NEVER
    recover_at: int = 2  # levels lost (defeat always counts) at which Recovery is tried
    recovery_tries: int = 1  # rolled Recovery attempts the GM allows in this conflict
    crit_bonus: CritBonus = CritBonus.EXTRA_LEVEL
    crit_bonus_at_cap: CritBonus = CritBonus.PLUS_ONE_NEXT
    crit_penalty: CritPenalty = CritPenalty.MINUS_ONE_NEXT

    def __post_init__(self) -> None:
        if self.broke < 0 or self.recover_at < 1 or self.recovery_tries < 0:
            raise ValueError("broke and recovery_tries must be zero or more, recover_at at least 1")
        if self.crit_bonus_at_cap is CritBonus.EXTRA_LEVEL:
            raise ValueError("the extra level is refused at the cap (R-LTL-8); Tip: pick an advantage instead")


@dataclass(frozen=True)
class Contender:
    """One side of a duel: sheet base Power (Recovery restores it), the Style rolled (None: base Power; it
    moves with base Power, R-LTL-4), Heroism, and the side's policy."""

    power: Rating
    style: Rating | None = None
    heroism: Rating = field(default_factory=lambda: Rating(0))
    policy: Policy = field(default_factory=Policy)
    shift: int = 0  # the GM's standing situational modifier on this side's die, -2..+2 die types (R-T-2 amended)

    def __post_init__(self) -> None:
        if not self.power.usable:
            raise ValueError("a contender needs base Power of d4 or more")
        if self.style is not None and self.style.position < self.power.position:
            raise ValueError("a Style is never below base Power (R-LTL-4)")

    @property
    def offset(self) -> int:
        return 0 if self.style is None else self.style.position - self.power.position

    def start(self) -> SideState:
        return SideState(self.power.position, self.heroism.position, self.policy.recovery_tries)


class SideState(NamedTuple):
    """A side between rounds: base Power and Heroism positions, rolled Recovery tries left, and the critical
    effects it carries into this round (R-LTL-8). A named tuple: the solver hashes states by the hundred
    thousand, and a tuple hashes in C."""

    position: int
    heroism: int = 0
    tries: int = 0
    plus_one: int = 0
    minus_one: int = 0
    reroll: int = 0


class DuelState(NamedTuple):
    a: SideState
    b: SideState

    @property
    def over(self) -> bool:
        return self.a.position <= 0 or self.b.position <= 0


@dataclass(frozen=True)
class Choice:
    """A one-round override of a side's policy for the advisor: Broke levels, a Push, Automatic Success."""

    broke: int | None = None
    push: Push | None = None
    auto_success: bool = False


@dataclass(frozen=True)
class ConflictOdds:
    """Exact result of a duel: who wins, the expected rounds, the expected base Power levels each side has
    at the end (0 when defeated), and the full outcome distribution (winner, levels left, probability)."""

    a_wins: Fraction
    b_wins: Fraction
    expected_rounds: Fraction
    a_levels_left: Fraction
    b_levels_left: Fraction
    outcomes: tuple[tuple[str, int, Fraction], ...]


@dataclass(frozen=True)
class RoundsDistribution:
    """P(the duel ends in round n) for n = 1..len(by_round), and the exact mass of longer duels."""

    by_round: tuple[Fraction, ...]
    beyond: Fraction


# value vector: P(A wins with k levels) for k = 1..7, P(B wins with k levels) for k = 1..7, E[rounds]
_WIDTH = 2 * MAX_POSITION + 1
Vector = tuple[Fraction, ...]
_IntSteps = Steps["DuelState"]


@dataclass(frozen=True)
class _Static:
    offset: int
    sheet: int | None  # the sheet base position, needed only when Recovery can restore it
    policy: Policy
    shift: int = 0  # the standing situational modifier (R-T-2 amended)


def _static(c: Contender) -> _Static:
    sheet = c.power.position if c.policy.recovery is not Recovery.NEVER else None
    return _Static(c.offset, sheet, c.policy, c.shift)


@dataclass(frozen=True)
class _Declared:
    weight: Fraction
    state: SideState
    roll: Roll
    broke: int


class _Chain:
    """The duel chain for two side kinds under one set of options, with every state's value memoised."""

    def __init__(self, a: _Static, b: _Static, options: LtlOptions) -> None:
        self.sides = (a, b)
        self.options = options
        self.values: dict[DuelState, IntValue] = {}
        self.steps: dict[DuelState, dict[DuelState, Fraction]] = {}
        self.int_steps: dict[DuelState, _IntSteps] = {}
        self.declared: dict[tuple[int, SideState], list[_Declared]] = {}
        # the chain is shared (memoised) by every caller; one solves at a time
        self._solving = threading.RLock()

    # --- one round -------------------------------------------------------------------------------------------

    def declare(self, who: int, st: SideState, choice: Choice | None) -> list[_Declared]:
        """What a side declares and rolls this round, each way its Push can go; by its policy (remembered: a
        side's few states recur across many duel states) or with `choice` overriding it."""
        if choice is not None:
            return self._declare(who, st, choice)
        known = self.declared.get((who, st))
        if known is None:
            known = self.declared[(who, st)] = self._declare(who, st, None)
        return known

    def _declare(self, who: int, st: SideState, choice: Choice | None) -> list[_Declared]:
        static = self.sides[who]
        base = Rating(st.position)
        style = Rating(min(MAX_POSITION, st.position + static.offset))
        mode = choice.push if choice is not None and choice.push is not None else static.policy.push
        # (weight, pushed, Heroism left, -1 next round from the Push roll's critical failure)
        pushes: list[tuple[Fraction, bool, int, int]] = [(ONE, False, st.heroism, 0)]
        if mode is Push.BURN:
            cost = push_burn_cost(base, style)
            if cost is not None and st.heroism >= cost:
                pushes = [(ONE, True, st.heroism - cost, 0)]
        elif mode is Push.ROLL:
            roll = push_odds(Rating(st.heroism), base, self.options, style=style)
            if roll.win:
                fumble = roll.crit_failure
                pushes = [(roll.win, True, st.heroism, 0), (ONE - roll.win - fumble, False, st.heroism, 0)]
                if fumble:
                    pushes.append((fumble, False, st.heroism, 1))
        wanted = choice.broke if choice is not None and choice.broke is not None else static.policy.broke
        broke = max(0, min(wanted, self.options.effect_cap - 1, st.position - 1))
        auto = choice is not None and choice.auto_success
        out = []
        for weight, pushed, heroism, fumbled in pushes:
            rating, penalty = rolled_die(
                style, broke=broke, pushed=pushed, plus_one=st.plus_one, minus_one=st.minus_one, shift=static.shift
            )
            paid = SideState(st.position - broke, heroism, st.tries, minus_one=fumbled)
            out.append(_Declared(weight, paid, Roll(rating, st.reroll, auto, penalty), broke))
        return out

    def _settle(self, win: _Declared, lose: _Declared, who_won: int, crit: bool) -> tuple[SideState, SideState]:
        """The winner's and the loser's states after one decided exchange (R-LTL-7, R-LTL-8)."""
        cap = self.options.effect_cap
        effect = min(cap, 1 + win.broke)
        w, lo = win.state, lose.state
        if crit:
            bonus = self.sides[who_won].policy.crit_bonus
            if bonus is CritBonus.EXTRA_LEVEL:
                if effect < cap:
                    effect += 1
                else:
                    bonus = self.sides[who_won].policy.crit_bonus_at_cap
            penalised = self.sides[1 - who_won].policy.crit_penalty is CritPenalty.MINUS_ONE_NEXT
            if bonus is CritBonus.OPPONENT_MINUS_ONE and penalised:
                # the loser carries one -1 from the exchange: the roller picks the fallback advantage instead
                bonus = self.sides[who_won].policy.crit_bonus_at_cap
            if bonus is CritBonus.PLUS_ONE_NEXT:
                w = w._replace(plus_one=1)
            elif bonus is CritBonus.REROLL_NEXT:
                w = w._replace(reroll=1)
            if bonus is CritBonus.OPPONENT_MINUS_ONE or penalised:
                lo = lo._replace(minus_one=1)
        return w, lo._replace(position=lo.position - effect)

    def _recover(self, who: int, st: SideState) -> list[tuple[Fraction, SideState]]:
        """End-of-round Recovery by the side's policy (R-LTL-11); defeat absorbs when it is not undone."""
        static = self.sides[who]
        sheet = static.sheet
        down = st.position <= 0
        if sheet is None or static.policy.recovery is Recovery.NEVER:
            return [(ONE, st)]
        if not down and sheet - st.position < static.policy.recover_at:
            return [(ONE, st)]
        restored = st._replace(position=sheet)
        if static.policy.recovery is Recovery.BURN:
            cost = 2 if down else 1
            return [(ONE, restored._replace(heroism=st.heroism - cost))] if st.heroism >= cost else [(ONE, st)]
        if st.tries < 1 or st.heroism < 1:
            return [(ONE, st)]
        difficulty = Difficulty.named("inconceivable") if down else Difficulty.levels(sheet - st.position + 1)
        assert difficulty.rating is not None
        roll = exchange(Roll(Rating(st.heroism)), Roll(difficulty.rating), self.options)
        spent = st._replace(tries=st.tries - 1)
        # a critical failure is -1 die type next round (R-LTL-8)
        out = [(roll.win, restored._replace(tries=st.tries - 1)), (ONE - roll.win - roll.crit_failure, spent)]
        if roll.crit_failure:
            out.append((roll.crit_failure, spent._replace(minus_one=1)))
        return out

    def transitions(self, state: DuelState, choice: Choice | None = None) -> dict[DuelState, Fraction]:
        """Where one round leads from `state`, with A's policy overridden by `choice` for this round."""
        if choice is None and state in self.steps:
            return self.steps[state]
        m, steps = self._raw_steps(state, choice)
        out = {nxt: Fraction(a, m) for nxt, a in steps.items()}
        if choice is None:
            self.steps[state] = out
        return out

    def _raw_steps(self, state: DuelState, choice: Choice | None) -> tuple[int, dict[DuelState, int]]:
        """One round from `state` in integers: a common denominator m and m·P(next state) for each next state.
        Every weight is multiplied as integer numerator and denominator; nothing is reduced until the end."""
        parts: list[tuple[DuelState, int, int]] = []
        for da in self.declare(0, state.a, choice):
            for db in self.declare(1, state.b, None):
                (an, ad), (bn, bd) = _ints(da.weight), _ints(db.weight)
                odds = exchange(da.roll, db.roll, self.options)
                d, cases = int_odds(odds)
                w_d = ad * bd * d
                for n, (after_a, after_b) in zip(cases, self._outcomes(da, db, cases), strict=True):
                    if not n:
                        continue
                    w_n = an * bn * n
                    for pa, ra in self._recover(0, after_a):
                        pan, pad = _ints(pa)
                        for pb, rb in self._recover(1, after_b):
                            pbn, pbd = _ints(pb)
                            parts.append((_normalise(DuelState(ra, rb)), w_n * pan * pbn, w_d * pad * pbd))
        m = lcm(*(d for _, n, d in parts if n))
        out: dict[DuelState, int] = {}
        for nxt, n, d in parts:
            if n:
                out[nxt] = out.get(nxt, 0) + n * (m // d)
        return m, out

    def _outcomes(
        self, da: _Declared, db: _Declared, cases: tuple[int, int, int, int, int]
    ) -> Iterator[tuple[SideState, SideState]]:
        """Both sides' states after each case of `int_odds` (tie, A's critical win, A's plain win, B's critical
        win, B's plain win); a case that cannot happen is not settled."""
        yield da.state, db.state
        for crit, n in ((True, cases[1]), (False, cases[2])):
            yield self._settle(da, db, 0, crit) if n else (da.state, db.state)
        for crit, n in ((True, cases[3]), (False, cases[4])):
            if n:
                wb, la = self._settle(db, da, 1, crit)
                yield la, wb
            else:
                yield da.state, db.state

    # --- values ---------------------------------------------------------------------------------------------

    def value(self, state: DuelState) -> Vector:
        """P(each final outcome) and E[rounds] from `state`, exactly, as Fractions."""
        num, den = self.exact(state)
        return tuple(Fraction(n, den) for n in num)

    def exact(self, state: DuelState) -> IntValue:
        """`state`'s value as integer numerators over one common denominator (see `_solve_from`)."""
        if state.over:
            return _terminal(state)
        known = self.values.get(state)
        if known is not None:
            return known
        with self._solving:
            known = self.values.get(state)  # solved by another thread while this one waited
            if known is None:
                self._solve_from(state)
                known = self.values[state]
            return known

    def _int_steps(self, state: DuelState) -> _IntSteps:
        """`transitions` over one common denominator m: (m, m·P(stay), [(next state, m·P), ...])."""
        got = self.int_steps.get(state)
        if got is None:
            m, steps = self._raw_steps(state, None)
            stay = steps.pop(state, 0)
            got = self.int_steps[state] = (m, stay, list(steps.items()))
        return got

    def _solve_from(self, root: DuelState) -> None:
        """Value every unsolved state reachable from `root` (`absorbing.solve_in_order`): nearly every strongly
        connected part is one state with a tie's self-loop; a fumbled Push roll can send a tie back and forth
        between states, and those are solved together as one exact linear system (`_solve_part`)."""
        solve_in_order(root, self._int_steps, _done, self.values, self._solve_part)

    def _solve_part(self, part: list[DuelState]) -> None:
        index = {s: i for i, s in enumerate(part)}
        n = len(part)
        matrix = [[ONE if i == j else ZERO for j in range(n)] for i in range(n)]
        rhs = [[ZERO] * (_WIDTH - 1) + [ONE] for _ in range(n)]  # this round
        for i, s in enumerate(part):
            for nxt, p in self.transitions(s).items():
                j = index.get(nxt)
                if j is not None:
                    matrix[i][j] -= p
                    continue
                num, den = self.values[nxt] if not nxt.over else _terminal(nxt)
                row = rhs[i]
                for k in range(_WIDTH):
                    if num[k]:
                        row[k] += p * Fraction(num[k], den)
        for s, result in zip(part, _solve(matrix, rhs), strict=True):
            common = lcm(*(x.denominator for x in result))
            self.values[s] = tuple(x.numerator * (common // x.denominator) for x in result), common


def _ints(x: Fraction) -> tuple[int, int]:
    """A weight's numerator and denominator; the certain weight without Fraction's property look-ups."""
    return (1, 1) if x is ONE else (x.numerator, x.denominator)


_INT_ODDS: dict[int, tuple[ExchangeOdds, tuple[int, tuple[int, int, int, int, int]]]] = {}


def int_odds(odds: ExchangeOdds) -> tuple[int, tuple[int, int, int, int, int]]:
    """An exchange's cases over one denominator d: d and d·P(tie, critical win, plain win, critical loss, plain
    loss). Remembered by the odds object itself (the exchange distributions are memoised, so the same few
    objects come back)."""
    known = _INT_ODDS.get(id(odds))
    if known is not None and known[0] is odds:
        return known[1]
    parts = (
        odds.tie,
        odds.crit_success,
        odds.win - odds.crit_success,
        odds.crit_failure,
        odds.lose - odds.crit_failure,
    )
    d = lcm(*(p.denominator for p in parts))
    t, cs, w, cf, lo = (p.numerator * (d // p.denominator) for p in parts)
    found = d, (t, cs, w, cf, lo)
    if len(_INT_ODDS) > 4096:
        _INT_ODDS.clear()
    _INT_ODDS[id(odds)] = (odds, found)  # the entry keeps the object alive, so its id is never reused meanwhile
    return found


def _key(state: DuelState) -> tuple[int, ...]:
    """What every round but a tie lowers: positions, Heroism and Recovery tries (carried effects left out)."""
    a, b = state.a, state.b
    return (a.position, a.heroism, a.tries, b.position, b.heroism, b.tries)


def _solve(matrix: list[list[Fraction]], rhs: list[list[Fraction]]) -> list[list[Fraction]]:
    """Solve matrix · X = rhs exactly by Gaussian elimination (the matrix is I - Q of a few transient states)."""
    n = len(matrix)
    a = [row[:] + rhs_row[:] for row, rhs_row in zip(matrix, rhs, strict=True)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if a[r][col])
        a[col], a[pivot] = a[pivot], a[col]
        inv = ONE / a[col][col]
        a[col] = [x * inv for x in a[col]]
        for r in range(n):
            if r != col and a[r][col]:
                factor = a[r][col]
                a[r] = [x - factor * y for x, y in zip(a[r], a[col], strict=True)]
    return [row[n:] for row in a]


def _normalise(state: DuelState) -> DuelState:
    """One absorbing state per final position: a defeated side is 0, effects are dropped."""
    if not state.over:
        return state
    return DuelState(SideState(max(0, state.a.position)), SideState(max(0, state.b.position)))


def _done(state: DuelState) -> IntValue | None:
    return _terminal(state) if state.over else None


@lru_cache(maxsize=64)
def _terminal(state: DuelState) -> IntValue:
    vec = [0] * _WIDTH
    if state.a.position > 0:
        vec[state.a.position - 1] = 1
    elif state.b.position > 0:
        vec[MAX_POSITION + state.b.position - 1] = 1
    return tuple(vec), 1


@lru_cache(maxsize=256)
def _chain(a: _Static, b: _Static, options: LtlOptions) -> _Chain:
    return _Chain(a, b, options)


def chain_for(a: Contender, b: Contender, options: LtlOptions = DEFAULT_OPTIONS) -> _Chain:
    """The (memoised) chain two contenders' duels run on; shared by every start state of the same kinds."""
    return _chain(_static(a), _static(b), options)


def _odds(vec: Vector) -> ConflictOdds:
    a = vec[:MAX_POSITION]
    b = vec[MAX_POSITION : 2 * MAX_POSITION]
    outcomes = tuple(("a", k + 1, p) for k, p in enumerate(a) if p) + tuple(
        ("b", k + 1, p) for k, p in enumerate(b) if p
    )
    return ConflictOdds(
        a_wins=sum(a, ZERO),
        b_wins=sum(b, ZERO),
        expected_rounds=vec[-1],
        a_levels_left=sum(((k + 1) * p for k, p in enumerate(a)), ZERO),
        b_levels_left=sum(((k + 1) * p for k, p in enumerate(b)), ZERO),
        outcomes=outcomes,
    )


def _exact_odds(value: IntValue) -> ConflictOdds:
    """`_odds` of integer numerators over one denominator: one Fraction for each figure."""
    num, den = value
    a = num[:MAX_POSITION]
    b = num[MAX_POSITION : 2 * MAX_POSITION]
    outcomes = tuple(("a", k + 1, Fraction(n, den)) for k, n in enumerate(a) if n) + tuple(
        ("b", k + 1, Fraction(n, den)) for k, n in enumerate(b) if n
    )
    return ConflictOdds(
        a_wins=Fraction(sum(a), den),
        b_wins=Fraction(sum(b), den),
        expected_rounds=Fraction(num[-1], den),
        a_levels_left=Fraction(sum((k + 1) * n for k, n in enumerate(a)), den),
        b_levels_left=Fraction(sum((k + 1) * n for k, n in enumerate(b)), den),
        outcomes=outcomes,
    )


def conflict(
    a: Contender, b: Contender, options: LtlOptions = DEFAULT_OPTIONS, *, state: DuelState | None = None
) -> ConflictOdds:
    """Exact odds of a whole duel between two contenders from their start (or from `state`), each following
    its policy (R-LTL-3, R-LTL-7, R-LTL-8, R-LTL-11, R-LTL-12). Raises ValueError for an illegal contender."""
    start = state if state is not None else DuelState(a.start(), b.start())
    return _exact_odds(chain_for(a, b, options).exact(_normalise(start)))


def after_choice(
    a: Contender, b: Contender, state: DuelState, choice: Choice, options: LtlOptions = DEFAULT_OPTIONS
) -> ConflictOdds:
    """The duel's odds when A takes `choice` this round and then follows its policy (the advisor, R-LTL-7,
    R-LTL-10, R-LTL-11). Rounds count this one."""
    chain = chain_for(a, b, options)
    acc = [ZERO] * _WIDTH
    for nxt, p in chain.transitions(state, choice).items():
        v = chain.value(nxt)
        for i in range(_WIDTH):
            acc[i] += p * v[i]
    acc[-1] += ONE
    return _odds(tuple(acc))


def round_odds(
    a: Contender, b: Contender, state: DuelState, choice: Choice | None = None, options: LtlOptions = DEFAULT_OPTIONS
) -> ExchangeOdds:
    """This round's exchange odds from A's side, with A's policy overridden by `choice` and a rolled Push
    mixed in by its chance to hold (R-LTL-3, R-LTL-7, R-LTL-8, R-LTL-11)."""
    chain = chain_for(a, b, options)
    parts = [ZERO] * 5
    for da in chain.declare(0, state.a, choice):
        for db in chain.declare(1, state.b, None):
            odds = exchange(da.roll, db.roll, options).as_dict()
            for i, value in enumerate(odds.values()):
                parts[i] += da.weight * db.weight * value
    return ExchangeOdds(*parts)


def rounds_distribution(
    a: Contender,
    b: Contender,
    options: LtlOptions = DEFAULT_OPTIONS,
    *,
    limit: int = 30,
    state: DuelState | None = None,
) -> RoundsDistribution:
    """Exact P(the duel ends in round n) for n up to `limit`, and the exact mass beyond (R-LTL-12)."""
    chain = chain_for(a, b, options)
    live: dict[DuelState, Fraction] = {_normalise(state if state is not None else DuelState(a.start(), b.start())): ONE}
    ended: list[Fraction] = []
    for _ in range(limit):
        nxt: dict[DuelState, Fraction] = {}
        done = ZERO
        for st, p in live.items():
            if st.over:
                continue
            for to, q in chain.transitions(st).items():
                if to.over:
                    done += p * q
                else:
                    nxt[to] = nxt.get(to, ZERO) + p * q
        ended.append(done)
        live = nxt
    return RoundsDistribution(tuple(ended), sum(live.values(), ZERO))
