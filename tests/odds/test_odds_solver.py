"""The ordered integer solver (`odds.absorbing`) against one plain linear system over every state of a chain."""

from __future__ import annotations

from fractions import Fraction

import pytest

from herotable.dice import Rating
from herotable.odds import conflict as conflict_module
from herotable.odds.conflict import Contender, DuelState, Policy, Push, Recovery, chain_for, conflict

ZERO, ONE = Fraction(0), Fraction(1)


def _whole_system(a: Contender, b: Contender) -> tuple[Fraction, Fraction, int]:
    """P(A wins) and E[rounds] by Gauss-Jordan over every reachable running state at once, with the chain's
    one-round transitions only; and how many states lead back to a state they came from other than itself."""
    chain = chain_for(a, b)
    start = DuelState(a.start(), b.start())
    order, seen, todo = [], {start}, [start]
    while todo:
        s = todo.pop()
        order.append(s)
        for nxt in chain.transitions(s):
            if not nxt.over and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    index = {s: i for i, s in enumerate(order)}
    n = len(order)
    rows = []
    for s in order:
        row = [ZERO] * n + [ZERO, ONE]  # A wins, rounds
        row[index[s]] += ONE
        for nxt, p in chain.transitions(s).items():
            if nxt.over:
                row[n] += p if nxt.b.position <= 0 else ZERO
            else:
                row[index[nxt]] -= p
        rows.append(row)
    for col in range(n):
        pivot = next(r for r in range(col, n) if rows[r][col])
        rows[col], rows[pivot] = rows[pivot], rows[col]
        inv = ONE / rows[col][col]
        rows[col] = [x * inv for x in rows[col]]
        for r in range(n):
            if r != col and rows[r][col]:
                f = rows[r][col]
                rows[r] = [x - f * y for x, y in zip(rows[r], rows[col], strict=True)]
    back = sum(
        1 for s in order for nxt in chain.transitions(s) if nxt != s and not nxt.over and s in chain.transitions(nxt)
    )
    return rows[0][n], rows[0][n + 1], back


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (Contender(Rating(3)), Contender(Rating(4))),
        (
            Contender(Rating(3), heroism=Rating(3), policy=Policy(push=Push.ROLL)),
            Contender(Rating(3), heroism=Rating(2), policy=Policy(push=Push.ROLL)),
        ),
        (
            Contender(Rating(4), heroism=Rating(3), policy=Policy(push=Push.ROLL, recovery=Recovery.ROLL)),
            Contender(Rating(3), heroism=Rating(4), policy=Policy(broke=1)),
        ),
    ],
)
def test_ordered_integer_solve_equals_one_linear_system(a, b):
    conflict_module._chain.cache_clear()
    want_win, want_rounds, _ = _whole_system(a, b)
    conflict_module._chain.cache_clear()
    got = conflict(a, b)
    assert (got.a_wins, got.expected_rounds) == (want_win, want_rounds)


def test_a_fumbled_push_makes_states_that_lead_to_each_other():
    # the case the linear solve of a part exists for: without it the ordered solve would meet a cycle
    a = Contender(Rating(3), heroism=Rating(3), policy=Policy(push=Push.ROLL))
    b = Contender(Rating(3), heroism=Rating(2), policy=Policy(push=Push.ROLL))
    assert _whole_system(a, b)[2] > 0
