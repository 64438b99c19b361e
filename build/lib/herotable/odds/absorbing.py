"""Exact values of absorbing Markov chains whose states are solved in topological order, in integers.

A value is a vector of probabilities of the final outcomes and, last, the expected number of rounds, kept as
integer numerators over one common denominator (`IntValue`). A state's one-round steps are given over one
common denominator m: (m, m·P(stay), [(next state, m·P), ...]). Tarjan's algorithm (iterative, so deep chains
never meet Python's recursion limit) finds the strongly connected parts, each after every part it leads to; a
part of one state, whose only cycle is its own self-loop (a tie), is solved by one integer formula, and a part
of several states is handed to the caller's exact linear solve. Fractions reduce after every operation; here
each state is reduced once, by one gcd over its numerators and denominator.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from math import gcd, lcm
from typing import TypeVar

S = TypeVar("S", bound=Hashable)
IntValue = tuple[tuple[int, ...], int]
Steps = tuple[int, int, list[tuple[S, int]]]


def solve_one(state: S, steps: Callable[[S], Steps[S]], lookup: Callable[[S], IntValue]) -> IntValue:
    """V(s) = (Σ_{s′≠s} P(s→s′)·V(s′) + (0, …, 0, 1)) / (1 − P(s→s)), the last entry counting this round. With
    steps a/m and every V(s′) = N′/D′ over L = lcm(D′): V(s) = (Σ a·(L/D′)·N′ + (0, …, m·L)) / ((m − stay)·L)."""
    m, stay, out = steps(state)
    if stay >= m:
        raise ArithmeticError(f"{state} never leaves itself")
    found = [lookup(nxt) for nxt, _ in out]
    common = lcm(*(d for _, d in found))
    width = len(found[0][0]) if found else 1
    acc = [0] * width
    for (_, a), (num, d) in zip(out, found, strict=True):
        f = a * (common // d)
        for k, x in enumerate(num):
            if x:
                acc[k] += f * x
    acc[-1] += m * common
    den = (m - stay) * common
    g = gcd(den, *acc)
    return tuple(x // g for x in acc), den // g


def solve_in_order(
    root: S,
    steps: Callable[[S], Steps[S]],
    terminal: Callable[[S], IntValue | None],
    values: dict[S, IntValue],
    solve_part: Callable[[list[S]], None] | None = None,
) -> None:
    """Put into `values` every unsolved transient state reachable from `root`, each after the states it leads to.
    `terminal` gives an absorbing state's value (None for a transient one). `solve_part` solves a part of several
    states that lead to one another; without it such a part raises ArithmeticError."""

    def lookup(s: S) -> IntValue:
        done = terminal(s)
        return done if done is not None else values[s]

    def kids(s: S) -> Iterator[S]:
        for nxt, _ in steps(s)[2]:
            if nxt not in values and terminal(nxt) is None:
                yield nxt

    index: dict[S, int] = {root: 0}
    low = [0]
    stack = [root]
    on_stack = {root}
    calls = [(root, kids(root))]
    while calls:
        v, todo = calls[-1]
        for w in todo:
            if w not in index:
                index[w] = len(low)
                low.append(len(low))
                stack.append(w)
                on_stack.add(w)
                calls.append((w, kids(w)))
                break
            if w in on_stack:
                low[index[v]] = min(low[index[v]], index[w])
        else:
            calls.pop()
            iv = index[v]
            if calls:
                iu = index[calls[-1][0]]
                low[iu] = min(low[iu], low[iv])
            if low[iv] == iv:
                part = [stack.pop()]
                while part[-1] != v:
                    part.append(stack.pop())
                on_stack.difference_update(part)
                if len(part) == 1:
                    values[v] = solve_one(v, steps, lookup)
                elif solve_part is not None:
                    solve_part(part)
                else:
                    raise ArithmeticError(f"the chain has a cycle through {v}")
