"""Names people type against names on a sheet: which one a typo was meant to be (a rule-free helper, pure)."""

from __future__ import annotations

from collections.abc import Iterable


def typo_distance(a: str, b: str) -> int:
    """Edits from `a` to `b`, counting a swap of two neighbouring letters as one (optimal string alignment), without
    regard to case or spacing."""
    a, b = " ".join(a.casefold().split()), " ".join(b.casefold().split())
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        now = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            now[j] = min(row[j] + 1, now[j - 1] + 1, row[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                now[j] = min(now[j], before[j - 2] + 1)
        before, row = row, now
    return row[len(b)]


def meant(typed: str, names: Iterable[str]) -> str | None:
    """The name on the sheet `typed` is a typo of, or None: the same name (in any case) is no typo, and a name is
    within a typo's reach at one edit when the shorter of the two has at most five letters, else two."""
    best: tuple[int, str] | None = None
    for name in names:
        d = typo_distance(typed, name)
        if d == 0:
            return None
        if d <= (1 if min(len(typed.strip()), len(name)) <= 5 else 2) and (best is None or d < best[0]):
            best = (d, name)
    return best[1] if best else None
